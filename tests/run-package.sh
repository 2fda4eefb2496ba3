#!/usr/bin/env bash
# tests/run-package.sh: the ways go-heap is installed (issue 30, doc/packaging.md).
#
# The static binary (src/go-heap-static, `make static`; make check builds it):
#   - `file` says statically linked, `ldd` "not a dynamic executable", no PT_INTERP;
#   - copied alone into an empty directory and run there under `env -i`, it profiles a live
#     heapprog (newest toolchain) and a stripped one (Capstone, linked in), and its -f text,
#     pprof (decoded) and goroutine tracebacks equal the build tree's src/go-heap on the same
#     process; its text equals the program's own heap profile;
#   - it reads an arm64 core (heapprog built with GOARCH=arm64, run under qemu-user, SIGABRT),
#     default and stripped (Capstone's arm64 decoder), as src/go-heap does; with
#     GOHEAP_STATIC_ARM64=PATH, the cross-built arm64 static binary (contrib/static/
#     cross-arm64.sh) reads the same cores under qemu-user, with the same output;
#   - `go-heap-static watch` serves /metrics and /pprof/PID/heap for the live program, and
#     https with --web.config.file (its TLS module compiled in);
#   - contrib/container/build-oci.sh makes an OCI image archive of it whose blobs, config and
#     layer check out (no container engine or base image is reachable here to run it).
# The Debian packages (when dpkg-buildpackage, debhelper and lintian are installed, else SKIP):
#   - scripts/package.sh builds go-heap, libgoheap0 and libgoheap-dev from `git archive HEAD`
#     of the source tree (or a copy, outside git): 31-38 s on an idle 2-CPU machine, ~4 min on
#     one loaded by other builds; lintian reports no error, warning or info;
#   - each package holds what debian/ says (dpkg-deb -c);
#   - unpacked into a private root (dpkg-deb -x: nothing is installed on this machine), the
#     packaged go-heap profiles the live program as src/go-heap does, README's library example
#     compiles with `pkg-config --cflags --libs goheap` of the packaged goheap.pc and runs (and
#     with `pkg-config --static` against the packaged libgoheap.a), and gdb with the packaged
#     go_heap.py profiles the live program.
# With GOHEAP_PKG_INSTALL=1 (`make package-check`, not make check: it changes the machine), the
# packages are also installed with dpkg -i, the installed go-heap is checked (live, stripped, a
# gcore core, gdb with the installed script, README's example with the installed goheap.pc,
# watch over TLS with the installed module), and dpkg -P must leave no file behind.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_python
gh_need_toolchains

STATIC="$top_builddir/src/go-heap-static"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
tag=static
d="$GH_TMP/static"
mkdir -p "$d"

# same NAME WHAT A B: files A and B are byte for byte equal.
same() {
	if cmp -s "$3" "$4"; then
		gh_pass "$1: $2 ($(wc -c <"$3") bytes)"
	else
		gh_fail "$1: $2: they differ"
		diff "$3" "$4" | head -n 10 | sed 's/^/    | /'
	fi
}

# pprof_same NAME WHAT A B: decoded profiles equal (tests/compare.sh pprof: values, stacks,
# mappings; not the time or the gzip bytes: the static build compresses with libdeflate, the
# dynamic one with ISA-L when it has it).
pprof_same() {
	if "$GH_TESTS/compare.sh" pprof --ignore-zero-from "" "$3" "$4" >"$d/cmp.log" 2>&1; then
		gh_pass "$1: $2 ($(head -n 1 "$d/cmp.log"))"
	else
		gh_fail "$1: $2"
		gh_show "$d/cmp.log" 10
	fi
}

# twin NAME WHAT ARGS...: the static binary, alone in an empty directory under env -i, and
# src/go-heap, both with ARGS: exit 0 and equal stdout.  Output in $d/NAME.{s,d}.
twin() {
	local name=$1 what=$2 rs rd
	shift 2
	(cd "$d/empty" && timeout 120 env -i ./go-heap-static "$@") >"$d/$name.s" 2>"$d/$name.s.err"
	rs=$?
	(cd "$d/empty" && timeout 120 "$GH_GOHEAP" "$@") >"$d/$name.d" 2>"$d/$name.d.err"
	rd=$?
	if [ "$rs" -ne 0 ] || [ "$rd" -ne 0 ]; then
		gh_fail "$tag: $what: exit static $rs, dynamic $rd"
		gh_show "$d/$name.s.err" 5
		gh_show "$d/$name.d.err" 5
		return 1
	fi
	return 0
}

