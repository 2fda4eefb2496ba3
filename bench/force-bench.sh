#!/bin/bash
# bench/force-bench.sh: how long does the target stand still for `go-heap --force`, compared
# with the manual alternative `gdb -p PID -batch -ex 'set var runtime.MemProfileRate=524288'`?
#
#   bench/force-bench.sh              RUNS (default 7) runs, THREADS (default 50) extra threads
#
# The target's own view (issue 6): tests/go/forceprog -gap runs a goroutine locked to its thread
# that reads the clock in a tight loop and keeps the longest gap between two reads; SIGUSR2
# resets it, SIGUSR1 reports it and writes every gap over 50 us with its CLOCK_MONOTONIC
# interval (-gapfile).  Each run starts a fresh target (rate 0, THREADS extra threads from
# runtime.LockOSThread parked on a channel, one allocating goroutine), lets it settle for a
# second, then measures four windows in a row, each as reset -> command -> report:
#   baseline   `go-heap --force --dry-run PID`: the same process start and reads, no stop;
#              the noise floor of this machine;
#   go-heap    `go-heap --force -v -v PID`, which prints its stop's CLOCK_MONOTONIC interval
#              (first thread interrupted .. last detached): "gap during the stop" is the
#              longest gap overlapping it, "whole call" the longest over the whole command
#              (which includes go-heap's own start, competing for the CPUs);
#   no-RT      the same with GOHEAP_STOP_NO_RT=1 (go-heap does not raise itself to
#              SCHED_FIFO for the stop), on a fresh target, to measure what that step buys;
#   gdb        `gdb -p PID -batch -ex "set var 'runtime.MemProfileRate'=524288"` (the quotes
#              are needed: gdb does not parse the dotted Go name otherwise), on the no-RT
#              target (whose rate is then already set: gdb's stop does not depend on it).
# Prints a markdown table of medians (min-max).  The issue's goal: go-heap's gap < 2 ms and at
# least 100x shorter than gdb's.  Not a test: it never fails on slow numbers.
#
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the last installed one is used), RUNS, THREADS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/bench/lib.sh"
gh_init
RUNS=${RUNS:-7}
THREADS=${THREADS:-50}

die() { echo "force-bench: $*" >&2; exit 1; }
gh_have_goheap || die "$GH_GOHEAP is not built"
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || die "no Go toolchain installed"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
bin=$(gh_build forceprog "$goname" "${GH_GO_ROOTS[$last]}" default) || exit 1
have_gdb=0
command -v gdb >/dev/null && have_gdb=1


base=() whole=() own=() stop=() nort=() nortstop=() gdbg=()


# force_window PID OUT [ENV...]: one `go-heap --force -v -v` window under env ENV...;
# prints "GAP_DURING_STOP_US WHOLE_CALL_US STOP_MS".
force_window() {
	local pid=$1 out=$2 w
	shift 2
	w=$(window "$pid" "$out" env "$@" "$GH_GOHEAP" --force -v -v "$pid")
	grep -q '0 -> 524288' "$GH_TMP/cmd.out" || die "go-heap --force failed: $(cat "$GH_TMP/cmd.err")"
	echo "$(stop_gap "$GH_TMP/gaps" "$GH_TMP/cmd.err") $w $(sed -n 's/.*for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/cmd.err")"
}

start_target() {
	gh_start "$bin" -threads "$THREADS" -gap -gapfile "$GH_TMP/gaps" -workers 1 -pause 1ms ||
		die "forceprog did not start"
	sleep 1
}

for r in $(seq "$RUNS"); do
	start_target
	pid=$GH_PID
	out=$GH_OUT
	base+=("$(window "$pid" "$out" "$GH_GOHEAP" --force --dry-run "$pid")")
	read -r g w st <<<"$(force_window "$pid" "$out")"
	own+=("$g") whole+=("$w") stop+=("$st")
	gh_stop "$pid"

	start_target
	pid=$GH_PID
	out=$GH_OUT
	read -r g w st <<<"$(force_window "$pid" "$out" GOHEAP_STOP_NO_RT=1)"
	nort+=("$g") nortstop+=("$st")
	if [ "$have_gdb" = 1 ]; then
		gdbg+=("$(window "$pid" "$out" gdb -nx -batch -iex 'set auto-load no' -p "$pid" \
			-ex "set var 'runtime.MemProfileRate'=524288")")
	fi
	gh_stop "$pid"
	echo "run $r: baseline ${base[-1]} us; go-heap: during the stop ${own[-1]} us, whole call ${whole[-1]} us, stop ${stop[-1]} ms; no-RT: during the stop ${nort[-1]} us, stop ${nortstop[-1]} ms; gdb ${gdbg[-1]:-n/a} us" >&2
done

# stats V...: "median (min-max)" in ms, from microseconds (or ms with -ms).
stats_us() {
	python3 - "$@" <<'PY'
import sys
args = sys.argv[1:]
scale = 1.0
if args and args[0] == "-ms":
    args, scale = args[1:], 1000.0
v = sorted(float(a) * scale for a in args if a)
if not v:
    print("n/a")
else:
    print(f"{v[len(v)//2]/1000:.2f} ({v[0]/1000:.2f}-{v[-1]/1000:.2f})")
PY
}

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cpus=$(nproc)
echo
echo "forceprog ($goname), $THREADS extra threads + runtime threads, $RUNS runs, $cpus CPUs;"
echo "longest scheduling gap seen by the target, ms: median (min-max)"
echo
echo "| window | longest gap | go-heap's stop (first interrupt .. last detach) |"
echo "|---|---|---|"
echo "| baseline (\`--force --dry-run\`, no stop) | $(stats_us "${base[@]}") | |"
echo "| \`go-heap --force\`, gap during the stop | $(stats_us "${own[@]}") | $(stats_us -ms "${stop[@]}") |"
echo "| \`go-heap --force\`, whole call | $(stats_us "${whole[@]}") | |"
echo "| \`go-heap --force\` without SCHED_FIFO, gap during the stop | $(stats_us "${nort[@]}") | $(stats_us -ms "${nortstop[@]}") |"
if [ "$have_gdb" = 1 ]; then
	echo "| \`gdb -p PID -batch -ex 'set var ...'\` | $(stats_us "${gdbg[@]}") | |"
	mf=$(median "${own[@]}")
	mw=$(median "${whole[@]}")
	mg=$(median "${gdbg[@]}")
	echo
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "n/a" }'; }
	echo "gdb / go-heap (medians): $(ratio "$mg" "$mf") against the gap during the stop, $(ratio "$mg" "$mw") against the whole call"
else
	echo "| gdb | not installed | |"
fi
