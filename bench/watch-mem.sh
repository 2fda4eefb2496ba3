#!/bin/bash
# bench/watch-mem.sh: the resident memory of `go-heap watch` over many frozen targets (issue 14).
#
# Starts N copies of bench/watch-target.go (about BUCKETS distinct heap profile buckets each, at
# MemProfileRate 1, then asleep: the profiles never change), runs
# `go-heap watch --interval 1s --listen 127.0.0.1:0 PID...` on them for DURATION seconds, samples
# its VmRSS (/proc/PID/status) every SAMPLE seconds and prints a table, then the median and peak,
# the median of the second half (flatness), and what the exporter's own /metrics says at the end
# (targets, targets collected ok, the last round's wall time, the bucket state's size, the mean
# CPU time of a round).  Everything it started is killed
# at the end (by PID).  Not in CI.
#
#   bench/watch-mem.sh                 N=100 BUCKETS=10000 DURATION=90 SAMPLE=5
#   GOHEAP=/path/to/go-heap bench/watch-mem.sh      another build (e.g. an older one; set
#                                                   LD_LIBRARY_PATH for its libgoheap.so)
#
# Environment: top_srcdir/top_builddir as for the tests; GOHEAP_WATCH_GO (toolchain version for
# the target, default the newest installed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
N=${N:-100}
BUCKETS=${BUCKETS:-10000}
DURATION=${DURATION:-90}
SAMPLE=${SAMPLE:-5}
if [ -z "${GOHEAP:-}" ]; then
	gh_real_goheap
	GOHEAP=$GH_GOHEAP
fi
[ -x "$GOHEAP" ] || { echo "watch-mem: $GOHEAP is not built" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "watch-mem: python3 not found" >&2; exit 1; }

# ---- the target program ---------------------------------------------------------------------
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-1.19 1.21 1.22 1.23 1.24}}
gh_toolchains >/dev/null
[ "${#GH_GO_NAMES[@]}" -gt 0 ] || { echo "watch-mem: no Go toolchain installed" >&2; exit 1; }
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
src="$here/watch-target.go"
bdir="$GH_CACHE/build/watch-target-$goname"
want=$( { sha256sum <"$src"; echo "$root"; "$root/bin/go" version; } | sha256sum | cut -d' ' -f1)
if ! [ -x "$bdir/watch-target" ] || [ "$(cat "$bdir/stamp" 2>/dev/null)" != "$want" ]; then
	mkdir -p "$bdir" && rm -f "$bdir/stamp"
	if ! (cd "$here" && gh_go "$root" build -o "$bdir/watch-target.tmp" watch-target.go) >"$bdir/build.log" 2>&1; then
		echo "watch-mem: building watch-target with $goname failed:" >&2
		sed 's/^/    | /' "$bdir/build.log" >&2
		exit 1
	fi
	mv -f "$bdir/watch-target.tmp" "$bdir/watch-target" && echo "$want" >"$bdir/stamp"
fi
bin="$bdir/watch-target"

# ---- N targets ------------------------------------------------------------------------------
pids=()
for i in $(seq 1 "$N"); do
	if ! gh_start "$bin" -n "$BUCKETS" 2>"$GH_TMP/start.err"; then
		echo "watch-mem: target $i: $(cat "$GH_TMP/start.err")" >&2
		exit 1
	fi
	pids+=("$GH_PID")
done
if ! gh_can_read_mem "${pids[0]}"; then
	echo "watch-mem: cannot read the targets' memory (ptrace is restricted)" >&2
	exit 1
fi
echo "targets: $N x $(sed -n 's/^READY [0-9]* buckets //p' "$GH_OUT") buckets ($goname), watch: $GOHEAP"

# ---- the exporter ---------------------------------------------------------------------------
"$GOHEAP" watch --interval 1s --listen 127.0.0.1:0 "${pids[@]}" \
	>"$GH_TMP/watch.out" 2>"$GH_TMP/watch.err" </dev/null &
WATCH=$!
GH_PIDS+=("$WATCH")
for _ in $(seq 1 100); do
	grep -q 'listening on' "$GH_TMP/watch.err" 2>/dev/null && break
	sleep 0.1
done
ADDR=$(sed -n 's/.*listening on //p' "$GH_TMP/watch.err" | head -n 1)
[ -n "$ADDR" ] || { echo "watch-mem: watch did not start" >&2; cat "$GH_TMP/watch.err" >&2; exit 1; }

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$WATCH/status" 2>/dev/null; }
samples=()
printf '| t (s) | watch VmRSS (KiB) |\n|---:|---:|\n'
t0=$(date +%s)
t=0
while [ "$t" -le "$DURATION" ]; do
	r=$(rss_kib)
	[ -n "$r" ] || { echo "watch-mem: watch exited" >&2; cat "$GH_TMP/watch.err" >&2; exit 1; }
	samples+=("$r")
	printf '| %d | %d |\n' "$t" "$r"
	sleep "$SAMPLE"
	t=$(( $(date +%s) - t0 ))
done
python3 - "$ADDR" "${samples[@]}" <<'PY'
import statistics, sys, urllib.request
addr, s = sys.argv[1], [int(x) for x in sys.argv[2:]]
half = s[len(s) // 2:]
print("samples %d: median %.1f MiB, peak %.1f MiB; second half: median %.1f MiB, min %.1f, max %.1f MiB"
      % (len(s), statistics.median(s) / 1024, max(s) / 1024, statistics.median(half) / 1024,
         min(half) / 1024, max(half) / 1024))
try:
    m = urllib.request.urlopen("http://%s/metrics" % addr, timeout=30).read().decode()
    want = ("go_heap_watch_targets ", "go_heap_watch_targets_ok ", "go_heap_watch_scrapes_total ",
            "go_heap_watch_scrape_duration_seconds ", "go_heap_watch_resident_memory_bytes ",
            "go_heap_watch_bucket_state_bytes ")
    print("; ".join(l for l in m.splitlines() if l.startswith(want)))
    v = dict(l.split(" ", 1) for l in m.splitlines() if l.startswith("go_heap_watch_") and "{" not in l)
    print("CPU per round (all rounds): %.1f ms" % (1000 * float(v["go_heap_watch_cpu_seconds_total"])
                                                    / max(1, float(v["go_heap_watch_scrapes_total"]))))
except Exception as e:
    print("metrics:", e)
PY
# gh_cleanup (EXIT) kills watch and the targets, by PID.