# tls_check TAG WHAT DIR CMD...: `CMD watch --web.config.file` run in DIR under env -i (a
# self-signed certificate made there) serves https /metrics with the live program in it.
tls_check() {
	local t=$1 what=$2 dir=$3 wpid addr ok_m
	shift 3
	if ! "$GH_GOHEAP" watch --help 2>&1 | grep -q 'web.config.file' ||
		! command -v openssl >/dev/null 2>&1; then
		gh_skip "$t: watch over TLS: src/go-heap has no --web.config.file or openssl(1) is missing (libssl-dev libyaml-dev libcrypt-dev openssl)"
		return
	fi
	if ! openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-keyout "$dir/server.key" -out "$dir/server.crt" >"$dir/openssl.log" 2>&1; then
		gh_fail "$t: openssl req (a self-signed certificate)"
		gh_show "$dir/openssl.log" 5
		return
	fi
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' >"$dir/web.yml"
	(cd "$dir" && exec env -i "$@" watch --interval 1s --listen 127.0.0.1:0 \
		--web.config.file web.yml "$LIVE_PID") >"$dir/tls.out" 2>"$dir/tls.err" </dev/null &
	wpid=$!
	GH_PIDS+=("$wpid")
	addr=
	for _ in $(seq 40); do
		addr=$(sed -n 's/.*listening on //p' "$dir/tls.err" | head -n 1)
		[ -n "$addr" ] && break
		sleep 0.25
	done
	ok_m=0
	for _ in $(seq 40); do
		[ -n "$addr" ] || break
		python3 - "https://${addr%% *}/metrics" "$dir/tls.metrics" 2>"$dir/tls.py.err" <<'PY' &&
import ssl, sys, urllib.request
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=10, context=ctx).read())
PY
			grep -q "container_go_inuse_bytes{pid=\"$LIVE_PID\"" "$dir/tls.metrics" && { ok_m=1; break; }
		sleep 0.25
	done
	if [ "$ok_m" = 1 ]; then
		gh_pass "$t: watch --web.config.file ($what): https://${addr%% *}/metrics has pid $LIVE_PID"
	else
		gh_fail "$t: watch --web.config.file ($what): no https /metrics for pid $LIVE_PID"
		gh_show "$dir/tls.err" 5
		gh_show "$dir/tls.py.err" 5
	fi
	gh_stop "$wpid"
}

# ---- the static binary: what it is ------------------------------------------------------------
if [ ! -x "$STATIC" ]; then
	gh_fail "$tag: $STATIC not built (make static; make check builds it)"
	gh_summary
fi
if ! command -v file >/dev/null 2>&1; then
	gh_fail "$tag: file(1) not installed (scripts/install-deps.sh)"
elif file -L "$STATIC" | grep -q 'statically linked'; then
	gh_pass "$tag: file: $(file -L "$STATIC" | sed 's/^[^:]*: //' | cut -d, -f1,2,5)"
else
	gh_fail "$tag: file does not say statically linked: $(file -L "$STATIC")"
fi
ldd_out=$(ldd "$STATIC" 2>&1)
if echo "$ldd_out" | grep -q 'not a dynamic executable'; then
	gh_pass "$tag: ldd: not a dynamic executable"
else
	gh_fail "$tag: ldd: $(echo "$ldd_out" | tr '\n' ' ' | cut -c1-200)"
fi
if readelf -lW "$STATIC" | grep -q 'INTERP\|DYNAMIC'; then
	gh_fail "$tag: has a PT_INTERP or PT_DYNAMIC segment"
else
	gh_pass "$tag: no PT_INTERP, no PT_DYNAMIC ($(stat -c %s "$STATIC") bytes, $(strip -o "$d/static.stripped" "$STATIC" && stat -c %s "$d/static.stripped") stripped)"
fi
mkdir -p "$d/empty"
cp "$STATIC" "$d/empty/go-heap-static"
v_s=$(cd "$d/empty" && env -i ./go-heap-static --version 2>&1)
v_d=$("$GH_GOHEAP" --version 2>&1)
if [ -n "$v_s" ] && [ "$v_s" = "$v_d" ]; then
	gh_pass "$tag: env -i ./go-heap-static --version in an empty directory: $v_s"
else
	gh_fail "$tag: --version: static '$v_s', src/go-heap '$v_d'"
fi

