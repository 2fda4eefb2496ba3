#!/bin/bash
# bench/gor-bench.sh: the goroutine profile read from outside vs the program's own.
#
#   bench/gor-bench.sh      RUNS (default 7) runs at each of NS (default "10000 100000")
#                           on each of SHAPES (default "deep flat")
#
# Target: bench/gorbench.go built with bench/gordeep.go (N goroutines parked on channels,
# select, Mutex, Cond, Sleep, WaitGroup; -shape flat: every 8th 3 frames deeper; -shape deep:
# 20 to 60 frames deep through many distinct, inlined, generic, closure and method frames), a
# scheduling-gap monitor on its own locked thread (as tests/go/forceprog -gap).
# For each shape and N one target is started and, RUNS times, five windows are measured in a
# row; every go-heap command is timed as a whole with a monotonic clock around posix_spawn ..
# wait4 (as bench/run-bench.sh; the real binary, not libtool's wrapper), which also gives its
# peak RSS:
#   stop      `go-heap -v -p goroutine -f text PID` (the default: read running, stop, re-read
#             what changed, resume): the longest gap the target saw overlapping the stop's
#             interval (-v prints it), the stop itself (first interrupt .. last detach), the
#             whole command's wall time;
#   traceback `go-heap -p goroutine -f traceback PID`: wall time (the anchor: WriteTo(w, 2));
#   no-stop   `go-heap --no-stop -p goroutine -f text PID`: the longest gap over the whole
#             command (nothing is stopped: this is the machine's noise floor), wall time;
#   in-process  SIGHUP: the target times its own pprof.Lookup("goroutine").WriteTo(w, 1) and
#             then WriteTo(w, 2), in the same process and run: the wall time of each, the
#             longest gap during each, and the stop-the-world pauses the runtime counted meanwhile
#             (runtime/metrics /sched/pauses/total/other:seconds: count and the largest
#             bucket's upper bound; /sched/pauses/stopping/other:seconds: the largest time to
#             stop the world).
# After the runs, bench/readfloor -g (built here with `make bench/readfloor`) times the floor of
# the stop's copy on the same target: reading every allgs slot's g header span as the stop does
# (merged runs, ~256 KiB calls into a reused buffer), with one thread and with two.
# Prints a markdown table of medians (min-max) and the ratios of medians measured in the same
# run.  Not a test: it never fails on slow numbers.  The load average is printed: the machine is
# shared, compare ratios within one run.
#
# Environment: top_srcdir/top_builddir (default: this script's ../), GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the last installed one is used), RUNS, NS, SHAPES, GOHEAP (a go-heap
# binary to time instead of the build's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/bench/lib.sh"
gh_init
gh_real_goheap
[ -n "${GOHEAP:-}" ] && GH_GOHEAP=$GOHEAP
RUNS=${RUNS:-7}
NS=${NS:-"10000 100000"}
SHAPES=${SHAPES:-"deep flat"}

die() { echo "gor-bench: $*" >&2; exit 1; }
gh_have_goheap || die "$GH_GOHEAP is not built"
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || die "no Go toolchain installed"
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
root=${GH_GO_ROOTS[$last]}
bin="$GH_TMP/gorbench"
(cd "$top_srcdir/bench" && gh_go "$root" build -o "$bin" gorbench.go gordeep.go) >"$GH_TMP/build.log" 2>&1 ||
	die "building gorbench: $(cat "$GH_TMP/build.log")"

