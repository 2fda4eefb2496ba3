#!/usr/bin/env python3
"""tests/heapdump.py: the objects of a Go heap dump (debug.WriteHeapDump, "go1.7 heap dump"
format, src/runtime/heapdump.go, unchanged 1.19-1.27), for tests/run-types.sh.

Usage: heapdump.py DUMP MINOR [GREENTEA]   (GREENTEA 1/0: built with GOEXPERIMENT=(no)greenteagc)
       heapdump.py --pprof-sum PROFILE.pb.gz   (the sums of each sample value: "objects bytes")
       heapdump.py --patch CORE VADDR HEX      (overwrite the bytes at VADDR of an ELF64 core;
                                                prints the bytes that were there)
       heapdump.py --peek CORE VADDR           (the little-endian word at VADDR, in decimal;
                                                tests/run-memstats.sh)
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
    if sys.argv[1] == "--patch":
        return patch(sys.argv[2], int(sys.argv[3], 0), sys.argv[4])
    if sys.argv[1] == "--peek":
        return patch(sys.argv[2], int(sys.argv[3], 0), None)
    path, minor = sys.argv[1], int(sys.argv[2])
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
        n = 0
        while True:
            k = uv()
            if k == 0:
                return n
            uv()
            n += 1

    objs = []      # (addr, size, first word, has pointer fields)
    memstats = None
    while True:
        tag = uv()
        if tag == 0:
            break
        if tag == 1:
            addr = uv()
            body = mem()
            nf = fields()
            first = int.from_bytes(body[:8], "little") if len(body) >= 8 else 0
            objs.append((addr, len(body), first, nf > 0))
        elif tag == 2:
            mem(); uv()
        elif tag == 3:
            uv(); uv(); mem(); uv()
        elif tag == 4:
            for _ in range(7):
                uv()
            uv(); mem()
            for _ in range(4):
                uv()
        elif tag == 5:
            uv(); uv(); uv(); mem(); uv(); uv(); uv(); mem(); fields()
        elif tag == 6:
            uv(); uv(); uv(); uv(); mem(); mem(); uv()
        elif tag in (7, 11):
            for _ in range(5):
                uv()
        elif tag in (8, 17):
            uv(); uv()
        elif tag == 9:
            uv(); uv(); uv()
        elif tag == 10:
            v = [uv() for _ in range(24 + 256 + 1)]
            memstats = (v[11], v[6])      # HeapObjects, HeapAlloc
        elif tag in (12, 13):
            uv(); mem(); fields()
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

    headers = minor >= 22
    greentea = minor >= 26 if len(sys.argv) < 4 else sys.argv[3] == "1"
    # pages of one-page spans with reserved tails: is any object there pointerful?
    scanpage = {}
    for addr, size, first, ptrs in objs:
        if size <= 512:
            scanpage[addr & ~8191] = scanpage.get(addr & ~8191, False) or ptrs
    out = []
    for addr, size, first, ptrs in objs:
        if size <= 512:
            base = addr & ~8191
            reserve = 0
            if headers and scanpage[base]:
                reserve += 128
            if greentea and size >= 16:
                reserve += 128
            if (addr - base) // size >= (8192 - reserve) // size:
                continue
        out.append("0x%x %d 0x%x" % (addr, size, first))
    sys.stdout.write("\n".join(out) + "\n")
    if memstats is not None:
        print("MEMSTATS %d %d" % memstats)


if __name__ == "__main__":
    main()
