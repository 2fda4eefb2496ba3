#!/usr/bin/env bash
# scripts/package.sh: go-heap's Debian packages (go-heap, libgoheap0, libgoheap-dev) built with
# `dpkg-buildpackage -b -us -uc` in a clean copy of the tree, then checked with lintian.
#
#   scripts/package.sh [--tree DIR] [--keep] [OUTDIR]
#
# The copy is `git archive HEAD` of this checkout (what is committed, nothing else), or, with
# --tree DIR, DIR copied without its VCS data and build directories (a tarball, or a working
# tree with uncommitted changes).  OUTDIR (default ./go-heap-deb) receives the .deb files,
# the .changes and .buildinfo, build.log and lintian.log.  Exit status: 0 built and lintian
# reported no error and no warning that debian/ does not override (with its reason), 1
# otherwise.  Needs dpkg-dev, debhelper and lintian (apt-get install dpkg-dev debhelper
# lintian) and the build dependencies of debian/control (scripts/install-deps.sh installs them).
# doc/packaging.md says what goes where and why.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tree= out= keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:?--tree needs a directory}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "package.sh: unknown option $1" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
out=${out:-$PWD/go-heap-deb}
missing=
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	echo "package.sh: missing:$missing (apt-get install$missing)" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=${tree:-$top}
version=$(cd "$src" && dpkg-parsechangelog -S Version)
work=$(mktemp -d "${TMPDIR:-/tmp}/go-heap-pkg.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "package.sh: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
dir="$work/go-heap-$version"
mkdir -p "$dir"
if [ -z "$tree" ]; then
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
		{ echo "package.sh: $top is not a git checkout: use --tree DIR" >&2; exit 1; }
	git -C "$top" archive HEAD | tar -x -C "$dir"
	what="git archive $(git -C "$top" rev-parse --short HEAD)"
else
	# Everything but VCS data, build trees and generated autotools files (dh_autoreconf
	# regenerates them), so that the copy is what a fresh checkout plus local edits would be.
	tar -C "$tree" --exclude-vcs --exclude='./build' --exclude='./build-*' \
		--exclude='./obj-*' --exclude='./autom4te.cache' --exclude='./debian/tmp' \
		--exclude='./debian/.debhelper' --exclude='./go-heap-deb' -cf - . | tar -x -C "$dir"
	what="copy of $tree"
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
echo "package.sh: dpkg-buildpackage -b -us -uc in $what ($dir)"
t0=$(date +%s)
# Nothing of a calling make (make check's MAKEFLAGS: its jobserver, TESTS=...) or of the test
# harness's environment reaches the package build.
if ! (cd "$dir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u top_srcdir \
	-u top_builddir dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	echo "package.sh: dpkg-buildpackage failed; the end of $out/build.log:" >&2
	tail -n 40 "$out/build.log" >&2
	exit 1
fi
t1=$(date +%s)
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
echo "package.sh: built in $((t1 - t0)) s:"
for f in "$out"/*.deb; do
	printf '  %s (%s bytes)\n' "$(basename "$f")" "$(stat -c %s "$f")"
done
# Lintian: errors and warnings fail; overrides (debian/*lintian-overrides) carry their reason.
changes=$(ls "$out"/*.changes)
set +e
lintian --fail-on error,warning --display-info --show-overrides "$changes" >"$out/lintian.log" 2>&1
lrc=$?
set -e
sum=$(awk '{ n[substr($1, 1, 1)]++ } END { printf "%d errors, %d warnings, %d info, %d overridden", n["E"], n["W"], n["I"], n["O"] }' "$out/lintian.log")
echo "package.sh: lintian: $sum"
if [ "$lrc" -ne 0 ]; then
	grep -E '^(E|W):' "$out/lintian.log" | sed 's/^/  /' >&2 || cat "$out/lintian.log" >&2
	echo "package.sh: lintian failed (status $lrc)" >&2
	exit 1
fi
echo "package.sh: ok ($out)"
