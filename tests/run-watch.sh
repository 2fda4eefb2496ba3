#!/bin/bash
# tests/run-watch.sh: `go-heap watch` against live Go programs, scraped by a real Prometheus.
#
#   - build tests/go/watchprog (a steady allocator: -rate bytes/s, MemProfileRate 4096, a GC every
#     250 ms) and tests/go/heapprog with the newest installed toolchain; start two watchprogs
#     (4 MiB/s and 1 MiB/s) and one heapprog (whose profile is still after READY);
#   - start `go-heap watch --interval 1s --listen 127.0.0.1:0 --output-dir D --output-max-bytes N`
#     (every Go process on the host: the discovery path) and wait for its address;
#   - /metrics: container_go_alloc_bytes_total etc. for each program, exporter health metrics;
#   - Prometheus (Debian package `prometheus`) on loopback with a generated config (scrape
#     interval 1s, temporary storage) scrapes /metrics; its HTTP query API shows
#     container_go_alloc_bytes_total increasing, at a rate() above 0 and at most 3 times each
#     watchprog's pace (how close depends on the CPU it got: printed);
#   - /pprof/PID/heap == `go-heap -o X.pb.gz PID` (tests/compare.sh pprof), for heapprog;
#     `go tool pprof -raw http://.../pprof/PID/heap` works and prints the same as
#     `go tool pprof -raw` of the CLI's file; ?debug=1 == `go-heap -f text`;
#   - /pprof/PID/allocs?seconds=2: a delta profile (application/octet-stream, Content-Disposition
#     "allocs-delta") whose alloc_space is above 0 and below the cumulative allocs profile's
#     after it, and whose duration (DurationNanos, per go tool pprof -raw) is at least 2 s;
#   - --go-heap-profiler: the default (enabled) leaves tests/go/noprof (MemProfileRate 0) alone and
#     reports it as profiling-disabled; a second exporter with =force and its PID enables
#     profiling once and collects it;
#   - serving does not wait for collection: with 5 targets whose collection takes 0.5 s each (force
#     mode's stop lengthened to 4 s by the GOHEAP_TEST_STOP_DELAY_MS hook), GET /metrics is answered
#     during the first round (>= 20 s; how fast: bench/watch-serve-bench.sh);
#   - --target-budget 1ms: heapprog (several ms to collect) is stopped at the limit (not an
#     error) and backed off, watchprog still served;
#   - a watchprog that exits is dropped (its series leave /metrics, /pprof/PID/heap is 404) and
#     one started later is picked up;
#   - --output-dir holds PID-COMM-TIME.pb.gz delta profiles within the size cap;
#   - bad requests (garbage, POST, oversized, unknown profile) get 4xx and the exporter lives on;
#   - idle clients do not stop scrapes: with 1000 connections held open (half of them having sent
#     part of a request line), GET /metrics and GET /pprof/PID/heap each answer 200 (times printed),
#     and /metrics reports them (go_heap_watch_connections, go_heap_watch_connection_memory_bytes);
#     a second exporter whose descriptor limit caps it at 144 connections closes the connection
#     idle longest for a new one (evictions counted) and still answers;
#   - /pprof/PID/goroutine: ?debug=1 == go-heap -p goroutine -f text, ?debug=2 == -f traceback,
#     the proto served, ?seconds=N 400;
#   - SIGTERM ends it with status 0.
# Every wait is bounded, generously (a loaded machine must pass: scripts/test.sh --load); no
# check judges a duration (bench/ measures them); everything listens on 127.0.0.1 only.
# Environment: as tests/run-live.sh; GOHEAP_WATCH_GO (toolchain, default the newest installed).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"

gh_need_python
if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
if [ "${#GH_GO_NAMES[@]}" -eq 0 ]; then
	gh_skip "all: no Go toolchain installed"
	gh_summary
fi
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
GO="$root/bin/go"
d="$GH_TMP/watch"
mkdir -p "$d"

# http URL OUTFILE: GET with a 30 s timeout; prints "STATUS CONTENT-TYPE [DISPOSITION]".
http() {
	python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
url, out = sys.argv[1], sys.argv[2]
try:
    r = urllib.request.urlopen(url, timeout=30)
    code, h, body = r.status, r.headers, r.read()
except urllib.error.HTTPError as e:
    code, h, body = e.code, e.headers, e.read()
except Exception as e:
    print("000 error", e); sys.exit(0)
open(out, "wb").write(body)
print(code, h.get("Content-Type", ""), h.get("Content-Disposition", ""))
PY
}

# raw HOST PORT BYTES: send BYTES (printf format) on a raw connection, print the status line.
raw() {
	python3 - "$1" "$2" "$3" <<'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
try:
    s.sendall(sys.argv[3].encode().decode("unicode_escape").encode("latin-1"))
except OSError:
    pass
try:
    print(s.recv(200).split(b"\r\n")[0].decode())
except OSError as e:
    print("error", e)
PY
}

