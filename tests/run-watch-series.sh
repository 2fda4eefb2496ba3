#!/bin/bash
# tests/run-watch-series.sh: go-heap watch --heap-series (issue 36): the top-K types and
# retaining roots per Go process, against go-heap -p types / -p retained on the same program at
# a quiet point, and doc/watch.md's alert against a real Prometheus.
#
# tests/go/growprog holds main.leak (a global map[int]*Item, 1000 Items at the start) and
# main.steady; it prints READY after a runtime.GC() and then allocates nothing until SIGUSR1
# (each adds 500 Items: 656 B with pointers, typed by their malloc header from go1.22).
# For each toolchain (GOHEAP_SERIES_VERSIONS, default "1.19 1.27", within GOHEAP_GO_VERSIONS):
#   - exactness: go-heap -p types -f text before and after watch's scrape are equal (quiet), and
#     with --heap-series-top 1000 every go_heap_type_bytes / go_heap_type_objects equals the
#     text's rows summed per type (an untyped row's shape is its type), the two sets of types
#     equal; every go_heap_retained_bytes{root} equals -p retained -f collapsed's bytes summed
#     per root frame, the sets of roots equal;
#     (newest toolchain: a stripped build too, its roots bss+0x...);
#   - top K: --heap-series-top 3 exports exactly the 3 types with the most bytes (ties: more
#     objects, then the name), nothing else; promtool check metrics accepts both pages;
#   - staleness: growprog -base 100 (main.Steady the biggest type, main.Item second) with
#     --heap-series-top 1: after a step of 500 Items the one series is main.Item's (-p types'
#     biggest) and main.Steady's is gone from the page;
#   - budget: each stop lengthened by 300 ms (GOHEAP_TEST_SEIZE_DELAY_MS) over --target-budget
#     0.2s: types and retained overrun and are backed off on their own (no series; at most one
#     attempt in two rounds); --retained-series-max-heap 1K: type
#     series and no retained ones;
#   - off: without --heap-series there is no go_heap_type_* / go_heap_retained_* line.
# Newest toolchain (1.22+ for a typed main.Item): doc/watch.md's alert block, its windows scaled
# down (30m -> 20s, for 30m -> for 20s, 64 MiB -> 1 MiB), passes promtool check rules; a real
# Prometheus scrapes watch (--interval 1s, --heap-series types, top 3) watching a growing
# growprog (SIGUSR1 every second: +352 000 bytes of main.Item) and a steady one: the alert fires
# for the growing one's main.Item, and never (pending or firing) for the steady one, which was
# scraped as long; Prometheus holds exactly 3 go_heap_type_bytes series per process.
# Usage: --help lists the options (whole), bad values are status 2 with one line.
# Waits are gh_wait_for deadlines (GOHEAP_WAIT_SCALE): no timing is judged.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_python
gh_sample "${GOHEAP_SERIES_VERSIONS:-1.19 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# watch_up NAME ARGS...: go-heap watch --listen 127.0.0.1:0 ARGS in the background; sets WPID
# and ADDR (empty when it did not start).
watch_up() {
	local name=$1
	shift
	"$GH_GOHEAP" watch --listen 127.0.0.1:0 "$@" >"$d/$name.wout" 2>"$d/$name.werr" </dev/null &
	WPID=$!
	GH_PIDS+=("$WPID")
	ADDR=
	gh_wait_for 10 grep -qs 'listening on' "$d/$name.werr" &&
		ADDR=$(sed -n 's/.*listening on //p' "$d/$name.werr" | head -n 1)
}

# page_has FILE ADDR PATTERN: fetch /metrics into FILE; status 0 when a line matches PATTERN.
page_has() {
	curl -sf -o "$1" "http://$2/metrics" && grep -q "$3" "$1"
}

promcheck() {
	if ! command -v promtool >/dev/null 2>&1; then
		gh_skip "$tag: $2: promtool (Debian package prometheus) is not installed"
	elif promtool check metrics <"$1" >"$d/promtool.out" 2>&1; then
		gh_pass "$tag: $2: promtool check metrics accepts the page"
	else
		gh_fail "$tag: $2: promtool check metrics: $(head -n 3 "$d/promtool.out" | tr '\n' ' ')"
	fi
}

