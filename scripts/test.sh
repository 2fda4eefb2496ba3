#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian 12 machine:
# installs what is missing, builds with warnings as errors, runs `make check`
# (unit tests + integration tests against real Go programs for every
# installed Go toolchain).  Prints each test log's summary and the final
# "N passed, N failed, N skipped" line.
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
count() { cat tests/*.log 2>/dev/null | grep -cE "$1" || true; }
pass=$(count '^PASS:')
fail=$(count '^(FAIL|ERROR):')
skip=$(count '^SKIP:')
echo "checks: $pass passed, $fail failed, $skip skipped"
exit $rc