# ---- live programs -----------------------------------------------------------------------------
for variant in default stripped; do
	vt="$tag/$goname/$variant"
	gh_build_or_fail "$vt" heapprog "$goname" "$root" "$variant" || continue
	bin=$GH_BIN
	mkdir -p "$d/$variant"
	if ! gh_start "$bin" -out "$d/$variant" 2>"$GH_TMP/start.err"; then
		gh_fail "$vt: heapprog: $(cat "$GH_TMP/start.err")"
		continue
	fi
	pid=$GH_PID
	[ "$variant" = default ] && LIVE_PID=$pid && LIVE_DIR="$d/$variant" && LIVE_BIN=$bin
	if ! gh_can_read_mem "$pid"; then
		gh_skip "$vt: cannot read the target's memory (ptrace is restricted: kernel.yama.ptrace_scope or CAP_SYS_PTRACE)"
		gh_stop "$pid"
		continue
	fi
	tag=$vt
	if twin "$variant.text" "-f text" -f text "$pid"; then
		same "$vt" "static -f text == src/go-heap -f text" "$d/$variant.text.d" "$d/$variant.text.s"
		if "$GH_TESTS/compare.sh" text "$d/$variant/heap.txt" "$d/$variant.text.s" >"$d/cmp.log" 2>&1; then
			gh_pass "$vt: static -f text == the program's own heap profile ($(head -n 1 "$d/cmp.log"))"
		else
			gh_fail "$vt: static -f text differs from the program's own heap profile"
			gh_show "$d/cmp.log" 10
		fi
	fi
	if twin "$variant.pprof" "pprof" -o - -f pprof "$pid"; then
		pprof_same "$vt" "static pprof == src/go-heap pprof, decoded" "$d/$variant.pprof.d" "$d/$variant.pprof.s"
	fi
	if twin "$variant.tb" "-p goroutine -f traceback" -p goroutine -f traceback "$pid"; then
		same "$vt" "static goroutine tracebacks == src/go-heap's" "$d/$variant.tb.d" "$d/$variant.tb.s"
	fi
	if [ "$variant" = stripped ]; then
		# The stripped program's globals are found by decoding its code: Capstone, linked in.
		if (cd "$d/empty" && env -i ./go-heap-static -v -f top "$pid") >/dev/null 2>"$d/v.err" &&
			grep -q 'mbuckets via ' "$d/v.err"; then
			gh_pass "$vt: -v: $(grep -o -m1 'mbuckets via [^(]*' "$d/v.err")(the locator decoded the code)"
		else
			gh_fail "$vt: static -v does not show the locator at work"
			gh_show "$d/v.err" 10
		fi
		STRIP_PID=$pid    # the packaged go-heap reads it too
	fi
	tag=static
done

# ---- watch ------------------------------------------------------------------------------------
if [ -n "${LIVE_PID:-}" ] && kill -0 "$LIVE_PID" 2>/dev/null; then
	(cd "$d/empty" && exec env -i ./go-heap-static watch --interval 1s --listen 127.0.0.1:0 \
		"$LIVE_PID") >"$d/watch.out" 2>"$d/watch.err" </dev/null &
	wpid=$!
	GH_PIDS+=("$wpid")
	addr=
	for _ in $(seq 40); do
		addr=$(sed -n 's/.*listening on //p' "$d/watch.err" | head -n 1)
		[ -n "$addr" ] && break
		sleep 0.25
	done
	if [ -z "$addr" ]; then
		gh_fail "$tag: watch: no 'listening on' line within 10 s"
		gh_show "$d/watch.err" 5
	else
		ok_m=0
		for _ in $(seq 40); do
			python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=10).read())' \
				"http://$addr/metrics" "$d/metrics.txt" 2>/dev/null &&
				grep -q "container_go_inuse_bytes{pid=\"$LIVE_PID\"" "$d/metrics.txt" && { ok_m=1; break; }
			sleep 0.25
		done
		if [ "$ok_m" = 1 ]; then
			gh_pass "$tag: watch on $addr: /metrics has container_go_inuse_bytes for pid $LIVE_PID"
		else
			gh_fail "$tag: watch: /metrics lacks container_go_inuse_bytes{pid=\"$LIVE_PID\"..."
			gh_show "$d/metrics.txt" 5
		fi
		if python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=30).read())' \
			"http://$addr/pprof/$LIVE_PID/heap" "$d/watch.pb.gz" 2>"$d/watch.py.err" &&
			"$GH_TESTS/compare.sh" pprof --ignore-zero-from "" "$d/default.pprof.d" "$d/watch.pb.gz" >"$d/cmp.log" 2>&1; then
			gh_pass "$tag: watch: /pprof/$LIVE_PID/heap == src/go-heap's pprof, decoded"
		else
			gh_fail "$tag: watch: /pprof/$LIVE_PID/heap"
			gh_show "$d/watch.py.err" 5
			gh_show "$d/cmp.log" 5
		fi
	fi
	gh_stop "$wpid"
	# --web.config.file: the module's files are compiled in (GH_WEBCONFIG_BUILTIN): https.
	tls_check "$tag" "TLS, OpenSSL linked in" "$d/empty" ./go-heap-static
