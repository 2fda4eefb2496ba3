#!/bin/sh
# run-symcheck.sh - check the pclntab symbolizer against the Go runtime.
#
# For every Go toolchain found, build tests/go/symcheck in the default,
# -buildmode=pie and -trimpath variants, let each binary print its own
# runtime.CallersFrames / FuncForPC ground truth (EXE.truth), then run
# tests/test_pclntab with GOHEAP_TEST_GOBIN naming all of them.
#
# Exit status: 0 pass, 1 failure, 77 (automake SKIP) when no toolchain is
# available.  Missing toolchains are reported, never silently ignored.

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-$srcdir}
cache=${GOHEAP_CACHE:-$HOME/.cache/go-heap}
out=$cache/build/symcheck
test_bin=${TEST_PCLNTAB:-$builddir/tests/test_pclntab}

# Every release of tests/lib.sh's GH_GO_ALL (or GOHEAP_GO_VERSIONS): Debian's /usr/lib/go-1.N,
# else the copy scripts/install-deps.sh unpacked into the cache.
GH_GO_ALL=$(sed -n 's/^GH_GO_ALL="\(.*\)"$/\1/p' "$srcdir/tests/lib.sh")
toolchains=
for v in ${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}; do
	if [ -x "/usr/lib/go-$v/bin/go" ]; then
		toolchains="$toolchains /usr/lib/go-$v"
	else
		toolchains="$toolchains $cache/go-$v/usr/lib/go-$v"
	fi
done

if [ ! -x "$test_bin" ]; then
	echo "run-symcheck: $test_bin not built" >&2
	exit 1
fi
mkdir -p "$out" || exit 1

bins=
for root in $toolchains; do
	go=$root/bin/go
	if [ ! -x "$go" ]; then
		echo "run-symcheck: FAIL: toolchain $root not installed (run scripts/install-deps.sh)" >&2
		exit 1
	fi
	ver=$(basename "$root")
	# The stripped variants have no .symtab: they exercise the fallbacks
	# (textStart from the header, gofunc from moduledata).
	for variant in default pie trimpath stripped pie-stripped; do
		case $variant in
		default) flags= ;;
		pie) flags=-buildmode=pie ;;
		trimpath) flags=-trimpath ;;
		stripped) flags="-ldflags='-s -w'" ;;
		pie-stripped) flags="-buildmode=pie -ldflags='-s -w'" ;;
		esac
		exe=$out/symcheck-$ver-$variant
		# Built and run again only when the source, the toolchain or the flags changed (a
		# stamp, as tests/lib.sh gh_build): the links and the runs were most of this script's
		# time, minutes on a loaded machine, for the same 40 binaries every time.
		want=$( { cat "$srcdir/tests/go/symcheck/main.go"; echo "$root"; "$go" version; echo "$flags"; } |
			sha256sum | cut -d' ' -f1)
		if [ -x "$exe" ] && [ -s "$exe.truth" ] && [ "$(cat "$exe.stamp" 2>/dev/null)" = "$want" ]; then
			bins=$bins${bins:+:}$exe
			continue
		fi
		rm -f "$exe.stamp"
		# GO111MODULE=off: a go.mod-less build of one file.
		if ! (cd "$srcdir/tests/go/symcheck" &&
			GOROOT=$root GOCACHE=$cache/build/gocache \
			GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local \
			eval "\"\$go\" build $flags -o \"\$exe\" main.go"); then
			echo "run-symcheck: FAIL building $exe" >&2
			exit 1
		fi
		if ! "$exe" > "$exe.truth"; then
			echo "run-symcheck: FAIL running $exe" >&2
			exit 1
		fi
		echo "$want" >"$exe.stamp"
		bins=$bins${bins:+:}$exe
	done
done

if [ -z "$bins" ]; then
	echo "run-symcheck: SKIP: no Go toolchain found"
	exit 77
fi
GOHEAP_TEST_GOBIN=$bins "$test_bin"
rc=$?
case $rc in
0) exit 0 ;;
77) exit 77 ;;
*) exit 1 ;;
esac
