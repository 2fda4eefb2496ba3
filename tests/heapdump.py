#!/usr/bin/env python3
"""tests/heapdump.py: the objects of a Go heap dump (debug.WriteHeapDump, "go1.7 heap dump"
format, src/runtime/heapdump.go, unchanged 1.19-1.27), for tests/run-types.sh.

Usage: heapdump.py DUMP MINOR [GREENTEA]   (GREENTEA 1/0: built with GOEXPERIMENT=(no)greenteagc)
       heapdump.py --pprof-sum PROFILE.pb.gz   (the sums of each sample value: "objects bytes")
       heapdump.py --pprof-roots PROFILE.pb.gz (go-heap -p retained's profile: each stack's root
                   frame, its last location's function, with the sum of the samples' second
                   value under it, biggest first: "NAME BYTES" lines)
       heapdump.py --patch CORE VADDR HEX      (overwrite the bytes at VADDR of an ELF64 core;
                                                prints the bytes that were there)
       heapdump.py --peek CORE VADDR           (the little-endian word at VADDR, in decimal;
                                                tests/run-memstats.sh)
       heapdump.py --graph DUMP MINOR GREENTEA [ROOTS]
                   (tests/run-retained.sh: the object graph of the dump, from its objects'
                   pointer fields and its roots; ROOTS "conservative" (default) scans every word
                   of each stack frame, "precise" only the frame's pointer fields.  Prints one
                   line per object "0xADDR SIZE REACHABLE RETAINED IDOM" (RETAINED: the bytes of the
                   objects it dominates, itself included, 0 when unreachable; IDOM: its immediate
                   dominator's address, "root" or "-"), then
                   "TOTAL objects bytes reachable_objects reachable_bytes")
       heapdump.py --leakheld DUMP MINOR GREENTEA GOID=0xW[,0xW]...
                   (tests/run-goroutineleak.sh: the bytes each leaked goroutine keeps alive,
                   "HELD GOID SITE BYTES OBJECTS" lines; see leakheld)
       heapdump.py --spanwords CORE MHEAP_ALLSPANS MSPAN_SIZE
                   (the addresses of the words the span walker reads: mheap_.allspans' three
                   words, its array, every mspan's first MSPAN_SIZE bytes, one per line)

Prints one line per object: "0xADDR SIZE 0xFIRSTWORD" (the first word: a headered object's
type, go1.22+), and on the last line "MEMSTATS HeapObjects HeapAlloc" from the dump's own
memstats record.  Phantom slots are left out: from go1.22 dumpobjs walks npages*8192/elemsize
slots but knows free bits only below nelems, so the span's reserved tail (the 128-byte heap
bitmap of a pointerful span of objects <= 512 B; from go1.26, Green Tea's 128 bytes of inline
mark bits in spans of 16..512 B objects, pointer-free ones included) comes out as objects.
Every such span is one page (sizeclasses.go); a page is pointerful when one of its objects has a
pointer field (dumpobj's fields come from the heap bits, empty in a noscan span).
"""
import sys

TAG_NAMES = {}


def pprof_roots(path):
    import gzip
    data = gzip.open(path).read()

    def uv(b, i):
        v = shift = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                return v, i

    def fields(b):
        i = 0
        while i < len(b):
            key, i = uv(b, i)
            if key & 7 == 0:
                v, i = uv(b, i)
                yield key >> 3, v
            elif key & 7 == 2:
                n, i = uv(b, i)
                yield key >> 3, b[i:i + n]
                i += n
            else:
                sys.exit("heapdump.py: wire type %d in %s" % (key & 7, path))

    def packed(v):
        if isinstance(v, int):
            return [v]
        out, j = [], 0
        while j < len(v):
            x, j = uv(v, j)
            out.append(x)
        return out

    strings, samples, locfn, fnname = [], [], {}, {}
    for tag, val in fields(data):
        if tag == 6:
            strings.append(val.decode(errors="replace"))
        elif tag == 2:
            locs, vals = [], []
            for t2, v2 in fields(val):
                if t2 == 1:
                    locs += packed(v2)
                elif t2 == 2:
                    vals += packed(v2)
            samples.append((locs, vals))
        elif tag == 4:
            lid = fid = 0
            for t2, v2 in fields(val):
                if t2 == 1:
                    lid = v2
                elif t2 == 4:
                    for t3, v3 in fields(v2):
                        if t3 == 1:
                            fid = v3
            locfn[lid] = fid
        elif tag == 5:
            fid = name = 0
            for t2, v2 in fields(val):
                if t2 == 1:
                    fid = v2
                elif t2 == 2:
                    name = v2
            fnname[fid] = name
    sums = {}
    for locs, vals in samples:
        if locs and len(vals) > 1:
            root = strings[fnname[locfn[locs[-1]]]]
            sums[root] = sums.get(root, 0) + vals[1]
    for k, v in sorted(sums.items(), key=lambda kv: -kv[1]):
        print("%s %d" % (k, v))


