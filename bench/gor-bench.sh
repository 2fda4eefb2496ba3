#!/bin/bash
# bench/gor-bench.sh: the goroutine profile read from outside vs the program's own (issue 13).
#
#   bench/gor-bench.sh            RUNS (default 5) runs at each of NS (default "10000 100000")
#
# Target: bench/gorbench.go (N goroutines parked on channels, select, Mutex, Cond, Sleep,
# WaitGroup; a scheduling-gap monitor on its own locked thread, as tests/go/forceprog -gap).
# For each N one target is started and, RUNS times, four windows are measured in a row:
#   stop      `go-heap -v -p goroutine -f text PID` (the default: read running, stop, re-read
#             what changed, resume): the longest gap the target saw overlapping the stop's
#             interval (-v prints it), the stop itself (first interrupt .. last detach), the
#             whole command's wall time and peak RSS (/usr/bin/time);
#   no-stop   `go-heap --no-stop -p goroutine -f text PID`: the longest gap over the whole
#             command (nothing is stopped: this is the machine's noise floor), wall time, RSS;
#   in-process  SIGHUP: the target times its own pprof.Lookup("goroutine").WriteTo(w, 1), the
#             longest gap during it (its stop-the-world pauses, as the monitor feels them) and
#             the STW pauses the runtime counted meanwhile (runtime/metrics
#             /sched/pauses/total/other:seconds: count, largest bucket's upper bound).
# Prints a markdown table of medians (min-max) and the ratios.  Not a test: it never fails on
# slow numbers.  The load average is printed: the figures need a quiet machine.
#
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the last installed one is used), RUNS, NS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
RUNS=${RUNS:-5}
NS=${NS:-"10000 100000"}

die() { echo "gor-bench: $*" >&2; exit 1; }
gh_have_goheap || die "$GH_GOHEAP is not built"
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || die "no Go toolchain installed"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
bin="$GH_TMP/gorbench"
(cd "$top_srcdir/bench" && gh_go "$root" build -o "$bin" gorbench.go) >"$GH_TMP/build.log" 2>&1 ||
	die "building gorbench: $(cat "$GH_TMP/build.log")"
TIME=/usr/bin/time
[ -x "$TIME" ] || die "/usr/bin/time is needed (peak RSS)"

# wait_line OUT PREFIX N: wait until OUT holds more than N lines starting with PREFIX.
wait_line() {
	local i
	for i in $(seq 600); do
		[ "$(grep -c "^$2" "$1")" -gt "$3" ] && return 0
		sleep 0.01
	done
	return 1
}

# window PID OUT CMD...: reset the gap, run CMD (stdout discarded, stderr to cmd.err, /usr/bin/time
# to cmd.time), report; prints the longest gap in microseconds.
window() {
	local pid=$1 out=$2 n
	shift 2
	n=$(grep -c '^RESET' "$out")
	kill -USR2 "$pid"
	wait_line "$out" RESET "$n"
	"$TIME" -f '%e %M' -o "$GH_TMP/cmd.time" "$@" >/dev/null 2>"$GH_TMP/cmd.err" </dev/null
	n=$(grep -c '^STATUS' "$out")
	kill -USR1 "$pid"
	wait_line "$out" STATUS "$n"
	grep '^STATUS' "$out" | tail -n 1 | sed -n 's/.*maxgap_us=\([0-9]*\).*/\1/p'
}

# stop_gap GAPFILE ERRFILE: the longest gap (us) overlapping the stop go-heap -v reported.
stop_gap() {
	local iv
	iv=$(sed -n 's/.*the stop ran from \([0-9]*\) to \([0-9]*\) ns.*/\1 \2/p' "$2")
	[ -n "$iv" ] || { echo ""; return; }
	awk -v iv="$iv" 'BEGIN { split(iv, a, " "); m = 0 }
		$1 == "gap" && $3 >= a[1] && $2 <= a[2] && $3 - $2 > m { m = $3 - $2 }
		END { printf "%d\n", m / 1000 }' "$1"
}

