#!/bin/bash
# bench/goroutineleak-bench.sh: go-heap -p goroutineleak against -p retained on the same live
# target (bench/retainbench: N small objects, a tenth in a global map, the rest a list), the two
# interleaved in each round: wall time and the stops (-p retained's brief stop; -p goroutineleak's
# graph stop, the same brief stop, plus the goroutine read's), median (min-max) of RUNS; then the
# in-process profile's cost on a heap of the same shape (bench/leakgc: runtime.GC against
# pprof.Lookup("goroutineleak").WriteTo, whose leak-detection GC runs in the program).
#
# Usage: bench/goroutineleak-bench.sh [N ...]   (default 1000000; RUNS=5; the newest toolchain of
#        GOHEAP_GO_VERSIONS)
set -u
. "$(dirname "$0")/../tests/lib.sh"
. "$(dirname "$0")/lib.sh"
gh_init
gh_toolchains
gh_real_goheap
runs=${RUNS:-5}
retainbench_build "$GH_CACHE/build" retainbench
stats() { sort -g | awk '{a[NR] = $1} END {printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR]}'; }
now() { date +%s.%N; }
echo "go-heap -p goroutineleak vs -p retained, live: $goname, RUNS=$runs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n| objects | mode | wall s | stop ms (graph + goroutines) |\n|---|---|---|---|\n'
for n in ${@:-1000000}; do
	out="$GH_TMP/out.$n"
	retainbench_start "$out" -n "$n" -runs 1
	read -r _ objs _ <<<"$(grep ^OBJECTS "$out")"
	for m in retained leak; do : >"$GH_TMP/w.$m"; : >"$GH_TMP/s.$m"; done
	for i in $(seq "$runs"); do
		t0=$(now)
		"$GH_GOHEAP" -v -p retained -n 3 "$pid" >"$GH_TMP/o" 2>"$GH_TMP/e"
		echo "$(now) - $t0" | bc >>"$GH_TMP/w.retained"
		sed -n 's/.*snapshot: the target was stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/e" >>"$GH_TMP/s.retained"
		t0=$(now)
		"$GH_GOHEAP" -v -p goroutineleak "$pid" >"$GH_TMP/o" 2>"$GH_TMP/e"
		echo "$(now) - $t0" | bc >>"$GH_TMP/w.leak"
		g=$(sed -n 's/.*the target stopped \([0-9.]*\) ms.*/\1/p' "$GH_TMP/o")
		r=$(sed -n 's/.*snapshot: the target was stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/e")
		echo "${g:-0} + ${r:-0}" | bc >>"$GH_TMP/s.leak"
	done
	printf '| %s | -p retained | %s | %s |\n' "$objs" "$(stats <"$GH_TMP/w.retained")" "$(stats <"$GH_TMP/s.retained")"
	printf '| %s | -p goroutineleak | %s | %s |\n' "$objs" "$(stats <"$GH_TMP/w.leak")" "$(stats <"$GH_TMP/s.leak")"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
# the in-process profile's own cost on the same heap (Go 1.27: a leak-detection GC, then the write)
lg="$GH_CACHE/build/leakgc-$goname"
mkdir -p "$lg"
if (cd "$top_srcdir/bench/leakgc" && gh_go "$root" build -o "$lg/leakgc" main.go); then
	for n in ${@:-1000000}; do
		echo "in the process, $n objects: $("$lg/leakgc" -n "$n" -runs "$runs" | tr '\n' ' ')(seconds, median of $runs)"
	done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