fi

# ---- the container image (contrib/container/build-oci.sh) --------------------------------------
# No container engine or base image here: the OCI archive is built from the static binary and
# checked as a registry would (every blob's digest and size, the config's platform, entrypoint
# and layer diff_id) and as a runtime would (the layer's usr/bin/go-heap is the binary).
if sh "$top_srcdir/contrib/container/build-oci.sh" "$STATIC" "$d/oci.tar" go-heap:test >"$d/oci.log" 2>&1 &&
	python3 - "$d/oci.tar" "$STATIC" >"$d/oci.check" 2>&1 <<'PY'
import gzip, hashlib, io, json, sys, tarfile
t = tarfile.open(sys.argv[1])
blob = lambda d: t.extractfile("blobs/sha256/" + d.split(":")[1]).read()
def get(desc):
    b = blob(desc["digest"])
    assert "sha256:" + hashlib.sha256(b).hexdigest() == desc["digest"], "digest " + desc["digest"]
    assert len(b) == desc["size"], "size of " + desc["digest"]
    return b
assert json.loads(t.extractfile("oci-layout").read())["imageLayoutVersion"] == "1.0.0"
idx = json.loads(t.extractfile("index.json").read())
m = json.loads(get(idx["manifests"][0]))
c = json.loads(get(m["config"]))
assert c["architecture"] == "amd64" and c["os"] == "linux", c
assert c["config"]["Entrypoint"] == ["/usr/bin/go-heap"] and c["config"]["Cmd"][0] == "watch", c["config"]
raw = gzip.decompress(get(m["layers"][0]))
assert c["rootfs"]["diff_ids"] == ["sha256:" + hashlib.sha256(raw).hexdigest()], "diff_id"
layer = tarfile.open(fileobj=io.BytesIO(raw))
ti = layer.getmember("usr/bin/go-heap")
assert ti.mode & 0o111, "not executable"
assert layer.extractfile(ti).read() == open(sys.argv[2], "rb").read(), "usr/bin/go-heap is not the static binary"
print("%d blobs verified, linux/%s, layer %d bytes" % (len(m["layers"]) + 2, c["architecture"], m["layers"][0]["size"]))
PY
then
	gh_pass "$tag: OCI image archive (build-oci.sh): $(cat "$d/oci.check")"
else
	gh_fail "$tag: OCI image archive (contrib/container/build-oci.sh)"
	gh_show "$d/oci.log" 5
	gh_show "$d/oci.check" 10
fi

# ---- an arm64 core -----------------------------------------------------------------------------
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
# build_arm64 VARIANT: heapprog for GOARCH=arm64 (gh_build_arm64).
build_arm64() { gh_build_arm64 heapprog "$goname" "$root" "$1"; }
if [ -z "$QEMU" ]; then
	gh_skip "$tag: arm64 core: qemu-aarch64-static not installed (Debian package qemu-user-static)"
elif [ "$(ulimit -H -c)" = 0 ]; then
	gh_skip "$tag: arm64 core: core dumps are disabled (ulimit -c hard limit 0)"
