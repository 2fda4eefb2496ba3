#!/bin/bash
# tests/run-watch-secure.sh: what `go-heap watch` serves to whom, and the files go-heap writes
# as root (doc/watch.md "What is served to whom").
#
#   - endpoints: in a network namespace of its own (unshare -n, 10.99.0.1 added to its lo, so
#     nothing is reachable from outside), watch listening on 10.99.0.1 without authentication
#     serves /metrics and answers 403 for profiles, goroutines and tracebacks, with a warning
#     at start; --endpoints all serves them (and warns); on 127.0.0.1 everything is served;
#     --endpoints metrics,goroutines: heap and ?debug=2 are 403, ?debug=1 is 200; bad lists
#     exit 2 with one line;
#   - /pprof/PID/types (the heap by type) ?debug=1 == `go-heap -p types -f text`, the proto is
#     served, ?seconds=N is 400;
#   - --output-dir: symlinks planted at the next seconds' PID-COMM-STAMP.pb.gz.tmp names are
#     refused (counted in go_heap_watch_output_files_refused_total), never followed: the file
#     they point to is unchanged and they stay links; other files are written;
#   - the CLI's -o: a symlink at the name is replaced by a new 0600 file, the file it pointed to
#     is unchanged; -o /dev/null writes in place and /dev/null stays a device; a failed run
#     leaves the previous file as it was and no temporary file behind.
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"

gh_need_python
gh_have_goheap || { gh_skip "all: $GH_GOHEAP is not built"; gh_summary; }
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
[ "${#GH_GO_NAMES[@]}" -gt 0 ] || { gh_skip "all: no Go toolchain installed"; gh_summary; }
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
d="$GH_TMP/secure"
mkdir -p "$d"
if ! hbin=$(gh_build heapprog "$goname" "$root" default 2>"$GH_TMP/build.err"); then
	gh_fail "$goname: build heapprog"
	gh_show "$GH_TMP/build.err" 20
	gh_summary
fi
gh_start "$hbin" -out "$d/hp" 2>"$GH_TMP/start.err" || { gh_fail "heapprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
HP=$GH_PID
gh_can_read_mem "$HP" || { gh_skip "all: cannot read the target's memory (ptrace is restricted)"; gh_summary; }

# status URL: the HTTP status of a GET (000 when it fails).
status() {
	python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=30).status)
except urllib.error.HTTPError as e:
    print(e.code)
except Exception:
    print("000")
PY
}

# watch_up LOG ARGS...: start go-heap watch ARGS (stderr in LOG), wait for its address (WADDR,
# WPID); 1 if it exits first or does not start within 10 s (times GOHEAP_WAIT_SCALE: gh_wait_for).
watch_up() {
	local log=$1
	shift
	"$GH_GOHEAP" watch --interval 1s "$@" 2>"$log" </dev/null &
	WPID=$!
	GH_PIDS+=("$WPID")
	up_or_gone() { grep -q 'listening on' "$log" 2>/dev/null || ! kill -0 "$WPID" 2>/dev/null; }
	gh_wait_for 10 up_or_gone && grep -q 'listening on' "$log" 2>/dev/null || return 1
	WADDR=$(sed -n 's/.*listening on //p' "$log" | head -n 1)
}

# codes ADDR: the status of /metrics, heap, goroutine ?debug=1, ?debug=2 and types, in a line.
codes() {
	local a=$1
	echo "$(status "http://$a/metrics") $(status "http://$a/pprof/$HP/heap")" \
		"$(status "http://$a/pprof/$HP/goroutine?debug=1")" \
		"$(status "http://$a/pprof/$HP/goroutine?debug=2")" \
		"$(status "http://$a/pprof/$HP/types?debug=1")"
}

# ---- endpoints -----------------------------------------------------------------------------------
watch_up "$d/lo.err" --listen 127.0.0.1:0 "$HP" || { gh_fail "watch on 127.0.0.1 did not start"; gh_show "$d/lo.err" 5; gh_summary; }
c=$(codes "$WADDR")
[ "$c" = "200 200 200 200 200" ] && gh_pass "endpoints: on 127.0.0.1 all are served by default ($c)" ||
	gh_fail "endpoints: on 127.0.0.1: metrics heap goroutine debug=2 types = $c, want all 200"
