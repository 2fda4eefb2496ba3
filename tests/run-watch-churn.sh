#!/bin/bash
# tests/run-watch-churn.sh: `go-heap watch` on a busy node, where any process may be called
# anything and exec anything (doc/watch.md, "Identity and names").
#
#   1. Label values, a property test: 3000 random byte strings (most of them not UTF-8, with
#      quotes, backslashes and newlines) as the comm and exe of as many processes, rendered by
#      src/watch/watch_metrics.c (tests/watch-labels): `promtool check metrics` accepts the page, and
#      every comm and exe label value equals what a Go client would expose (tests/go/labelref:
#      strings.ToValidUTF8 + the text format's escaping); the index page is valid UTF-8.
#   2. Churn, about 45 s on 127.0.0.1 with `--interval 1s`: short-lived Go programs (some
#      SIGKILLed) started from files named with invalid UTF-8, a name cut mid-character by the
#      kernel's 15-byte comm, quotes and a newline, and one that renames itself to invalid bytes;
#      /metrics scraped ten times a second (each answer valid UTF-8 and exposition syntax, a
#      sample of them through `promtool check metrics`) and by a real Prometheus, whose target
#      must never be down;
#      - each name's label is the expected sanitised value;
#      - /pprof/PID/heap of PIDs that just exited (zombies and reaped) is 404 or 410, never 5xx;
#        ?seconds=2 of a process that dies during the wait is 410;
#      - exec: sh -> Go is listed, Go -> sleep is dropped, Go -> another Go file is listed with
#        the new exe and no error, and a Go program that execs its own file is a new target,
#        each by the end of the second round that starts after the exec (the first one that
#        starts after it can see it: counted in rounds, not seconds);
#      - stale *.tmp files of --output-dir (watch's name pattern only) removed at start;
#      - after the churn no descriptor of the exporter refers to a churn program's file or process
#        (every session of an exited target closed; a count would see the other tests' Go
#        programs, which watch profiles too; its resident memory is printed, not judged, for
#        the same reason);
#   3. The same under valgrind memcheck (12 s of churn, an sh -> Go and a Go -> Go exec, the
#      exited PIDs asked for): no error, no leak at exit.
# Environment: as tests/run-watch.sh; GOHEAP_WATCH_GO (toolchain, default the newest installed),
# GOHEAP_CHURN_SECONDS (the churn's length, default 40).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init

gh_need_python
if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
LABELS="$top_builddir/tests/watch-labels"
GOHEAP_GO_VERSIONS=${GOHEAP_WATCH_GO:-${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}}
gh_toolchains >/dev/null
if [ "${#GH_GO_NAMES[@]}" -eq 0 ]; then
	gh_skip "all: no Go toolchain installed"
	gh_summary
fi
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
d="$GH_TMP/churn"
mkdir -p "$d"
if ! cbin=$(gh_build churnprog "$goname" "$root" default 2>"$GH_TMP/build.err") ||
	! lref=$(gh_build labelref "$goname" "$root" default 2>>"$GH_TMP/build.err"); then
	gh_fail "$goname: build churnprog/labelref"
	gh_show "$GH_TMP/build.err" 20
	gh_summary
fi

# ---- 1. label values ---------------------------------------------------------------------------
echo "# label values: 3000 random names rendered, checked by promtool and against Go's"
python3 - >"$d/labels.hex" <<'PY'
import random
r = random.Random(28)
fixed = [b"latin1-\xe9t\xe9", "a監視デーモン".encode()[:15], b'q"b\\s\nx', b"\xed\xa0\x80surrogate",
         b"\xc0\xafoverlong", b"\xf4\x90\x80\x80big", b"\xf0\x9f\x98\x80ok", b"", b"\xff" * 40,
         b"a\\\"\n\\n\"", b"\xe2\x82", b"\xe2\x82\xac"]
for b in fixed:
    print(b.hex())
