#!/bin/bash
# bench/retained-stop-bench.sh: the pause a live target feels under go-heap -p retained: the brief
# stop (read running, stopped only while what was read is copied: src/lib/retained/retlive.c) against the
# whole-read stop it replaces (GOHEAP_TEST_RETAINED_SNAP=whole: stopped from the first read to the
# last) and -p types' stop on the same target, in the same run, the three interleaved in each
# round; bench/retainbench's heap of N small objects (a tenth in a global map, the rest a list).
# Prints, per N: each mode's stop and wall time, median (min-max) of RUNS, the bytes the brief stop
# copied and their rate, the ratios against the whole-read stop and -p types' stop, the load
# average before and after.  "brief, memory" is the brief stop with the in-memory bound raised
# (GOHEAP_TEST_SNAP_BOUND=16 GiB): above the default 64 MiB the copy goes to a temporary file.
#
# Usage: bench/retained-stop-bench.sh [N ...]   (default 1000000 4000000; RUNS=7; GOHEAP_GO_VERSIONS
#        picks the toolchain, default the newest; needs the build tree's go-heap: the test hook)
set -u
. "$(dirname "$0")/../tests/lib.sh"
. "$(dirname "$0")/lib.sh"
gh_init
gh_toolchains
gh_real_goheap
runs=${RUNS:-7}
retainbench_build "$GH_CACHE/build" retainbench
# stats: "median (min-max)" of the numbers on stdin
stats() { sort -g | awk '{a[NR] = $1} END {printf "%s (%s-%s)", a[int((NR + 1) / 2)], a[1], a[NR]}'; }
stop_of() { sed -n 's/.*snapshot: the target was stopped for \([0-9.]*\) ms.*/\1/p' "$1"; }
now() { date +%s.%N; }
echo "go-heap -p retained, live: $goname, RUNS=$runs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n| objects | heap MiB | mode | stop ms | wall s | brief stop / this stop |\n|---|---|---|---|---|---|\n'
for n in ${@:-1000000 4000000}; do
	out="$GH_TMP/out.$n"
	retainbench_start "$out" -n "$n" -runs 1
	read -r _ objs bytes <<<"$(grep ^OBJECTS "$out")"
	for m in brief mem whole types; do : >"$GH_TMP/s.$m"; : >"$GH_TMP/w.$m"; done
	: >"$GH_TMP/copied"; : >"$GH_TMP/spilled"
	for i in $(seq "$runs"); do
		for m in brief mem whole types; do
			t0=$(now)
			case $m in
			brief) "$GH_GOHEAP" -v -p retained -n 3 "$pid" >"$GH_TMP/o" 2>"$GH_TMP/e" ;;
			mem) GOHEAP_TEST_SNAP_BOUND=$((1 << 34)) "$GH_GOHEAP" -v -p retained -n 3 "$pid" \
				>"$GH_TMP/o" 2>"$GH_TMP/e" ;;
			whole) GOHEAP_TEST_RETAINED_SNAP=whole "$GH_GOHEAP" -v -p retained -n 3 "$pid" \
				>"$GH_TMP/o" 2>"$GH_TMP/e" ;;
			types) "$GH_GOHEAP" -v -p types -n 3 "$pid" >"$GH_TMP/o" 2>"$GH_TMP/e" ;;
			esac || { cat "$GH_TMP/e"; exit 1; }
			t1=$(now)
			awk -v a="$t1" -v b="$t0" 'BEGIN {printf "%.3f\n", a - b}' >>"$GH_TMP/w.$m"
			stop_of "$GH_TMP/e" >>"$GH_TMP/s.$m"
			if [ "$m" = brief ]; then
				sed -n 's/.*stopped [0-9.]* ms while \([0-9]*\) bytes in.*/\1/p' \
					"$GH_TMP/o" >>"$GH_TMP/copied"
				sed -n 's/.*; \([0-9]*\) bytes in a temporary file.*/\1/p' "$GH_TMP/o" \
					>>"$GH_TMP/spilled"
			fi
		done
	done
	gh_stop "$pid"
	b=$(med <"$GH_TMP/s.brief")
	for m in brief mem whole types; do
		o=$(med <"$GH_TMP/s.$m")
		printf '| %s | %d | %s | %s | %s | %s |\n' "$objs" $((bytes >> 20)) \
			"$(case $m in mem) echo "brief, memory" ;; *) echo "$m" ;; esac)" \
			"$(stats <"$GH_TMP/s.$m")" "$(stats <"$GH_TMP/w.$m")" \
			"$(awk -v a="$b" -v c="$o" 'BEGIN {printf "%.3f", a / c}')"
	done
	c=$(med <"$GH_TMP/copied")
	f=$(med <"$GH_TMP/spilled")
	echo "| $objs | | brief: copied while stopped | $((c >> 20)) MiB ($((f >> 20)) MiB of its storage in a temporary file), $(awk -v c="$c" -v s="$b" 'BEGIN {printf "%.1f", c / s / 1e6}') GB/s at the median stop | | |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