# flood HOST PORT NCONN PATH...: hold NCONN connections open (the odd ones having sent half a
# request line), then GET each PATH on a new connection, timed from connect to the end of the
# body; print "PATH STATUS SECONDS" for each and the body of the first in flood.body; close all.
# Bounded: NCONN connections with 60 s timeouts, the whole at most 300 s (generous: a loaded
# machine; the answers' times are printed, not judged: bench/watch-mem.sh measures them).
flood() {
	python3 - "$@" "$d/flood.body" <<'PY'
import resource, socket, sys, time
host, port, n, paths, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:-1], sys.argv[-1]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft != resource.RLIM_INFINITY and soft < n + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(n + 64, hard) if hard != resource.RLIM_INFINITY else n + 64, hard))
t_end = time.monotonic() + 300
held = []
try:
    for i in range(n):
        if time.monotonic() > t_end:
            break
        s = socket.create_connection((host, port), timeout=60)
        if i % 2:
            s.sendall(b"GET /metrics HT")
        held.append(s)
    print("held %d" % len(held))
    time.sleep(0.5)  # let the exporter accept them all
    for k, path in enumerate(paths):
        t0 = time.monotonic()
        status, body = "000", b""
        try:
            s = socket.create_connection((host, port), timeout=60)
            s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
            while time.monotonic() < t_end:
                b = s.recv(65536)
                if not b:
                    break
                body += b
            s.close()
            status = body.split(b" ", 2)[1].decode() if body.startswith(b"HTTP/1.") else "000"
        except OSError as e:
            status = "000(%s)" % e
        print("%s %s %.3f" % (path, status, time.monotonic() - t0))
        if k == 0:
            open(out, "wb").write(body.partition(b"\r\n\r\n")[2])
finally:
    for s in held:
        s.close()
PY
}

metrics_has() { http "http://$ADDR/metrics" "$d/m.txt" >/dev/null && grep -q "$1" "$d/m.txt"; }
metrics_lacks() { http "http://$ADDR/metrics" "$d/m.txt" >/dev/null && ! grep -q "$1" "$d/m.txt"; }

# ---- programs ----------------------------------------------------------------------------------
if ! wbin=$(gh_build watchprog "$goname" "$root" default 2>"$GH_TMP/build.err") ||
	! hbin=$(gh_build heapprog "$goname" "$root" default 2>>"$GH_TMP/build.err"); then
	gh_fail "$goname: build watchprog/heapprog"
	gh_show "$GH_TMP/build.err" 20
	gh_summary
