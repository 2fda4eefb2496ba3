#!/usr/bin/env python3
"""corepatch.py CORE OP ...: read and patch target memory inside an ELF core
(64-bit little-endian), for tests/run-hostile.sh.

  read ADDR              print the 8-byte word at target address ADDR (hex)
  write ADDR VALUE       overwrite that word in place
  buckets HEAD N         print the addresses of the first N buckets of the list
                         whose head pointer is stored at HEAD (allnext is word 1)
  zero-seg ADDR          fill the file bytes of the PT_LOAD holding ADDR with zeros
  segment ADDR           print "OFFSET SIZE" of the PT_LOAD holding ADDR
  layout                 print "PHDRS_END NOTES_START NOTES_END FIRST_LOAD_OFFSET"

Addresses and values are hex or decimal.  Exits 1 when an address is not in
the core.
"""
import mmap
import struct
import sys


def loads(m):
    phoff, = struct.unpack_from("<Q", m, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", m, 0x36)
    for i in range(phnum):
        typ, _, off, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", m, phoff + i * phentsize)
        if typ == 1:
            yield off, vaddr, filesz


def where(m, addr, size=8):
    for off, vaddr, filesz in loads(m):
        if vaddr <= addr and addr + size <= vaddr + filesz:
            return off + addr - vaddr, off, filesz
    sys.exit(f"corepatch: 0x{addr:x} is not in the core")


def main():
    path, op = sys.argv[1], sys.argv[2]
    args = [int(a, 0) for a in sys.argv[3:]]
    with open(path, "r+b") as f:
        m = mmap.mmap(f.fileno(), 0)
        if op == "read":
            print(hex(struct.unpack_from("<Q", m, where(m, args[0])[0])[0]))
        elif op == "write":
            struct.pack_into("<Q", m, where(m, args[0])[0], args[1] & (2**64 - 1))
        elif op == "buckets":
            b = struct.unpack_from("<Q", m, where(m, args[0])[0])[0]
            for _ in range(args[1]):
                if b == 0:
                    break
                print(hex(b))
                b = struct.unpack_from("<Q", m, where(m, b + 8)[0])[0]
        elif op == "zero-seg":
            _, off, size = where(m, args[0])
            m[off:off + size] = bytes(size)
        elif op == "segment":
            _, off, size = where(m, args[0])
            print(off, size)
        elif op == "layout":
            phoff, = struct.unpack_from("<Q", m, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", m, 0x36)
            ns = ne = 0
            for i in range(phnum):
                typ, _, off, _, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", m, phoff + i * phentsize)
                if typ == 4 and ns == 0:
                    ns, ne = off, off + filesz
            print(phoff + phentsize * phnum, ns, ne, min(o for o, _, _ in loads(m)))
        else:
            sys.exit(f"corepatch: unknown operation {op}")
        m.flush()


main()