for i in range(3000 - len(fixed)):
    n = r.randrange(0, 48)
    pool = r.choice([range(1, 256), range(0x80, 0x100), b'\\"\n\xc3\xe2\x82\xac\xf0\x9f\xed\xa0a'])
    print(bytes(r.choice(pool) for _ in range(n)).hex())
PY
if ! "$LABELS" <"$d/labels.hex" >"$d/labels.prom" 2>"$d/labels.err"; then
	gh_fail "labels: tests/watch-labels failed: $(head -n 2 "$d/labels.err")"
elif ! command -v promtool >/dev/null 2>&1; then
	gh_skip "labels: promtool (Debian package prometheus) is not installed"
elif promtool check metrics <"$d/labels.prom" >"$d/promtool.out" 2>&1; then
	gh_pass "labels: promtool check metrics accepts the page of 3000 random names ($(wc -c <"$d/labels.prom") bytes)"
else
	gh_fail "labels: promtool check metrics rejects the page: $(head -n 3 "$d/promtool.out")"
fi
"$lref" <"$d/labels.hex" >"$d/labels.ref" 2>"$d/lref.err" || gh_fail "labels: labelref failed: $(head -n 2 "$d/lref.err")"
if python3 - "$d/labels.prom" "$d/labels.ref" >"$d/labels.cmp" 2>&1 <<'PY'
import re, sys
page = open(sys.argv[1], "rb").read()
ref = open(sys.argv[2], "rb").read().split(b"\n")[:-1]
val = rb'"((?:[^"\\\n]|\\.)*)"'
pat = re.compile(rb'^go_heap_watch_target_state\{pid="(\d+)",comm=' + val + rb',exe=' + val, re.M)
got = {int(m.group(1)): (m.group(2), m.group(3)) for m in pat.finditer(page)}
bad = 0
for i, want in enumerate(ref):
    have = got.get(i + 1)
    if have is None or have[0] != want or have[1] != want:
        bad += 1
        if bad <= 5:
            print("pid %d: want %r, have %r" % (i + 1, want, have))
print("%d of %d names differ" % (bad, len(ref)))
sys.exit(1 if bad or len(got) != len(ref) else 0)
PY
then
	gh_pass "labels: every comm and exe value equals Go's strings.ToValidUTF8 + escaping ($(tail -n 1 "$d/labels.cmp"))"
else
	gh_fail "labels: values differ from Go's: $(head -n 3 "$d/labels.cmp" | tr '\n' ' ')"
fi
if "$LABELS" -i <"$d/labels.hex" >"$d/labels.html" &&
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$d/labels.html" 2>"$d/html.err"; then
	gh_pass "labels: the index page of the same names is valid UTF-8"
else
	gh_fail "labels: the index page is not valid UTF-8: $(tail -n 1 "$d/html.err")"
fi

# ---- 2. churn ---------------------------------------------------------------------------------
gh_start "$cbin" -life 10s 2>"$GH_TMP/start.err" || { gh_fail "churnprog: $(cat "$GH_TMP/start.err")"; gh_summary; }
if ! gh_can_read_mem "$GH_PID"; then
	gh_skip "churn: cannot read other processes' memory (ptrace is restricted)"
	gh_summary
fi
# The programs' files: each name is the comm the kernel gives the process (its first 15 bytes).
names="$d/names"
mkdir -p "$names"
python3 - "$cbin" "$names" <<'PY'
import os, shutil, sys
src, d = sys.argv[1], sys.argv[2].encode()
for n in [b"churnprog", b"latin1-\xe9t\xe9", "a監視デーモン".encode(), b'q"b\\s\nx', b"churn-a"]:
    os.link(src, os.path.join(d, n))
shutil.copy(src, os.path.join(d, b"churn-b"))   # another file: another inode
PY
out="$d/out"
mkdir -p "$out"
echo stale >"$out/4242-churnprog-20260101T000000Z.pb.gz.tmp"
echo theirs >"$out/notes.tmp"
"$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 --output-dir "$out" --target-budget 2s -v \
	>"$d/watch.out" 2>"$d/watch.err" </dev/null &
