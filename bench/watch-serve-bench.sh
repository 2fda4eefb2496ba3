#!/bin/bash
# bench/watch-serve-bench.sh: how fast `go-heap watch` answers /metrics while a long round runs
# (the timing half of tests/run-watch.sh's "serving during a round", which checks only that
# answers come during the round: doc/watch.md, "A scrape therefore waits for at most one step").
#
# Five tests/go/noprof programs (MemProfileRate 0) under --go-heap-profiler=force, each force stop
# lengthened to DELAY_MS (default 500) by the library's test hook GOHEAP_TEST_STOP_DELAY_MS: the
# first round takes at least 5 x DELAY_MS.  /metrics is asked every 0.1 s from the exporter's
# start until the round has ended (go_heap_watch_scrapes_total > 0).  Per run: the scrapes
# answered during the round, the slowest answer, the round's wall time
# (go_heap_watch_scrape_duration_seconds); then the medians over RUNS (default 5) and the load
# average before and after.  The goal: every answer within 2 x DELAY_MS (one step and a bit),
# at least 2 answers in the round.  Needs the build tree's go-heap (the test hook).  Not in
# make check.
#
#   bench/watch-serve-bench.sh          RUNS=5 DELAY_MS=500; GOHEAP_WATCH_GO: the toolchain
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
RUNS=${RUNS:-5}
DELAY_MS=${DELAY_MS:-500}
gh_real_goheap
[ -x "$GH_GOHEAP" ] || { echo "watch-serve-bench: $GH_GOHEAP is not built" >&2; exit 1; }
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
[ "${#GH_GO_NAMES[@]}" -gt 0 ] || { echo "watch-serve-bench: no Go toolchain installed" >&2; exit 1; }
last=$((${#GH_GO_NAMES[@]} - 1))
nbin=$(gh_build noprof "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default) || exit 1
d=$GH_TMP
med() { sort -g | awk '{a[NR] = $1} END {printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR]}'; }

echo "go-heap watch, serving during a round: ${GH_GO_NAMES[$last]} targets, 5 x ${DELAY_MS} ms steps," \
	"RUNS=$RUNS, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n| run | scrapes during the round | slowest answer s | round s |\n|---:|---:|---:|---:|\n'
: >"$d/during"; : >"$d/worst"; : >"$d/round"
for r in $(seq "$RUNS"); do
	sps=()
	for _ in 1 2 3 4 5; do
		gh_start "$nbin" || exit 1
		sps+=("$GH_PID")
	done
	GOHEAP_TEST_STOP_DELAY_MS=$DELAY_MS "$GH_GOHEAP" watch --go-heap-profiler=force --interval 1s \
		--target-budget 60s --listen 127.0.0.1:0 "${sps[@]}" >"$d/slow.out" 2>"$d/slow.err" </dev/null &
	SW=$!
	GH_PIDS+=("$SW")
	slistening() { grep -q 'listening on' "$d/slow.err" 2>/dev/null; }
	gh_wait_for 10 slistening || { echo "the exporter did not start" >&2; cat "$d/slow.err" >&2; exit 1; }
	python3 - "$(sed -n 's/.*listening on //p' "$d/slow.err" | head -n 1)" >"$d/slow.scrapes" 2>&1 <<'PY'
import re, sys, time, urllib.request
addr = sys.argv[1]
t_end = time.monotonic() + 120
during, worst, dur = 0, 0.0, None
while time.monotonic() < t_end:
    t0 = time.monotonic()
    body = urllib.request.urlopen("http://%s/metrics" % addr, timeout=60).read().decode()
    dt = time.monotonic() - t0
    if int(re.search(r"^go_heap_watch_scrapes_total (\d+)$", body, re.M).group(1)) == 0:
        during += 1
        worst = max(worst, dt)
    else:
        dur = float(re.search(r"^go_heap_watch_scrape_duration_seconds ([0-9.]+)$", body, re.M).group(1))
        break
    time.sleep(0.1)
print("%d %.3f %s" % (during, worst, dur))
PY
	read -r during worst round <"$d/slow.scrapes"
	printf '| %d | %s | %s | %s |\n' "$r" "$during" "$worst" "$round"
	echo "$during" >>"$d/during"; echo "$worst" >>"$d/worst"; echo "$round" >>"$d/round"
	kill -KILL "$SW" 2>/dev/null
	gh_stop "$SW"
	for p in "${sps[@]}"; do gh_stop "$p"; done
done
printf '| median (min-max) | %s | %s | %s |\n' "$(med <"$d/during")" "$(med <"$d/worst")" "$(med <"$d/round")"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