# the heap by type through watch == the CLI (heapprog is still after READY)
st=$(status "http://$WADDR/pprof/$HP/types?debug=1")
python3 -c 'import sys,urllib.request; open(sys.argv[2],"wb").write(urllib.request.urlopen(sys.argv[1]).read())' \
	"http://$WADDR/pprof/$HP/types?debug=1" "$d/w.types.txt" 2>/dev/null
"$GH_GOHEAP" -p types -f text "$HP" >"$d/c.types.txt" 2>"$d/c.err"
if [ "$st" = 200 ] && diff <(grep -v '^# a consistent snapshot' "$d/c.types.txt") \
	<(grep -v '^# a consistent snapshot' "$d/w.types.txt") >"$d/types.diff"; then
	gh_pass "types: /pprof/PID/types?debug=1 == go-heap -p types -f text ($(grep -c . "$d/c.types.txt") lines, the stop's line aside)"
else
	gh_fail "types: /pprof/PID/types?debug=1 ($st) differs from go-heap -p types -f text"
	gh_show "$d/types.diff" 10
fi
pt=$(status "http://$WADDR/pprof/$HP/types"); dt=$(status "http://$WADDR/pprof/$HP/types?seconds=1")
[ "$pt" = 200 ] && [ "$dt" = 200 ] && gh_pass "types: the proto is served (200), ?seconds=1 too (the growth, tests/run-growth.sh)" ||
	gh_fail "types: proto $pt (want 200), ?seconds=1 $dt (want 200)"
gh_stop "$WPID"

watch_up "$d/list.err" --listen 127.0.0.1:0 --endpoints metrics,goroutines "$HP" || { gh_fail "watch --endpoints did not start"; gh_summary; }
c=$(codes "$WADDR")
body=$(python3 -c 'import sys,urllib.request,urllib.error
try: urllib.request.urlopen(sys.argv[1])
except urllib.error.HTTPError as e: print(e.read().decode().strip())' "http://$WADDR/pprof/$HP/heap")
[ "$c" = "200 403 200 403 403" ] && gh_pass "endpoints: --endpoints metrics,goroutines: $c ($body)" ||
	gh_fail "endpoints: --endpoints metrics,goroutines: metrics heap goroutine debug=2 types = $c, want 200 403 200 403 403"
gh_stop "$WPID"
bad=0
for l in bogus "metrics," "" "metrics,,profiles"; do
	"$GH_GOHEAP" watch --endpoints "$l" >"$d/bad.out" 2>"$d/bad.err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$d/bad.err")" -eq 1 ] || { bad=1; echo "  --endpoints '$l': exit $rc, $(wc -l <"$d/bad.err") lines"; }
done
[ $bad -eq 0 ] && gh_pass "endpoints: bad lists exit 2 with one line ($(head -n 1 "$d/bad.err"))" || gh_fail "endpoints: bad lists"

# Off loopback, in a network namespace of its own: nothing outside can reach it.
if ! unshare -n true 2>/dev/null || ! command -v ip >/dev/null 2>&1; then
	gh_skip "endpoints off loopback: cannot make a network namespace (unshare -n, ip)"
else
	cat >"$d/netns.sh" <<NS
set -u
ip link set lo up && ip addr add 10.99.0.1/32 dev lo || exit 3
. "$GH_TESTS/lib.sh" 2>/dev/null
HP=$HP; GH_GOHEAP=$GH_GOHEAP; GH_PIDS=()
$(declare -f status watch_up codes)
watch_up "$d/off.err" --listen 10.99.0.1:0 "\$HP" || exit 4
echo "default \$(codes "\$WADDR")"
kill \$WPID; wait \$WPID 2>/dev/null
watch_up "$d/all.err" --listen 10.99.0.1:0 --endpoints all "\$HP" || exit 4
echo "all \$(codes "\$WADDR")"
kill \$WPID; wait \$WPID 2>/dev/null
NS
	unshare -n bash "$d/netns.sh" >"$d/netns.out" 2>"$d/netns.err"
	nrc=$?
	def=$(sed -n 's/^default //p' "$d/netns.out"); all=$(sed -n 's/^all //p' "$d/netns.out")
	if [ $nrc -ne 0 ]; then
		gh_fail "endpoints off loopback: the namespace script failed ($nrc)"
		gh_show "$d/netns.err" 5
	else
		if [ "$def" = "200 403 403 403 403" ] && grep -q 'serving /metrics only' "$d/off.err"; then
			gh_pass "endpoints: on 10.99.0.1 without authentication only /metrics is served ($def), with a warning at start"
		else
			gh_fail "endpoints: on 10.99.0.1 by default: $def, want 200 403 403 403 403 and a warning"
			gh_show "$d/off.err" 3
		fi
		if [ "$all" = "200 200 200 200 200" ] && grep -q 'without authentication (--endpoints)' "$d/all.err"; then
			gh_pass "endpoints: on 10.99.0.1 --endpoints all serves everything ($all), with a warning"
		else
			gh_fail "endpoints: on 10.99.0.1 --endpoints all: $all, want all 200 and a warning"
		fi
	fi