stats() {
	python3 - "$@" <<'PY'
import sys
v = sorted(float(a) for a in sys.argv[1:] if a)
if not v:
    print("n/a")
else:
    print(f"{v[len(v)//2]:.2f} ({v[0]:.2f}-{v[-1]:.2f})")
PY
}
median() { printf '%s\n' "$@" | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
report=()
for N in $NS; do
	gh_start "$bin" -n "$N" -gapfile "$GH_TMP/gaps" || die "gorbench -n $N did not start"
	pid=$GH_PID
	out=$GH_OUT
	sleep 1
	sgap=() sstop=() swall=() srss=() rew=() ngap=() nwall=() nrss=() itot=() igap=() istw=() istwn=()
	for r in $(seq "$RUNS"); do
		g=$(window "$pid" "$out" "$GH_GOHEAP" -v -p goroutine -f text "$pid")
		grep -q 'goroutine snapshot: the target was stopped' "$GH_TMP/cmd.err" ||
			die "go-heap failed: $(tail -n 3 "$GH_TMP/cmd.err")"
		sgap+=("$(awk '{ printf "%.3f", $1 / 1000 }' <<<"$(stop_gap "$GH_TMP/gaps" "$GH_TMP/cmd.err")")")
		sstop+=("$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/cmd.err")")
		rew+=("$(sed -n 's/.*; \([0-9]*\) of [0-9]* goroutines re-read.*/\1/p' "$GH_TMP/cmd.err")")
		read -r wall rss <"$GH_TMP/cmd.time"
		swall+=("$(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }')") srss+=("$((rss / 1024))")
		g=$(window "$pid" "$out" "$GH_GOHEAP" --no-stop -p goroutine -f text "$pid")
		ngap+=("$(awk -v g="$g" 'BEGIN { printf "%.3f", g / 1000 }')")
		read -r wall rss <"$GH_TMP/cmd.time"
		nwall+=("$(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }')") nrss+=("$((rss / 1024))")
		n=$(grep -c '^INPROC' "$out")
		kill -HUP "$pid"
		wait_line "$out" INPROC "$n" || die "no INPROC line"
		l=$(grep '^INPROC' "$out" | tail -n 1)
		itot+=("$(sed -n 's/.*total_ms=\([0-9.]*\).*/\1/p' <<<"$l")")
		igap+=("$(sed -n 's/.*maxgap_us=\([0-9]*\).*/\1/p' <<<"$l" | awk '{ printf "%.3f", $1 / 1000 }')")
		istw+=("$(sed -n 's/.*stw_max_us=\([0-9.]*\).*/\1/p' <<<"$l" | awk '{ printf "%.3f", $1 / 1000 }')")
		istwn+=("$(sed -n 's/.*stw_n=\([0-9]*\).*/\1/p' <<<"$l")")
		echo "N=$N run $r: stop: gap ${sgap[-1]} ms, stop ${sstop[-1]} ms, re-read ${rew[-1]}, wall ${swall[-1]} ms, rss ${srss[-1]} MiB; no-stop: gap ${ngap[-1]} ms, wall ${nwall[-1]} ms; in-process: total ${itot[-1]} ms, gap ${igap[-1]} ms, STW max ${istw[-1]} ms (${istwn[-1]})" >&2
	done
	gh_stop "$pid"
	report+=("| $N | go-heap (stop) | $(stats "${sgap[@]}") | $(stats "${sstop[@]}") | $(stats "${swall[@]}") | $(stats "${srss[@]}") |")
	report+=("| $N | go-heap --no-stop | $(stats "${ngap[@]}") (whole call) | - | $(stats "${nwall[@]}") | $(stats "${nrss[@]}") |")
	report+=("| $N | in-process WriteTo(w, 1) | $(stats "${igap[@]}") | STW max $(stats "${istw[@]}"), $(median "${istwn[@]}") pauses | $(stats "${itot[@]}") | |")
	report+=("| $N | ratios (medians) | stop gap / in-process gap $(ratio "$(median "${sgap[@]}")" "$(median "${igap[@]}")") | stop / in-process STW max $(ratio "$(median "${sstop[@]}")" "$(median "${istw[@]}")") | go-heap / in-process total $(ratio "$(median "${swall[@]}")" "$(median "${itot[@]}")") | re-read while stopped: $(median "${rew[@]}") |")
done
echo
echo "gorbench ($goname), $RUNS runs, $(nproc) CPUs, load average before $load0, after $(cut -d' ' -f1-3 /proc/loadavg);"
echo "medians (min-max)"
echo
echo "| goroutines | what | longest gap the target saw, ms | stop / STW, ms | total, ms | peak RSS, MiB |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${report[@]}"