fi
gh_start "$wbin" -rate 4194304 2>"$GH_TMP/start.err" || { gh_fail "watchprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
W1=$GH_PID
gh_start "$wbin" -rate 1048576 2>"$GH_TMP/start.err" || { gh_fail "watchprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
W2=$GH_PID
gh_start "$hbin" -out "$d/hp" 2>"$GH_TMP/start.err" || { gh_fail "heapprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
HP=$GH_PID
if ! gh_can_read_mem "$W1"; then
	gh_skip "all: cannot read the targets' memory (ptrace is restricted)"
	gh_summary
fi

# ---- the exporter ------------------------------------------------------------------------------
CAP=60000
"$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 --output-dir "$d/out" \
	--output-max-bytes "$CAP" --target-budget 60s -v >"$d/watch.out" 2>"$d/watch.err" </dev/null &
WATCH=$!
GH_PIDS+=("$WATCH")
listening() { grep -q 'listening on' "$d/watch.err" 2>/dev/null; }
if ! gh_wait_for 10 listening; then
	gh_fail "watch: no 'listening on' line within $((10 * ${GOHEAP_WAIT_SCALE:-6})) s"
	gh_show "$d/watch.err" 10
	gh_summary
fi
ADDR=$(sed -n 's/.*listening on //p' "$d/watch.err" | head -n 1)
HOST=${ADDR%:*}
PORT=${ADDR##*:}
gh_pass "watch: listening on $ADDR"

for p in "$W1" "$W2" "$HP"; do
	if gh_wait_for 20 metrics_has "container_go_alloc_bytes_total{pid=\"$p\""; then
		gh_pass "metrics: container_go_alloc_bytes_total for pid $p ($(grep -o "comm=\"[^\"]*\"" <<<"$(grep "pid=\"$p\"" "$d/m.txt" | head -n 1)"))"
	else
		gh_fail "metrics: no series for pid $p within $((20 * ${GOHEAP_WAIT_SCALE:-6})) s"
		gh_show "$d/m.txt" 10
		gh_show "$d/watch.err" 10
	fi
done
miss=
for m in container_go_alloc_objects_total container_go_inuse_bytes container_go_inuse_objects \
	go_heap_watch_scrape_duration_seconds go_heap_watch_scrape_errors_total go_heap_watch_targets \
	go_heap_watch_cpu_seconds_total go_heap_watch_resident_memory_bytes; do
	grep -q "^# TYPE $m " "$d/m.txt" || miss="$miss $m"
done
if [ -z "$miss" ]; then
	gh_pass "metrics: in-use gauges and exporter health metrics present"
else
	gh_fail "metrics: missing:$miss"
fi
if python3 - "$d/m.txt" <<'PY'
import re, sys
ok = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? -?[0-9.]+(e[+-][0-9]+)?$')
bad = [l for l in open(sys.argv[1]) if not l.startswith("#") and l.strip() and not ok.match(l.rstrip("\n"))]
if bad:
    print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
PY
then
	gh_pass "metrics: every sample line is valid exposition syntax"
else
	gh_fail "metrics: malformed sample lines"
fi

# ---- pprof endpoints ---------------------------------------------------------------------------
st=$(http "http://$ADDR/pprof/$HP/heap" "$d/http.heap.pb.gz")
"$GH_GOHEAP" -o "$d/cli.heap.pb.gz" "$HP" 2>"$d/cli.err"
case $st in
"200 application/octet-stream"*)
	if "$CMP" pprof "$d/cli.heap.pb.gz" "$d/http.heap.pb.gz" >"$d/cmp.log" 2>&1; then
		gh_pass "pprof: /pprof/$HP/heap == go-heap -o ($(head -n 1 "$d/cmp.log"))"
	else
		gh_fail "pprof: /pprof/$HP/heap differs from the CLI's profile"
		gh_show "$d/cmp.log" 20
	fi ;;
*) gh_fail "pprof: /pprof/$HP/heap answered '$st'" ;;
esac
st=$(http "http://$ADDR/pprof/$HP/heap?debug=1" "$d/http.heap.txt")
"$GH_GOHEAP" -f text "$HP" >"$d/cli.heap.txt" 2>>"$d/cli.err"
if [ "${st%% *}" = 200 ] && "$CMP" text "$d/cli.heap.txt" "$d/http.heap.txt" >"$d/cmp.log" 2>&1; then
	gh_pass "pprof: /pprof/$HP/heap?debug=1 == go-heap -f text ($st)"
else
	gh_fail "pprof: ?debug=1: '$st'"
	gh_show "$d/cmp.log" 10
fi
# The goroutine profile of the same process: ?debug=1 == go-heap -p goroutine -f text (heapprog
# is still, so both see the same goroutines), the proto is served, ?debug=2 == -f traceback and
# ?seconds=N is refused.
st=$(http "http://$ADDR/pprof/$HP/goroutine?debug=1" "$d/http.gor.txt")
"$GH_GOHEAP" -p goroutine -f text "$HP" >"$d/cli.gor.txt" 2>>"$d/cli.err"
"$GH_GOHEAP" -p goroutine -f traceback "$HP" >"$d/cli.gor2.txt" 2>>"$d/cli.err"
st2=$(http "http://$ADDR/pprof/$HP/goroutine" "$d/http.gor.pb.gz")
st3=$(http "http://$ADDR/pprof/$HP/goroutine?debug=2" "$d/http.gor2.txt")
st4=$(http "http://$ADDR/pprof/$HP/goroutine?seconds=1" "$d/http.gor3.txt")
if [ "${st%% *}" = 200 ] && cmp -s "$d/cli.gor.txt" "$d/http.gor.txt" &&
	grep -q '^goroutine profile: total [1-9]' "$d/http.gor.txt" &&
	[ "${st2%% *}" = 200 ] && gzip -t "$d/http.gor.pb.gz" 2>/dev/null &&
	[ "${st3%% *}" = 200 ] && cmp -s "$d/cli.gor2.txt" "$d/http.gor2.txt" &&
	grep -q '^goroutine [0-9]* \[' "$d/http.gor2.txt" && [ "${st4%% *}" = 400 ]; then
	gh_pass "pprof: /pprof/$HP/goroutine?debug=1 == go-heap -p goroutine -f text, ?debug=2 == -f traceback; proto 200, seconds 400"
else
	gh_fail "pprof: goroutine: '$st' '$st2' '$st3' '$st4'"
	diff "$d/cli.gor.txt" "$d/http.gor.txt" | head -n 10 | sed 's/^/    | /'
fi
# go tool pprof over HTTP, against the same tool fetching the CLI's file over HTTP from a static
# server (pprof marks mappings [FN] after fetching a remote profile, so a local file would differ
# in those flags for reasons of the client alone).
# The toolchain's pprof binary, built once into the test cache when the toolchain ships none
# (gh_pprof_tool: `go tool pprof` compiling itself under a temporary HOME was the failure
# under load), before HOME moves.
if ! PPROF=$(gh_pprof_tool "$root" 2>"$d/pproftool.err"); then
	gh_fail "go tool pprof: cannot build $goname's pprof"
	gh_show "$d/pproftool.err" 10
	PPROF=false
fi
export PPROF_TMPDIR="$d/pproftmp" HOME="$d"
mkdir -p "$PPROF_TMPDIR" "$d/static"
cp "$d/cli.heap.pb.gz" "$d/static/"
SPORT=$(gh_free_port)
python3 -m http.server --bind 127.0.0.1 "$SPORT" --directory "$d/static" >"$d/static.log" 2>&1 </dev/null &
SPID=$!
GH_PIDS+=("$SPID")
static_up() { http "http://127.0.0.1:$SPORT/cli.heap.pb.gz" "$d/static.chk" | grep -q '^200'; }
# pprof_raw URL OUT: go tool pprof -raw of URL into OUT (stderr OUT.err).  Its own fetch
# timeout (-timeout, default 60 s + 5) and ours are generous: under load the exporter's answer
# takes seconds.
pprof_raw() {
	timeout 300 "$PPROF" -timeout 240 -raw "$1" >"$2" 2>"$2.err"
}
pprof_raw_both() {
	pprof_raw "http://$ADDR/pprof/$HP/heap" "$d/raw.http" &&
		pprof_raw "http://127.0.0.1:$SPORT/cli.heap.pb.gz" "$d/raw.cli"
}
if ! gh_wait_for 60 static_up; then
	gh_skip "go tool pprof -raw comparison: the python3 static server did not start"
elif pprof_raw_both; then
	if [ -s "$d/raw.http" ] && diff <(grep -v '^Time:' "$d/raw.cli") <(grep -v '^Time:' "$d/raw.http") >"$d/raw.diff"; then
		gh_pass "go tool pprof -raw http://$ADDR/pprof/$HP/heap == the CLI's profile ($(grep -c . "$d/raw.http") lines)"
	else
		gh_fail "go tool pprof -raw over HTTP differs from the CLI's profile"
		gh_show "$d/raw.diff" 20
	fi
else
	gh_fail "go tool pprof -raw http://$ADDR/pprof/$HP/heap (or of the CLI's file from the static server) failed"
	gh_show "$d/raw.http.err" 10
	gh_show "$d/raw.cli.err" 10
	grep -i 'pprof\|error' "$d/watch.err" | tail -n 5 | sed 's/^/    | watch: /'
fi
gh_stop "$SPID"
if pprof_raw "http://$ADDR/pprof/$W1/heap" "$d/raw.w1" && grep -q 'main.alloc1k' "$d/raw.w1"; then
	gh_pass "go tool pprof -raw on a busy target (watchprog) names main.alloc1k"
else
	gh_fail "go tool pprof -raw on watchprog"
	gh_show "$d/raw.w1.err" 10
	grep -i 'pprof\|error' "$d/watch.err" | tail -n 5 | sed 's/^/    | watch: /'
fi
st=$(http "http://$ADDR/pprof/$W1/allocs?seconds=2" "$d/delta.pb.gz")
case $st in
"200 application/octet-stream attachment; filename=\"allocs-delta\"")
	if "$CMP" dump "$d/delta.pb.gz" >"$d/delta.dump" 2>&1; then
		space=$(awk '/^  \[/ { gsub(/[\[\],]/, " "); s += $2 } END { printf "%d", s }' "$d/delta.dump")
		# A delta: more than nothing, less than the cumulative allocs profile taken after it
		# (which also holds everything the program allocated before the base).  How much
		# (2 s at 4 MiB/s: ~8 MiB on a quiet machine) depends on the CPU the program got: printed.
		http "http://$ADDR/pprof/$W1/allocs" "$d/cumul.pb.gz" >/dev/null
		"$CMP" dump "$d/cumul.pb.gz" >"$d/cumul.dump" 2>&1
		total=$(awk '/^  \[/ { gsub(/[\[\],]/, " "); s += $2 } END { printf "%d", s }' "$d/cumul.dump")
		if [ "$space" -gt 0 ] && [ "$space" -lt "$total" ]; then
			gh_pass "pprof: allocs?seconds=2 is a delta profile (alloc_space $space bytes, ~8 MiB on a quiet machine; the cumulative profile after it $total)"
		else
			gh_fail "pprof: allocs?seconds=2: alloc_space $space bytes, not in (0, $total) (the cumulative profile after it)"
			gh_show "$d/delta.dump" 15
		fi
	else
		gh_fail "pprof: allocs?seconds=2 does not decode"
		gh_show "$d/delta.dump" 5
	fi
	# Its duration, as net/http/pprof sets it: the time between the two collections.
	if timeout 300 "$PPROF" -raw "$d/delta.pb.gz" >"$d/delta.raw" 2>"$d/delta.raw.err" &&
		dur=$(sed -n 's/^Duration: \([0-9.]*\).*/\1/p' "$d/delta.raw") &&
		awk -v d="$dur" 'BEGIN { exit !(d >= 2 && d < 300) }'; then
		gh_pass "pprof: the delta profile's duration is $dur s, at least the 2 s asked (go tool pprof -raw)"
	else
		gh_fail "pprof: the delta profile's duration: '$(grep -m1 '^Duration' "$d/delta.raw")'"
		gh_show "$d/delta.raw.err" 5
	fi ;;