else
	ulimit -S -c unlimited 2>/dev/null
	for variant in default stripped; do
		vt="$tag/$goname/arm64-$variant"
		if ! abin=$(build_arm64 "$variant" 2>"$GH_TMP/build.err"); then
			gh_fail "$vt: build heapprog for GOARCH=arm64"
			gh_show "$GH_TMP/build.err" 10
			continue
		fi
		a="$d/arm64-$variant"
		mkdir -p "$a/out" "$a/run"
		cd "$a/run" || exit 1
		GOTRACEBACK=crash gh_start "$QEMU" "$abin" -out "$a/out" 2>"$GH_TMP/start.err"
		src=$?
		cd "$GH_TMP" || exit 1
		if [ "$src" -ne 0 ]; then
			gh_fail "$vt: heapprog under qemu: $(cat "$GH_TMP/start.err")"
			continue
		fi
		qpid=$GH_PID
		kill -ABRT "$qpid"
		for _ in $(seq 600); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
		gh_stop "$qpid"
		core=$(ls -t "$a/run"/qemu_*.core 2>/dev/null | head -n 1)
		if [ -z "$core" ] || [ ! -s "$core" ]; then
			gh_fail "$vt: qemu wrote no qemu_*.core after SIGABRT"
			continue
		fi
		cp "$abin" "$d/empty/heapprog-arm64"
		cp "$core" "$d/empty/core"
		tag=$vt
		if twin "arm64-$variant" "-f text CORE EXE" -f text core heapprog-arm64; then
			same "$vt" "static -f text CORE EXE == src/go-heap's" "$d/arm64-$variant.d" "$d/arm64-$variant.s"
			if "$GH_TESTS/compare.sh" text "$a/out/heap.txt" "$d/arm64-$variant.s" >"$d/cmp.log" 2>&1; then
				gh_pass "$vt: static -f text of the core == the program's own heap profile"
			else
				gh_fail "$vt: static -f text of the core differs from the program's own heap profile"
				gh_show "$d/cmp.log" 10
			fi
		fi
		tag=static
		# The cross-built arm64 static binary (contrib/static/cross-arm64.sh), when named:
		# under qemu-user, alone in the directory, on the same core.
		if [ -n "${GOHEAP_STATIC_ARM64:-}" ]; then
			cp "$GOHEAP_STATIC_ARM64" "$d/empty/go-heap-static-arm64"
			if (cd "$d/empty" && timeout 300 env -i "$QEMU" ./go-heap-static-arm64 -f text core heapprog-arm64) \
				>"$d/arm64-$variant.a" 2>"$d/arm64-$variant.a.err"; then
				same "$vt" "arm64 static binary (qemu) -f text CORE EXE == src/go-heap's" \
					"$d/arm64-$variant.d" "$d/arm64-$variant.a"
			else
				gh_fail "$vt: arm64 static binary under qemu failed"
				gh_show "$d/arm64-$variant.a.err" 5
			fi
			rm -f "$d/empty/go-heap-static-arm64"
		fi
		rm -f "$core" "$d/empty/core" "$d/empty/heapprog-arm64" "$a/run"/core*
	done
fi

# ---- the Debian packages ----------------------------------------------------------------------
tag=deb
# The packages are built by dpkg-buildpackage from `git archive HEAD`, with debian/rules' flags,
# whatever this build tree's configure said: in the sanitizer build (scripts/test.sh's second
# pass) they would be the same packages checked the same way as in the plain build, for minutes
# of a loaded machine (issue 37's time budget).
if grep -q '^SAN_CFLAGS = -fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	echo "N/A: $tag: packages: built by dpkg-buildpackage without this build's sanitizers; the plain build's run-package.sh checks the same packages"
	gh_summary
fi
missing=
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian dpkg-deb:dpkg; do
	command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	gh_skip "$tag: packages: not installed:$missing (apt-get install$missing)"
	gh_summary
fi
p="$GH_TMP/deb"
mkdir -p "$p"
if git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
	pkg_args=("$p/out")
	from="git archive HEAD"
else
	pkg_args=(--tree "$top_srcdir" "$p/out")
	from="a copy of $top_srcdir"
fi
t0=$(date +%s)
if bash "$top_srcdir/scripts/package.sh" "${pkg_args[@]}" >"$p/package.log" 2>&1; then
	gh_pass "$tag: scripts/package.sh from $from in $(( $(date +%s) - t0 )) s: $(sed -n 's/^package.sh: lintian: //p' "$p/package.log")"
else
	gh_fail "$tag: scripts/package.sh from $from"
	gh_show "$p/package.log" 30
	gh_summary
fi
arch=$(dpkg --print-architecture)
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
deb() { ls "$p/out/$1"_*_"$arch".deb 2>/dev/null | head -n 1; }
# has PKG PATH...: the package holds every PATH (dpkg-deb -c).
has() {
	local pkg=$1 f list miss=
	shift
	f=$(deb "$pkg")
	if [ -z "$f" ]; then
		gh_fail "$tag: $pkg: no ${pkg}_*_$arch.deb"
		return
	fi
	list=$(dpkg-deb -c "$f" | awk '{ print $6 }' | sed 's|^\./|/|')
	for want in "$@"; do
		echo "$list" | grep -qxF "$want" || miss="$miss $want"
	done
	if [ -z "$miss" ]; then
		gh_pass "$tag: $pkg holds $*"
	else
		gh_fail "$tag: $pkg lacks$miss"
	fi
}
has go-heap /usr/bin/go-heap /usr/share/man/man1/go-heap.1.gz /usr/share/go-heap/gdb/go_heap.py \
	/lib/systemd/system/go-heap-watch.service
