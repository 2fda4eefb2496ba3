#!/bin/bash
# tests/run-mutate.sh: damaged data gives an error or a warning, never nonsense (issue 14).
#
# For each toolchain (GOHEAP_GO_VERSIONS, default "1.24 1.27" for this script): heapprog
# (default build) is started and dumped once with gcore.  The bucket list is walked in python
# over the core's PT_LOAD segments, from runtime.mbuckets (`nm` of the executable), collecting
# the file offsets of every word go-heap reads: each bucket's header words (allnext, typ, size,
# nstk), its stack words and its memRecord words, and the program headers (p_offset, p_vaddr,
# p_filesz) of the segments that hold them.  Then, with a fixed seed
# (random.Random(12345)), one word at a time is damaged in a copy of the core (set to 0,
# all-ones, a large positive, a negative, +-1, a byte flip, a bit flip) and go-heap runs as
#   go-heap -f text CORE EXE;  -f pprof -o X.pb.gz;  -f top;  -f collapsed   (20 s each)
# Asserted for every case, reported once per group and toolchain (FAIL lines name the first
# few offending cases):
#   crash     exit 0, 1 or 3 only (never a signal, a timeout, a sanitizer report; 3 is "no
#             heap profile in this core": a moved segment reads MemProfileRate and
#             runtime.mbuckets as 0); exit 1 or 3 with one line on stderr
#   negative  no negative count or byte number in the text header and records, in top's
#             output, in collapsed's values
#   header    the text header "heap profile: a: b [c: d]" is the sum of the records printed
#             below it (c and d of alloc, a and b of in-use; d + 1 when d == b, as
#             runtime/pprof's writeHeapInternal does from 1.21)
#   pprof     the profile decodes (tests/compare.sh dump) and no sample value is negative
#   warning   a warning on stderr ("buckets ... are left out") exactly when the pprof profile
#             carries go-heap's comment about skipped buckets
# And once per toolchain: the undamaged core gives exit 0, no warning.
#
# Environment: top_srcdir, top_builddir, GOHEAP_CACHE, GOHEAP_GO_VERSIONS, GOHEAP_KEEP (as the
# other scripts), plus
#   GOHEAP_MUTATE_CASES  cases per toolchain (default 150; doc/fuzzing.md has a 2000-case run)
#   GOHEAP_MUTATE_JOBS   cases run at once (default 2)
#   GOHEAP_MUTATE_SEED   the random seed (default 12345)
#   GOHEAP_MUTATE_LIST=1 print every case and its outcome
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
gh_init
: "${GOHEAP_GO_VERSIONS:=1.24 1.27}"
export GOHEAP_GO_VERSIONS
CASES=${GOHEAP_MUTATE_CASES:-150}
JOBS=${GOHEAP_MUTATE_JOBS:-2}
SEED=${GOHEAP_MUTATE_SEED:-12345}

gh_need_python
if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
if ! command -v gcore >/dev/null 2>&1; then
	gh_skip "all: gcore (gdb) not installed"
	gh_summary
fi
if ! command -v nm >/dev/null 2>&1; then
	gh_skip "all: nm (binutils) not installed"
	gh_summary
fi
gh_need_toolchains