*) gh_fail "pprof: allocs?seconds=2 answered '$st'" ;;
esac
st=$(http "http://$ADDR/" "$d/index.html")
if [ "${st%% *}" = 200 ] && grep -q "/pprof/$W1/heap" "$d/index.html"; then
	gh_pass "index page lists the processes"
else
	gh_fail "index page: '$st'"
fi

# ---- robustness --------------------------------------------------------------------------------
bad=
for t in "GARBAGE\r\n\r\n:400" "POST /metrics HTTP/1.1\r\n\r\n:405" "GET /pprof/$W1/threadcreate HTTP/1.1\r\n\r\n:404" \
	"GET /pprof/$W1/heap?seconds=x HTTP/1.1\r\n\r\n:400" "GET /pprof/$W1/heap?seconds=1&debug=1 HTTP/1.1\r\n\r\n:400" \
	"GET /nowhere HTTP/1.1\r\n\r\n:404" "GET /$(printf 'a%.0s' $(seq 1 9000)) HTTP/1.1\r\n\r\n:431"; do
	want=${t##*:}
	line=$(raw "$HOST" "$PORT" "${t%:*}")
	case $line in
	"HTTP/1.1 $want "*) ;;
	*) bad="$bad [${t:0:30}... -> $line, want $want]" ;;
	esac
