#!/usr/bin/env bash
# contrib/static/cross-arm64.sh: the static go-heap for arm64 (aarch64), cross-built on an
# x86-64 Debian 12 machine (doc/packaging.md).
#
#   contrib/static/cross-arm64.sh [BUILDDIR]        (default ./build-arm64)
#
# Needs gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (apt-get install; the second is in
# scripts/install-deps.sh).  The arm64 libraries (libelf, zlib, libdeflate, Capstone; libdw
# only for configure's check) are not installed on the system: their bookworm .debs are fetched
# under a private apt configuration and unpacked with dpkg -x into a sysroot in the cache
# (${GOHEAP_CACHE:-~/.cache/go-heap}/arm64-sysroot), as scripts/install-deps.sh does for Go;
# nothing is added to the machine's architectures or sources.  Then `configure
# --host=aarch64-linux-gnu` in BUILDDIR and `make static`: BUILDDIR/src/go-heap-static.
# ISA-L is not used (no arm64 libisal in the sysroot), as in the x86-64 static build.
#
# Check it under qemu-user against an arm64 core (tests/run-package.sh does, when told where it
# is):  GOHEAP_STATIC_ARM64=BUILDDIR/src/go-heap-static make check TESTS=tests/run-package.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$PWD/build-arm64}
CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
S="$CACHE/arm64-sysroot"
A="$CACHE/apt-arm64"
host=aarch64-linux-gnu
for t in $host-gcc:gcc-aarch64-linux-gnu; do
	command -v "${t%%:*}" >/dev/null 2>&1 ||
		{ echo "cross-arm64: ${t%%:*} not found (apt-get install ${t#*:})" >&2; exit 1; }
done
[ -e /usr/$host/lib/libc.a ] ||
	{ echo "cross-arm64: no /usr/$host/lib/libc.a (apt-get install libc6-dev-arm64-cross)" >&2; exit 1; }
pkgs="libelf-dev libelf1 zlib1g-dev zlib1g libdeflate-dev libdeflate0 libcapstone-dev libcapstone4 libdw-dev libdw1"
if [ ! -e "$S/.complete" ]; then
	mkdir -p "$A/lists/partial" "$A/etc/sources.list.d" "$A/etc/preferences.d" "$A/cache/archives/partial" "$A/debs"
	: >"$A/status"
	echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
		>"$A/etc/sources.list"
	opts=(-o Dir::Etc::sourcelist="$A/etc/sources.list" -o Dir::Etc::sourceparts="$A/etc/sources.list.d"
	      -o Dir::Etc::preferencesparts="$A/etc/preferences.d" -o Dir::State::Lists="$A/lists"
	      -o Dir::State::status="$A/status" -o Dir::Cache="$A/cache"
	      -o APT::Architecture=arm64 -o APT::Architectures::=arm64)
	apt-get "${opts[@]}" update -qq
	rm -f "$A"/debs/*.deb
	# shellcheck disable=SC2086
	(cd "$A/debs" && apt-get "${opts[@]}" download -qq $pkgs) ||
		{ echo "cross-arm64: cannot fetch the arm64 packages from deb.debian.org" >&2; exit 1; }
	rm -rf "$S"
	mkdir -p "$S"
	for d in "$A"/debs/*.deb; do dpkg -x "$d" "$S"; done
	touch "$S/.complete"
fi
mkdir -p "$b"
cd "$b"
if [ ! -f Makefile ]; then
	# libdw (tests only) would drag in liblzma, libzstd and libbz2's .pc files: configure is
	# told its flags instead of asking pkg-config.
	PKG_CONFIG_LIBDIR="$S/usr/lib/$host/pkgconfig:$S/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S" \
	CPPFLAGS="-I$S/usr/include" LDFLAGS="-L$S/usr/lib/$host" LIBDW_CFLAGS=" " LIBDW_LIBS=" " \
		"$top/configure" --host=$host --enable-werror >configure.log 2>&1 ||
		{ tail -n 20 configure.log >&2; exit 1; }
fi
make -j"$(nproc)" static >make.log 2>&1 || { tail -n 30 make.log >&2; exit 1; }
file src/go-heap-static
echo "cross-arm64: $b/src/go-heap-static ($(stat -c %s src/go-heap-static) bytes)"
