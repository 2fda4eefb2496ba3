#!/usr/bin/env python3
"""shrink-core.py CORE OUT [CAP]: a small copy of a 64-bit little-endian ELF core.

gcore dumps every reserved page of a Go program (about 1.2 GB for
tests/go/heapprog, nearly all of it zero heap arena).  This keeps the ELF
header, the notes, and of each PT_LOAD only the runs of pages holding a
non-zero byte, widened by one page on each side (so that a bucket straddling
a page boundary stays whole) and merged when closer than 16 pages; the
dropped ranges are simply not in the core any more, which go-heap reports as
"not dumped" if it ever reads them.  With CAP, each kept run is cut to at
most CAP bytes (a fuzz seed: the notes and segment table are what matter).  Used for fuzz seeds (tests/fuzz/seeds.sh)
and the hostile-core tests (tests/run-hostile.sh).
"""
import mmap
import struct
import sys

PAGE = 4096
ZERO = bytes(PAGE)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    cap = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 62
    with open(src, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
        sys.exit("shrink-core: not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", m, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", m, 0x36)
    notes, loads = [], []
    for i in range(phnum):
        ph = struct.unpack_from("<IIQQQQQQ", m, phoff + i * phentsize)
        typ, flags, off, vaddr, paddr, filesz, memsz, align = ph
        if typ == 1:
            npages = (filesz + PAGE - 1) // PAGE
            keep = [m[off + k * PAGE:off + min((k + 1) * PAGE, filesz)].strip(b"\0") != b""
                    for k in range(npages)]
            runs, k = [], 0
            while k < npages:
                if not keep[k]:
                    k += 1
                    continue
                a = k
                while k < npages and keep[k]:
                    k += 1
                a, b = max(0, a - 1), min(npages, k + 1)
                if runs and a - runs[-1][1] < 16:
                    runs[-1][1] = b
                else:
                    runs.append([a, b])
            for a, b in runs:
                lo = a * PAGE
                hi = min(b * PAGE, filesz, lo + cap)
                loads.append((flags, off + lo, vaddr + lo, hi - lo, align))
        elif typ != 0:
            notes.append(ph)
    nph = len(notes) + len(loads)
    out = bytearray(m[:64])
    struct.pack_into("<Q", out, 0x20, 64)
    struct.pack_into("<QHH", out, 0x28, 0, 0, 0)  # no section headers
    struct.pack_into("<HHHH", out, 0x36, 56, nph, 0, 0)
    pos = 64 + 56 * nph
    body, phs = bytearray(), []
    for typ, flags, off, vaddr, paddr, filesz, memsz, align in notes:
        phs.append(struct.pack("<IIQQQQQQ", typ, flags, pos + len(body), vaddr, paddr, filesz, memsz, align))
        body += m[off:off + filesz]
    for flags, off, vaddr, size, align in loads:
        while (pos + len(body)) % PAGE:
            body.append(0)
        phs.append(struct.pack("<IIQQQQQQ", 1, flags, pos + len(body), vaddr, 0, size, size, align))
        body += m[off:off + size]
    with open(dst, "wb") as f:
        f.write(out)
        for p in phs:
            f.write(p)
        f.write(body)


main()