WATCH=$!
GH_PIDS+=("$WATCH")
gh_wait_for 10 grep -qs 'listening on' "$d/watch.err"
ADDR=$(sed -n 's/.*listening on //p' "$d/watch.err" | head -n 1)
if [ -z "$ADDR" ]; then
	gh_fail "churn: watch did not start"
	gh_show "$d/watch.err" 10
	gh_summary
fi
if [ ! -e "$out/4242-churnprog-20260101T000000Z.pb.gz.tmp" ] && [ -e "$out/notes.tmp" ]; then
	gh_pass "output dir: a stale PID-COMM-STAMP.pb.gz.tmp removed at start, another program's *.tmp kept"
else
	gh_fail "output dir: stale *.tmp handling: $(ls "$out" | tr '\n' ' ')"
fi

PROM=
if command -v prometheus >/dev/null 2>&1; then
	PROM=127.0.0.1:$(gh_free_port)
	# a generous scrape timeout: "never down" means every scrape answered, not answered fast (a
	# 1 s timeout saw one scrape of 63 time out at load 30)
	cat >"$d/prom.yml" <<YML
global:
  scrape_interval: 5s
  scrape_timeout: 5s
scrape_configs:
  - job_name: watch
    static_configs:
      - targets: ['$ADDR']
YML
	prometheus --config.file="$d/prom.yml" --storage.tsdb.path="$d/prom" \
		--web.listen-address="$PROM" --log.level=warn >"$d/prom.out" 2>"$d/prom.err" </dev/null &
	GH_PIDS+=("$!")
else
	gh_skip "prometheus: the Debian package 'prometheus' is not installed (scripts/install-deps.sh)"
fi

echo "# churn: ${GOHEAP_CHURN_SECONDS:-40} s of short-lived, renamed and exec'ing Go programs against watch at $ADDR"
cat >"$d/driver.py" <<'PY'
# The churn's driver: ADDR WATCH_PID NAMES_DIR DIR SECONDS PROM MODE OUT.json (MODE full: every
# scenario; short: the churn, one sh -> Go and one Go -> Go exec).
import json, os, random, re, signal, subprocess, sys, threading, time, urllib.error, urllib.request

addr, wpid, names, d, secs, prom, mode, outjson = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4], float(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]
r = random.Random(2028)
stop = threading.Event()
lock = threading.Lock()
res = {"scrapes": 0, "bad_utf8": 0, "bad_syntax": 0, "saved": 0, "spawned": 0, "killed": 0,
       "probes": {}, "probe_5xx": [], "zombie_probes": 0, "checks": [], "fds": [], "rss": []}

def out(kind, ok, msg):
    with lock:
        res["checks"].append((kind, ok, msg))

def get(path, timeout=15):
    try:
        rr = urllib.request.urlopen("http://%s%s" % (addr, path), timeout=timeout)
        return rr.status, rr.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except Exception as e:
        return 0, str(e).encode()

line_ok = re.compile(rb'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? (-?[0-9.]+([eE][+-]?[0-9]+)?|NaN|[+-]Inf)$')
val = rb'"((?:[^"\\\n]|\\.)*)"'
state_re = re.compile(rb'^go_heap_watch_target_state\{pid="(\d+)",comm=' + val + rb',exe=' + val + rb',container_id="[^"]*",state="([^"]*)"\} 1$', re.M)

def targets(body):
    return {int(m.group(1)): (m.group(2), m.group(3), m.group(4)) for m in state_re.finditer(body)}

def rounds(body):
    m = re.search(rb'^go_heap_watch_scrapes_total (\d+)$', body, re.M)
    return int(m.group(1)) if m else -1

def metrics():
    st, body = get("/metrics")
    return body if st == 200 else b""