# spawn.py CMD...: run CMD (stdout to $GH_TMP/cmd.out, stderr to $GH_TMP/cmd.err) with
# posix_spawn; print "wall_ms peak_rss_kb status".
cat >"$GH_TMP/spawn.py" <<'PY'
import os, sys, time
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[
    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
    (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
_, st, ru = os.wait4(pid, 0)
ms = (time.perf_counter() - t0) * 1000
print(f"{ms:.2f} {ru.ru_maxrss} {os.waitstatus_to_exitcode(st)}")
PY

# window_run CMD...: CMD under spawn.py (stderr to cmd.err, the timing to cmd.time).
window_run() {
	python3 "$GH_TMP/spawn.py" /dev/null "$GH_TMP/cmd.err" "$@" >"$GH_TMP/cmd.time"
}




us2ms() { awk -v v="$1" 'BEGIN { if (v != "") printf "%.3f", v / 1000 }'; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }
check_time() {
	read -r wall rss st <"$GH_TMP/cmd.time"
	[ "$st" = 0 ] || die "go-heap $* failed (exit $st): $(tail -n 3 "$GH_TMP/cmd.err")"
}

floor_bin="$top_builddir/bench/readfloor"
make -s -C "$top_builddir" bench/readfloor >"$GH_TMP/readfloor.log" 2>&1 || floor_bin=

load0=$(uptime)
report=()
ratios=()
floors=()
for shape in $SHAPES; do
for N in $NS; do
	gh_start "$bin" -n "$N" -shape "$shape" -gapfile "$GH_TMP/gaps" || die "gorbench -n $N -shape $shape did not start"
	pid=$GH_PID
	out=$GH_OUT
	sleep 1
	sgap=() sstop=() swall=() srss=() rew=() twall=() trss=() ngap=() nwall=() itot=() igap=() istw=() istwn=() istop=()
	ttot=() tgap=() tstw=() tstop=() perg=()
	for r in $(seq "$RUNS"); do
		window "$pid" "$out" "$GH_GOHEAP" -v -p goroutine -f text "$pid" >/dev/null
		check_time stop
		grep -q 'goroutine snapshot: the target was stopped' "$GH_TMP/cmd.err" ||
			die "go-heap did not stop the target: $(tail -n 3 "$GH_TMP/cmd.err")"
		sgap+=("$(us2ms "$(stop_gap "$GH_TMP/gaps" "$GH_TMP/cmd.err")")")
		sstop+=("$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/cmd.err")")
		perg+=("$(sed -n 's/.*re-read while stopped), \([0-9.]*\) ns a goroutine.*/\1/p' "$GH_TMP/cmd.err")")
		rew+=("$(sed -n 's/.*; \([0-9]*\) of [0-9]* goroutines re-read.*/\1/p' "$GH_TMP/cmd.err")")
		swall+=("$wall") srss+=("$((rss / 1024))")
		window "$pid" "$out" "$GH_GOHEAP" -p goroutine -f traceback "$pid" >/dev/null
		check_time traceback
		twall+=("$wall") trss+=("$((rss / 1024))")
		g=$(window "$pid" "$out" "$GH_GOHEAP" --no-stop -p goroutine -f text "$pid")
		check_time --no-stop
		ngap+=("$(us2ms "$g")")
		nwall+=("$wall")
		n=$(grep -c '^INPROC' "$out")
		kill -HUP "$pid"
		wait_line "$out" INPROC "$n" 600 || die "no INPROC line"
		l=$(grep '^INPROC' "$out" | tail -n 1)
		itot+=("$(field total_ms "$l")") igap+=("$(us2ms "$(field maxgap_us "$l")")")
		istw+=("$(us2ms "$(field stw_max_us "$l")")") istwn+=("$(field stw_n "$l")")
		istop+=("$(us2ms "$(field stop_max_us "$l")")")
		ttot+=("$(field tb_total_ms "$l")") tgap+=("$(us2ms "$(field tb_maxgap_us "$l")")")
		tstw+=("$(us2ms "$(field tb_stw_max_us "$l")")") tstop+=("$(us2ms "$(field tb_stop_max_us "$l")")")
		echo "$shape N=$N run $r: stop: gap ${sgap[-1]} ms, stop ${sstop[-1]} ms, re-read ${rew[-1]}, wall ${swall[-1]} ms, rss ${srss[-1]} MiB; traceback wall ${twall[-1]} ms; no-stop: gap ${ngap[-1]} ms, wall ${nwall[-1]} ms; in-process WriteTo(1) ${itot[-1]} ms, gap ${igap[-1]} ms, STW max ${istw[-1]} ms (${istwn[-1]}); WriteTo(2) ${ttot[-1]} ms, STW max ${tstw[-1]} ms" >&2
	done
	floor="-"
	if [ -n "$floor_bin" ] && f=$("$floor_bin" -g -r "$RUNS" "$pid" 2>&1); then
		floor=$(awk '{ printf "one thread %s (%s-%s), two %s (%s-%s); %.1f MB in %s runs", $2, $3, $4, $14, $15, $16, $8 / 1e6, $10 }' <<<"$f")
	fi
	gh_stop "$pid"
	floors+=("| $shape | $N | $(median "${sstop[@]}") | $floor |")
	report+=("| $shape | $N | go-heap -f text (stop) | $(stats "${sgap[@]}") | stop $(stats "${sstop[@]}") | $(stats "${swall[@]}") | $(stats "${srss[@]}") |")
	report+=("| $shape | $N | go-heap -f traceback (stop) | | | $(stats "${twall[@]}") | $(stats "${trss[@]}") |")
	report+=("| $shape | $N | go-heap --no-stop -f text | $(stats "${ngap[@]}") (whole call) | - | $(stats "${nwall[@]}") | |")
	report+=("| $shape | $N | in-process WriteTo(w, 1) | $(stats "${igap[@]}") | STW max $(stats "${istw[@]}") ($(median "${istwn[@]}") pauses), stopping max $(stats "${istop[@]}") | $(stats "${itot[@]}") | |")
	report+=("| $shape | $N | in-process WriteTo(w, 2) | $(stats "${tgap[@]}") | STW max $(stats "${tstw[@]}"), stopping max $(stats "${tstop[@]}") | $(stats "${ttot[@]}") | |")
	ratios+=("| $shape | $N | $(ratio "$(median "${swall[@]}")" "$(median "${itot[@]}")") | $(ratio "$(median "${twall[@]}")" "$(median "${ttot[@]}")") | $(median "${sstop[@]}") | $(median "${perg[@]}") | $(ratio "$(median "${sgap[@]}")" "$(median "${igap[@]}")") | $(ratio "$(median "${sstop[@]}")" "$(median "${istw[@]}")") | $(median "${rew[@]}") |")
done
done
echo
echo "gorbench ($goname), $RUNS runs, $(nproc) CPUs; before: $load0; after: $(uptime)"
echo "medians (min-max), ms"
echo
echo "| shape | goroutines | what | longest gap the target saw | stop / STW | total | peak RSS, MiB |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${report[@]}"
echo
echo "| shape | goroutines | text / WriteTo(w, 1) | traceback / WriteTo(w, 2) | stop, ms | stop per goroutine, ns | gap: stop / WriteTo(w, 1) | stop / in-process STW max | re-read while stopped |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ratios[@]}"
echo
echo "The stop's copy floor (bench/readfloor -g, $RUNS passes: median (min-max) ms):"
echo
echo "| shape | goroutines | go-heap's stop (median), ms | the g headers read as the stop reads them |"
echo "|---|---|---|---|"
printf '%s\n' "${floors[@]}"