done
if [ -z "$bad" ] && kill -0 "$WATCH" 2>/dev/null && metrics_has go_heap_watch_targets; then
	gh_pass "bad requests get 4xx (400, 405, 404, 431) and the exporter keeps serving"
else
	gh_fail "bad requests:$bad"
fi

# ---- idle clients do not stop scrapes ------------------------------------------------------------
# flood_slow: the requests of $d/flood.out ("PATH STATUS SECONDS") not answered 200 (their
# times are printed, not judged).
flood_slow() {
	local path line
	for path in /metrics "/pprof/$HP/heap"; do
		line=$(grep "^$path " "$d/flood.out")
		set -- $line
		if [ "${2:-}" != 200 ]; then
			printf ' [%s]' "$path: '${line:-no answer}'"
		fi
	done
}
flood "$HOST" "$PORT" 1000 /metrics "/pprof/$HP/heap" >"$d/flood.out" 2>&1
held=$(sed -n 's/^held //p' "$d/flood.out")
bad=$(flood_slow)
conns=$(sed -n 's/^go_heap_watch_connections \([0-9]*\)$/\1/p' "$d/flood.body")
cmax=$(sed -n 's/^go_heap_watch_connections_max \([0-9]*\)$/\1/p' "$d/flood.body")
cmem=$(sed -n 's/^go_heap_watch_connection_memory_bytes \([0-9]*\)$/\1/p' "$d/flood.body")
# All 1000 open, unless the descriptor limit's hard cap holds the exporter below that.
if [ "${held:-0}" -eq 1000 ] && [ -z "$bad" ] && [ -n "$cmem" ] &&
	{ [ "${conns:-0}" -ge 1000 ] || [ "${conns:-0}" -ge "${cmax:-1}" ]; }; then
	gh_pass "idle clients: with 1000 connections held (500 half-sent), $(grep '^/' "$d/flood.out" | awk '{ printf "%s%s %s in %s s", (NR > 1 ? ", " : ""), $1, $2, $3 }'); go_heap_watch_connections $conns (max $cmax), connection memory $cmem bytes"
else
	gh_fail "idle clients: held ${held:-0} connections;$bad; go_heap_watch_connections '${conns:-}', memory '${cmem:-}'"
	gh_show "$d/flood.out" 10
fi
conns_back() { metrics_has '^go_heap_watch_connections [1-9]$'; }
if gh_wait_for 60 conns_back; then
	gh_pass "idle clients: closed, go_heap_watch_connections back to $(sed -n 's/^go_heap_watch_connections //p' "$d/m.txt")"
else
	gh_fail "idle clients: go_heap_watch_connections still '$(sed -n 's/^go_heap_watch_connections //p' "$d/m.txt")' 60 s after they closed"