def wait_rounds(n, limit=60):
    """Until n more rounds have ended than now (bounded: a failure, not a threshold)."""
    r0 = rounds(metrics())
    t_end = time.monotonic() + limit
    while time.monotonic() < t_end:
        b = metrics()
        if rounds(b) >= r0 + n:
            return b
        time.sleep(0.1)
    return metrics()

def scraper():
    k = 0
    while not stop.is_set():
        st, body = get("/metrics")
        with lock:
            res["scrapes"] += 1
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                res["bad_utf8"] += 1
            if st != 200 or any(l and not l.startswith(b"#") and not line_ok.match(l) for l in body.split(b"\n")):
                res["bad_syntax"] += 1
        if k % 10 == 0:
            open(os.path.join(d, "scrape.%03d.prom" % (k // 10)), "wb").write(body)
            with lock:
                res["saved"] += 1
        k += 1
        time.sleep(0.1)

def probe(pid, why):
    st, body = get("/pprof/%d/heap" % pid)
    with lock:
        res["probes"][st] = res["probes"].get(st, 0) + 1
        if st >= 500 or st == 0:
            res["probe_5xx"].append((pid, why, st, body[:200].decode("utf-8", "replace")))
        if why == "zombie":
            res["zombie_probes"] += 1

def stat_state(pid):
    try:
        s = open("/proc/%d/stat" % pid, "rb").read()
        return s[s.rindex(b")") + 2:s.rindex(b")") + 3]
    except OSError:
        return b""

def spawn(name, *args, stdin=subprocess.DEVNULL):
    p = subprocess.Popen([os.path.join(names, name)] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, stdin=stdin)
    with lock:
        spawned.add(p.pid)
    return p

def exec_once_listed(name, *args):
    """A program that execs (-exec-on-line) once watch lists it: (process, listed).  The exec is
    the test's to time, not a timer's (a 1.5 s timer lost the race with a round on a busy
    machine: the program exec'd before watch had ever seen it)."""
    p = spawn(name, "-exec-on-line", *args, stdin=subprocess.PIPE)
    listed = wait_until(lambda: p.pid in targets(metrics()), 60)
    p.stdin.write(b"go\n")
    p.stdin.flush()
    return p, listed

short = [b"churnprog", b"latin1-\xe9t\xe9", "a監視デーモン".encode(), b'q"b\\s\nx']

def churner():
    live = []
    t_end = time.monotonic() + secs
    while time.monotonic() < t_end:
        if len(live) < 20:
            life = r.uniform(0.3, 3.0)
            p = spawn(r.choice(short), "-life", "%.2fs" % life)
            kill_at = time.monotonic() + r.uniform(0.1, life) if r.random() < 0.25 else None
            live.append((p, kill_at))
            with lock:
                res["spawned"] += 1
        still = []
        for p, kill_at in live:
            if kill_at is not None and time.monotonic() >= kill_at and p.poll() is None:
                p.send_signal(signal.SIGKILL)
                with lock:
                    res["killed"] += 1
                kill_at = None
            if stat_state(p.pid) == b"Z":
                probe(p.pid, "zombie")        # exited, not yet reaped
                p.wait()
                probe(p.pid, "reaped")
            elif p.poll() is not None:
                probe(p.pid, "reaped")
            else:
                still.append((p, kill_at))
        live = still
        time.sleep(0.15)
    for p, _ in live:
        p.kill()
        p.wait()

def exe_is(pid, path):
    try:
        return os.readlink(b"/proc/%d/exe" % pid) == path
    except OSError:
        return False

def wait_until(f, limit=30):
    t_end = time.monotonic() + limit
    while time.monotonic() < t_end:
        if f():
            return True
        time.sleep(0.05)
    return False

def esc(b):
    return b.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b'"', b'\\"')

def scenarios():
    time.sleep(2)
    if mode == "short":
        sh_go(1)
        go_go()
        return
    # names: each process listed with the sanitised comm (and exe) Go's client would expose
    want = {b"latin1-\xe9t\xe9": "latin1-\ufffdt\ufffd".encode(), "a監視デーモン".encode(): "a監視デー\ufffd".encode(),
            b'q"b\\s\nx': b'q\\"b\\\\s\\nx'}
    named = {n: spawn(n, "-life", "%ds" % (secs + 10)) for n in want}
    ren = spawn(b"churnprog", "-rename", b"ren\xff\xfe-\xc3".hex(), "-life", "%ds" % (secs + 10))
    b = wait_rounds(3)
    t = targets(b)
    for n, p in named.items():
        have = t.get(p.pid)
        wexe = esc(os.path.join(names, n).decode("utf-8", "replace").encode())
        ok = have is not None and have[0] == want[n] and have[1] == wexe
        out("names", ok, "file %r: comm=%r exe=%r (want comm=%r exe=%r)" % (n, have and have[0], have and have[1], want[n], wexe))
    have = t.get(ren.pid)
    out("names", have is not None and have[0] == "ren\ufffd-\ufffd".encode(),
        "renamed to b'ren\\xff\\xfe-\\xc3': comm=%r" % (have and have[0],))
    # ?seconds=2 of a process that dies during the wait: 410.  Killed 1 s after the request is
    # sent (was: a 1.5 s life, which a loaded machine spent before the request, for a 404):
    # each answer is 410, or 404 when the exporter read the request only after the exit (a
    # loaded machine); at least one of the five is the 410 under test
    res = []
    for i in range(5):
        p = spawn(b"churnprog", "-life", "%ds" % (secs + 60))
        wait_until(lambda: p.pid in targets(metrics()), 20)
        got = []
        th = threading.Thread(target=lambda: got.append(get("/pprof/%d/allocs?seconds=2" % p.pid, 60)))
        th.start()
        time.sleep(1)
        p.kill()
        p.wait()
        th.join(90)
        st, body = got[0] if got else (0, b"no answer")
        res.append("%d %s" % (st, body[:60].decode("utf-8", "replace").strip()))
    n410 = sum(r.startswith("410 ") for r in res)
    out("delta", n410 >= 1 and all(r[:4] in ("410 ", "404 ") for r in res),
        "?seconds=2 of a process killed during the wait: %d of 5 answered 410 (the others 404: read after the exit): %s" % (n410, "; ".join(res)))
    sh_go(3)
    go_sleep()
    go_go()
    go_self()
    for p in list(named.values()) + [ren]:
        p.kill(); p.wait()

def sh_go(n):
    churn = os.path.join(names, b"churnprog")
    for i in range(n):
        # the shell waits for a line: watch's discovery has seen it as a shell first
        p = subprocess.Popen([b"/bin/sh", b"-c", b"read go; exec '%s' -life %ds" % (churn, secs)],
                             stdout=subprocess.DEVNULL, stdin=subprocess.PIPE)
        spawned.add(p.pid)
        seen_sh = p.pid not in targets(wait_rounds(2))
        p.stdin.write(b"go\n"); p.stdin.flush()
        ok = seen_sh and wait_until(lambda: exe_is(p.pid, churn))
        t = targets(wait_rounds(2))
        out("exec", ok and p.pid in t and t[p.pid][1] == churn,
            "sh -> Go: pid %d not listed as a shell: %s, listed after the exec: %r" % (p.pid, seen_sh, t.get(p.pid)))
        p.kill(); p.wait()

def go_sleep():
    sleep = os.path.realpath(b"/bin/sleep")
    p, listed = exec_once_listed(b"churnprog", "-exec", "/bin/sleep", "--", "%d" % secs)
    ok = wait_until(lambda: exe_is(p.pid, sleep))
    t = targets(wait_rounds(2))
    st, body = get("/pprof/%d/heap" % p.pid)
    out("exec", listed and ok and p.pid not in t and st in (404, 410),
        "Go -> /bin/sleep: pid %d listed before: %s, after the exec: %r, /pprof/PID/heap %d" % (p.pid, listed, t.get(p.pid), st))
    p.kill(); p.wait()

def go_go():
    """Go -> another Go program (another file)"""
    other = os.path.join(names, b"churn-b")
    p, listed = exec_once_listed(b"churn-a", "-exec", other, "--", "-life", "%ds" % secs)
    ok = wait_until(lambda: exe_is(p.pid, other))
    b = wait_rounds(2)
    t = targets(b)
    m = re.search(rb'^go_heap_watch_target_errors_total\{pid="%d",[^}]*\} (\d+)$' % p.pid, b, re.M)
    out("exec", listed and ok and t.get(p.pid, (b"", b""))[:2] == (b"churn-b", other) and m is not None and m.group(1) == b"0",
        "Go -> Go (another file): pid %d after the exec: %r, errors %s" % (p.pid, t.get(p.pid), m and m.group(1)))
    p.kill(); p.wait()

def go_self():
    """a Go program that execs its own file: a new target (watch -v says so), no error"""
    me = os.path.join(names, b"churn-a")
    p, listed = exec_once_listed(b"churn-a", "-exec", me, "--", "-life", "%ds" % secs)
    again = p.stdout.readline() and p.stdout.readline().startswith(b"READY")
    b = wait_rounds(2)
    werr = open(os.path.join(d, "watch.err"), "rb").read()
    new = b"pid %d: a new Go program" % p.pid in werr
    m = re.search(rb'^go_heap_watch_target_errors_total\{pid="%d",[^}]*\} (\d+)$' % p.pid, b, re.M)
    out("exec", listed and again and new and m is not None and m.group(1) == b"0",
        "Go -> its own file: pid %d started again: %s, a new target: %s, errors %s" % (p.pid, bool(again), new, m and m.group(1)))
    p.kill(); p.wait()

spawned = set()

def resources():
    """(descriptors, resident bytes, descriptors that refer to a churn program's file or process)"""
    fds, ours = 0, []
    for fd in os.listdir("/proc/%d/fd" % wpid):
        try:
            l = os.readlink(b"/proc/%d/fd/%s" % (wpid, fd.encode()))
        except OSError:
            continue
        fds += 1
        m = re.match(rb"/proc/(\d+)/", l)
        if l.startswith(names) or (m is not None and int(m.group(1)) in spawned):
            ours.append(l.decode("utf-8", "replace"))
    rss = 0
    for l in open("/proc/%d/status" % wpid):
        if l.startswith("VmRSS:"):
            rss = int(l.split()[1]) * 1024
    return fds, rss, ours

idle = resources()
th = [threading.Thread(target=scraper, daemon=True), threading.Thread(target=churner, daemon=True)]
for x in th:
    x.start()
time.sleep(12)
warm = resources()
scenarios()
th[1].join()
stop.set()
th[0].join()
wait_rounds(2)      # exited targets dropped, connections closed
end = resources()
res["fds"], res["rss"], res["ours"] = [idle[0], end[0]], [warm[1], end[1]], end[2]
json.dump(res, open(outjson, "w"))
PY
python3 "$d/driver.py" "$ADDR" "$WATCH" "$names" "$d" "${GOHEAP_CHURN_SECONDS:-40}" "$PROM" full \
	"$d/churn.json" >"$d/churn.out" 2>"$d/churn.err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$d/churn.json" ]; then
	gh_fail "churn: the driver failed (status $rc)"
	gh_show "$d/churn.err" 20
	gh_summary
fi
# One PASS/FAIL line per check of the driver, then the totals.
python3 - "$d/churn.json" >"$d/churn.lines" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for kind, ok, msg in r["checks"]:
    print("%s %s: %s" % ("PASS" if ok else "FAIL", kind, msg))
s = r["scrapes"]
print("%s metrics: %d scrapes during the churn, %d not valid UTF-8, %d with a malformed line" %
      ("PASS" if s > 100 and r["bad_utf8"] == 0 and r["bad_syntax"] == 0 else "FAIL", s, r["bad_utf8"], r["bad_syntax"]))
p = r["probes"]
print("%s exited PIDs: %d /pprof/PID/heap requests right after exit (%d while a zombie): %s; 5xx: %s" %
      ("PASS" if not r["probe_5xx"] and sum(p.values()) > 50 and set(p) <= {"404", "410"} else "FAIL",
       sum(p.values()), r["zombie_probes"], ", ".join("%s x%d" % kv for kv in sorted(p.items())), r["probe_5xx"][:3] or "none"))
print("INFO churn: %d programs started, %d of them SIGKILLed" % (r["spawned"], r["killed"]))
(f0, f1), (m0, m1) = r["fds"], r["rss"]
print("%s descriptors: after the churn %d of the exporter's refer to its programs' files or processes (%d before it, %d after it: the other tests' Go programs are watched too)" %
      ("PASS" if not r["ours"] else "FAIL", len(r["ours"]), f0, f1))
print("INFO resident memory of the exporter: %.1f MiB 12 s into the churn, %.1f MiB at the end (other Go programs on the host count too; leaks: the valgrind phase)" % (m0 / 2**20, m1 / 2**20))
if r["ours"]:
    print("INFO still open: " + ", ".join(r["ours"][:6]))
PY
while IFS= read -r l; do
	case $l in
	PASS\ *) gh_pass "${l#PASS }" ;;
	FAIL\ *) gh_fail "${l#FAIL }" ;;
	*) echo "# ${l#INFO }" ;;
	esac
