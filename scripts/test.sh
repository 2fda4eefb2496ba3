#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian 12 machine:
# installs what is missing, builds with warnings as errors, runs `make check`
# (unit tests + integration tests against real Go programs for every
# installed Go toolchain), then `make fuzz-smoke` (the libFuzzer harnesses,
# about a minute), `make check-valgrind` (memcheck, ~15 s) and the suite once
# more in an ASan + UBSan build on the oldest and newest toolchain (~3 min).
# Each phase prints a line when it starts and when it ends, and every test's
# result as it finishes; the closing "checks: N passed, N failed, N skipped"
# line counts the checks of all four.
#
#   scripts/test.sh [--load]
#
# --load: the same, with a CPU hog of two busy processes beside it for the whole run (started
# here, killed on any exit), as a busy CI machine or a developer's build would load it; the
# phase lines then print the load average.  The suite must pass that way too (issue 37): its
# checks judge no duration and their deadlines bound hangs only (tests/lib.sh gh_wait_for).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
t_all=$(date +%s)
load=0
for a in "$@"; do
  case $a in
  --load) load=1 ;;
  *) echo "usage: scripts/test.sh [--load]" >&2; exit 2 ;;
  esac
done

# say TEXT: a progress line with the time since the start (and, under --load, the load average).
say() {
  if [ "$load" = 1 ]; then
    printf '[%4ds] (load %s) %s\n' $(( $(date +%s) - t_all )) "$(cut -d' ' -f1 /proc/loadavg)" "$*"
  else
    printf '[%4ds] %s\n' $(( $(date +%s) - t_all )) "$*"
  fi
}

# --load: two busy processes, killed (by their PIDs) however this script ends.
hogs=()
stop_hogs() {
  local p
  for p in "${hogs[@]+"${hogs[@]}"}"; do kill "$p" 2>/dev/null || true; done
  for p in "${hogs[@]+"${hogs[@]}"}"; do wait "$p" 2>/dev/null || true; done
  hogs=()
}
if [ "$load" = 1 ]; then
  trap stop_hogs EXIT
  trap 'exit 130' INT TERM HUP
  for _ in 1 2; do
    ( trap - EXIT INT TERM HUP; exec bash -c 'while :; do :; done' ) &
    hogs+=("$!")
  done
  say "load: a CPU hog of two busy processes (pids ${hogs[*]}) beside the whole run"
fi

# phase NAME LOG CMD...: run CMD with its output in LOG, printing the start, each test result
# line (PASS:/FAIL:/SKIP:/ERROR: as automake's harness and our scripts print them) as it
# comes, and the end with its duration.  Returns CMD's status; never exits.
phase() {
  local name=$1 log=$2 t0 rc
  shift 2
  t0=$(date +%s)
  say "$name: started (log: $log)"
  set +e
  "$@" 2>&1 | tee "$log" | grep --line-buffered -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' | sed -u 's/^/    /'
  rc=${PIPESTATUS[0]}
  set -e
  say "$name: $( [ "$rc" = 0 ] && echo ok || echo "FAILED (status $rc)" ) in $(( $(date +%s) - t0 ))s"
  return "$rc"
}

