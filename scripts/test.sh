#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian 12 machine:
# installs what is missing, builds with warnings as errors, runs `make check`
# (unit tests + integration tests against real Go programs for every
# installed Go toolchain), then `make fuzz-smoke` (the libFuzzer harnesses,
# about a minute), `make check-valgrind` (memcheck, ~15 s) and the suite once
# more in an ASan + UBSan build on the oldest and newest toolchain (~3 min).
# Prints each test log's summary and the final "N passed, N failed, N skipped"
# line, which counts the checks of all four.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
bash scripts/install-deps.sh
export GOHEAP_CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
build=${GOHEAP_BUILD_DIR:-$top/build}
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" --enable-werror >/dev/null
make -j"$(nproc)" >/dev/null
set +e
make -j"$(nproc)" check VERBOSE=1 >check.out 2>&1
rc=$?
set -e
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' check.out | sed 's/^/  /' || true
# automake's summary, then one closing line in the plain form CI reads.
sed -n '/^# TOTAL/,/^# ERROR/p' check.out || true
if [ $rc -ne 0 ]; then
  echo "---- failing logs ----"
  for f in $(grep -lE '^(FAIL|ERROR)' tests/*.log 2>/dev/null); do echo "== $f"; tail -n 60 "$f"; done
fi
# The libFuzzer harnesses, about a minute (tests/fuzz/fuzz-smoke.sh, doc/fuzzing.md).
set +e
make fuzz-smoke >fuzz-smoke.out 2>&1
frc=$?
set -e
grep -E '^(PASS|FAIL|SKIP):' fuzz-smoke.out | sed 's/^/  /' || true
if [ $frc -ne 0 ]; then
  echo "---- fuzz-smoke ----"; tail -n 30 fuzz-smoke.out
  rc=1
fi
# valgrind memcheck on a live target and a core (tests/run-valgrind.sh, ~15 s): 0 errors, no leaks.
set +e
make check-valgrind >valgrind.out 2>&1
vrc=$?
set -e
grep -E '^(PASS|FAIL|SKIP):' valgrind.out | sed 's/^/  /' || true
if [ $vrc -ne 0 ]; then
  echo "---- check-valgrind ----"; tail -n 30 valgrind.out
  rc=1
fi
# The suite again in a second build tree with AddressSanitizer and UBSan (configure
# --enable-sanitizers: any report aborts the program, so the check that ran it fails), on the
# oldest and the newest toolchain; run-gdb.sh is left out there (gdb cannot load an ASan
# library).  About 3 minutes.
san="$build-san"
all_go=$(sed -n 's/^GH_GO_ALL="\(.*\)"$/\1/p' "$top/tests/lib.sh")
san_go="${all_go%% *} ${all_go##* }"
san_tests=$(make -s --no-print-directory print-tests | tr ' ' '\n' | grep -v 'run-gdb' | tr '\n' ' ')
mkdir -p "$san"
rm -f "$san/check.out"
set +e
( cd "$san" &&
  { [ -f Makefile ] || "$top/configure" --enable-werror --enable-sanitizers >/dev/null; } &&
  make -j"$(nproc)" >/dev/null &&
  GOHEAP_GO_VERSIONS="$san_go" make -j"$(nproc)" check TESTS="$san_tests" >check.out 2>&1 )
src=$?
set -e
echo "  sanitizer build ($san, toolchains $san_go):"
grep -E '^(PASS|FAIL|SKIP|ERROR):' "$san/check.out" 2>/dev/null | sed 's/^/    /' || true
if [ $src -ne 0 ]; then
  echo "---- sanitizer build: failing logs ----"
  for f in $(grep -lE '^(FAIL|ERROR)' "$san"/tests/*.log 2>/dev/null); do echo "== $f"; tail -n 40 "$f"; done
  [ -s "$san/check.out" ] || echo "  (the sanitizer build itself failed)"
  rc=1
fi
# The closing line counts every check: the integration scripts' PASS/FAIL/SKIP lines, cmocka's
# "[       OK ]" / "[  FAILED  ]" lines, and every test whose automake result (.trs) is FAIL or
# ERROR without a failing line of its own (a crash, a timeout), so that it never disagrees with
# the exit status.
logs() { cat tests/*.log fuzz-smoke.out valgrind.out "$san"/tests/*.log 2>/dev/null; }
count() { logs | grep -cE "$1" || true; }
pass=$(count '^(PASS:|\[       OK \])')
fail=$(count '^(FAIL:|ERROR:|\[  FAILED  \] [^0-9])')
skip=$(count '^(SKIP:|\[  SKIPPED \] [^0-9])')
for t in tests/*.trs "$san"/tests/*.trs; do
  [ -e "$t" ] || continue
  if grep -qE '^:test-result: (FAIL|ERROR)' "$t"; then
    l=${t%.trs}.log
    if ! grep -qE '^(FAIL:|ERROR:|\[  FAILED  \] [^0-9])' "$l" 2>/dev/null; then
      echo "  FAIL: ${t%.trs} (no failing check in its log: crashed or timed out)"
      fail=$((fail + 1))
    fi
  fi
done
if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then
  fail=1    # the build or the harness itself failed
fi
# CI (or GOHEAP_STRICT_SKIPS=1): a skip that tests/expected-skips does not list is a failure,
# so a machine that silently lost a capability cannot pass.
if [ "${GOHEAP_STRICT_SKIPS:-${CI:-}}" = 1 ] || [ "${GOHEAP_STRICT_SKIPS:-${CI:-}}" = true ]; then
  grep -vE '^(#|[[:space:]]*$)' "$top/tests/expected-skips" >expected-skips.re || true
  [ -s expected-skips.re ] || echo 'a^' >expected-skips.re   # matches nothing
  set +e
  unexpected=$(logs | grep -E '^SKIP:' |
               grep -vEf expected-skips.re)
  grc=$?
  set -e
  [ $grc -le 1 ] || { echo "  FAIL: tests/expected-skips does not parse"; fail=$((fail + 1)); rc=1; }
  if [ -n "$unexpected" ]; then
    echo "---- unexpected skips (strict mode; see tests/expected-skips) ----"
    echo "$unexpected" | sed 's/^/  /'
    n=$(echo "$unexpected" | wc -l)
    fail=$((fail + n)); skip=$((skip - n)); rc=1
  fi
fi
echo "checks: $pass passed, $fail failed, $skip skipped"
exit $rc
