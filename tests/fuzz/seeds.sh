#!/bin/bash
# tests/fuzz/seeds.sh: build the seed corpora of the libFuzzer harnesses from the project's
# test programs, under ${GOHEAP_CACHE:-~/.cache/go-heap}/fuzz/seeds/HARNESS/ (not in git: the
# executables are megabytes).  Idempotent: existing seeds are kept.
#
#   exe, sym   patches for tests/go/heapprog (overlay mode, fuzz.h) at its ELF headers, section
#              table, build info, symbol table and pclntab
#   elf-whole  heapprog built by one or two toolchains (default and PIE), a non-Go ELF, a
#              non-ELF file: seeds for fuzz_exe / fuzz_sym without GOHEAP_FUZZ_EXE
#   core       a gcore of heapprog, shrunk by shrink-core.py to its notes and page runs cut
#              to 256 bytes (about 150 KB); skipped when gcore or ptrace is unavailable
#   walk       synthetic images: bucket lists for several layouts, word sizes, byte orders
#   pprof      synthetic record lists (see fuzz_pprof.c for the format)
#   gor        (fuzz_gor's inputs are patches it writes itself) and, under $GH_CACHE/fuzz/gor/,
#              a gcore of tests/go/goroutineprog per toolchain (1.22, 1.27), shrunk
#   types      (fuzz_types's too) and, under $GH_CACHE/fuzz/types/, gcores of tests/go/typesprog
#              (go1.21, go1.27, go1.26 -unswept), shrunk
#
# Prints the path of the Go executable the walk and pprof harnesses symbolize with
# (GOHEAP_FUZZ_EXE) on its last line.
set -u
. "$(dirname "$0")/../lib.sh"
gh_init
here=$(cd "$(dirname "$0")" && pwd)
seeds="$GH_CACHE/fuzz/seeds"
mkdir -p "$seeds"/{exe,sym,core,walk,pprof} || exit 1

# webconfig: web configuration files (the toolkit's keys, good and bad), one with credentials
mkdir -p "$seeds/webconfig" || exit 1
printf '%s\n' 'tls_server_config:' '  cert_file: server.crt' '  key_file: server.key' \
	'  client_auth_type: RequireAndVerifyClientCert' '  client_ca_file: ca.crt' '  min_version: TLS13' \
	'  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]' '  curve_preferences: [X25519]' \
	'http_server_config:' '  http2: false' '  headers:' '    X-Frame-Options: deny' \
	'rate_limit:' '  interval: 1m30s' '  burst: 3' >"$seeds/webconfig/tls.yml"
printf '%s\n' '#A Basic YWxpY2U6czNjcmV0' 'basic_auth_users:' \
	"  alice: '\$2y\$04\$cbv0PCqVAs0pbL6kyi93M.nyQOucvs1k4GMY5IYImgorIKRRqwZV6'" \
	"  bob: \"\$2b\$04\$cbv0PCqVAs0pbL6kyi93M.nyQOucvs1k4GMY5IYImgorIKRRqwZV6\"" >"$seeds/webconfig/auth.yml"
printf '%s\n' 'tls_server_config: &a' '  cert: |' '    -----BEGIN CERTIFICATE-----' '    x' \
	'  key: "k"' '  client_allowed_sans: [a, "b"]' 'x: *a' >"$seeds/webconfig/anchor.yml"