def pprof_sum(path):
    import gzip
    data = gzip.open(path).read()

    def uv(b, i):
        v = shift = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                return v, i

    def fields(b):
        i = 0
        while i < len(b):
            key, i = uv(b, i)
            wt = key & 7
            if wt == 0:
                v, i = uv(b, i)
                yield key >> 3, v
            elif wt == 2:
                n, i = uv(b, i)
                yield key >> 3, b[i:i + n]
                i += n
            else:
                sys.exit("heapdump.py: wire type %d in %s" % (wt, path))

    sums = []
    for tag, val in fields(data):
        if tag != 2:
            continue
        vals = []
        for t2, v2 in fields(val):
            if t2 != 2:
                continue
            if isinstance(v2, int):
                vals.append(v2)
            else:
                j = 0
                while j < len(v2):
                    x, j = uv(v2, j)
                    vals.append(x)
        sums = [a + b for a, b in zip(sums, vals)] if sums else vals
    print(" ".join(str(x) for x in sums))


def patch(core, vaddr, hexbytes):
    import struct
    with open(core, "rb" if hexbytes is None else "r+b") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ptype, _, off, va, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
            if ptype == 1 and va <= vaddr < va + filesz:
                f.seek(off + vaddr - va)
                if hexbytes is None:
                    print(struct.unpack("<Q", f.read(8))[0])
                else:
                    new = bytes.fromhex(hexbytes)
                    print(f.read(len(new)).hex())   # what was there, to restore it
                    f.seek(off + vaddr - va)
                    f.write(new)
                return
    sys.exit("heapdump.py: 0x%x is not in %s" % (vaddr, core))


def core_reader(core):
    import struct
    f = open(core, "rb")
    eh = f.read(64)
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    segs = []
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        ptype, _, off, va, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
        if ptype == 1 and filesz > 0:
            segs.append((va, filesz, off))

    def word(addr):
        for va, sz, off in segs:
            if va <= addr and addr + 8 <= va + sz:
                f.seek(off + addr - va)
                return struct.unpack("<Q", f.read(8))[0]
        return None
    return word


def spanwords(core, allspans, mspan_size):
    word = core_reader(core)
    arr, n = word(allspans), word(allspans + 8)
    out = [allspans, allspans + 8, allspans + 16]
    for i in range(min(n, 1 << 20)):
        out.append(arr + 8 * i)
        sp = word(arr + 8 * i)
        if sp:
            out.extend(sp + k for k in range(0, mspan_size, 8))
    print("\n".join("0x%x" % a for a in out))


def main():
    if sys.argv[1] == "--spanwords":
        return spanwords(sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4]))
    if sys.argv[1] == "--pprof-sum":
        return pprof_sum(sys.argv[2])
    if sys.argv[1] == "--pprof-roots":
        return pprof_roots(sys.argv[2])
    if sys.argv[1] == "--patch":
        return patch(sys.argv[2], int(sys.argv[3], 0), sys.argv[4])
    if sys.argv[1] == "--peek":
        return patch(sys.argv[2], int(sys.argv[3], 0), None)
    if sys.argv[1] == "--leakheld":
        return leakheld(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5:])
    if sys.argv[1] == "--graph":
        holders = [a[len("--holder="):] for a in sys.argv[5:] if a.startswith("--holder=")]
        rest = [a for a in sys.argv[5:] if not a.startswith("--holder=")]
        return graph(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1",
                     rest[0] if rest else "conservative", holders)
    path, minor = sys.argv[1], int(sys.argv[2])
    objs, memstats, _ = parse(path)
    greentea = minor >= 26 if len(sys.argv) < 4 else sys.argv[3] == "1"
    out = ["0x%x %d 0x%x" % (addr, len(body), first(body))
           for addr, body, _ in real_objects(objs, minor, greentea)]
    sys.stdout.write("\n".join(out) + "\n")
    if memstats is not None:
        print("MEMSTATS %d %d" % memstats)