done <"$d/churn.lines"
n=0
bad=
for f in "$d"/scrape.*.prom; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	promtool check metrics <"$f" >"$d/pt.out" 2>&1 || bad="$bad $(basename "$f"): $(head -n 1 "$d/pt.out")"
done
if ! command -v promtool >/dev/null 2>&1; then
	gh_skip "metrics: promtool is not installed"
elif [ $n -gt 0 ] && [ -z "$bad" ]; then
	gh_pass "metrics: promtool check metrics accepts all $n sampled scrapes of the churn"
else
	gh_fail "metrics: promtool rejects sampled scrapes ($n):${bad:0:300}"
fi
if grep -q 'reads .*: not a rate' "$d/watch.err"; then
	gh_fail "watch read a program at another program's addresses: $(grep -m1 'not a rate' "$d/watch.err")"
else
	gh_pass "watch: no read of a program at another's addresses (no 'not a rate' in its log)"
fi

# ---- Prometheus: the target never down ---------------------------------------------------------
if [ -n "$PROM" ]; then
	python3 - "$PROM" "$ADDR" >"$d/prom.check" 2>&1 <<'PY'
import json, sys, urllib.parse, urllib.request
prom, addr = sys.argv[1], sys.argv[2]
def q(e):
    u = "http://%s/api/v1/query?query=%s" % (prom, urllib.parse.quote(e))
    return json.load(urllib.request.urlopen(u, timeout=10))["data"]["result"]