# tlsframe: what clients send first: ClientHellos (TLS 1.2 only, TLS 1.3) from python3's ssl,
# the same cut in half, and plain HTTP
mkdir -p "$seeds/tlsframe" || exit 1
python3 - "$seeds/tlsframe" <<'PY' || echo "seeds: no ClientHello seeds (python3 ssl)" >&2
import ssl, sys
for name, v in (("hello12", ssl.TLSVersion.TLSv1_2), ("hello13", ssl.TLSVersion.TLSv1_3)):
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    c.check_hostname, c.verify_mode = False, ssl.CERT_NONE
    c.maximum_version = v
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    s = c.wrap_bio(i, o, server_hostname="go-heap")
    try:
        s.do_handshake()
    except ssl.SSLWantReadError:
        pass
    h = o.read()
    open("%s/%s" % (sys.argv[1], name), "wb").write(h)
    open("%s/%s-half" % (sys.argv[1], name), "wb").write(h[:len(h) // 2])
open("%s/http" % sys.argv[1], "wb").write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
PY

gh_toolchains >/dev/null
names=() roots=()
for i in "${!GH_GO_NAMES[@]}"; do
	case ${GH_GO_NAMES[$i]} in
	go1.22 | go1.24) names+=("${GH_GO_NAMES[$i]}"); roots+=("${GH_GO_ROOTS[$i]}") ;;
	esac
done
if [ ${#names[@]} -eq 0 ] && [ ${#GH_GO_NAMES[@]} -gt 0 ]; then
	names=("${GH_GO_NAMES[0]}")
	roots=("${GH_GO_ROOTS[0]}")
fi
[ ${#names[@]} -gt 0 ] || { echo "seeds: no Go toolchain installed" >&2; exit 1; }

# Whole-file seeds (elf-whole/, for runs without GOHEAP_FUZZ_EXE) and the patches of
# overlay mode (exe/ and sym/, see fuzz.h) for the first build.
mkdir -p "$seeds/elf-whole"
main=
for i in "${!names[@]}"; do
	for v in default pie; do
		bin=$(gh_build heapprog "${names[$i]}" "${roots[$i]}" $v) || exit 1
		[ -n "$main" ] || main=$bin
		cp -f "$bin" "$seeds/elf-whole/heapprog-${names[$i]}-$v"
	done
done
if [ -r /bin/true ]; then
	cp -f /bin/true "$seeds/elf-whole/not-go-elf"
fi
printf 'not an ELF file\n' >"$seeds/elf-whole/not-elf"
python3 - "$main" "$seeds" <<'PY'
import os, struct, sys
exe, d = sys.argv[1], sys.argv[2]
b = open(exe, "rb").read()
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
stroff = sh[shstrndx][4]
def name(s):
    e = b.index(b"\0", stroff + s[0])
    return b[stroff + s[0]:e].decode()
secs = {name(s): (s[4], s[5]) for s in sh}
def patch(path, off, n):
    open(path, "wb").write(struct.pack("<I", off) + b[off:off + n])
for h in ("exe", "sym"):
    p = os.path.join(d, h)
    for f in os.listdir(p):
        os.unlink(os.path.join(p, f))
patch(os.path.join(d, "exe", "ehdr-phdrs"), 0, 1024)
patch(os.path.join(d, "exe", "shdrs"), shoff, shentsize * shnum)
for s in (".go.buildinfo", ".note.go.buildid", ".symtab", ".strtab", ".rela.dyn", ".dynamic", ".shstrtab"):
    if s in secs:
        patch(os.path.join(d, "exe", s.strip(".")), secs[s][0], min(secs[s][1], 4096))
open(os.path.join(d, "exe", "cut-after-ehdr"), "wb").write(struct.pack("<I", 0x80000000) + b[:64])
if ".gopclntab" in secs:
    off, size = secs[".gopclntab"]
    for k, at in enumerate((0, 64, size // 8, size // 3, size // 2, 2 * size // 3, size - 2048)):
        patch(os.path.join(d, "sym", f"pclntab{k}"), off + at, 2048)
    patch(os.path.join(d, "sym", "pclntab-head"), off, 8192)
for s in (".noptrdata", ".data"):
    if s in secs:
        patch(os.path.join(d, "sym", s.strip(".")), secs[s][0], 4096)
PY

# A core of heapprog, once.
if [ ! -s "$seeds/core/heapprog.core" ] && command -v gcore >/dev/null 2>&1; then
	if gh_start "$main" "$GH_TMP/out"; then
		if gh_can_read_mem "$GH_PID" &&
			timeout 120 gcore -o "$GH_TMP/core" "$GH_PID" >/dev/null 2>&1; then
			python3 "$here/shrink-core.py" "$GH_TMP/core.$GH_PID" \
				"$seeds/core/heapprog.core" 256 || rm -f "$seeds/core/heapprog.core"
		fi
		gh_stop "$GH_PID"
		rm -f "$GH_TMP/core.$GH_PID"
	fi
fi
[ -s "$seeds/core/heapprog.core" ] || echo "seeds: no core seed (gcore or ptrace unavailable)" >&2

# fuzz_gor's snapshots, once per toolchain: goroutineprog (go1.22: labels in a classic hmap;
# go1.27: label lists) parked with its 2455 goroutines, gcore'd and shrunk to its non-zero
# pages (every stack and g kept whole: tens of MB), under $GH_CACHE/fuzz/gor/GONAME/
# {goroutineprog,core}.  The harness opens each once per process (GOHEAP_FUZZ_GOR = that
# directory); its seed inputs are patches it writes itself (GOHEAP_FUZZ_GOR_SEEDS).
mkdir -p "$GH_CACHE/fuzz/gor" "$seeds/gor"
for v in ${GOHEAP_FUZZ_GOR_VERSIONS:-1.22 1.27}; do
	gd="$GH_CACHE/fuzz/gor/go$v"
	[ -s "$gd/core" ] && [ -x "$gd/goroutineprog" ] && continue
	command -v gcore >/dev/null 2>&1 || { echo "seeds: no gcore: no fuzz_gor snapshot" >&2; break; }
	root=$(gh_goroot "$v") || { echo "seeds: go$v not installed: no fuzz_gor snapshot for it" >&2; continue; }
	bin=$(gh_build goroutineprog "go$v" "$root" default) || continue
	mkdir -p "$gd" "$GH_TMP/gor$v"
	if gh_start "$bin" -out "$GH_TMP/gor$v"; then
		if gh_can_read_mem "$GH_PID" &&
			timeout 300 gcore -o "$GH_TMP/gcore$v" "$GH_PID" >/dev/null 2>&1; then
			cp -f "$bin" "$gd/goroutineprog.tmp" && mv -f "$gd/goroutineprog.tmp" "$gd/goroutineprog"
			python3 "$here/shrink-core.py" "$GH_TMP/gcore$v.$GH_PID" "$gd/core.tmp" &&
				mv -f "$gd/core.tmp" "$gd/core"
		fi
		gh_stop "$GH_PID"
		rm -f "$GH_TMP/gcore$v.$GH_PID" "$gd/core.tmp"
	fi
	[ -s "$gd/core" ] || echo "seeds: no fuzz_gor snapshot for go$v (gcore or ptrace unavailable)" >&2
done
# fuzz_types's snapshots: tests/go/typesprog (go1.21: no malloc headers, uintptr indexes;
# go1.27: headers, Green Tea) settled after its dump, and go1.26 -unswept (right after an
# automatic GC: unswept spans, their mark bits read), gcore'd and shrunk to their non-zero
# pages, under $GH_CACHE/fuzz/types/NAME/{typesprog,core} (GOHEAP_FUZZ_TYPES).  Its seed
# inputs are patches it writes itself (GOHEAP_FUZZ_TYPES_SEEDS).
mkdir -p "$GH_CACHE/fuzz/types" "$seeds/types"
for tv in ${GOHEAP_FUZZ_TYPES_VERSIONS:-1.21 1.27 1.26-unswept}; do
	v=${tv%-unswept}
	gd="$GH_CACHE/fuzz/types/go$tv"
	[ -s "$gd/core" ] && [ -x "$gd/typesprog" ] && continue
	command -v gcore >/dev/null 2>&1 || { echo "seeds: no gcore: no fuzz_types snapshot" >&2; break; }
	root=$(gh_goroot "$v") || { echo "seeds: go$v not installed: no fuzz_types snapshot for it" >&2; continue; }
	bin=$(gh_build typesprog "go$v" "$root" default) || continue
	mkdir -p "$gd" "$GH_TMP/types$tv"
	rm -f "$GH_TMP/types$tv/go"
	if [ "$tv" = "$v" ]; then
		gh_start "$bin" "$GH_TMP/types$tv/heap.dump"
	else
		GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 gh_start "$bin" -unswept \
			"$GH_TMP/types$tv/heap.dump" "$GH_TMP/types$tv/go"
	fi
	if [ $? = 0 ]; then
		if gh_can_read_mem "$GH_PID" &&
			timeout 300 gcore -o "$GH_TMP/tcore$tv" "$GH_PID" >/dev/null 2>&1; then
			cp -f "$bin" "$gd/typesprog.tmp" && mv -f "$gd/typesprog.tmp" "$gd/typesprog"
			python3 "$here/shrink-core.py" "$GH_TMP/tcore$tv.$GH_PID" "$gd/core.tmp" &&
				mv -f "$gd/core.tmp" "$gd/core"
		fi
		gh_stop "$GH_PID"
		rm -f "$GH_TMP/tcore$tv.$GH_PID" "$gd/core.tmp" "$GH_TMP/types$tv/heap.dump"
	fi
	[ -s "$gd/core" ] || echo "seeds: no fuzz_types snapshot for go$tv (gcore or ptrace unavailable)" >&2
done
# Always at least a minimal ELF core header, so the corpus is never empty.
python3 - "$seeds" <<'PY'
import os, struct, sys
d = sys.argv[1]

def put(v, size, big):
    return v.to_bytes(size, "big" if big else "little")

# walk: header(minor-18, flags, kind, rateflag) + image at 0x10000.
def walk_image(minor, ps, big, kind, nb, cyc=False, nstk=2):
    img = bytearray(0x2000)
    base = 0x10000
    def w(addr, v, size=None):
        size = size or ps
        img[addr - base:addr - base + size] = put(v & ((1 << (8 * size)) - 1), size, big)
    bw = 6
    cw = 2 if minor >= 27 else 4
    typ = {0: 1, 1: 1, 2: 2, 3: 3}[kind]
    addrs = [base + 0x100 + i * 0x200 for i in range(nb)]
    w(base + 0x10 + 8 * (0 if kind < 2 else kind - 1), addrs[0] if nb else 0)
    w(base + 0x28, (7 << 1) | 1, 4)
    w(base + 0x30, 512 if kind < 2 else 1)
    for i, a in enumerate(addrs):
        nxt = addrs[(i + 1) % nb] if (cyc or i + 1 < nb) else 0
        w(a + 1 * ps, nxt)
        w(a + 2 * ps, typ)
        w(a + 4 * ps, 64 * (i + 1))
        w(a + 5 * ps, nstk)
        p = a + bw * ps
        for k in range(nstk):
            w(p, 0x401000 + 0x40 * (i + k))
            p += ps
        if kind < 2:
            for c in range(4 * cw):
                w(p, c + i + 1)
                p += ps
        else:
            w(p, 0x3ff0000000000000, 8)
            w(p + 8, 1000 + i, 8)
    hdr = bytes([minor - 18, (1 if ps == 4 else 0) | (2 if big else 0), kind, 0])
    return hdr + bytes(img)

n = 0
for minor in (19, 22, 23, 24, 27):
    for ps, big in ((8, False), (4, True)):
        for kind in range(4):
            n += 1
            open(os.path.join(d, "walk", f"w{n:03}"), "wb").write(
                walk_image(minor, ps, big, kind, 3 + n % 4, cyc=(n % 7 == 0), nstk=1 + n % 5))

# pprof: kind, minor index, flags, rate, then records.
for kind in range(4):
    for minor in (1, 3, 4, 5):
        b = bytearray([kind, minor, 0x11 + kind]) + struct.pack("<q", 512 if kind < 2 else 1)
        for r in range(6):
            b += struct.pack("<qqqq", 10 + r, 640 * (r + 1), r, 64 * r) + bytes([3])
            for k in range(3):
                b += struct.pack("<I", 0x100 * (r + 1) + 0x40 * k)
        open(os.path.join(d, "pprof", f"p{kind}{minor}"), "wb").write(b)

# core: the ELF header of a core with no segments.
open(os.path.join(d, "core", "empty-core"), "wb").write(
    b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 0, 0, 0, 0))
PY
echo "$main"
