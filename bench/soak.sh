#!/bin/bash
# bench/soak.sh: issue 7's soak (not in CI).  Starts the demo service
# (tests/go/demo: a busy JSON/cache workload at the default sampling rate),
# measures its CPU use for BASE seconds alone, then runs bench/soak: one
# go-heap session profiling it every 100 ms for DURATION seconds, printing
# go-heap's RSS every 10 s.  Pass: go-heap's RSS flat (no leak); the
# target's CPU rate unchanged apart from noise (go-heap only reads).
#
#   bench/soak.sh            DURATION=600 BASE=60 by default
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
DURATION=${DURATION:-600}
BASE=${BASE:-60}
make -s -C "$top_builddir" bench/soak || exit 1
gh_toolchains >/dev/null
last=$((${#GH_GO_NAMES[@]} - 1))
bin=$(gh_build demo "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default) || exit 1
work=$(mktemp -d /tmp/go-heap-soak.XXXXXX)
(cd "$work" && exec "$bin" >"$work/demo.log" 2>&1) &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do grep -q READY "$work/demo.log" 2>/dev/null && break; sleep 0.1; done
cpu() { awk '{print ($14+$15)/100}' "/proc/$pid/stat"; }
c0=$(cpu)
sleep "$BASE"
c1=$(cpu)
echo "target alone: $(python3 -c "print('%.3f' % (($c1-$c0)/$BASE))") CPU-seconds per second over ${BASE}s"
"$top_builddir/bench/soak" -i 100 -d "$DURATION" "$pid" | tee "$work/soak.out"
c2=$(cpu)
echo "target under soak: $(python3 -c "print('%.3f' % (($c2-$c1)/$DURATION))") CPU-seconds per second over ${DURATION}s"