try:
    n = q('count_over_time(up{job="watch"}[5m])')
    lo = q('min_over_time(up{job="watch"}[5m])')
    t = json.load(urllib.request.urlopen("http://%s/api/v1/targets" % prom, timeout=10))["data"]["activeTargets"]
except Exception as e:
    print("FAIL prometheus: %s" % e); sys.exit(0)
n = float(n[0]["value"][1]) if n else 0
lo = float(lo[0]["value"][1]) if lo else 0
errs = [x.get("lastError", "") for x in t if x.get("scrapePool") == "watch"]
ok = n >= 5 and lo == 1 and errs == [""]
print("%s prometheus: %d scrapes of watch during the churn, up never 0 (min %g), lastError %r" %
      ("PASS" if ok else "FAIL", n, lo, errs[0] if errs else None))
PY
	case $(cat "$d/prom.check") in
	PASS\ *) gh_pass "$(sed 's/^PASS //' "$d/prom.check")" ;;
	*) gh_fail "$(sed 's/^FAIL //' "$d/prom.check" | head -n 3)"; gh_show "$d/prom.err" 5 ;;
	esac
fi
kill -TERM "$WATCH" 2>/dev/null
wait "$WATCH"
st=$?
[ $st -eq 0 ] && gh_pass "watch: SIGTERM ends it with status 0" || gh_fail "watch: status $st after SIGTERM"