# go-heap watch --web.config.file's module, which the command dlopens, when the build has one.
if [ -e "$top_builddir/src/.libs/go-heap-webconfig.so" ]; then
	has go-heap "/usr/lib/$multi/go-heap/go-heap-webconfig.so"
fi
has libgoheap0 "/usr/lib/$multi/libgoheap.so.0" "/usr/lib/$multi/libgoheap.so.0.0.0"
has libgoheap-dev /usr/include/goheap.h "/usr/lib/$multi/libgoheap.so" "/usr/lib/$multi/libgoheap.a" \
	"/usr/lib/$multi/pkgconfig/goheap.pc"
if dpkg-deb -f "$(deb libgoheap0)" Depends | grep -q 'libcapstone'; then
	gh_pass "$tag: libgoheap0 Depends: $(dpkg-deb -f "$(deb libgoheap0)" Depends)"
else
	gh_fail "$tag: libgoheap0 does not depend on Capstone (dlopen'ed, so dpkg-shlibdeps cannot see it)"
fi
# The unit ships disabled: postinst enables it only where it was enabled before (an upgrade:
# the debian-installed guard of dh_installsystemd --no-enable) and never starts it.
dpkg-deb -I "$(deb go-heap)" postinst >"$p/postinst" 2>/dev/null
if grep -q "deb-systemd-helper debian-installed 'go-heap-watch.service'" "$p/postinst" &&
	! grep -q 'deb-systemd-invoke.*start\|systemctl.*start' "$p/postinst"; then
	gh_pass "$tag: go-heap's postinst neither enables (new install) nor starts go-heap-watch.service"
else
	gh_fail "$tag: go-heap's postinst enables or starts go-heap-watch.service"
	gh_show "$p/postinst" 30
fi