fi

# ---- files written as root ---------------------------------------------------------------------
out="$d/out"
mkdir -p "$out"
echo "do not touch" >"$d/victim"
cp "$d/victim" "$d/victim.orig"
comm=$(tr -c 'A-Za-z0-9_.\n' '_' </proc/$HP/comm | head -n 1)
watch_up "$d/od.err" --listen 127.0.0.1:0 --output-dir "$out" "$HP" || { gh_fail "watch --output-dir did not start"; gh_summary; }
# after its start (which removes stale .tmp files of its pattern), links at the names of the
# next 20 seconds
python3 - "$out" "$HP" "$comm" "$d/victim" <<'PY'
import os, sys, time
out, pid, comm, victim = sys.argv[1:]
now = int(time.time())
for t in range(now, now + 20):
    os.symlink(victim, os.path.join(out, "%s-%s-%s.pb.gz.tmp" % (pid, comm, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t)))))
PY
# until a write was refused (a round or two: 6 s on a quiet machine; longer under load)
refused_some() {
	m=$(python3 -c 'import sys,urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())' "http://$WADDR/metrics" 2>/dev/null)
	[ "$(sed -n 's/^go_heap_watch_output_files_refused_total //p' <<<"$m")" -ge 1 ] 2>/dev/null
}
gh_wait_for 6 refused_some
gh_stop "$WPID"
refused=$(sed -n 's/^go_heap_watch_output_files_refused_total //p' <<<"$m")
links=$(find "$out" -maxdepth 1 -type l | wc -l)
if cmp -s "$d/victim" "$d/victim.orig" && [ "$links" -ge 14 ] && [ "${refused:-0}" -ge 1 ]; then
	gh_pass "output dir: symlinks planted at the next .tmp names refused ($refused counted), never followed: the file they point to unchanged, $links links still links"
else
	gh_fail "output dir: victim $(cmp -s "$d/victim" "$d/victim.orig" && echo unchanged || echo CHANGED), $links links left, refused '${refused:-}'"
fi

ln -s "$d/victim" "$d/o.pb.gz"
if "$GH_GOHEAP" -o "$d/o.pb.gz" "$HP" 2>"$d/o.err" && [ -f "$d/o.pb.gz" ] && [ ! -L "$d/o.pb.gz" ] &&
	cmp -s "$d/victim" "$d/victim.orig" && [ "$(stat -c %a "$d/o.pb.gz")" = 600 ]; then
	gh_pass "-o onto a symlink: replaced by a new 0600 file, the file it pointed to unchanged"
else
	gh_fail "-o onto a symlink: $(ls -l "$d/o.pb.gz" 2>&1); victim $(cmp -s "$d/victim" "$d/victim.orig" && echo unchanged || echo CHANGED); $(cat "$d/o.err")"
fi
if "$GH_GOHEAP" -o /dev/null "$HP" 2>"$d/n.err" && [ -c /dev/null ]; then
	gh_pass "-o /dev/null: written in place, /dev/null is still a device"
else
	gh_fail "-o /dev/null: $(cat "$d/n.err"); $(ls -l /dev/null)"
fi
echo previous >"$d/keep.txt"
"$GH_GOHEAP" -p block -s bogus -f text -o "$d/keep.txt" "$HP" >/dev/null 2>"$d/k.err"
"$GH_GOHEAP" -f text --exe /nonexistent -o "$d/keep.txt" "$HP" >/dev/null 2>>"$d/k.err"
if [ "$(cat "$d/keep.txt")" = previous ] && [ -z "$(ls "$d"/keep.txt.* 2>/dev/null)" ]; then
	gh_pass "-o: failed runs leave the previous file as it was and no temporary file"
else
	gh_fail "-o: after failed runs: $(head -c 80 "$d/keep.txt"); $(ls "$d"/keep.txt.* 2>/dev/null)"
fi
gh_summary
