#!/bin/bash
# tests/fuzz/fuzz-smoke.sh: build the libFuzzer harnesses and run each for a bounded time
# (`make fuzz-smoke`).  With FUZZ_BUILD_ONLY=1 it only builds.
#
# The library sources are compiled once with clang -fsanitize=fuzzer-no-link,address,undefined
# into $top_builddir/tests/fuzz/obj and linked into every harness with -fsanitize=fuzzer.
# Each harness first replays tests/fuzz/regress/ (inputs that once crashed it), then fuzzes
# from the seeds of seeds.sh (read only; new units go to a temporary directory) for
# FUZZ_SECONDS seconds (default 12, about 1.5 minutes for the six).  fuzz_gor needs the
# goroutineprog snapshots seeds.sh leaves under $GOHEAP_CACHE/fuzz/gor (GOHEAP_FUZZ_GOR);
# without them (no gcore, no ptrace) it is skipped, with the reason.  A crash, leak, sanitizer
# report or timeout fails the target; the reproducer is kept under $GOHEAP_CACHE/fuzz/crashes/.
#
# Environment (set by the Makefile): top_srcdir, top_builddir, FUZZ_CC (clang),
# FUZZ_CPPFLAGS, FUZZ_LIBS; optional FUZZ_SECONDS, FUZZ_JOBS, FUZZ_HARNESSES.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
CC=${FUZZ_CC:-clang}
secs=${FUZZ_SECONDS:-12}
harnesses=${FUZZ_HARNESSES:-exe core sym walk pprof gor types}
# fuzz_webconfig, fuzz_tlsframe: when the build has --web.config.file (OpenSSL, libyaml, libxcrypt)
if [ -z "${FUZZ_HARNESSES:-}" ] && grep -q 'define HAVE_WEBCONFIG 1' "$top_builddir/config.h" 2>/dev/null; then
	harnesses="$harnesses webconfig tlsframe"
fi
out="$top_builddir/tests/fuzz"
obj="$out/obj"
cache=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# No -D_FORTIFY_SOURCE here: it hides memcpy and friends from ASan's interceptors.
# the library's folders (scripts/tree-move.sh), each a -I as in Makefile.am's lib_includes
lib_includes=$(find "$top_srcdir/src/lib" -type d | sort | sed 's/^/-I/' | tr '\n' ' ')
cflags="-g -O1 -std=c11 -fno-omit-frame-pointer $san -DHAVE_CONFIG_H -I$top_builddir -I$top_srcdir/include -I$top_srcdir/src/util $lib_includes -I$top_srcdir/src/watch -I$top_srcdir/tests -DGOHEAP_BUILDING_LIBRARY ${FUZZ_CPPFLAGS:-}"

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "SKIP: fuzz-smoke: $CC not found (apt-get install clang libclang-rt-14-dev)"
	exit 0
fi
mkdir -p "$obj" || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' >"$obj/probe.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$obj/probe.c" -o "$obj/probe" 2>"$obj/probe.log"; then
	echo "SKIP: fuzz-smoke: $CC cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?)"
	sed 's/^/    | /' "$obj/probe.log" | head -5
	exit 0
fi

