#!/bin/bash
# bench/gdb-bench.sh: the gdb command `go-heap` against the go-heap CLI, on the same target.
#
#   bench/gdb-bench.sh [N ...]        default N: 10000
#
# For each N: build bench/heapbench.go with the newest installed toolchain, start it (it
# creates ~N heap buckets and waits), then
#   CLI           `go-heap -o x.pb.gz PID`, RUNS times: median wall time of the process;
#   gdb command   one `gdb -batch -p PID` session that sources gdb/go_heap.py and runs
#                 `go-heap -o x.pb.gz` RUNS+1 times, timing each inside gdb (the first run,
#                 which also loads libgoheap, is dropped): median;
#   gdb one-shot  `gdb -batch -p PID -ex 'source ...' -ex 'go-heap -o x.pb.gz'`, RUNS times:
#                 median wall time including gdb's start, attach, symbol loading and detach
#                 (for scale: this is what a user pays who starts gdb only for the profile);
# and the same for a gcore core of the target (CLI `go-heap -o x CORE EXE` vs the command in
# `gdb -batch EXE CORE`) unless MODES excludes it.  Prints a markdown table; the goal of
# issue 4 is gdb command <= 3x CLI.  Not a test: it never fails on slow numbers.
#
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the last installed one is used), RUNS (default 7), MODES (default
# "live core"), FORMAT_ARGS (default "-o x.pb.gz"; e.g. "-f text -o x.txt"),
# HEAPBENCH_FLAGS (e.g. -keeprate), GOHEAP_LIBRARY (default: this build's library).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
gh_real_goheap
RUNS=${RUNS:-7}
MODES=${MODES:-live core}
NS=("$@")
[ ${#NS[@]} -gt 0 ] || NS=(10000)
SCRIPT="$top_srcdir/gdb/go_heap.py"
: "${GOHEAP_LIBRARY:=$top_builddir/src/.libs/libgoheap.so.0}"
export GOHEAP_LIBRARY

die() { echo "gdb-bench: $*" >&2; exit 1; }
gh_have_goheap || die "$GH_GOHEAP is not built (autoreconf -fi && ./configure && make)"
[ -f "$GOHEAP_LIBRARY" ] || die "$GOHEAP_LIBRARY is not built"
command -v gdb >/dev/null || die "gdb not found"
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || die "no Go toolchain installed"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
bin=$(gh_build heapbench "$goname" "${GH_GO_ROOTS[$last]}" default) || exit 1
# A private copy: a rebuild of the shared cache must not replace the file under the target.
cp "$bin" "$GH_TMP/heapbench" || exit 1
bin=$GH_TMP/heapbench
read -r -a FMT <<<"${FORMAT_ARGS:--o $GH_TMP/x.pb.gz}"
GDBQ=(gdb -batch -nx -iex 'set auto-load no' -iex 'set pagination off')

# timeit RUNS CMD...: run CMD RUNS times; print "median_ms min_ms max_ms status".
timeit() {
	python3 - "$@" <<'PY'
import os, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
ts, status = [], 0
for _ in range(runs):
    t0 = time.perf_counter()
    st = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t0) * 1000)
    status = status or st
ts.sort()
print(f"{ts[len(ts)//2]:.2f} {ts[0]:.2f} {ts[-1]:.2f} {status}")
PY
}

# in_gdb GDB-TARGET-ARGS...: one gdb session, the command run RUNS+1 times and timed
# inside gdb; prints "median_ms min_ms max_ms status reads bytes".
in_gdb() {
	local cmd="go-heap ${FMT[*]}"
	GOHEAP_GDB_TRACE=1 timeout 600 "${GDBQ[@]}" "$@" -ex "source $SCRIPT" -ex "python
import time
_ts, _st = [], 0
for _i in range($RUNS + 1):
    _t0 = time.perf_counter()
    try:
        gdb.execute('''$cmd''', to_string=True)
    except gdb.error as _e:
        _st = 1
        gdb.write('BENCH-ERROR %s\\n' % _e, gdb.STDERR)
    _ts.append((time.perf_counter() - _t0) * 1000)
_ts = sorted(_ts[1:])
print('BENCH %.2f %.2f %.2f %d' % (_ts[len(_ts) // 2], _ts[0], _ts[-1], _st))
# Once more, not captured, so that the GOHEAP_GDB_TRACE line reaches stderr.
gdb.execute('''$cmd''', to_string=False)
" </dev/null 2>"$GH_TMP/gdb.err" | awk '$1 == "BENCH" { print $2, $3, $4, $5 }' | tr '\n' ' '
	# The trace lines (one per run) give gdb's read count; they are all alike.
	sed -n 's/^go-heap: [a-z]*: \([0-9]*\) gdb reads, \([0-9]*\) bytes.*/\1 \2/p' "$GH_TMP/gdb.err" | tail -n 1
	grep '^BENCH-ERROR' "$GH_TMP/gdb.err" | head -n 1 >&2
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

rows=()
for n in "${NS[@]}"; do
	if ! gh_start "$bin" -n "$n" ${HEAPBENCH_FLAGS:-}; then
		echo "gdb-bench: heapbench -n $n did not start" >&2
		continue
	fi
	pid=$GH_PID
	buckets=$(awk '$1 == "buckets" { print $2 }' "$GH_OUT")
	for mode in $MODES; do
		case $mode in
		live)
			cli=("$GH_GOHEAP" "${FMT[@]}" "$pid")
			tgt=(-p "$pid")
			;;
		core)
			rm -f "$GH_TMP"/gcore.*
			gcore -o "$GH_TMP/gcore" "$pid" >/dev/null 2>&1
			core=$(ls "$GH_TMP"/gcore.* 2>/dev/null | head -n 1)
			[ -n "$core" ] || { echo "gdb-bench: gcore failed" >&2; continue; }
			cli=("$GH_GOHEAP" "${FMT[@]}" "$core" "$bin")
			tgt=("$bin" "$core")
			;;
		*) continue ;;
		esac
		read -r c_med c_min c_max c_st < <(timeit "$RUNS" "${cli[@]}")
		read -r g_med g_min g_max g_st g_reads g_bytes < <(in_gdb "${tgt[@]}")
		read -r o_med o_min o_max o_st < <(timeit "$RUNS" "${GDBQ[@]}" "${tgt[@]}" \
			-ex "source $SCRIPT" -ex "go-heap ${FMT[*]}")
		note=""
		[ "$c_st" = 0 ] || note+=" CLI exit $c_st."
		[ "${g_st:-1}" = 0 ] || note+=" gdb command failed."
		r=$(ratio "${g_med:-0}" "$c_med")
		goal=$(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 3) ? "yes" : "no" }')
		rows+=("| $n | $buckets | $mode | $c_med ($c_min-$c_max) | ${g_med:--} (${g_min:--}-${g_max:--}) | $r | $goal | ${g_reads:--} / $(( ${g_bytes:-0} / 1024 )) KiB | $o_med | $(ratio "$o_med" "$c_med") |$note")
		[ "$mode" = core ] && rm -f "$core"
	done
	gh_stop "$pid"
done

echo
echo "go-heap $("$GH_GOHEAP" --version 2>/dev/null | head -n 1), $(gdb --version | head -n 1), target $goname," \
	"format args '${FORMAT_ARGS:--o x.pb.gz}', $RUNS runs each (medians), $(nproc) CPUs, $(uname -r)"
echo
echo "| N | buckets | target | CLI ms (min-max) | gdb command ms (min-max) | gdb / CLI | <= 3x | gdb reads / bytes per run | gdb one-shot ms | one-shot / CLI |"
echo "|---:|---:|---|---:|---:|---:|---|---:|---:|---:|"
printf '%s\n' "${rows[@]+"${rows[@]}"}"