# failing_logs DIR N: the tail of every failing test log under DIR/tests.
failing_logs() {
  local f
  for f in $(grep -lE '^(FAIL|ERROR)' "$1"/tests/*.log 2>/dev/null); do echo "== $f"; tail -n "$2" "$f"; done
}

say "dependencies: checking (scripts/install-deps.sh; the first run on a fresh machine takes a few minutes)"
bash scripts/install-deps.sh
export GOHEAP_CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
build=${GOHEAP_BUILD_DIR:-$top/build}
san="$build-san"
rc=0

say "build: $build (configure --enable-werror)"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" --enable-werror >/dev/null
make -j"$(nproc)" >/dev/null

# 1. The suite: unit tests, then the integration scripts on every toolchain (about 10 minutes
#    on 2 cores with warm caches: see README "Testing").
# Jobs: twice the CPUs.  Many scripts spend their time waiting (a program's READY, a watch
# round, a Prometheus scrape), and on a busy machine the suite's share of the CPU grows with
# its runnable processes: -j2 left a CPU idle behind a waiting script.  The longest scripts
# (a --load run's figures) start first, so that the end of the run is not one long script
# alone.
jobs=${GOHEAP_CHECK_JOBS:-$(( $(nproc) * 2 ))}
first="run-package.sh run-core.sh run-goroutine.sh run-retained.sh run-types.sh run-gdb.sh run-force.sh run-retained-mem.sh run-retained-roots.sh run-memstats.sh run-mutate.sh"
ordered() {  # the tests of this tree, the long ones first ($1: a filter of their names)
  local all t
  all=$(make -s --no-print-directory print-tests | tr ' ' '\n' | grep -vE "${1:-^$}" || true)
  for t in $first; do echo "$all" | grep -E "/$t\$" || true; done
  echo "$all" | grep -vE "/($(echo $first | sed 's/ /|/g; s/\./\\./g'))\$" || true
}
all_tests=$(ordered | tr '\n' ' ')
if ! phase "make check (-j$jobs)" check.out make -j"$jobs" check TESTS="$all_tests"; then
  rc=1
  sed -n '/^# TOTAL/,/^# ERROR/p' check.out || true
  echo "---- failing logs ----"; failing_logs . 60
fi

# 2. The libFuzzer harnesses, about a minute and a half (tests/fuzz/fuzz-smoke.sh, doc/fuzzing.md).
# (8 seconds a harness here; make fuzz-smoke's default is 12, doc/fuzzing.md for longer runs)
phase "fuzz-smoke" fuzz-smoke.out make fuzz-smoke FUZZ_SECONDS="${FUZZ_SECONDS:-8}" || { rc=1; echo "---- fuzz-smoke ----"; tail -n 30 fuzz-smoke.out; }

# 3. valgrind memcheck on a live target and a core (tests/run-valgrind.sh, ~15 s): 0 errors, no leaks.
phase "check-valgrind" valgrind.out make check-valgrind || { rc=1; echo "---- check-valgrind ----"; tail -n 30 valgrind.out; }

# 4. The suite again in a second build tree with AddressSanitizer and UBSan (configure
#    --enable-sanitizers: any report aborts the program, so the check that ran it fails), on
#    the oldest and the newest toolchain (the oldest for the memory walkers only:
#    san_oldest_too); run-gdb.sh is left out there (gdb cannot load an ASan library).
all_go=$(sed -n 's/^GH_GO_ALL="\(.*\)"$/\1/p' "$top/tests/lib.sh")
san_go="${all_go%% *} ${all_go##* }"
# Left out of the sanitizer pass besides run-gdb (each ran in the plain pass): run-mutate's
# damaged cores (the same readers the fuzz-smoke harnesses run under ASan + UBSan with far
# more inputs), run-package (packaging: the .deb builds are made without the tree's
# sanitizers), watch's churn, series and secure scenarios (run-watch, run-watch-tls and
# run-watch-gometrics keep watch's C code under the sanitizers), run-goroutineleak-arm64
# (qemu; run-goroutineleak runs retleak.c) and run-tree (no C).  The PIE and -trimpath
# variants (the same C paths as the default build, but the load bias) run in the plain pass
# only.
san_skip='run-gdb|run-mutate|run-package|run-watch-churn|run-watch-series|run-watch-secure|run-goroutineleak-arm64|run-tree'
san_tests=$(ordered "$san_skip" | tr '\n' ' ')
# The walkers of the target's memory, whose layouts differ most between the oldest and the
# newest release (buckets, spans and types, the object graph, goroutines, block/mutex), and the
# hostile inputs (a core with another release's executable needs two), run on both; the
# other scripts (the front ends, watch, force, packaging, the samples of -p retained's rarer
# paths) on the newest only: the plain pass ran them on every release, and the sanitizers
# watch C code paths, which those scripts share with the newest's run.  (Both toolchains for
# every script took 20+ minutes at load 9, half the run; this sample 13 minutes at load 5-8.)
san_oldest_too="run-core.sh run-types.sh run-retained.sh run-goroutine.sh run-block.sh run-hostile.sh"
mkdir -p "$san"
rm -f "$san/check.out"
san_run() {
  cd "$san" &&
  { [ -f Makefile ] || "$top/configure" --enable-werror --enable-sanitizers >/dev/null; } &&
  make -j"$(nproc)" >/dev/null &&
  GOHEAP_GO_VERSIONS="$san_go" GOHEAP_OLDEST_TOO="$san_oldest_too" \
    GOHEAP_VARIANTS="default stripped" GOHEAP_CORE_VARIANTS="default stripped" \
    make -j"$jobs" check TESTS="$san_tests"
}
if ! phase "sanitizer build ($san, toolchains $san_go)" "$san/check.out" san_run; then
  rc=1
  echo "---- sanitizer build: failing logs ----"; failing_logs "$san" 40
  [ -s "$san/check.out" ] || echo "  (the sanitizer build itself failed)"
fi
cd "$build"

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
# Every failing check again, each with its log's name, just above the closing line: a CI page
# that shows only the end of the output still says what failed (not only which script) and,
# in the few lines each script printed under it, why.
if [ "$fail" -gt 0 ]; then
  echo "---- failed checks ----"
  for l in tests/*.log fuzz-smoke.out valgrind.out "$san"/tests/*.log; do
    [ -e "$l" ] || continue
    # the FAIL line and up to 6 lines after it that are not other checks' results (the log
    # excerpt or diff the script printed for it)
    awk -v n="${l#"$top"/}" '
      /^(FAIL:|ERROR:|\[  FAILED  \] [^0-9])/ { print "  " n ": " substr($0, 1, 300); k = 6; next }
      /^(PASS|SKIP|FAIL|XFAIL|ok|not ok)[: ]/ { k = 0 }
      k > 0 { print "      " substr($0, 1, 200); k-- }' "$l" 2>/dev/null || true
  done | head -n 70
fi
echo "checks: $pass passed, $fail failed, $skip skipped"
say "done$( [ "$load" = 1 ] && echo ' (under --load)')"
exit $rc
