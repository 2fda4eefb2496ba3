#!/bin/bash
# bench/run-bench.sh: go-heap against the program's own pprof.WriteHeapProfile.
#
#   bench/run-bench.sh [N ...]        default N: 1000 10000 100000
#
# For each N: build bench/heapbench.go with the newest installed toolchain, start it
# (it creates ~N buckets shaped like a real program's, see heapbench.go, and times its own
# WriteHeapProfile, median of 7), then run `go-heap -o x.pb.gz PID` RUNS times (median wall
# time, peak RSS from wait4) and print a markdown table: the whole command next to the
# in-process anchor measured in the same run, their ratio against issue 14's goal (10k:
# <= 0.5, 100k: <= 0.15), and the sum of the -v stages next to the whole command (the gap
# is start-up, mappings, writing the file and exit).  Not a test: it never fails on slow
# numbers.
#
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (toolchains to consider; the last installed one is used),
# RUNS (default 7), HEAPBENCH_FLAGS (e.g. -keeprate).
#
# Per N it also prints the stage split (open / read / walk / symbolize / encode / compress,
# medians of RUNS `go-heap -v` runs; "compress" is what compression adds to the command:
# it runs on a second thread while encoding) and the read floor: bench/readfloor (built here with
# `make bench/readfloor`) times reading exactly the bucket bytes once more (RUNS times,
# median), and the ratio of go-heap's read stage to it (issue 2's goal: <= 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
# An uninstalled build's src/go-heap is libtool's shell wrapper, whose own
# start-up (~10 ms of shell) is not go-heap's: time the real binary.
if [ -x "$top_builddir/src/.libs/go-heap" ] && head -c 2 "$GH_GOHEAP" 2>/dev/null | grep -q '#!'; then
	export LD_LIBRARY_PATH="$top_builddir/src/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	GH_GOHEAP="$top_builddir/src/.libs/go-heap"
fi
RUNS=${RUNS:-7}
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(1000 10000 100000)

if ! gh_have_goheap; then
	echo "run-bench: $GH_GOHEAP is not built (autoreconf -fi && ./configure && make)" >&2
	exit 1