# ---- 3. the same paths under valgrind: no error, no leak ----------------------------------------
if ! command -v valgrind >/dev/null 2>&1; then
	gh_skip "valgrind: not installed"
	gh_summary
fi
if ldd "$GH_GOHEAP" 2>/dev/null | grep -q libasan; then
	gh_skip "valgrind: this is the sanitizer build (valgrind cannot run it; ASan and UBSan watched the churn above)"
	gh_summary
fi
echo "# valgrind: watch under memcheck, 12 s of churn, an sh -> Go and a Go -> Go exec, exited PIDs asked for"
vlog="$d/vg.log"
rm -rf "$out"/*
valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
	--log-file="$vlog" "$GH_GOHEAP" watch --interval 1s --listen 127.0.0.1:0 --output-dir "$out" \
	--target-budget 5s -v >"$d/vg.out" 2>"$d/vg.err" </dev/null &
VW=$!
GH_PIDS+=("$VW")
n=0
while ! grep -q 'listening on' "$d/vg.err" 2>/dev/null && [ $n -lt 240 ]; do sleep 0.25; n=$((n + 1)); done
VADDR=$(sed -n 's/.*listening on //p' "$d/vg.err" | head -n 1)
if [ -z "$VADDR" ]; then
	gh_fail "valgrind: watch did not start under memcheck"
	gh_show "$d/vg.err" 5
	gh_summary
fi
python3 "$d/driver.py" "$VADDR" "$VW" "$names" "$d" 12 "" short "$d/vg.json" >"$d/vgd.out" 2>"$d/vgd.err" ||
	gh_fail "valgrind: the driver failed: $(tail -n 1 "$d/vgd.err")"
kill -TERM "$VW" 2>/dev/null
wait "$VW"
st=$?
errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$vlog" | tail -n 1)
leaks=$(grep -E '(definitely|indirectly|possibly) lost: [1-9]' "$vlog" | head -n 1)
what=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%d programs started, %d /pprof requests for exited PIDs, exec checks %d of %d passed" % (r["spawned"], sum(r["probes"].values()), sum(1 for c in r["checks"] if c[1]), len(r["checks"])))' "$d/vg.json" 2>/dev/null)
# the exec checks are not asserted under valgrind (its watch is 20-50x slower): their misses shown
python3 -c 'import json,sys; [print("# valgrind phase, not asserted: " + c[2][:200]) for c in json.load(open(sys.argv[1]))["checks"] if not c[1]]' "$d/vg.json" 2>/dev/null
if [ "$st" -eq 0 ] && [ "${errs:-x}" = 0 ] && [ -z "$leaks" ]; then
	gh_pass "valgrind: 0 errors, no leaks (${what:-no figures from the driver})"
else
	gh_fail "valgrind: exit $st, ${errs:-?} errors${leaks:+, $leaks}"
	# the first report whatever its kind (past valgrind's own header)
	grep -E '^==[0-9]+== ' "$vlog" | grep -vE '^==[0-9]+== *$' |
		sed -n '/Command:/,$p' | sed -n '2,40p' | grep -v 'Parent PID:' | sed 's/^/    | /'
fi
gh_summary