fi
# A descriptor limit of 400 caps the connections at 144: the one idle longest makes room.
( ulimit -n 400 2>/dev/null; exec "$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 "$HP" ) \
	>"$d/cap.out" 2>"$d/cap.err" </dev/null &
CW=$!
GH_PIDS+=("$CW")
clistening() { grep -q 'listening on' "$d/cap.err" 2>/dev/null; }
if ! gh_wait_for 60 clistening; then
	gh_fail "idle clients at the cap: the second exporter did not start"
	gh_show "$d/cap.err" 5
else
	CADDR=$(sed -n 's/.*listening on //p' "$d/cap.err" | head -n 1)
	flood "${CADDR%:*}" "${CADDR##*:}" 300 /metrics "/pprof/$HP/heap" >"$d/flood.out" 2>&1
	bad=$(flood_slow)
	cmax=$(sed -n 's/^go_heap_watch_connections_max //p' "$d/flood.body")
	ev=$(sed -n 's/^go_heap_watch_connections_evicted_total //p' "$d/flood.body")
	if [ -z "$bad" ] && [ "${cmax:-0}" -lt 300 ] && [ "${ev:-0}" -gt 0 ]; then
		gh_pass "idle clients at the cap ($cmax): 300 held, $ev idle ones closed to make room, /metrics and /pprof/$HP/heap answered 200 ($(grep '^/' "$d/flood.out" | awk '{ printf "%s%s s", (NR > 1 ? ", " : ""), $3 }'))"
	else
		gh_fail "idle clients at the cap: max '${cmax:-}', evicted '${ev:-}';$bad"
		gh_show "$d/flood.out" 5
	fi
fi
gh_stop "$CW"

prom_has() { [ -n "$(gh_prom_query "$PROM" "$1")" ]; }
if ! command -v prometheus >/dev/null 2>&1; then
	gh_skip "prometheus: the Debian package 'prometheus' is not installed (scripts/install-deps.sh)"
else
	PROM=127.0.0.1:$(gh_free_port)
	cat >"$d/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: go-heap
    static_configs:
      - targets: ['$ADDR']
EOF
	prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/prom" \
		--web.listen-address="$PROM" --log.level=warn >"$d/prom.out" 2>"$d/prom.err" </dev/null &
	PPID_=$!
	GH_PIDS+=("$PPID_")
	if ! gh_wait_for 30 prom_has "up"; then
		gh_fail "prometheus: not answering queries on $PROM within $((30 * ${GOHEAP_WAIT_SCALE:-6})) s"
		gh_show "$d/prom.err" 10
	elif ! gh_wait_for 30 prom_has "container_go_alloc_bytes_total{pid=\"$W1\"}"; then
		gh_fail "prometheus: no container_go_alloc_bytes_total for pid $W1 after 30 s"
		gh_show "$d/prom.err" 10
	else
		v1=$(gh_prom_query "$PROM" "container_go_alloc_bytes_total{pid=\"$W1\"}")
		grown() {
			v2=$(gh_prom_query "$PROM" "container_go_alloc_bytes_total{pid=\"$W1\"}")
			python3 -c "import sys; sys.exit(0 if float('${v2:-0}') > float('$v1') else 1)"
		}
		# a rate over 6 s needs that much history: waited for, with the increase
		sleep 7
		if gh_wait_for 10 grown; then
			gh_pass "prometheus: container_go_alloc_bytes_total{pid=$W1} increasing ($v1 -> $v2)"
		else
			gh_fail "prometheus: container_go_alloc_bytes_total{pid=$W1} not increasing ($v1 -> $v2)"
		fi
		for pr in "$W1 4194304" "$W2 1048576"; do
			set -- $pr
			r=$(gh_prom_query "$PROM" "rate(container_go_alloc_bytes_total{pid=\"$1\"}[6s])")
			# more than nothing, and not above what the program's pace allows (no unit error);
			# how close to the pace depends on the CPU the program got: printed
			if [ -n "$r" ] && python3 -c "import sys; r=float('$r'); sys.exit(0 if 0 < r <= $2*3 else 1)"; then
				gh_pass "prometheus: rate(container_go_alloc_bytes_total{pid=$1}) = $(printf '%.0f' "$r") B/s, the program allocates at most $2 B/s"
			else
				gh_fail "prometheus: rate for pid $1 = '$r', the program allocates $2 B/s"
			fi
		done
	fi
	kill "$PPID_" 2>/dev/null
fi

# ---- --go-heap-profiler: enabled is passive, force enables once ---------------------------------
if ! nbin=$(gh_build noprof "$goname" "$root" default 2>"$GH_TMP/build.err"); then
	gh_fail "$goname: build noprof"
	gh_show "$GH_TMP/build.err" 10
elif ! gh_start "$nbin" 2>"$GH_TMP/start.err"; then
	gh_fail "noprof: $(cat "$GH_TMP/start.err")"
else
	NP=$GH_PID
	if gh_wait_for 15 metrics_has "go_heap_watch_target_state{pid=\"$NP\",.*state=\"profiling-disabled\"} 1"; then
		gh_pass "enabled (passive): pid $NP with MemProfileRate 0 is listed as profiling-disabled, left alone"
	else
		gh_fail "enabled: pid $NP (MemProfileRate 0) not reported as profiling-disabled"
	fi
	"$GH_GOHEAP" watch --go-heap-profiler=force --interval 1s --listen 127.0.0.1:0 "$NP" \
		>"$d/force.out" 2>"$d/force.err" </dev/null &
	FW=$!
	GH_PIDS+=("$FW")
	flistening() { grep -q 'listening on' "$d/force.err" 2>/dev/null; }
	fmetrics() {
		http "http://$(sed -n 's/.*listening on //p' "$d/force.err" | head -n 1)/metrics" "$d/fm.txt" >/dev/null &&
			grep -q "container_go_mem_profile_rate{pid=\"$NP\".*} 524288" "$d/fm.txt" &&
			grep -q "go_heap_watch_target_state{pid=\"$NP\",.*state=\"ok\"} 1" "$d/fm.txt"
	}
	if gh_wait_for 10 flistening && gh_wait_for 20 fmetrics; then
		gh_pass "force: watch PID enabled profiling in pid $NP once (MemProfileRate 524288) and collects it"
	else
		gh_fail "force: pid $NP not profiled within $((20 * ${GOHEAP_WAIT_SCALE:-6})) s"
		gh_show "$d/force.err" 10
		grep "pid=\"$NP\"" "$d/fm.txt" 2>/dev/null | head -n 5 | sed 's/^/    | /'
	fi
	gh_stop "$FW"
	gh_stop "$NP"
fi

# ---- serving does not wait for collection: /metrics answers between the steps of a long round ------
# Five MemProfileRate-0 programs under --go-heap-profiler=force, with the library's test hook
# GOHEAP_TEST_STOP_DELAY_MS=4000 (src/lib/force.c) keeping each force stop 4 s longer: the first
# round takes at least 20 s (one target's collection, 4 s+, per step).  /metrics, asked every
# 0.1 s from the start (each request waiting up to 60 s), must be answered while that round is
# still going (go_heap_watch_scrapes_total 0): a loop that collected a round at once would hold
# every request until the round ended.  Functional only: how fast those answers come (0.5 s
# steps, within 1 s each) is measured by bench/watch-serve-bench.sh, not judged here.
if [ -n "${nbin:-}" ] && [ -x "$nbin" ]; then
	sps=()
	for _ in 1 2 3 4 5; do
		gh_start "$nbin" 2>"$GH_TMP/start.err" || { gh_fail "noprof: $(cat "$GH_TMP/start.err")"; break; }
		sps+=("$GH_PID")
	done
	if [ "${#sps[@]}" -eq 5 ]; then
		GOHEAP_TEST_STOP_DELAY_MS=4000 "$GH_GOHEAP" watch --go-heap-profiler=force --interval 1s \
			--target-budget 60s --listen 127.0.0.1:0 "${sps[@]}" >"$d/slow.out" 2>"$d/slow.err" </dev/null &
		SW=$!
		GH_PIDS+=("$SW")
		slistening() { grep -q 'listening on' "$d/slow.err" 2>/dev/null; }
		if ! gh_wait_for 10 slistening; then
			gh_fail "serving during a round: the exporter did not start"
			gh_show "$d/slow.err" 5
		else
			python3 - "$(sed -n 's/.*listening on //p' "$d/slow.err" | head -n 1)" >"$d/slow.scrapes" 2>&1 <<'PY'
import re, sys, time, urllib.request
addr = sys.argv[1]
t_end = time.monotonic() + 120
during, n = 0, 0
while time.monotonic() < t_end and during < 2:
    try:
        body = urllib.request.urlopen("http://%s/metrics" % addr, timeout=60).read().decode()
    except Exception as e:
        print("error", e)
        break
    n += 1
    if int(re.search(r"^go_heap_watch_scrapes_total (\d+)$", body, re.M).group(1)) == 0:
        during += 1
    else:
        break
    time.sleep(0.1)
print("scrapes %d during %d" % (n, during))
PY
			set -- $(tail -n 1 "$d/slow.scrapes")
			if [ "${1:-}" = scrapes ] && [ "${4:-0}" -ge 1 ]; then
				gh_pass "serving during a round: $4 of $2 scrapes of /metrics answered while the first round (5 targets, 4 s+ each) was still going"
			else
				gh_fail "serving during a round: '$(tail -n 1 "$d/slow.scrapes")' (want an answer with go_heap_watch_scrapes_total 0: during the first round of >= 20 s)"
				gh_show "$d/slow.scrapes" 5
				gh_show "$d/slow.err" 5
			fi
		fi
		kill -KILL "$SW" 2>/dev/null   # not TERM: it would finish its 4 s step first
		gh_stop "$SW"
	fi
	for p in "${sps[@]}"; do gh_stop "$p"; done
fi
# ---- per-target budget: a target over budget is backed off, the others go on ---------------------
"$GH_GOHEAP" watch --target-budget 1ms --interval 0.2s --listen 127.0.0.1:0 "$HP" "$W1" \
	>"$d/budget.out" 2>"$d/budget.err" </dev/null &
BW=$!
GH_PIDS+=("$BW")
blistening() { grep -q 'listening on' "$d/budget.err" 2>/dev/null; }
bmetrics() {
	http "http://$(sed -n 's/.*listening on //p' "$d/budget.err" | head -n 1)/metrics" "$d/bm.txt" >/dev/null &&
		grep -q "go_heap_watch_target_state{pid=\"$HP\",.*state=\"backoff\"} 1" "$d/bm.txt" &&
		grep -Eq "go_heap_watch_target_over_budget_total\{pid=\"$HP\".*\} [1-9]" "$d/bm.txt" &&
		grep -Eq "go_heap_watch_target_errors_total\{pid=\"$HP\".*\} 0$" "$d/bm.txt" &&
		grep -q "container_go_alloc_bytes_total{pid=\"$W1\"" "$d/bm.txt"
}
if gh_wait_for 10 blistening && gh_wait_for 20 bmetrics; then
	gh_pass "budget: heapprog over a 1 ms budget is stopped and backed off (state backoff, over_budget_total > 0, errors_total 0); watchprog still collected"
else
	gh_fail "budget: no backoff reported for pid $HP within $((20 * ${GOHEAP_WAIT_SCALE:-6})) s"
	grep "pid=\"$HP\"" "$d/bm.txt" 2>/dev/null | grep -E 'state|budget' | head -n 5 | sed 's/^/    | /'
fi
gh_stop "$BW"

# ---- a process exits, a new one starts ---------------------------------------------------------
gh_stop "$W2"
if gh_wait_for 15 metrics_lacks "pid=\"$W2\""; then
	st=$(http "http://$ADDR/pprof/$W2/heap" "$d/gone")
	if [ "${st%% *}" = 404 ]; then
		gh_pass "exit: pid $W2 dropped from /metrics, /pprof/$W2/heap is 404"
	else
		gh_fail "exit: /pprof/$W2/heap answered '$st' after the process exited"
	fi
else
	gh_fail "exit: pid $W2 still in /metrics 15 s after it exited"
fi
gh_start "$wbin" -rate 2097152 2>"$GH_TMP/start.err" || gh_fail "watchprog: $(cat "$GH_TMP/start.err")"
W3=$GH_PID
if gh_wait_for 15 metrics_has "go_heap_watch_target_state{pid=\"$W3\",.*state=\"ok\"} 1"; then
	gh_pass "new process: pid $W3 picked up and collected"
else
	gh_fail "new process: pid $W3 not collected within $((15 * ${GOHEAP_WAIT_SCALE:-6})) s"
	gh_show "$d/watch.err" 10
fi

# ---- output dir --------------------------------------------------------------------------------
# The cap holds at the end of each round (its last step rotates the directory): during a round
# the files of that round come first, and on a busy host every Go process found writes one.  So
# the directory is looked at until it is within the cap, as it is between rounds.
out_bytes() { find "$d/out" -type f -printf '%s\n' 2>/dev/null | awk '{s+=$1} END {print s+0}'; }
within_cap() { total=$(out_bytes); [ "$total" -le "$CAP" ]; }
gh_wait_for 10 within_cap
n=$(find "$d/out" -name "$W1-watchprog-*.pb.gz" 2>/dev/null | wc -l)
f=$(find "$d/out" -name "$W1-watchprog-*.pb.gz" 2>/dev/null | sort | tail -n 1)
if [ "$n" -ge 1 ] && [ -n "$f" ] && "$CMP" dump "$f" >/dev/null 2>&1 && [ "$total" -le "$CAP" ]; then
	gh_pass "output-dir: $n delta profiles of pid $W1 (e.g. $(basename "$f")), directory within the $CAP-byte cap between rounds ($total bytes)"
else
	gh_fail "output-dir: $n files for pid $W1, $total bytes (cap $CAP) at best over $((10 * ${GOHEAP_WAIT_SCALE:-6})) s"
	ls -la "$d/out" 2>&1 | head -n 5 | sed 's/^/    | /'
fi

# ---- stop ----------------------------------------------------------------------------------------
kill -TERM "$WATCH"
n=0
while kill -0 "$WATCH" 2>/dev/null && [ "$n" -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
if kill -0 "$WATCH" 2>/dev/null; then
	gh_fail "watch: still running 60 s after SIGTERM"
else
	wait "$WATCH"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		gh_pass "watch: SIGTERM ends it with status 0"
	else
		gh_fail "watch: exited $rc after SIGTERM"
	fi
fi
gh_summary