def first(body):
    return int.from_bytes(body[:8], "little") if len(body) >= 8 else 0


def real_objects(objs, minor, greentea):
    """The dump's objects without its phantom slots (see the module's comment)."""
    headers = minor >= 22
    scanpage = {}
    for addr, body, fields in objs:
        if len(body) <= 512:
            scanpage[addr & ~8191] = scanpage.get(addr & ~8191, False) or len(fields) > 0
    for addr, body, fields in objs:
        size = len(body)
        if size <= 512:
            base = addr & ~8191
            reserve = 0
            if headers and scanpage[base]:
                reserve += 128
            if greentea and size >= 16:
                reserve += 128
            if (addr - base) // size >= (8192 - reserve) // size:
                continue
        yield addr, body, fields


def parse(path):
    """objects [(addr, body, [field offsets])], memstats, roots: [(kind, label, addr,
    body, [field offsets])] for data, bss and frames, and (kind, label, ptr) pointers."""
    data = open(path, "rb").read()
    hdr = b"go1.7 heap dump\n"
    if not data.startswith(hdr):
        sys.exit("heapdump.py: %s: not a go1.7 heap dump" % path)
    pos = len(hdr)

    def uv():
        nonlocal pos
        v = 0
        shift = 0
        while True:
            b = data[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    def mem():
        nonlocal pos
        n = uv()
        s = data[pos:pos + n]
        pos += n
        return s

    def fields():
        offs = []
        while True:
            k = uv()
            if k == 0:
                return offs
            offs.append(uv())

    objs = []
    roots = []
    memstats = None
    goid = 0
    while True:
        tag = uv()
        if tag == 0:
            break
        if tag == 1:
            addr = uv()
            body = mem()
            objs.append((addr, body, fields()))
        elif tag == 2:
            desc = mem()
            roots.append(("other", desc.decode(errors="replace"), uv()))
        elif tag == 3:
            uv(); uv(); mem(); uv()
        elif tag == 4:
            gp = uv(); uv(); goid = uv()
            for _ in range(4):
                uv()
            uv(); mem()
            for _ in range(4):
                uv()
            roots.append(("goroutine", "", gp, goid))
        elif tag == 5:
            sp = uv(); uv(); uv(); body = mem(); uv(); uv(); uv()
            name = mem().decode(errors="replace")
            # a goroutine's frames follow its record (dumpgoroutine)
            roots.append(("frame", name, sp, body, fields(), goid))
        elif tag == 6:
            uv(); uv(); uv(); uv(); mem(); mem(); uv()
        elif tag in (7, 11):
            obj, fn = uv(), uv()
            for _ in range(3):
                uv()
            roots.append(("finalizer" if tag == 7 else "queued", "obj", obj))
            roots.append(("other", "finalizer fn", fn))
        elif tag in (8, 17):
            uv(); uv()
        elif tag == 9:
            uv(); uv(); uv()
        elif tag == 10:
            v = [uv() for _ in range(24 + 256 + 1)]
            memstats = (v[11], v[6])      # HeapObjects, HeapAlloc
        elif tag in (12, 13):
            addr = uv(); body = mem()
            roots.append(("data" if tag == 12 else "bss", "", addr, body, fields()))
        elif tag == 14:
            for _ in range(7):
                uv()
        elif tag == 15:
            for _ in range(6):
                uv()
        elif tag == 16:
            uv(); uv()
            n = uv()
            for _ in range(n):
                mem(); mem(); uv()
            uv(); uv()
        else:
            sys.exit("heapdump.py: unknown record tag %d at offset %d" % (tag, pos))

    return objs, memstats, roots


def object_index(objs):
    """(find, word) over objs, sorted by address: find(p) is the index of the object holding
    address p (-1: none); word(body, off) the little-endian word at off (0 past the end)."""
    import bisect
    addrs = [a for a, _, _ in objs]
    sizes = [len(b) for _, b, _ in objs]

    def find(p):
        i = bisect.bisect_right(addrs, p) - 1
        if i >= 0 and p - addrs[i] < sizes[i]:
            return i
        return -1

    def word(body, off):
        return int.from_bytes(body[off:off + 8], "little") if off + 8 <= len(body) else 0
    return find, word


def graph(path, minor, greentea, mode, holders=()):
    import bisect
    objs, memstats, roots = parse(path)
    objs = sorted(real_objects(objs, minor, greentea))
    addrs = [a for a, _, _ in objs]
    sizes = [len(b) for _, b, _ in objs]
    n = len(objs)
    find, word = object_index(objs)

    # nodes: objects 0..n-1, then one node per root slot, then the super-root
    succ = [[] for _ in range(n)]
    for i, (addr, body, fields) in enumerate(objs):
        for off in fields:
            j = find(word(body, off))
            if j >= 0:
                succ[i].append(j)
    rootsucc = []
    rootmeta = []      # per root slot: (kind, frame name or slot address)
    for r in roots:
        kind = r[0]
        if kind in ("data", "bss") or (kind == "frame" and mode == "precise"):
            body, fields = r[3], r[4]
            for off in fields:
                j = find(word(body, off))
                if j >= 0:
                    rootsucc.append([j])
                    rootmeta.append((kind, r[1] if kind == "frame" else r[2] + off))
        elif kind == "frame":
            body = r[3]
            for off in range(0, len(body) - 7, 8):
                j = find(word(body, off))
                if j >= 0:
                    rootsucc.append([j])
                    rootmeta.append((kind, r[1]))
        elif kind == "goroutine":
            continue
        elif kind == "finalizer":
            # markrootSpans: the object's referents, not the object
            j = find(r[2])
            if j >= 0:
                rootsucc.append(list(succ[j]))
                rootmeta.append((kind, r[2]))
        else:
            j = find(r[2])
            if j >= 0:
                rootsucc.append([j])
                rootmeta.append((kind, r[2]))
    nn = n + len(rootsucc) + 1
    S = nn - 1
    succ.extend(rootsucc)
    succ.append(list(range(n, n + len(rootsucc))))
    # reverse postorder from S (iterative DFS)
    order = []
    seen = bytearray(nn)
    seen[S] = 1
    stack = [(S, 0)]
    while stack:
        v, k = stack[-1]
        if k < len(succ[v]):
            stack[-1] = (v, k + 1)
            w = succ[v][k]
            if not seen[w]:
                seen[w] = 1
                stack.append((w, 0))
        else:
            stack.pop()
            order.append(v)
    order.reverse()
    rpo = [-1] * nn
    for i, v in enumerate(order):
        rpo[v] = i
    preds = [[] for _ in range(nn)]
    for v in order:
        for w in succ[v]:
            preds[w].append(v)
    # Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm"
    idom = [-1] * nn
    idom[S] = S
    changed = True
    while changed:
        changed = False
        for v in order[1:]:
            new = -1
            for p in preds[v]:
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while rpo[a] > rpo[b]:
                        a = idom[a]
                    while rpo[b] > rpo[a]:
                        b = idom[b]
                new = a
            if idom[v] != new:
                idom[v] = new
                changed = True
    ret = [0] * nn
    for v in order:
        if v < n:
            ret[v] = sizes[v]
    for v in reversed(order[1:]):
        ret[idom[v]] += ret[v]
    out = []
    ro = rb = 0
    for i in range(n):
        r = seen[i] == 1
        if r:
            ro += 1
            rb += sizes[i]
        d = idom[i] if r else -1
        out.append("0x%x %d %d %d %s" % (addrs[i], sizes[i], r, ret[i] if r else 0,
                                         "-" if d < 0 else "0x%x" % addrs[d] if d < n else "root"))
    sys.stdout.write("\n".join(out) + "\n")
    print("TOTAL %d %d %d %d" % (n, sum(sizes), ro, rb))
    # a holder's retained bytes: what is no longer reachable without its root slots
    # ("NAME=ADDR:SIZE", a global's bytes; "frame:FUNC", every frame of that function)
    for h in holders:
        if h.startswith("frame:"):
            fn = h[len("frame:"):]
            drop = {n + k for k, m in enumerate(rootmeta) if m[0] == "frame" and m[1] == fn}
        else:
            name, rng = h.split("=")
            lo, sz = rng.split(":")
            lo, sz = int(lo, 0), int(sz, 0)
            drop = {n + k for k, m in enumerate(rootmeta)
                    if m[0] in ("data", "bss") and lo <= m[1] < lo + sz}
            for k in sorted(drop):
                print("HOLDERPTR %s 0x%x" % (name, addrs[rootsucc[k - n][0]]))
        seen2 = bytearray(nn)
        todo = [n + k for k in range(len(rootsucc)) if n + k not in drop]
        for v in todo:
            seen2[v] = 1
        while todo:
            v = todo.pop()
            for w in succ[v]:
                if not seen2[w]:
                    seen2[w] = 1
                    todo.append(w)
        lo_o = lo_b = 0
        for i in range(n):
            if seen[i] and not seen2[i]:
                lo_o += 1
                lo_b += sizes[i]
        print("HOLDER %s %d %d" % (h.split("=")[0], lo_b, lo_o))


def leakheld(path, minor, greentea, leaks):
    """What each leaked goroutine keeps alive, from the dump alone (tests/run-goroutineleak.sh).

    leaks: "GOID=0xW[,0xW...]", a goroutine the program leaked and the objects it waits on (its
    channels, its Mutex's, RWMutex's, WaitGroup's or Cond's object).  As the runtime's leak GC
    (go1.27 mgc.go setSyncObjectsUntraceable, findGoroutineLeaks): the leaked goroutines' frames
    are no roots and the pointers from their sudogs to what they wait on are hidden (a sudog
    here: an object with a pointer to the goroutine's g and one to a wait object); everything
    else (data, bss, the other goroutines' frames with their stack maps, finalizers, the other
    roots) marks M.  A leaked goroutine holds what its frames and wait objects reach outside M
    and reached from no other leaked goroutine.  Prints "HELD GOID SITE BYTES OBJECTS" per leak
    (SITE: its innermost frame outside the runtime, sync and internal/sync packages), then
    "LEAKTOTAL BYTES OBJECTS" (every object only leaks reach, shared ones too)."""
    import bisect
    objs, _, roots = parse(path)
    objs = sorted(real_objects(objs, minor, greentea))
    addrs = [a for a, _, _ in objs]
    sizes = [len(b) for _, b, _ in objs]
    n = len(objs)
    find, word = object_index(objs)

    wait = {}
    for a in leaks:
        g, ws = a.split("=")
        wait[int(g)] = {find(int(w, 0)) for w in ws.split(",") if w} - {-1}
    succ = [[] for _ in range(n)]
    for i, (addr, body, fields) in enumerate(objs):
        for off in fields:
            j = find(word(body, off))
            if j >= 0:
                succ[i].append(j)
    gobj = {r[3]: find(r[2]) for r in roots if r[0] == "goroutine"}
    hidden = set()
    for g, ws in wait.items():
        gi = gobj.get(g, -1)
        if gi < 0:
            sys.exit("heapdump.py: goroutine %d not in the dump" % g)
        for i in range(n):
            if gi in succ[i]:
                for j in succ[i]:
                    if j in ws:
                        hidden.add((i, j))
    start = {}         # goid -> its frames' pointees
    other = []
    site = {}
    for r in roots:
        kind = r[0]
        targets = []
        if kind in ("data", "bss", "frame"):
            body, fields = r[3], r[4]
            targets = [find(word(body, off)) for off in fields]
        elif kind == "finalizer":
            j = find(r[2])
            targets = list(succ[j]) if j >= 0 else []
        elif kind in ("queued", "other"):
            targets = [find(r[2])]
        targets = [j for j in targets if j >= 0]
        if kind == "frame" and r[5] in wait:
            start.setdefault(r[5], []).extend(targets)
            if r[5] not in site and not r[1].startswith(("runtime.", "sync.", "internal/sync.")):
                site[r[5]] = r[1]
        else:
            other.extend(targets)

    def reach(todo, seen, mark, stop):
        todo = [j for j in todo if seen[j] == 0 and not stop[j]]
        for j in todo:
            seen[j] = mark
        while todo:
            v = todo.pop()
            for w in succ[v]:
                if seen[w] == 0 and not stop[w] and (v, w) not in hidden:
                    seen[w] = mark
                    todo.append(w)

    marked = [0] * n
    reach(other, marked, 1, [False] * n)
    stop = [m == 1 for m in marked]
    owners = [set() for _ in range(n)]     # the leaked goroutines reaching each object
    for g in sorted(wait):
        seen = [0] * n
        reach(start.get(g, []) + sorted(wait[g]), seen, 1, stop)
        for i in range(n):
            if seen[i]:
                owners[i].add(g)
    tb = to = 0
    held = {g: [0, 0] for g in wait}
    for i in range(n):
        if owners[i]:
            tb += sizes[i]
            to += 1
            if len(owners[i]) == 1:
                g = next(iter(owners[i]))
                held[g][0] += sizes[i]
                held[g][1] += 1
    for g in sorted(wait):
        print("HELD %d %s %d %d" % (g, site.get(g, "?"), held[g][0], held[g][1]))
    print("LEAKTOTAL %d %d" % (tb, to))


if __name__ == "__main__":
    main()