fi
gh_toolchains >/dev/null
if [ ${#GH_GO_NAMES[@]} -eq 0 ]; then
	echo "run-bench: no Go toolchain installed" >&2
	exit 1
fi
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
bin=$(gh_build heapbench "$goname" "${GH_GO_ROOTS[$last]}" default) || exit 1

# timeit RUNS CMD...: run CMD RUNS times; print "median_ms min_ms max_ms peak_rss_kb status".
timeit() {
	python3 - "$@" <<'PY'
import os, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
ts, rss, status = [], 0, 0
for _ in range(runs):
    # posix_spawn, as a shell starts a command: Popen's own work in the
    # child (closing descriptors, ~1 ms at 10k buckets) is not go-heap's.
    t0 = time.perf_counter()
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, st, ru = os.wait4(pid, 0)
    ts.append((time.perf_counter() - t0) * 1000)
    rss = max(rss, ru.ru_maxrss)
    status = status or os.waitstatus_to_exitcode(st)
ts.sort()
print(f"{ts[len(ts)//2]:.2f} {ts[0]:.2f} {ts[-1]:.2f} {rss} {status}")
PY
}

# The read floor program; the split degrades to no floor if it cannot be built.
floor_bin="$top_builddir/bench/readfloor"
if ! make -s -C "$top_builddir" bench/readfloor >"$GH_TMP/readfloor.log" 2>&1; then
	echo "run-bench: bench/readfloor not built (see $GH_TMP/readfloor.log); no read floor" >&2
	floor_bin=
fi

# stage_split PID: medians of RUNS `go-heap -v` stage timings, and the read floor.
stage_split() {
	local pid=$1 i floor=""
	for ((i = 0; i < RUNS; i++)); do
		"$GH_GOHEAP" -v -o "$GH_TMP/v.pb.gz" "$pid" 2>&1 >/dev/null | grep -E '^go-heap: open '
	done >"$GH_TMP/stages"
	[ -n "$floor_bin" ] && floor=$("$floor_bin" -r "$RUNS" "$pid" 2>&1)
	python3 - "$GH_TMP/stages" "$floor" <<'PY'
import re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
floor = sys.argv[2].split()
if not lines:
    print("    (no -v timings)")
    sys.exit(0)
stages = ["open", "read", "walk", "symbolize", "encode", "compress"]
med = {}
for st in stages:
    v = [float(m.group(1)) for m in (re.search(r"\b%s ([0-9.]+) ms" % st, l) for l in lines) if m]
    med[st] = statistics.median(v) if v else float("nan")
m = re.search(r"\((\d+) calls, (\d+) bytes; bucket bytes (\d+)\)", lines[-1])
calls, nbytes, bbytes = (int(x) for x in m.groups()) if m else (0, 0, 0)
print("    " + ", ".join("%s %.2f ms" % (st, med[st]) for st in stages) +
      " (medians of %d runs)" % len(lines))
print("    SUM %.2f" % sum(med[st] for st in stages))
print("    read: %d process_vm_readv calls, %.1f MB for %.1f MB of bucket bytes (%.2fx)" %
      (calls, nbytes / 1e6, bbytes / 1e6, nbytes / bbytes if bbytes else 0))
if len(floor) >= 18 and floor[0] == "floor_ms":
    f = float(floor[1])
    print("    read floor (bench/readfloor: the bucket bytes once, touching ranges merged): "
          "%.2f ms (%s-%s), %s ranges in %s calls; go-heap read / floor = %.2f (goal <= 2: %s)" %
          (f, floor[2], floor[3], floor[9], floor[11], med["read"] / f,
           "met" if med["read"] <= 2 * f else "not met"))
    print("    one iovec per bucket instead (%s buckets, %s calls): %s ms" %
          (floor[5], floor[17], floor[13]))
elif floor:
    print("    read floor: " + " ".join(floor))
PY
}

rows=()
for n in "${NS[@]}"; do
	if ! gh_start "$bin" -n "$n" ${HEAPBENCH_FLAGS:-}; then
		echo "run-bench: heapbench -n $n did not start" >&2
		continue
	fi
	pid=$GH_PID
	buckets=$(awk '$1 == "buckets" { print $2 }' "$GH_OUT")
	stacks=$(awk '$1 == "stacks" { print $2 }' "$GH_OUT")
	read -r in_med in_min in_max < <(awk '$1 == "inproc_ms" { print $2, $3, $4 }' "$GH_OUT")
	read -r gh_med gh_min gh_max rss st < <(timeit "$RUNS" "$GH_GOHEAP" -o "$GH_TMP/x.pb.gz" "$pid")
	ratio=$(awk -v a="$gh_med" -v b="$in_med" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	case $n in
	10000) goal=0.5 ;;
	100000) goal=0.15 ;;
	*) goal= ;;
	esac
	if [ -n "$goal" ]; then
		goal=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { printf "%s (%s)", g, (r != "-" && r + 0 <= g + 0) ? "met" : "not met" }')
	else
		goal=-
	fi
	note=""
	[ "$st" = 0 ] || note=" (go-heap exit $st)"
	split=$(stage_split "$pid")
	sum=$(printf '%s\n' "$split" | awk '$1 == "SUM" { print $2 }')
	[ -n "$split" ] && splits+="N=$n"$'\n'"$(printf '%s\n' "$split" | grep -v '^    SUM ')"$'\n'
	rows+=("| $n | $buckets | ${stacks:--} | $in_med ($in_min-$in_max) | $gh_med ($gh_min-$gh_max) | $ratio | $goal | ${sum:--} | $((rss / 1024)) MiB |$note")
	gh_stop "$pid"
done

echo
echo "go-heap $("$GH_GOHEAP" --version 2>/dev/null | head -n 1), target $goname, $RUNS runs each, $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| N | buckets | stacks | in-process WriteHeapProfile ms (min-max) | go-heap -o x.pb.gz ms (min-max) | go-heap / in-process | goal | stage sum ms | go-heap peak RSS |"
echo "|---:|---:|---:|---:|---:|---:|---|---:|---:|"
printf '%s\n' "${rows[@]+"${rows[@]}"}"
if [ -n "${splits:-}" ]; then
	echo
	echo "Stages (go-heap -v):"
	printf '%s' "$splits"
fi