# The library's objects (src/lib, its writers, src/util: never the tools), rebuilt when the
# source is newer.  Paths are relative to src/; objects are named after them (lib/fmt/x.c ->
# lib_fmt_x.o).
srcs=$(cd "$top_srcdir/src" && ls lib/*.c lib/*/*.c util/*.c)
# The web configuration's harnesses also link watch's TLS module (its files only).
wsrcs="watch/watch_webconfig.c watch/watch_tls.c watch/watch_util.c"
case " $harnesses " in *" webconfig "*|*" tlsframe "*) srcs="$srcs $wsrcs" ;; esac
fail=0
for s in $srcs; do
	o="$obj/$(echo "${s%.c}" | tr / _).o"
	if [ ! -f "$o" ] || [ "$top_srcdir/src/$s" -nt "$o" ] || [ -n "$(find "$top_srcdir/src" "$top_srcdir/include" -name '*.h' -newer "$o" | head -n 1)" ]; then
		echo "$s"
	fi
done | xargs -r -P "${FUZZ_JOBS:-$(nproc)}" -I{} sh -c \
	'f={}; o=$(echo "${f%.c}" | tr / _); exec '"$CC"' '"$cflags"' -fsanitize=fuzzer-no-link -c "'"$top_srcdir"'/src/$f" -o "'"$obj"'/$o.o"' || fail=1
[ $fail = 0 ] || { echo "FAIL: fuzz-smoke: compiling the library"; exit 1; }
objs=$(for s in $srcs; do case " $wsrcs " in *" $s "*) ;; *) echo "$obj/$(echo "${s%.c}" | tr / _).o" ;; esac; done)
wobjs=$(for s in $wsrcs; do echo "$obj/$(echo "${s%.c}" | tr / _).o"; done)

for h in $harnesses; do
	# shellcheck disable=SC2086
	extra=
	case $h in webconfig|tlsframe) extra=$wobjs ;; esac
	"$CC" $cflags -fsanitize=fuzzer "$top_srcdir/tests/fuzz/fuzz_$h.c" $objs $extra ${FUZZ_LIBS:-} -lm \
		-o "$out/fuzz_$h" || { echo "FAIL: fuzz-smoke: building fuzz_$h"; exit 1; }
done
echo "fuzz-smoke: built $(for h in $harnesses; do printf 'fuzz_%s ' "$h"; done)in $out"
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

exe=$(bash "$top_srcdir/tests/fuzz/seeds.sh" | tail -n 1)
[ -x "$exe" ] || { echo "FAIL: fuzz-smoke: seeds.sh gave no Go executable"; exit 1; }
export GOHEAP_FUZZ_EXE=$exe
export GOHEAP_FUZZ_GOR=${GOHEAP_FUZZ_GOR:-$cache/fuzz/gor}
export GOHEAP_FUZZ_TYPES=${GOHEAP_FUZZ_TYPES:-$cache/fuzz/types}
mkdir -p "$cache/fuzz/crashes"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/go-heap-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0 passed=0 failed=0 skipped=0
for h in $harnesses; do
	mkdir -p "$tmp/$h"
	if [ "$h" = gor ]; then
		# its seeds are patches for the snapshots, which only it can aim: it writes them
		# (regress/gor: patches for the same snapshots, replayed as the smoke run reads them)
		if ! ls "$GOHEAP_FUZZ_GOR"/go*/core >/dev/null 2>&1; then
			echo "SKIP: fuzz_gor: no goroutineprog snapshot under $GOHEAP_FUZZ_GOR (seeds.sh: gcore or ptrace unavailable)"
			skipped=$((skipped + 1))
			continue
		fi
		GOHEAP_FUZZ_GOR_SEEDS="$cache/fuzz/seeds/gor" "$out/fuzz_gor" -runs=0 \
			>"$tmp/gor.seeds.log" 2>&1 || {
			echo "FAIL: fuzz_gor: cannot open the snapshots"
			sed 's/^/    | /' "$tmp/gor.seeds.log" | head -5
			failed=$((failed + 1))
			rc=1
			continue
		}
	fi
	if [ "$h" = types ]; then
		# as fuzz_gor: seeds are patches it writes for its typesprog snapshots
		if ! ls "$GOHEAP_FUZZ_TYPES"/go*/core >/dev/null 2>&1; then
			echo "SKIP: fuzz_types: no typesprog snapshot under $GOHEAP_FUZZ_TYPES (seeds.sh: gcore or ptrace unavailable)"
			skipped=$((skipped + 1))
			continue
		fi
		GOHEAP_FUZZ_TYPES_SEEDS="$cache/fuzz/seeds/types" "$out/fuzz_types" -runs=0 \
			>"$tmp/types.seeds.log" 2>&1 || {
			echo "FAIL: fuzz_types: cannot open the snapshots"
			sed 's/^/    | /' "$tmp/types.seeds.log" | head -5
			failed=$((failed + 1))
			rc=1
			continue
		}
	fi
	# Inputs that once crashed a harness run first, every time: tests/fuzz/regress/HARNESS
	# as the smoke run reads them, HARNESS-whole without GOHEAP_FUZZ_EXE (whole files).
	for mode in "" -whole; do
		rdir="$top_srcdir/tests/fuzz/regress/$h$mode"
		[ -d "$rdir" ] || continue
		nreg=$(find "$rdir" -type f | wc -l)
		if [ "$mode" = -whole ]; then
			env -u GOHEAP_FUZZ_EXE "$out/fuzz_$h" "$rdir"/* >"$tmp/$h.regress.log" 2>&1
		else
			"$out/fuzz_$h" "$rdir"/* >"$tmp/$h.regress.log" 2>&1
		fi
		if [ $? -eq 0 ]; then
			echo "PASS: fuzz_$h: $nreg regression input(s) in regress/$h$mode"
			passed=$((passed + 1))
		else
			echo "FAIL: fuzz_$h: a regression input in regress/$h$mode fails again"
			grep -E 'ERROR|SUMMARY|runtime error|Running:' "$tmp/$h.regress.log" | head -n 8 | sed 's/^/    | /'
			failed=$((failed + 1))
			rc=1
		fi
	done
	# -detect_leaks stays on; -rss_limit_mb and -timeout catch runaway inputs.
	maxlen=65536
	[ "$h" = core ] && maxlen=262144
	[ "$h" = gor ] && maxlen=4096
	[ "$h" = types ] && maxlen=4096
	"$out/fuzz_$h" -max_total_time="$secs" -max_len=$maxlen -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
		-artifact_prefix="$cache/fuzz/crashes/$h-" "$tmp/$h" "$cache/fuzz/seeds/$h" \
		>"$tmp/$h.log" 2>&1
	r=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$h.log" | tail -n 1)
	cov=$(grep -Eo 'cov: [0-9]+' "$tmp/$h.log" | tail -n 1)
	if [ $r -eq 0 ]; then
		echo "PASS: fuzz_$h: ${runs:-?} runs in ${secs}s, ${cov:-cov: ?}"
		passed=$((passed + 1))
	else
		echo "FAIL: fuzz_$h exited $r; reproducer under $cache/fuzz/crashes/$h-*"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$tmp/$h.log" | head -n 8 | sed 's/^/    | /'
		failed=$((failed + 1))
		rc=1
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