# mutate GONAME CORE EXE DIR: the cases; prints PASS:/FAIL:/SKIP: lines.
mutate() {
	python3 - "$@" "$GH_GOHEAP" "$GH_TESTS/compare.sh" "$CASES" "$JOBS" "$SEED" <<'PY'
import concurrent.futures, os, queue, random, re, shutil, struct, subprocess, sys

goname, core, exe, work, goheap, compare, ncases, jobs, seed = sys.argv[1:10]
ncases, jobs, seed = int(ncases), max(1, int(jobs)), int(seed)
minor = int(goname.split(".")[1])
T = 20

def out(kind, msg):
    print(f"{kind}: {goname}: {msg}", flush=True)

# ---- the core: PT_LOAD segments (64-bit little-endian ELF) -----------------------------
with open(core, "rb") as f:
    ehdr = f.read(64)
    if ehdr[:4] != b"\x7fELF" or ehdr[4] != 2 or ehdr[5] != 1:
        out("SKIP", "mutations: not a 64-bit little-endian core")
        sys.exit(0)
    phoff, = struct.unpack_from("<Q", ehdr, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", ehdr, 0x36)
    f.seek(phoff)
    ph = f.read(phentsize * phnum)
loads = []
for i in range(phnum):
    typ, _, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
    if typ == 1 and filesz > 0:
        loads.append((vaddr, off, filesz, phoff + i * phentsize))
fd = os.open(core, os.O_RDONLY)

def seg(addr, size=8):
    for l in loads:
        if l[0] <= addr and addr + size <= l[0] + l[2]:
            return l
    return None

def foff(addr, size=8):
    l = seg(addr, size)
    return None if l is None else l[1] + addr - l[0]

def word(addr):
    o = foff(addr)
    if o is None:
        raise KeyError(addr)
    return struct.unpack("<Q", os.pread(fd, 8, o))[0]

# ---- the bucket list (runtime.bucket: next, allnext, typ, hash, size, nstk; then the stack
# and the memRecord: active + future[3] cycles of 4 words (<= 1.26) or 2 (1.27)) ----------
sym = None
for line in subprocess.run(["nm", exe], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 3 and p[2] == "runtime.mbuckets":
        sym = int(p[0], 16)
if sym is None:
    out("FAIL", "mutations: runtime.mbuckets not in nm's output of " + exe)
    sys.exit(0)
cw = 2 if minor >= 27 else 4
fields = []          # (what, file offset, bucket address, bucket number)
b, n, seen = word(sym), 0, set()
while b and b not in seen and n < 100000:
    seen.add(b)
    for w, name in ((1, "allnext"), (2, "typ"), (4, "size"), (5, "nstk")):
        fields.append((name, foff(b + 8 * w), b, n))
    nstk = word(b + 40)
    for i in range(nstk):
        fields.append((f"stack[{i}]", foff(b + 48 + 8 * i), b, n))
    rec = b + 48 + 8 * nstk
    names = ("allocs", "frees", "alloc_bytes", "free_bytes")[:cw]
    for c in range(4):
        for i in range(cw):
            fields.append((("active" if c == 0 else f"future[{c - 1}]") + "." + names[i],
                           foff(rec + 8 * (c * cw + i)), b, n))
    b = word(b + 8)
    n += 1
fields = [x for x in fields if x[1] is not None]
# The program headers of the segments holding the buckets and runtime.mbuckets: p_offset,
# p_vaddr, p_filesz (a damaged program header moves or cuts what go-heap reads).
for l in {seg(a) for a in seen | {sym}} - {None}:
    for w, name in ((8, "p_offset"), (16, "p_vaddr"), (32, "p_filesz")):
        fields.append((f"phdr {name}", l[3] + w, l[0], -1))
groups = {}
for x in fields:
    g = x[0].split("[")[0].split(".")[0].split(" ")[0]
    g = "record" if g in ("active", "future") else g
    groups.setdefault(g, []).append(x)
os.close(fd)

# ---- one case ------------------------------------------------------------------------------
HDR = re.compile(r"^heap profile: (-?\d+): (-?\d+) \[(-?\d+): (-?\d+)\] @ heap/(-?\d+)$")
REC = re.compile(r"^(-?\d+): (-?\d+) \[(-?\d+): (-?\d+)\] @")
NEG = re.compile(r"(^|[\s(\[=/])-\d")

def run(args, stdout_path=None):
    try:
        with open(stdout_path or os.devnull, "wb") as so:
            p = subprocess.run([goheap] + args, stdout=so, stderr=subprocess.PIPE, timeout=T)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""

def check(copy, exe, d, res):
    """Run the four formats on copy; fill res (a dict of findings)."""
    res["rc"] = {}
    res["warned"] = {}
    for fmt in ("text", "pprof", "top", "collapsed"):
        o = os.path.join(d, "x." + fmt)
        if os.path.exists(o):
            os.unlink(o)
        if fmt == "pprof":
            rc, err = run(["-f", "pprof", "-o", o, copy, exe])
        else:
            rc, err = run(["-f", fmt, copy, exe], o)
        res["rc"][fmt] = rc
        lines = err.splitlines()
        if rc == "timeout":
            res.setdefault("hang", []).append(fmt)
            continue
        if rc not in (0, 1, 3) or re.search(r"Sanitizer|runtime error:", err):
            res.setdefault("crash", []).append(f"{fmt}: exit {rc} {err[:200]!r}")
            continue
        if rc != 0 and len(lines) != 1:
            res.setdefault("crash", []).append(f"{fmt}: exit {rc} with {len(lines)} lines on stderr")
        res["warned"][fmt] = rc == 0 and any("left out of the profile" in l for l in lines)
        if fmt == "text" and rc != 0 and lines:
            res["err"] = lines[0]
        if rc == 0 and any("left out" not in l and "warning" not in l for l in lines):
            res.setdefault("crash", []).append(f"{fmt}: exit 0 with stderr {err[:200]!r}")
        if rc != 0:
            continue
        if fmt == "text":
            text_checks(o, res)
        elif fmt == "top":
            with open(o, errors="replace") as f:
                for l in f:
                    if NEG.search(l):
                        res.setdefault("negative", []).append(f"top: {l.strip()[:160]}")
                        break
        elif fmt == "collapsed":
            with open(o, errors="replace") as f:
                for l in f:
                    v = l.rstrip("\n").rsplit(" ", 1)[-1]
                    if not re.fullmatch(r"\d+", v):
                        res.setdefault("negative", []).append(f"collapsed: {l.strip()[-80:]}")
                        break
        else:
            pprof_checks(o, res)

def text_checks(path, res):
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    m = HDR.match(lines[0]) if lines else None
    if not m:
        res.setdefault("header", []).append(f"no header: {lines[:1]!r}")
        return
    hdr = [int(x) for x in m.groups()[:4]]
    sums = [0, 0, 0, 0]
    for l in lines[1:]:
        r = REC.match(l)
        if r:
            v = [int(x) for x in r.groups()]
            if min(v) < 0:
                res.setdefault("negative", []).append(f"text record: {l[:120]}")
            sums = [a + b for a, b in zip(sums, v)]
        elif l and not l.startswith("#"):
            res.setdefault("header", []).append(f"unparsed line {l[:100]!r}")
            return
    if min(hdr) < 0 or int(m.group(5)) < 0:
        res.setdefault("negative", []).append(f"text header: {lines[0]}")
    want = list(sums)
    if minor >= 21 and sums[1] == sums[3]:
        want[3] += 1
    if hdr != want:
        res.setdefault("header", []).append(f"header {hdr} but records sum to {sums}")

def pprof_checks(path, res):
    p = subprocess.run(["sh", compare, "dump", path], capture_output=True, text=True)
    if p.returncode != 0:
        res.setdefault("pprof", []).append(f"does not decode: {p.stdout.strip()[:160]}")
        return
    res["comment"] = any(l.startswith("comment:") and "left out as implausible" in l
                         for l in p.stdout.splitlines())
    for l in p.stdout.splitlines():
        m = re.match(r"^  \[([-0-9, ]*)\]", l)
        if m and any(int(x) < 0 for x in m.group(1).split(",") if x.strip()):
            res.setdefault("pprof", []).append(f"negative sample value: {l.strip()[:120]}")
            break

# ---- the cases -------------------------------------------------------------------------------
rng = random.Random(seed)
gnames = sorted(groups)
weights = [3 if g == "record" else 1 for g in gnames]
OPS = ("zero", "ones", "large", "negative", "+1", "-1", "byteflip", "bitflip")
cases = []
for k in range(ncases):
    g = rng.choices(gnames, weights)[0]
    what, off, baddr, bno = rng.choice(groups[g])
    op = rng.choice(OPS)
    cases.append((k, what, off, baddr, bno, op, rng.getrandbits(64)))

copies = queue.Queue()
for j in range(jobs):
    d = os.path.join(work, f"w{j}")
    os.makedirs(d, exist_ok=True)
    c = os.path.join(d, "core")
    subprocess.run(["cp", "--sparse=always", core, c], check=True)
    copies.put((c, d))

def newval(old, op, r):
    M = (1 << 64) - 1
    v = {"zero": 0, "ones": M, "large": (1 << 62) | (r & 0xffffffff),
         "negative": (-(1 + (r & 0xfffff))) & M, "+1": (old + 1) & M, "-1": (old - 1) & M,
         "byteflip": old ^ (0xff << (8 * (r % 8))), "bitflip": old ^ (1 << (r % 64))}[op]
    return v if v != old else (old + 1) & M

def one(case):
    k, what, off, baddr, bno, op, r = case
    copy, d = copies.get()
    try:
        with open(copy, "r+b") as f:
            f.seek(off)
            orig = f.read(8)
            old = struct.unpack("<Q", orig)[0]
            new = newval(old, op, r)
            f.seek(off)
            f.write(struct.pack("<Q", new))
        where = f"bucket #{bno} 0x{baddr:x}" if bno >= 0 else f"segment at 0x{baddr:x}"
        res = {"desc": f"case {k}: {where} {what} 0x{old:x} -> 0x{new:x} ({op})"}
        try:
            check(copy, exe, d, res)
        finally:
            with open(copy, "r+b") as f:
                f.seek(off)
                f.write(orig)
        return res
    finally:
        copies.put((copy, d))

# The undamaged core first: a clean profile, no warning.
c0, d0 = copies.get()
base = {}
check(c0, exe, d0, base)
copies.put((c0, d0))
bad = [f for f in ("crash", "hang", "negative", "header", "pprof") if base.get(f)]
if bad or any(v != 0 for v in base["rc"].values()) or any(base["warned"].values()):
    out("FAIL", f"undamaged core: exit {base['rc']}, warned {base['warned']}, " +
        "; ".join(f"{f}: {base[f][0]}" for f in bad))
else:
    out("PASS", f"undamaged core ({n} buckets, {len(fields)} words go-heap reads): exit 0 in "
        "every format, no warning, header == sums of the records")

with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
    results = list(ex.map(one, cases))

if os.environ.get("GOHEAP_MUTATE_LIST") == "1":
    for r in results:
        rc = r["rc"].get("text")
        how = r.get("err", "") if rc else ("skipped buckets" if r["warned"].get("text") else "clean")
        print(f"    | {r['desc']}: exit {rc}: {how[:150]}", flush=True)

def report(key, ok_msg, fail_msg):
    badc = [r for r in results if r.get(key)]
    if not badc:
        out("PASS", ok_msg)
        return
    out("FAIL", f"{len(badc)} of {len(results)} mutations: {fail_msg}")
    for r in badc[:4]:
        print(f"    | {r['desc']}: {r[key][0]}", flush=True)

ok0 = [r for r in results if r["rc"].get("text") == 0]
refused = [r for r in results if r["rc"].get("text") in (1, 3)]
warned = [r for r in results if r["warned"].get("text")]
crashes = sum(1 for r in results if r.get("crash"))
hangs = sum(1 for r in results if r.get("hang"))
neg = sum(1 for r in results if r.get("negative"))
hdr = sum(1 for r in results if r.get("header"))
toomany = sum(1 for r in refused if "implausible" in r.get("err", ""))
tally = (f"({len(ok0)} exit 0, {len(warned)} of them with skipped buckets; {len(refused)} refused: "
         f"{toomany} for too many implausible buckets, {len(refused) - toomany} for a broken list, "
         "segment or global)")
report("crash", f"{len(results)} mutations: {crashes} crashes {tally}", "crashed or wrong exit")
report("hang", f"{len(results)} mutations: {hangs} hangs (limit {T} s per run)", "hung")
report("negative", f"{len(results)} mutations: {neg} with a negative number in text, top or "
       "collapsed", "negative numbers")
report("header", f"{len(results)} mutations: {hdr} text headers that are not the sums of their "
       f"records ({len(ok0)} checked)", "header != sums of the records")
npb = sum(1 for r in results if r["rc"].get("pprof") == 0)
report("pprof", f"{len(results)} mutations: {npb} pprof profiles decode, no negative sample "
       "value", "pprof output bad")
for r in results:
    if r["rc"].get("pprof") == 0 and r["warned"].get("pprof") != bool(r.get("comment")):
        r["agree"] = [f"warning {r['warned'].get('pprof')} but comment {bool(r.get('comment'))}"]
report("agree", f"{len(results)} mutations: the skipped-bucket warning and the pprof comment "
       f"agree ({sum(1 for r in results if r.get('comment'))} with both)",
       "warning and pprof comment disagree")
PY
}

for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	tag="$goname/mutate"
	d="$GH_TMP/$goname"
	mkdir -p "$d/out"
	if ! gh_build_or_fail "$tag" heapprog "$goname" "$root" default; then
		continue
	fi
	bin=$GH_BIN
	if ! gh_start "$bin" -out "$d/out" 2>"$GH_TMP/start.err"; then
		gh_fail "$tag: heapprog: $(cat "$GH_TMP/start.err")"
		continue
	fi
	if ! gh_can_read_mem "$GH_PID"; then
		gh_skip "$tag: cannot ptrace the target (kernel.yama.ptrace_scope or CAP_SYS_PTRACE)"
		gh_stop "$GH_PID"
		continue
	fi
	pid=$GH_PID
	timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
	gh_stop "$pid"
	core="$d/core.$pid"
	if [ ! -s "$core" ]; then
		gh_fail "$tag: gcore wrote no core"
		gh_show "$d/gcore.log" 10
		continue
	fi
	got=0
	while IFS= read -r line; do
		case $line in
		PASS:*) gh_pass "${line#PASS: }"; got=$((got + 1)) ;;
		FAIL:*) gh_fail "${line#FAIL: }"; got=$((got + 1)) ;;
		SKIP:*) gh_skip "${line#SKIP: }"; got=$((got + 1)) ;;
		*) echo "$line" ;;
		esac
	done < <(mutate "$goname" "$core" "$bin" "$d" 2>&1)
	# 7 result lines, or 1 (a SKIP, or the FAIL of a core it cannot walk)
	if [ "$got" -ne 7 ] && [ "$got" -ne 1 ]; then
		gh_fail "$tag: the mutation driver stopped after $got result lines"
	fi
	rm -rf "$core" "$d"/w*
done
gh_summary
