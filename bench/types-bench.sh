#!/bin/bash
# bench/types-bench.sh: the heap by type read from outside vs the program's own answers (issue 23).
#
#   bench/types-bench.sh          RUNS (default 5) runs at each of MIBS (default "100 1024")
#
# Target: bench/typesbench.go (a heap of about MIB MiB of mixed objects: small noscan and
# pointerful, headered, large, slices, maps; a scheduling-gap monitor on its own locked thread).
# For each size one target is started and, RUNS times, three windows are measured in a row:
#   stop      `go-heap -v -p types -f text PID` (the default: read running, stop, re-read the
#             spans that changed, resume): the longest gap the target saw overlapping the stop's
#             interval (-v prints it), the stop itself, the whole command's wall time and peak
#             RSS (/usr/bin/time);
#   no-stop   `go-heap --no-stop -p types -f text PID`: the longest gap over the whole command
#             (nothing is stopped: the machine's noise floor), wall time, RSS;
#   in-process  SIGHUP: the target times its own debug.WriteHeapDump (to /dev/null: every
#             object, the world stopped throughout) with the longest gap and STW pause during
#             it, then runtime.ReadMemStats (totals only) with its gap.
# Prints a markdown table of medians (min-max) and the ratios.  Not a test: it never fails on
# slow numbers.  The load average is printed: the machine is shared, compare ratios.
#
#   base      with BASE=PATH (another go-heap binary, e.g. an earlier commit's): its stop window
#             too, measured in the same runs, interleaved, and the ratio of the stops.
# HOLES=1: the target drops every other small object after building (typesbench -holes): most
# spans partly free, as after churn, so that the stop has to read them again.
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the last installed one is used), RUNS, MIBS, GOHEAP_ARGS (extra go-heap
# options for the stop window), BASE.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/bench/lib.sh"
gh_init
RUNS=${RUNS:-5}
MIBS=${MIBS:-"100 1024"}

die() { echo "types-bench: $*" >&2; exit 1; }
gh_have_goheap || die "$GH_GOHEAP is not built"
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || die "no Go toolchain installed"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
bin="$GH_TMP/typesbench"
(cd "$top_srcdir/bench" && gh_go "$root" build -o "$bin" typesbench.go) >"$GH_TMP/build.log" 2>&1 ||
	die "building typesbench: $(cat "$GH_TMP/build.log")"
TIME=/usr/bin/time

# window_run CMD...: stdout discarded, stderr to cmd.err, /usr/bin/time to cmd.time.
window_run() {
	"$TIME" -f '%e %M' -o "$GH_TMP/cmd.time" "$@" >"$GH_TMP/cmd.out" 2>"$GH_TMP/cmd.err" </dev/null
}
[ -x "$TIME" ] || die "/usr/bin/time is needed (peak RSS)"





load0=$(uptime)
report=()
for M in $MIBS; do
	GOHEAP_READY_TIMEOUT=600 gh_start "$bin" -mib "$M" ${HOLES:+-holes} -gapfile "$GH_TMP/gaps" ||
		die "typesbench -mib $M did not start"
	pid=$GH_PID
	out=$GH_OUT
	info=$(sed -n 's/^typesbench: pid [0-9]* //p' "$out")
	sleep 1
	sgap=() sstop=() swall=() srss=() rew=() ngap=() nwall=() nrss=() dtot=() dgap=() dstw=() mtot=() mgap=()
	bgap=() bstop=() bwall=() skip=() sread=()
	nobj= nspans=
	for r in $(seq "$RUNS"); do
		# shellcheck disable=SC2086
		g=$(window "$pid" "$out" "$GH_GOHEAP" -v ${GOHEAP_ARGS:-} -p types -f text "$pid")
		grep -q 'types snapshot: the target was stopped' "$GH_TMP/cmd.err" ||
			die "go-heap failed: $(tail -n 3 "$GH_TMP/cmd.err")"
		sgap+=("$(awk '{ printf "%.3f", $1 / 1000 }' <<<"$(stop_gap "$GH_TMP/gaps" "$GH_TMP/cmd.err")")")
		sstop+=("$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/cmd.err")")
		rew+=("$(sed -n 's/.*; \([0-9]*\) of [0-9]* spans re-read.*/\1/p' "$GH_TMP/cmd.err")")
		nspans=$(sed -n 's/^# objects [0-9]*, bytes [0-9]* .*, \([0-9]*\) of \([0-9]*\) spans in use/\1 in use of \2/p' "$GH_TMP/cmd.out")
		skipped=$(sed -n 's/.* spans (\([0-9]*\) full, swept spans not read again.*/\1/p' "$GH_TMP/cmd.out")
		skip+=("${skipped:-0}")
		sread+=("$(sed -n 's/.*stopped [0-9.]* ms (\([0-9.]*\) ms reading).*/\1/p' "$GH_TMP/cmd.out")")
		read -r wall rss <"$GH_TMP/cmd.time"
		swall+=("$(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }')") srss+=("$((rss / 1024))")
		if [ -n "${BASE:-}" ]; then
			g=$(window "$pid" "$out" "$BASE" -v -p types -f text "$pid")
			bgap+=("$(awk '{ printf "%.3f", $1 / 1000 }' <<<"$(stop_gap "$GH_TMP/gaps" "$GH_TMP/cmd.err")")")
			bstop+=("$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/cmd.err")")
			read -r wall rss <"$GH_TMP/cmd.time"
			bwall+=("$(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }')")
			echo "MiB=$M run $r: base: gap ${bgap[-1]} ms, stop ${bstop[-1]} ms, wall ${bwall[-1]} ms" >&2
		fi
		g=$(window "$pid" "$out" "$GH_GOHEAP" --no-stop -p types -f text "$pid")
		ngap+=("$(awk -v g="$g" 'BEGIN { printf "%.3f", g / 1000 }')")
		read -r wall rss <"$GH_TMP/cmd.time"
		nwall+=("$(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }')") nrss+=("$((rss / 1024))")
		n=$(grep -c '^INPROC' "$out")
		kill -HUP "$pid"
		wait_line "$out" INPROC "$n" || die "no INPROC line"
		l=$(grep '^INPROC' "$out" | tail -n 1)
		dtot+=("$(sed -n 's/.*dump_ms=\([0-9.]*\).*/\1/p' <<<"$l")")
		dgap+=("$(sed -n 's/.*dump_gap_us=\([0-9]*\).*/\1/p' <<<"$l" | awk '{ printf "%.3f", $1 / 1000 }')")
		dstw+=("$(sed -n 's/.*dump_stw_max_us=\([0-9.]*\).*/\1/p' <<<"$l" | awk '{ printf "%.3f", $1 / 1000 }')")
		mtot+=("$(sed -n 's/.*ms_ms=\([0-9.]*\).*/\1/p' <<<"$l")")
		mgap+=("$(sed -n 's/.*ms_gap_us=\([0-9]*\).*/\1/p' <<<"$l" | awk '{ printf "%.3f", $1 / 1000 }')")
		nobj=$(sed -n 's/.*heap_objects=\([0-9]*\).*/\1/p' <<<"$l")
		echo "MiB=$M run $r: stop: gap ${sgap[-1]} ms, stop ${sstop[-1]} ms, re-read ${rew[-1]}, wall ${swall[-1]} ms, rss ${srss[-1]} MiB; no-stop: gap ${ngap[-1]} ms, wall ${nwall[-1]} ms, rss ${nrss[-1]} MiB; WriteHeapDump ${dtot[-1]} ms (gap ${dgap[-1]} ms); ReadMemStats ${mtot[-1]} ms (gap ${mgap[-1]} ms); load $(cut -d' ' -f1 /proc/loadavg)" >&2
	done
	gh_stop "$pid"
	report+=("| $M ($nobj objects, $nspans spans) | go-heap (stop) | $(stats "${sgap[@]}") | $(stats "${sstop[@]}"); of it reading $(stats "${sread[@]}") | $(stats "${swall[@]}") | $(stats "${srss[@]}") |")
	if [ -n "${BASE:-}" ]; then
		bname=$(basename "$BASE")
		rg=$(ratio "$(median "${sgap[@]}")" "$(median "${bgap[@]}")" 3)
		rs=$(ratio "$(median "${sstop[@]}")" "$(median "${bstop[@]}")" 3)
		rt=$(ratio "$(median "${swall[@]}")" "$(median "${bwall[@]}")" 3)
		report+=("| $M | base go-heap (stop): $bname | $(stats "${bgap[@]}") | $(stats "${bstop[@]}") | $(stats "${bwall[@]}") | |")
		report+=("| $M | ratios new / base, medians | gap $rg | stop $rs | total $rt | |")
	fi
	report+=("| $M | go-heap --no-stop | $(stats "${ngap[@]}") (whole call) | - | $(stats "${nwall[@]}") | $(stats "${nrss[@]}") |")
	report+=("| $M | in-process WriteHeapDump | $(stats "${dgap[@]}") | STW max $(stats "${dstw[@]}") | $(stats "${dtot[@]}") | |")
	report+=("| $M | in-process ReadMemStats | $(stats "${mgap[@]}") | - | $(stats "${mtot[@]}") | |")
	report+=("| $M | ratios (medians) | stop gap / WriteHeapDump gap $(ratio "$(median "${sgap[@]}")" "$(median "${dgap[@]}")" 3), / ReadMemStats gap $(ratio "$(median "${sgap[@]}")" "$(median "${mgap[@]}")" 3) | re-read while stopped: $(median "${rew[@]}"), not read again (full, swept): $(median "${skip[@]}") | go-heap / WriteHeapDump $(ratio "$(median "${swall[@]}")" "$(median "${dtot[@]}")" 3) | |")
done
echo
echo "typesbench ($goname)${HOLES:+ -holes}, $RUNS runs, $(nproc) CPUs;"
echo "uptime before: $load0"
echo "uptime after:  $(uptime)"
echo "medians (min-max)"
echo
echo "| heap MiB | what | longest gap the target saw, ms | stop / STW, ms | total, ms | peak RSS, MiB |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${report[@]}"