# The packaged files in a private root.
r="$p/root"
mkdir -p "$r"
for pkg in go-heap libgoheap0 libgoheap-dev; do dpkg-deb -x "$(deb "$pkg")" "$r"; done
if [ -n "${LIVE_PID:-}" ] && kill -0 "$LIVE_PID" 2>/dev/null; then
	for w in LIVE STRIP; do
		eval "tp=\${${w}_PID:-}"
		[ -n "$tp" ] || continue
		if LD_LIBRARY_PATH="$r/usr/lib/$multi" "$r/usr/bin/go-heap" -f text "$tp" >"$p/$w.out" 2>"$p/$w.err" &&
			"$GH_GOHEAP" -f text "$tp" >"$p/$w.ref" 2>&1; then
			same "$tag" "packaged go-heap -f text == src/go-heap's ($goname heapprog, $( [ $w = STRIP ] && echo 'stripped: Capstone through dlopen' || echo default))" "$p/$w.ref" "$p/$w.out"
		else
			gh_fail "$tag: packaged go-heap -f text ($w)"
			gh_show "$p/$w.err" 5
		fi
	done
	# README's library example, built with the packaged goheap.pc (the text between ```c and ```
	# after "### Library"), against the packaged header and library.
	awk '/^### Library/ { lib = 1 } lib && /^```c/ { on = 1; next } on && /^```/ { exit } on' \
		"$top_srcdir/README.md" >"$p/example.body"
	# The example ends by freeing the buffer: print its length before that line.
	{
		printf '#include <err.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <goheap.h>\n'
		printf 'int main(int argc, char **argv)\n{\n\tint pid = argc > 1 ? atoi(argv[1]) : 0;\n'
		head -n -1 "$p/example.body" | sed 's/^/\t/'
		printf '\tprintf("pprof: %%zu bytes\\n", len);\n\t(void)d;\n'
		tail -n 1 "$p/example.body" | sed 's/^/\t/'
		printf '\treturn 0;\n}\n'
	} >"$p/example.c"
	pc_flags=$(PKG_CONFIG_SYSROOT_DIR="$r" PKG_CONFIG_LIBDIR="$r/usr/lib/$multi/pkgconfig" \
		pkg-config --cflags --libs goheap 2>"$p/pc.err")
	# shellcheck disable=SC2086
	if [ -s "$p/example.body" ] && gcc -std=c11 -Wall -o "$p/example" "$p/example.c" $pc_flags >"$p/cc.log" 2>&1; then
		if LD_LIBRARY_PATH="$r/usr/lib/$multi" "$p/example" "$LIVE_PID" >"$p/example.out" 2>&1 &&
			grep -q '^pprof: [1-9][0-9]* bytes' "$p/example.out"; then
			gh_pass "$tag: README's library example, cc \$(pkg-config --cflags --libs goheap) = '$pc_flags': $(grep -c '^0x' "$p/example.out") records, $(grep '^pprof:' "$p/example.out" | tail -n 1)"
		else
			gh_fail "$tag: README's library example did not run"
			gh_show "$p/example.out" 10
		fi
	else
		gh_fail "$tag: README's library example does not compile with pkg-config goheap ($pc_flags)"
		gh_show "$p/pc.err" 5
		gh_show "$p/cc.log" 10
	fi
	# The same example linked with the packaged static archive (pkg-config --static: the
	# archive's own dependencies are goheap.pc's Libs.private).
	sr="$p/static-root"
	mkdir -p "$sr/usr/lib/$multi/pkgconfig"
	cp -r "$r/usr/include" "$sr/usr/"
	cp "$r/usr/lib/$multi/libgoheap.a" "$sr/usr/lib/$multi/"
	cp "$r/usr/lib/$multi/pkgconfig/goheap.pc" "$sr/usr/lib/$multi/pkgconfig/"
	spc_flags=$(PKG_CONFIG_SYSROOT_DIR="$sr" PKG_CONFIG_LIBDIR="$sr/usr/lib/$multi/pkgconfig" \
		pkg-config --static --cflags --libs goheap 2>"$p/pc.err")
	# shellcheck disable=SC2086
	if gcc -std=c11 -Wall -o "$p/example-a" "$p/example.c" $spc_flags >"$p/cc-a.log" 2>&1 &&
		! ldd "$p/example-a" | grep -q libgoheap &&
		"$p/example-a" "$LIVE_PID" >"$p/example-a.out" 2>&1 &&
		grep -q '^pprof: [1-9][0-9]* bytes' "$p/example-a.out"; then
		gh_pass "$tag: README's library example linked with the packaged libgoheap.a (pkg-config --static: $(echo "$spc_flags" | sed 's/.*-lgoheap//' | tr -s ' '))"
	else
		gh_fail "$tag: README's library example with libgoheap.a and pkg-config --static ($spc_flags)"
		gh_show "$p/cc-a.log" 10
		gh_show "$p/example-a.out" 5
	fi
	if command -v gdb >/dev/null 2>&1; then
		timeout 120 gdb -nx -batch -iex 'set auto-load no' -iex 'set pagination off' -p "$LIVE_PID" \
			-ex "source $r/usr/share/go-heap/gdb/go_heap.py" -ex "go-heap -f text -o $p/gdb.txt" \
			>"$p/gdb.out" 2>&1
		if [ -s "$p/gdb.txt" ] &&
			"$GH_TESTS/compare.sh" text "$LIVE_DIR/heap.txt" "$p/gdb.txt" >"$p/cmp.log" 2>&1; then
			gh_pass "$tag: gdb -p PID with the packaged go_heap.py: go-heap -f text == the program's own"
		else
			gh_fail "$tag: gdb with the packaged go_heap.py"
			gh_show "$p/gdb.out" 10
			gh_show "$p/cmp.log" 5
		fi
	else
		gh_fail "$tag: gdb not installed (scripts/install-deps.sh)"
	fi
fi

