#!/bin/bash
# bench/watch-gometrics.sh: what --go-metrics costs per target in go-heap watch's collection.
#
# Targets: tests/go/gometricsprog (newest toolchain) and Debian's prometheus (go1.19, a real
# service).  go-heap watch --interval 200ms runs ROUNDS_S seconds (default 8) in each mode, off,
# running, stop, the modes interleaved REPS times (default 3); /metrics is read every 0.1 s and
# each new round's go_heap_watch_target_collect_seconds per target is kept (the heap profile plus,
# unless off, the Go collector's numbers).  Prints the median per mode and target and the ratio
# to off (the anchor, measured in the same run).
#   top_builddir=build bench/watch-gometrics.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
gh_init
gh_toolchains
d=$GH_TMP
ROUNDS_S=${ROUNDS_S:-8}
REPS=${REPS:-3}
last=$(( ${#GH_GO_NAMES[@]} - 1 ))
bin=$(gh_build gometricsprog "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default) || exit 1
mkfifo "$d/fifo"
exec 7<>"$d/fifo"
gh_start "$bin" "$d/fifo" || exit 1
G=$GH_PID
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$d/prom.yml"
prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/data" \
	--web.listen-address=127.0.0.1:0 >"$d/prom.log" 2>&1 </dev/null &
P=$!
GH_PIDS+=("$P")
sleep 3
for rep in $(seq "$REPS"); do
	for mode in off running stop; do
		"$GH_GOHEAP" watch --listen 127.0.0.1:0 --interval 200ms --go-metrics "$mode" "$G" "$P" \
			>/dev/null 2>"$d/w.err" </dev/null &
		W=$!
		sleep 0.5
		addr=$(sed -n 's/.*listening on //p' "$d/w.err" | head -n 1)
		python3 - "$addr" "$ROUNDS_S" "$mode" "$G" "$P" >>"$d/samples" <<'PY'
import re, sys, time, urllib.request
addr, secs, mode, g, p = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
seen = {}
end = time.time() + secs
while time.time() < end:
    try:
        body = urllib.request.urlopen("http://%s/metrics" % addr, timeout=5).read().decode()
    except Exception:
        time.sleep(0.1)
        continue
    m = re.search(r'^go_heap_watch_scrapes_total (\d+)', body, re.M)
    rnd = int(m.group(1)) if m else 0
    for pid, name in ((g, "gometricsprog"), (p, "prometheus")):
        m = re.search(r'^go_heap_watch_target_collect_seconds\{pid="%s"[^}]*\} (\S+)' % pid, body, re.M)
        if m and rnd > 1 and (pid, rnd) not in seen:
            seen[(pid, rnd)] = 1
            print(mode, name, m.group(1))
    time.sleep(0.1)
PY
		kill "$W"
		wait "$W" 2>/dev/null
	done
done
python3 - "$d/samples" <<'PY'
import sys, statistics
s = {}
for l in open(sys.argv[1]):
    mode, name, v = l.split()
    s.setdefault((name, mode), []).append(float(v) * 1000)
print("| target | mode | rounds | median ms | min-max ms | / off |")
print("|---|---|---:|---:|---|---:|")
for name in ("gometricsprog", "prometheus"):
    base = statistics.median(s[(name, "off")])
    for mode in ("off", "running", "stop"):
        v = s.get((name, mode), [])
        if not v:
            continue
        med = statistics.median(v)
        print("| %s | %s | %d | %.3f | %.3f-%.3f | %.2f |" % (name, mode, len(v), med, min(v), max(v), med / base))
PY