# ---- usage: the options in --help (whole: the page outgrew a 4 KiB buffer once), bad values ----
"$GH_GOHEAP" watch --help >"$GH_TMP/help.txt" 2>&1
if grep -q -- '--heap-series-top K' "$GH_TMP/help.txt" && grep -q -- '--retained-series-max-heap' "$GH_TMP/help.txt" &&
	tail -n 1 "$GH_TMP/help.txt" | grep -q 'certificate changes)$'; then
	gh_pass "usage: watch --help lists --heap-series, --heap-series-top, --retained-series-*, and ends whole"
else
	gh_fail "usage: watch --help: $(tail -n 1 "$GH_TMP/help.txt")"
fi
bad=
for a in "--heap-series bogus" "--heap-series-top 0" "--heap-series-top 1001" \
	"--retained-series-interval 0" "--retained-series-max-heap 12X"; do
	# shellcheck disable=SC2086
	"$GH_GOHEAP" watch $a >/dev/null 2>"$GH_TMP/usage.err"
	st=$?
	[ $st -eq 2 ] && [ "$(wc -l <"$GH_TMP/usage.err")" -eq 1 ] || bad="$bad [$a: status $st, $(head -c 100 "$GH_TMP/usage.err")]"
done
[ -z "$bad" ] && gh_pass "usage: 5 bad --heap-series values: status 2 and one line each" ||
	gh_fail "usage:$bad"

# exactness: watch --heap-series all with K=1000 against go-heap -p types / -p retained on $pid
# (quiet), in $d with $tag; a PASS or FAIL each, and promtool on the page.
exactness() {
	"$GH_GOHEAP" -p types -f text "$pid" >"$d/types1.txt" 2>"$d/types1.err" ||
		gh_fail "$tag: go-heap -p types failed: $(head -n 1 "$d/types1.err")"
	watch_up all --interval 1s --heap-series all --heap-series-top 1000 \
		--retained-series-interval 1s "$pid"
	if [ -z "$ADDR" ]; then
		gh_fail "$tag: watch did not start"
		gh_show "$d/all.werr" 5
		gh_stop "$pid"
		return 1
	fi
	if ! gh_wait_for 30 page_has "$d/all.prom" "$ADDR" "^go_heap_retained_bytes{pid=\"$pid\""; then
		gh_fail "$tag: no go_heap_retained_bytes for $pid on watch's page"
		gh_show "$d/all.werr" 5
	fi
	# a page with both kinds, each fresh: the types of this round, so compare after it
	page_has "$d/all.prom" "$ADDR" "^go_heap_type_bytes{pid=\"$pid\"" || true
	"$GH_GOHEAP" -p types -f text "$pid" >"$d/types2.txt" 2>/dev/null
	"$GH_GOHEAP" -p retained -f collapsed "$pid" >"$d/ret.collapsed" 2>"$d/ret.err" ||
		gh_fail "$tag: go-heap -p retained failed: $(head -n 1 "$d/ret.err")"
	gh_stop "$WPID"
	python3 - "$d/types1.txt" "$d/types2.txt" "$d/ret.collapsed" "$d/all.prom" "$pid" \
		>"$d/exact.check" 2>&1 <<'PY'
import re, sys
t1, t2, rc, page, pid = sys.argv[1:6]

def types(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path) if not l.startswith("#")]
    rows = [r for r in rows if len(r) >= 4 and r[0].isdigit()]
    agg = {}
    for o, b, t, shape in (r[:4] for r in rows):
        name = shape if t == "untyped" else t
        a = agg.setdefault(name, [0, 0])
        a[0] += int(o)
        a[1] += int(b)
    return agg

def unesc(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)

