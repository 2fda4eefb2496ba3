#!/bin/bash
# tests/run-watch-gometrics.sh: go-heap watch's Go collector series (go_memstats_*,
# go_gc_duration_seconds, go_goroutines, go_threads, go_info) against the truth.
#
# program: tests/go/gometricsprog (standard library only) computes at a quiet point what
#   client_golang 1.14's Go collector would export for it (runtime/metrics through
#   memStatsFromRM, debug.ReadGCStats' quantiles, NumGoroutine, ThreadCreateProfile, Version),
#   prints it in the text format's float form, then blocks on a raw FIFO read.  One watch
#   (--go-metrics=running, the default) and one --go-metrics=stop read every program at once
#   (every toolchain, default build; the newest stripped too: runtime.sched, allm, memstats,
#   gcController, allp located from machine code): each series of the program must equal
#   watch's, byte for byte.
# prometheus: Debian's prometheus (client_golang, its own /metrics) is scraped directly (P1),
#   then through a watch started after it (W: its first collection lies between), then directly
#   again (P2).  For every go_memstats_*, go_gc_duration_seconds, go_goroutines and go_threads
#   series both have (its binary is stripped: located): go_goroutines must be its goroutine
#   profile's total (read before P1 and after P2, equal) less the two goroutines serving that
#   request (its /metrics counts its Gather workers too); otherwise P1 == P2
#   means W must equal it; else W must lie within [min - d, max + d], d = |P2 - P1| (what one
#   scrape of prometheus allocates, printed).  A GC between P1 and P2 makes the round run again
#   (twice at most).
# churn: memstatsprog churn (allocating on four goroutines) read running every 100 ms for 6 s:
#   the series in every scrape, counters never back.
# promtool check metrics on watch's page.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }
gh_need_python
d=$GH_TMP

http() {
	python3 - "$1" "$2" <<'PY'
import sys, urllib.request
try:
    body = urllib.request.urlopen(sys.argv[1], timeout=30).read()
except Exception as e:
    sys.stderr.write("%s\n" % e)
    sys.exit(1)
open(sys.argv[2], "wb").write(body)
PY
}

wait_for() {
	local n=$(( $1 * 4 ))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.25
		n=$((n - 1))
	done
	return 1
}

# watch_start NAME ARGS...: go-heap watch on a free port; ADDR set
watch_start() {
	local name=$1
	shift
	"$GH_GOHEAP" watch --listen 127.0.0.1:0 --interval 60s --target-budget 10s "$@" \
		>"$d/$name.out" 2>"$d/$name.err" </dev/null &
	WPID=$!
	GH_PIDS+=("$WPID")
	if ! wait_for 10 grep -qs 'listening on' "$d/$name.err"; then
		gh_fail "$name: watch did not listen"
		gh_show "$d/$name.err" 5
		return 1
	fi
	ADDR=$(sed -n 's/.*listening on //p' "$d/$name.err" | head -n 1)
}

has_series() { http "http://$ADDR/metrics" "$d/$1" 2>/dev/null && grep -q "^$2{pid=\"$3\"" "$d/$1"; }

# series PAGE PID: "NAME[{quantile|version}] VALUE" lines of PID's Go collector series
series() {
	python3 - "$1" "$2" <<'PY'
import re, sys
pid = sys.argv[2]
for l in open(sys.argv[1]):
    m = re.match(r'(go_(?:memstats|gc_duration|goroutines|threads|info)[a-z_]*)\{(.*)\} (\S+)$', l)
    # (go_goroutines_leaked is watch's own: -p goroutineleak, not the Go collector's)
    if not m or 'pid="%s"' % pid not in m.group(2) or m.group(1) == 'go_goroutines_leaked':
        continue
    extra = re.findall(r'(quantile|version)="([^"]*)"', m.group(2))
    name = m.group(1) + ''.join('{%s="%s"}' % e for e in extra)
    print(name, m.group(3))
PY
}

