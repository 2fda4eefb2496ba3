#!/bin/bash
# bench/watch-series.sh: cardinality and resident memory of `go-heap watch --heap-series` over
# many small Go targets (issue 36).  Not in CI.
#
# Starts N copies of tests/go/growprog (-base 1000: about 40 types and 30 roots each on go1.27,
# 1.3 MB of heap, then quiet), then runs go-heap watch --interval 1s on their PIDs three times,
# one after the other, each for DURATION seconds: the anchor (no --heap-series), `--heap-series
# types`, `--heap-series all --retained-series-interval RET` (K = --heap-series-top, default 10).
# For each run: watch's VmRSS (/proc/PID/status) every SAMPLE seconds (median, peak), and from
# the last /metrics page the number of series (sample lines) in all and of go_heap_type_*,
# go_heap_retained_bytes and go_heap_series_age_seconds, the rounds and the mean CPU of one.
# Prints a markdown table.  Everything it started is killed at the end (by PID).
#
#   bench/watch-series.sh          N=100 DURATION=60 SAMPLE=5 K=10 RET=10s
#
# Environment: top_srcdir/top_builddir as for the tests; GOHEAP_SERIES_GO (the targets'
# toolchain version, default the newest installed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
N=${N:-100}
DURATION=${DURATION:-60}
SAMPLE=${SAMPLE:-5}
K=${K:-10}
RET=${RET:-10s}
gh_real_goheap
[ -x "$GH_GOHEAP" ] || { echo "watch-series: $GH_GOHEAP is not built" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "watch-series: python3 not found" >&2; exit 1; }

GOHEAP_GO_VERSIONS=${GOHEAP_SERIES_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
[ "${#GH_GO_NAMES[@]}" -gt 0 ] || { echo "watch-series: no Go toolchain installed" >&2; exit 1; }
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
bin=$(gh_build growprog "$goname" "${GH_GO_ROOTS[$last]}" default) || exit 1

pids=()
for i in $(seq 1 "$N"); do
	if ! gh_start "$bin" -base 1000 2>"$GH_TMP/start.err"; then
		echo "watch-series: target $i: $(cat "$GH_TMP/start.err")" >&2
		exit 1
	fi
	pids+=("$GH_PID")
done
gh_can_read_mem "${pids[0]}" || { echo "watch-series: cannot read the targets' memory" >&2; exit 1; }
echo "targets: $N x growprog -base 1000 ($goname); K=$K, retained every $RET; $DURATION s per run, VmRSS every $SAMPLE s"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME ARGS...: one watch over the targets; one result line in $GH_TMP/NAME.res
run() {
	local name=$1 addr w t0 t r samples=()
	shift
	"$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 "$@" "${pids[@]}" \
		>"$GH_TMP/$name.out" 2>"$GH_TMP/$name.err" </dev/null &
	w=$!
	GH_PIDS+=("$w")
	for _ in $(seq 1 100); do
		grep -q 'listening on' "$GH_TMP/$name.err" 2>/dev/null && break
		sleep 0.1
	done
	addr=$(sed -n 's/.*listening on //p' "$GH_TMP/$name.err" | head -n 1)
	[ -n "$addr" ] || { echo "watch-series: watch ($name) did not start" >&2; exit 1; }
	t0=$(date +%s)
	t=0
	while [ "$t" -le "$DURATION" ]; do
		r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$w/status" 2>/dev/null)
		[ -n "$r" ] || { echo "watch-series: watch ($name) exited" >&2; exit 1; }
		samples+=("$r")
		sleep "$SAMPLE"
		t=$(( $(date +%s) - t0 ))
	done
	python3 - "$name" "$addr" "$N" "${samples[@]}" >"$GH_TMP/$name.res" <<'PY'
import statistics, sys, urllib.request
name, addr, n, s = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4:]]
m = urllib.request.urlopen("http://%s/metrics" % addr, timeout=60).read().decode()
lines = [l for l in m.splitlines() if l and not l.startswith("#")]
def cnt(p):
    return sum(1 for l in lines if l.startswith(p))
v = dict(l.split(" ", 1) for l in lines if l.startswith("go_heap_watch_") and "{" not in l)
rounds = float(v["go_heap_watch_scrapes_total"])
cpu = 1000 * float(v["go_heap_watch_cpu_seconds_total"]) / max(1, rounds)
print("| %s | %d | %d | %d | %d | %d | %.1f | %.1f | %d | %.0f | %s/%s |" % (
    name, len(lines), cnt("go_heap_type_bytes{") + cnt("go_heap_type_objects{"),
    cnt("go_heap_retained_bytes{"), cnt("go_heap_series_age_seconds{"),
    (len(lines) - cnt("go_heap_watch_")) // max(1, n),
    statistics.median(s) / 1024, max(s) / 1024, rounds, cpu,
    v["go_heap_watch_targets_ok"].strip(), v["go_heap_watch_targets"].strip()))
PY
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}

run anchor
run types --heap-series types --heap-series-top "$K"
run all --heap-series all --heap-series-top "$K" --retained-series-interval "$RET"
echo
echo "| run | series on /metrics | go_heap_type_* | go_heap_retained_bytes | go_heap_series_age_seconds | series per target | VmRSS median (MiB) | VmRSS peak (MiB) | rounds | CPU per round (ms) | targets ok |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cat "$GH_TMP/anchor.res" "$GH_TMP/types.res" "$GH_TMP/all.res"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
# gh_cleanup (EXIT) kills the targets, by PID.