def series(name, label):
    out = {}
    pat = re.compile(r'^%s\{pid="%s",.*,%s="((?:[^"\\]|\\.)*)"\} (-?\d+)$' % (name, pid, label))
    for l in open(page):
        m = pat.match(l.rstrip("\n"))
        if m:
            out[unesc(m.group(1))] = int(m.group(2))
    return out

a, b = types(t1), types(t2)
if a != b:
    print("FAIL not quiet: -p types changed between the two reads")
    sys.exit(0)
tb, to = series("go_heap_type_bytes", "type"), series("go_heap_type_objects", "type")
bad = []
if set(tb) != set(a) or set(to) != set(a):
    bad.append("types: %d series, %d in -p types; only in series %s, only in -p types %s" % (
        len(tb), len(a), sorted(set(tb) - set(a))[:3], sorted(set(a) - set(tb))[:3]))
for k, (o, by) in a.items():
    if tb.get(k) != by or to.get(k) != o:
        bad.append("%s: series %s B %s objects, -p types %d B %d objects" % (k, tb.get(k), to.get(k), by, o))
roots = {}
for l in open(rc):
    l = l.rstrip("\n")
    if not l:
        continue
    path, v = l.rsplit(" ", 1)
    r = path.split(";", 1)[0]
    roots[r] = roots.get(r, 0) + int(v)
rb = series("go_heap_retained_bytes", "root")
if set(rb) != set(roots):
    bad.append("roots: %d series, %d in -p retained; only in series %s, only in -p retained %s" % (
        len(rb), len(roots), sorted(set(rb) - set(roots))[:3], sorted(set(roots) - set(rb))[:3]))
for k, v in roots.items():
    if rb.get(k) != v:
        bad.append("root %s: series %s, -p retained %d" % (k, rb.get(k), v))
if bad:
    print("FAIL " + "; ".join(bad[:4]))
else:
    top = max(a, key=lambda k: a[k][1])
    rtop = max(roots, key=lambda k: roots[k])
    print("PASS %d types (the biggest %s: %d objects, %d bytes) and %d roots (the biggest %s: %d bytes) equal -p types and -p retained"
          % (len(a), top, a[top][0], a[top][1], len(roots), rtop, roots[rtop]))
PY
	case $(cat "$d/exact.check") in
	PASS\ *) gh_pass "$tag: $(sed 's/^PASS //' "$d/exact.check")" ;;
	*) gh_fail "$tag: exactness: $(head -c 600 "$d/exact.check")" ;;
	esac
	promcheck "$d/all.prom" "--heap-series all"
}

for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	tag="$goname"
	d="$GH_TMP/$goname"
	mkdir -p "$d"
	gh_build_or_fail "$tag" growprog "$goname" "$root" default || continue
	if ! gh_start "$GH_BIN" -base 1000; then
		gh_fail "$tag: growprog did not start"
		continue
	fi
	pid=$GH_PID

	exactness || continue


	# ---- top K: the K biggest types only ----
	watch_up top3 --interval 1s --heap-series types --heap-series-top 3 "$pid"
	if [ -n "$ADDR" ] && gh_wait_for 30 page_has "$d/top3.prom" "$ADDR" "^go_heap_type_bytes{pid=\"$pid\""; then
		"$GH_GOHEAP" -p types -f text "$pid" >"$d/types3.txt" 2>/dev/null
		python3 - "$d/types3.txt" "$d/top3.prom" "$pid" >"$d/top3.check" 2>&1 <<'PY'
import re, sys
agg = {}
for l in open(sys.argv[1]):
    r = l.rstrip("\n").split("\t")
    if l.startswith("#") or len(r) < 4 or not r[0].isdigit():
        continue
    name = r[3] if r[2] == "untyped" else r[2]
    a = agg.setdefault(name, [0, 0])
    a[0] += int(r[0]); a[1] += int(r[1])
want = sorted(agg, key=lambda k: (-agg[k][1], -agg[k][0], k))[:3]
got = re.findall(r'^go_heap_type_bytes\{pid="%s",.*,type="([^"]*)"\} (\d+)$' % sys.argv[3],
                 open(sys.argv[2]).read(), re.M)