# ---- dpkg -i / dpkg -r (make package-check only) -----------------------------------------------
if [ "${GOHEAP_PKG_INSTALL:-0}" = 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		gh_fail "$tag: dpkg -i needs root"
	elif dpkg -s go-heap libgoheap0 libgoheap-dev >/dev/null 2>&1; then
		gh_fail "$tag: go-heap packages already installed: dpkg -r them first"
	else
		find / -xdev \( -path /proc -o -path /sys -o -path /tmp -o -path /var/tmp -o -path /work -o -path /root \) -prune -o -print 2>/dev/null | sort >"$p/before"
		if dpkg -i "$(deb libgoheap0)" "$(deb libgoheap-dev)" "$(deb go-heap)" >"$p/dpkg-i.log" 2>&1; then
			gh_pass "$tag: dpkg -i of the three packages"
			for w in LIVE STRIP; do
				eval "tp=\${${w}_PID:-}"
				[ -n "$tp" ] || continue
				if /usr/bin/go-heap -f text "$tp" >"$p/inst.$w.out" 2>"$p/inst.$w.err"; then
					same "$tag" "installed /usr/bin/go-heap -f text == src/go-heap's ($w)" "$p/$w.ref" "$p/inst.$w.out"
				else
					gh_fail "$tag: installed /usr/bin/go-heap ($w)"
					gh_show "$p/inst.$w.err" 5
				fi
			done
			# A core of the live program (gcore), read by the installed command.
			if [ -n "${LIVE_PID:-}" ] && command -v gcore >/dev/null 2>&1 &&
				gcore -o "$p/core" "$LIVE_PID" >"$p/gcore.log" 2>&1 && [ -s "$p/core.$LIVE_PID" ]; then
				if /usr/bin/go-heap -f text "$p/core.$LIVE_PID" "$LIVE_BIN" >"$p/inst.core" 2>"$p/inst.core.err" &&
					"$GH_GOHEAP" -f text "$p/core.$LIVE_PID" "$LIVE_BIN" >"$p/core.ref" 2>&1; then
					same "$tag" "installed /usr/bin/go-heap -f text CORE EXE == src/go-heap's" "$p/core.ref" "$p/inst.core"
				else
					gh_fail "$tag: installed /usr/bin/go-heap on a core"
					gh_show "$p/inst.core.err" 5
				fi
				rm -f "$p/core.$LIVE_PID"
			else
				gh_fail "$tag: gcore of the live program"
				gh_show "$p/gcore.log" 5
			fi
			# The installed gdb script finds the installed library by itself.
			timeout 120 gdb -nx -batch -iex 'set auto-load no' -iex 'set pagination off' -p "$LIVE_PID" \
				-ex "source /usr/share/go-heap/gdb/go_heap.py" -ex "go-heap -f text -o $p/inst.gdb.txt" \
				>"$p/inst.gdb.out" 2>&1
			if [ -s "$p/inst.gdb.txt" ] &&
				"$GH_TESTS/compare.sh" text "$LIVE_DIR/heap.txt" "$p/inst.gdb.txt" >"$p/cmp.log" 2>&1; then
				gh_pass "$tag: gdb with the installed /usr/share/go-heap/gdb/go_heap.py: == the program's own"
			else
				gh_fail "$tag: gdb with the installed go_heap.py"
				gh_show "$p/inst.gdb.out" 10
			fi
			# README's example against the installed libgoheap-dev.
			# shellcheck disable=SC2046
			if gcc -std=c11 -Wall -o "$p/inst-example" "$p/example.c" $(pkg-config --cflags --libs goheap) \
				>"$p/inst-cc.log" 2>&1 && "$p/inst-example" "$LIVE_PID" >"$p/inst-example.out" 2>&1 &&
				grep -q '^pprof: [1-9][0-9]* bytes' "$p/inst-example.out"; then
				gh_pass "$tag: README's library example with the installed pkg-config goheap ($(pkg-config --cflags --libs goheap | tr -s ' '))"
			else
				gh_fail "$tag: README's library example with the installed libgoheap-dev"
				gh_show "$p/inst-cc.log" 5
				gh_show "$p/inst-example.out" 5
			fi
			# --web.config.file through the installed module (dlopen'ed from the package's directory).
			if [ -e "/usr/lib/$multi/go-heap/go-heap-webconfig.so" ]; then
				mkdir -p "$p/tls"
				tls_check "$tag" "the installed module" "$p/tls" /usr/bin/go-heap
			fi
			if [ -e /etc/systemd/system/multi-user.target.wants/go-heap-watch.service ]; then
				gh_fail "$tag: go-heap-watch.service is enabled after dpkg -i"
			else
				gh_pass "$tag: go-heap-watch.service installed, not enabled"
			fi
		else
			gh_fail "$tag: dpkg -i"
			gh_show "$p/dpkg-i.log" 10
		fi
		dpkg -P go-heap libgoheap-dev libgoheap0 >"$p/dpkg-r.log" 2>&1
		find / -xdev \( -path /proc -o -path /sys -o -path /tmp -o -path /var/tmp -o -path /work -o -path /root \) -prune -o -print 2>/dev/null | sort >"$p/after"
		left=$(comm -13 "$p/before" "$p/after" | grep -v '^/var/lib/dpkg/\|^/var/log/\|^/var/cache/' || true)
		if [ -z "$left" ]; then
			gh_pass "$tag: dpkg -P removes everything (no file left outside dpkg's own records)"
		else
			gh_fail "$tag: left after dpkg -P: $(echo "$left" | head -n 5 | tr '\n' ' ')"
		fi
	fi
fi
gh_summary