# ---- program: the oracle's own numbers ---------------------------------------------------------
last=$(( ${#GH_GO_NAMES[@]} - 1 ))
pids=()
tags=()
for i in "${!GH_GO_NAMES[@]}"; do
	variants=default
	[ "$i" = "$last" ] && variants="default stripped"
	for variant in $variants; do
		tag="${GH_GO_NAMES[$i]}/$variant"
		bin=$(gh_build gometricsprog "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" "$variant" 2>"$d/build.err") || {
			gh_fail "$tag: build failed"
			gh_show "$d/build.err" 5
			continue
		}
		fifo="$d/fifo.${#pids[@]}"
		mkfifo "$fifo"
		exec {fd}<>"$fifo"
		if ! gh_start "$bin" "$fifo" 2>"$d/start.err"; then
			gh_fail "$tag: gometricsprog: $(cat "$d/start.err")"
			continue
		fi
		cp "$GH_OUT" "$d/prog.${#pids[@]}"
		pids+=("$GH_PID")
		tags+=("$tag")
	done
done
if [ "${#pids[@]}" -gt 0 ] && ! gh_can_read_mem "${pids[0]}"; then
	gh_skip "all: cannot read the targets' memory (ptrace is restricted)"
	gh_summary
fi

for mode in running stop; do
	watch_start "watch-$mode" --go-metrics "$mode" "${pids[@]}" || continue
	for k in "${!pids[@]}"; do
		p=${pids[$k]}
		tag="${tags[$k]}"
		if ! wait_for 30 has_series "page-$mode" go_memstats_sys_bytes "$p"; then
			gh_fail "$tag: --go-metrics=$mode: no go_memstats_sys_bytes for pid $p"
			gh_show "$d/watch-$mode.err" 5
			continue
		fi
		grep -v '^READY' "$d/prog.$k" | sort >"$d/want"
		series "$d/page-$mode" "$p" | sort >"$d/got"
		if cmp -s "$d/want" "$d/got"; then
			gh_pass "$tag: --go-metrics=$mode: $(wc -l <"$d/want") series == the program's own (client_golang's formulas)"
		else
			gh_fail "$tag: --go-metrics=$mode: differs from the program's (< watch, > program)"
			diff "$d/got" "$d/want" | grep '^[<>]' | cut -c1-150 >"$d/diff"
			gh_show "$d/diff" 14
		fi
	done
	if promtool check metrics <"$d/page-$mode" >"$d/promtool.out" 2>&1; then
		gh_pass "promtool check metrics: watch's page (--go-metrics=$mode, ${#pids[@]} programs)"
	else
		gh_fail "promtool check metrics: watch's page (--go-metrics=$mode)"
		gh_show "$d/promtool.out" 8
	fi
	kill "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
done
for p in "${pids[@]}"; do
	gh_stop "$p"
done

# ---- churn: read running while the program allocates ------------------------------------------
# memstatsprog churn (four goroutines allocating for ever, the newest toolchain): watch with
# --interval 100ms and the default running read, /metrics read every 50 ms for 6 s: the
# series are in every scrape (a cached span caught mid-change is skipped, not an error) and
# the counters (alloc_bytes_total, mallocs_total, frees_total, the GC count) never go back.
bin=$(gh_build memstatsprog "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default 2>"$d/build.err")
if [ -n "$bin" ]; then
	mkfifo "$d/churn.fifo"
	exec {cfd}<>"$d/churn.fifo"
	"$bin" "$d/churn.fifo" churn >"$d/churn.out" 2>&1 </dev/null &
	CH=$!
	GH_PIDS+=("$CH")
	if wait_for 10 grep -qs READY "$d/churn.out" &&
		watch_start watch-churn --interval 100ms "$CH"; then
		python3 - "$ADDR" "$CH" >"$d/churn.res" <<'PY'
import re, sys, time, urllib.request
addr, pid = sys.argv[1], sys.argv[2]
last, n, missing, back = {}, 0, 0, []
end = time.time() + 6
while time.time() < end:
    try:
        b = urllib.request.urlopen("http://%s/metrics" % addr, timeout=5).read().decode()
    except Exception:
        time.sleep(0.05)
        continue
    d = {}
    for m in re.finditer(r'^(go_memstats_(?:alloc_bytes_total|mallocs_total|frees_total)|go_gc_duration_seconds_count|go_goroutines|go_threads)\{pid="%s"[^}]*\} (\S+)' % pid, b, re.M):
        d[m.group(1)] = float(m.group(2))
    n += 1
    if last and len(d) < 6:
        missing += 1
    for k, v in d.items():
        if k in last and not k.startswith(('go_goroutines', 'go_threads')) and v < last[k]:
            back.append("%s %r -> %r" % (k, last[k], v))
    last.update(d)
    time.sleep(0.05)
print(n, missing, len(back), int(last.get('go_gc_duration_seconds_count', 0)), "; ".join(back[:3]))
PY
		read -r n missing nback ngc rest <"$d/churn.res"
		if [ "${n:-0}" -ge 20 ] && [ "$missing" = 0 ] && [ "$nback" = 0 ]; then
			gh_pass "churn: $n scrapes in 6 s of a program allocating on four goroutines ($ngc GCs): the series in each, no counter back"
		else
			gh_fail "churn: $n scrapes, $missing without the series, $nback counters back: $rest"
			gh_show "$d/watch-churn.err" 5
		fi
		kill "$WPID" 2>/dev/null
		wait "$WPID" 2>/dev/null
	else
		gh_fail "churn: memstatsprog churn or watch did not start"
	fi
	gh_stop "$CH"
else
	gh_fail "churn: memstatsprog build failed"
	gh_show "$d/build.err" 5
fi

# ---- prometheus: client_golang itself ---------------------------------------------------------
if ! command -v prometheus >/dev/null 2>&1; then
	gh_skip "prometheus: Debian's prometheus is not installed (scripts/install-deps.sh)"
	gh_summary
fi
mkdir -p "$d/prom"
printf 'global:\n  scrape_interval: 1h\n  evaluation_interval: 1h\nscrape_configs: []\n' >"$d/prom/prom.yml"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
prometheus --config.file="$d/prom/prom.yml" --storage.tsdb.path="$d/prom/data" \
	--web.listen-address="127.0.0.1:$port" >"$d/prom/log" 2>&1 </dev/null &
PROM=$!
GH_PIDS+=("$PROM")
if ! wait_for 20 http "http://127.0.0.1:$port/metrics" "$d/p0.txt" 2>/dev/null; then
	gh_fail "prometheus: no /metrics"
	gh_show "$d/prom/log" 5
	gh_summary
fi
sleep 3   # its start-up work done: the quiet moment

compare_prom() {
	python3 - "$d/p1.txt" "$d/w.txt" "$d/p2.txt" "$PROM" "$d/g1.txt" "$d/g2.txt" <<'PY'
import re, sys
def parse(f, pid=None):
    d = {}
    for l in open(f):
        m = re.match(r'(go_(?:memstats_[a-z_]+|gc_duration_seconds(?:_sum|_count)?|goroutines|threads))(\{[^}]*\})? (\S+)$', l)
        if not m:
            continue
        lab = m.group(2) or ''
        if pid is not None and 'pid="%s"' % pid not in lab:
            continue
        q = re.search(r'quantile="([^"]+)"', lab)
        d[m.group(1) + ('{quantile="%s"}' % q.group(1) if q else '')] = float(m.group(3))
    return d
def gor(f):
    m = re.match(r'goroutine profile: total (\d+)', open(f).readline())
    return float(m.group(1)) if m else None
p1, w, p2 = parse(sys.argv[1]), parse(sys.argv[2], sys.argv[4]), parse(sys.argv[3])
if p1.get('go_gc_duration_seconds_count') != p2.get('go_gc_duration_seconds_count'):
    print("GC a GC ran between the scrapes")
    sys.exit(0)
for k in sorted(set(p1) & set(w)):
    a, b, v = p1[k], p2[k], w[k]
    dd = abs(b - a)
    if k == 'go_goroutines':
        # prometheus counts itself while it serves /metrics (the
        # connection's goroutines and its registry's Gather workers); its
        # goroutine profile, also read while serving, counts the
        # connection's two: net/http conn.serve and its background reader
        g1, g2 = gor(sys.argv[5]), gor(sys.argv[6])
        ok = g1 is not None and g1 == g2 and v == g1 - 2
        how = "%s == its goroutine profile's total %s - 2 (conn.serve and its background reader; its /metrics said %s, with its Gather workers)" % (repr(v), g1, repr(a))
    elif a == b:
        ok = v == a
        how = "== %s (P1 == P2)" % repr(a)
    else:
        ok = min(a, b) - dd <= v <= max(a, b) + dd
        how = "%s within P1 %s .. P2 %s (+/- %s, one scrape)" % (repr(v), repr(a), repr(b), repr(dd))
    print("%s %s %s" % ("OK" if ok else "BAD", k, how))
only = sorted(k for k in p1 if k not in w)
if only:
    print("MISSING " + " ".join(only))
PY
}

done_prom=0
for attempt in 1 2 3; do
	http "http://127.0.0.1:$port/debug/pprof/goroutine?debug=1" "$d/g1.txt" || break
	http "http://127.0.0.1:$port/metrics" "$d/p1.txt" || break
	watch_start "watch-prom" "$PROM" || break
	wait_for 30 has_series w.txt go_memstats_sys_bytes "$PROM"
	http "http://127.0.0.1:$port/metrics" "$d/p2.txt" || break
	http "http://127.0.0.1:$port/debug/pprof/goroutine?debug=1" "$d/g2.txt" || break
	kill "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	compare_prom >"$d/cmp.txt"
	if grep -q '^GC ' "$d/cmp.txt" && [ "$attempt" -lt 3 ]; then
		echo "NOTE: prometheus ran a GC between the scrapes: once more"
		continue
	fi
	done_prom=1
	break
done
if [ "$done_prom" = 1 ] && grep -q '^GC ' "$d/cmp.txt"; then
	gh_fail "prometheus: a GC between the scrapes three times"
elif [ "$done_prom" = 1 ]; then
	nok=$(grep -c '^OK ' "$d/cmp.txt")
	nbad=$(grep -c '^BAD ' "$d/cmp.txt")
	neq=$(grep -c '^OK .*(P1 == P2)' "$d/cmp.txt")
	if [ "$nbad" = 0 ] && [ "$nok" -ge 32 ]; then
		gh_pass "prometheus: $nok go_memstats_*/go_gc_duration_seconds/go_goroutines/go_threads series agree with its own /metrics ($neq exactly, P1 == P2; the rest within what one scrape moves)"
	else
		gh_fail "prometheus: $nbad of $((nok + nbad)) series disagree with its own /metrics"
	fi
	grep '^BAD \|^MISSING ' "$d/cmp.txt" | cut -c1-200 >"$d/bad.txt"
	gh_show "$d/bad.txt" 10
	grep '^OK go_goroutines ' "$d/cmp.txt" | sed 's/^OK /  /' | cut -c1-200
	grep -v '(P1 == P2)' "$d/cmp.txt" | grep '^OK ' | grep -v '^OK go_goroutines ' |
		sed 's/^OK /  moved by a scrape: /' | cut -c1-200
	if grep -q '^MISSING ' "$d/cmp.txt"; then
		gh_fail "prometheus: series of its page absent from watch's: $(sed -n 's/^MISSING //p' "$d/cmp.txt")"
	fi
	if promtool check metrics <"$d/w.txt" >"$d/promtool.out" 2>&1; then
		gh_pass "promtool check metrics: watch's page with prometheus as a target"
	else
		gh_fail "promtool check metrics: watch's page with prometheus as a target"
		gh_show "$d/promtool.out" 8
	fi
else
	gh_fail "prometheus: the scrapes failed"
fi
gh_summary