names = [g[0] for g in got]
ok = names == want and all(int(v) == agg[n][1] for n, v in got)
print("%s top 3: %s (want %s)" % ("PASS" if ok else "FAIL", got, want))
PY
		case $(cat "$d/top3.check") in
		PASS\ *) gh_pass "$tag: --heap-series-top 3: $(sed 's/^PASS //' "$d/top3.check")" ;;
		*) gh_fail "$tag: --heap-series-top 3: $(sed 's/^FAIL //' "$d/top3.check")" ;;
		esac
		promcheck "$d/top3.prom" "--heap-series-top 3"
	else
		gh_fail "$tag: --heap-series-top 3: no go_heap_type_bytes"
		gh_show "$d/top3.werr" 5
	fi
	[ -n "$ADDR" ] && gh_stop "$WPID"

	# ---- staleness: a type that leaves the top K has no series from then on ----
	# growprog -base 100: main.Steady (300 x 576 B) is the biggest type, main.Item (100 x 704 B)
	# behind it, until a step of 500 Items; with K=1 the one series must move from one to the
	# other (on 1.19 the same by their shapes)
	if gh_start "$GH_BIN" -base 100; then
		small=$GH_PID
		watch_up k1 --interval 1s --heap-series types --heap-series-top 1 "$small"
		if [ -n "$ADDR" ] && gh_wait_for 30 page_has "$d/k1a.prom" "$ADDR" "^go_heap_type_bytes{pid=\"$small\""; then
			first=$(sed -n "s/^go_heap_type_bytes{pid=\"$small\",.*,type=\"\([^\"]*\)\"} .*/\1/p" "$d/k1a.prom")
			kill -USR1 "$small"
			gh_wait_for 30 eval "page_has '$d/k1b.prom' '$ADDR' '^go_heap_type_bytes{pid=\"$small\"' && ! grep -qF 'type=\"$first\"' '$d/k1b.prom'"
			"$GH_GOHEAP" -p types -f text "$small" >"$d/k1.txt" 2>/dev/null
			now=$(sed -n "s/^go_heap_type_bytes{pid=\"$small\",.*,type=\"\([^\"]*\)\"} .*/\1/p" "$d/k1b.prom")
			top=$(awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ { n = ($3 == "untyped") ? $4 : $3; b[n] += $2 }
				END { for (k in b) if (b[k] > m) { m = b[k]; t = k }; print t }' "$d/k1.txt")
			nser=$(grep -c "^go_heap_type_bytes{pid=\"$small\"" "$d/k1b.prom")
			if [ -n "$first" ] && [ "$now" = "$top" ] && [ "$now" != "$first" ] && [ "$nser" = 1 ] &&
				! grep -qF "type=\"$first\"" "$d/k1b.prom"; then
				gh_pass "$tag: --heap-series-top 1: '$first' left the top after the step, its series is gone; the one series is now '$now', -p types' biggest"
			else
				gh_fail "$tag: --heap-series-top 1: before '$first', after '$now' ($nser series), -p types' biggest '$top'"
			fi
		else
			gh_fail "$tag: --heap-series-top 1: no go_heap_type_bytes"
		fi
		[ -n "$ADDR" ] && gh_stop "$WPID"
		gh_stop "$small"
	else
		gh_fail "$tag: growprog -base 100 did not start"
	fi

	# ---- budget and max heap ----
	# each stop of a types or retained collection lengthened by 300 ms (the library's test hook
	# GOHEAP_TEST_SEIZE_DELAY_MS, between seizing and interrupting) over --target-budget 0.2s:
	# they overrun and are backed off on their own (1, 2, 4 ... rounds; the heap profile, read
	# without a stop, is not): no series, and far fewer attempts than rounds
	GOHEAP_TEST_SEIZE_DELAY_MS=300 watch_up budget -v --interval 0.2s --heap-series all \
		--target-budget 0.2s "$pid"
	if [ -n "$ADDR" ] && gh_wait_for 60 eval "page_has '$d/budget.prom' '$ADDR' '^go_heap_watch_scrapes_total \\(1[2-9]\\|[2-9][0-9]\\|[0-9][0-9][0-9]\\)$'"; then
		rounds=$(sed -n 's/^go_heap_watch_scrapes_total //p' "$d/budget.prom")
		tries=$(grep -c 'types series: .*(backing off)' "$d/budget.werr")
		if ! grep -q '^go_heap_type_bytes' "$d/budget.prom" && [ "$tries" -ge 2 ] && [ "$tries" -le $((rounds / 2)) ]; then
			gh_pass "$tag: types over --target-budget (stops lengthened by 300 ms): no series, backed off ($tries attempts in $rounds rounds)"
		else
			gh_fail "$tag: types over --target-budget: $tries attempts in $rounds rounds, series: $(grep -c '^go_heap_type_bytes' "$d/budget.prom")"
			gh_show "$d/budget.werr" 5
		fi
	else
		gh_fail "$tag: --target-budget: watch made no 12 rounds"
	fi
	[ -n "$ADDR" ] && gh_stop "$WPID"
	# --retained-series-max-heap 1K: the heap (types' total, 1.3 MB) is over it: types only
	watch_up maxheap --interval 1s --heap-series all --retained-series-max-heap 1K \
		--retained-series-interval 1s "$pid"
	if [ -n "$ADDR" ] && gh_wait_for 30 eval "page_has '$d/maxheap.prom' '$ADDR' '^go_heap_watch_scrapes_total [3-9]'" &&
		grep -q "^go_heap_type_bytes{pid=\"$pid\"" "$d/maxheap.prom" &&
		! grep -q '^go_heap_retained_bytes\|series="retained"' "$d/maxheap.prom"; then
		gh_pass "$tag: --retained-series-max-heap 1K: type series, no retained ones (3+ rounds)"
	else
		gh_fail "$tag: --retained-series-max-heap 1K: $(grep -c '^go_heap_retained_bytes' "$d/maxheap.prom" 2>/dev/null) retained series"
	fi
	[ -n "$ADDR" ] && gh_stop "$WPID"

	# ---- off by default ----
	watch_up off --interval 1s "$pid"
	if [ -n "$ADDR" ] && gh_wait_for 30 page_has "$d/off.prom" "$ADDR" "^container_go_inuse_bytes{pid=\"$pid\""; then
		if grep -q '^go_heap_\(type\|retained\|series\)' "$d/off.prom"; then
			gh_fail "$tag: without --heap-series the page has heap series"
		else
			gh_pass "$tag: without --heap-series: no go_heap_type_*, go_heap_retained_*"
		fi
	else
		gh_fail "$tag: watch without --heap-series served no heap figures"
	fi
	[ -n "$ADDR" ] && gh_stop "$WPID"
	gh_stop "$pid"
done

# ---- exactness on a stripped binary (the newest toolchain): roots named bss+0x..., the runtime's
# globals found from machine code ----
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
tag="$goname stripped"
d="$GH_TMP/$goname-stripped"
mkdir -p "$d"
if gh_build_or_fail "$tag" growprog "$goname" "$root" stripped; then
	if gh_start "$GH_BIN" -base 1000; then
		pid=$GH_PID
		exactness && gh_stop "$pid"
	else
		gh_fail "$tag: growprog did not start"
	fi
fi

# ---- the alert, in a real Prometheus (the newest toolchain) ----
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
tag="$goname: alert"
d="$GH_TMP/$goname-alert"
mkdir -p "$d"
minor=${goname#go1.}
minor=${minor%%.*}
if [ "$minor" -lt 22 ]; then
	gh_skip "$tag: needs go1.22+ (main.Item typed by its malloc header); newest here is $goname"
elif ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
	gh_skip "$tag: prometheus and promtool (Debian package prometheus) are not installed"
elif gh_build_or_fail "$tag" growprog "$goname" "$root" default; then
	# doc/watch.md's block, scaled down
	awk '/tests\/run-watch-series.sh reads the next block/ { f = 1; next }
	     f && /^```yaml/ { on = 1; next } on && /^```/ { exit } on { print }' \
		"$top_srcdir/doc/watch.md" |
		sed -e 's/\[30m\]/[20s]/g' -e 's/for: 30m/for: 20s/' -e 's/64 \* 1024 \* 1024/1024 * 1024/' \
		>"$d/rules.yml"
	if grep -q 'GoHeapTypeGrowing' "$d/rules.yml" && promtool check rules "$d/rules.yml" >"$d/rules.check" 2>&1; then
		gh_pass "$tag: doc/watch.md's alert rule (scaled: 20s window, for 20s, 1 MiB) passes promtool check rules"
	else
		gh_fail "$tag: doc/watch.md's alert rule: $(head -n 3 "$d/rules.check" 2>/dev/null | tr '\n' ' ')"
	fi
	gh_start "$GH_BIN" -base 1000 && grow=$GH_PID && gout=$GH_OUT && gh_start "$GH_BIN" -base 1000 && steady=$GH_PID
	watch_up alert --interval 1s --heap-series types --heap-series-top 3 "$grow" "$steady"
	PROM=127.0.0.1:$(gh_free_port)
	cat >"$d/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $d/rules.yml
scrape_configs:
  - job_name: watch
    static_configs:
      - targets: ['$ADDR']
YML
	prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/prom" \
		--web.listen-address="$PROM" --log.level=warn >"$d/prom.out" 2>"$d/prom.err" </dev/null &
	ppid=$!
	GH_PIDS+=("$ppid")
	# the growing program: 500 main.Item a second, until the alert has fired
	(while kill -USR1 "$grow" 2>/dev/null; do sleep 1; done) &
	spid=$!
	GH_PIDS+=("$spid")
	fire="ALERTS{alertname=\"GoHeapTypeGrowing\",alertstate=\"firing\",pid=\"$grow\",type=\"main.Item\"}"
	if gh_wait_for 60 eval "[ \"\$(gh_prom_query '$PROM' '$fire')\" = 1 ]"; then
		gh_pass "$tag: GoHeapTypeGrowing fired for the growing program's main.Item ($(grep -c '^ADDED' "$gout") steps of 500 by then)"
	else
		gh_fail "$tag: GoHeapTypeGrowing never fired for pid $grow"
		gh_show "$d/prom.err" 5
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	ns=$(gh_prom_query "$PROM" "count_over_time(go_heap_type_bytes{pid=\"$steady\",type=\"main.Item\"}[10m])")
	ng=$(gh_prom_query "$PROM" "count_over_time(go_heap_type_bytes{pid=\"$grow\",type=\"main.Item\"}[10m])")
	na=$(gh_prom_query "$PROM" "count(count_over_time(ALERTS{pid=\"$steady\"}[10m]))")
	if [ -n "$ns" ] && [ -n "$ng" ] && [ "${ns%.*}" -ge "$(( ${ng%.*} * 8 / 10 ))" ] && [ -z "$na" ]; then
		gh_pass "$tag: never pending nor firing for the steady program ($ns samples of its main.Item, $ng of the growing one's)"
	else
		gh_fail "$tag: steady program: alerts '${na:-none}', $ns samples (growing: $ng)"
	fi
	k1=$(gh_prom_query "$PROM" "count(go_heap_type_bytes{pid=\"$grow\"})")
	k2=$(gh_prom_query "$PROM" "count(go_heap_type_bytes{pid=\"$steady\"})")
	if [ "$k1" = 3 ] && [ "$k2" = 3 ]; then
		gh_pass "$tag: Prometheus holds 3 go_heap_type_bytes series per process (--heap-series-top 3)"
	else
		gh_fail "$tag: go_heap_type_bytes series in Prometheus: $k1 and $k2, want 3"
	fi
	gh_stop "$ppid"
	gh_stop "$WPID"
	gh_stop "$grow"
	gh_stop "$steady"
fi
gh_summary
