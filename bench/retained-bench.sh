#!/bin/bash
# bench/retained-bench.sh: go-heap -p retained against a heap of N small objects
# (bench/retainbench), live (the brief stop: bench/retained-stop-bench.sh compares it with the
# whole-read stop and -p types') and from a core:
# wall time and peak RSS (median of RUNS), the stop's length (-v), beside the target's own
# debug.WriteHeapDump time (the in-process anchor, measured in the same run), and against
# the issue's bound on memory: 64 bytes an object + 64 MiB.
#
# Usage: bench/retained-bench.sh [N[:pad] ...]   (default 1000000 4000000 10000000; N:pad:
#        the list's nodes are 112-byte objects, ~1 GiB at 10 000 000; RUNS=5;
#        SHAPES="list interleaved map small arrays tree goroutines": retainbench -shape, a
#        table per shape (default list);
#        GOHEAP_GO_VERSIONS picks the toolchain, default the newest; OLD_GOHEAP=path: another
#        go-heap binary (its libgoheap.so beside it, if any) run alternately with this one on the
#        same target and core: its rows, and the ratios new / old); the user + system CPU
#        seconds of each build too (what the load inflates least)
set -u
. "$(dirname "$0")/../tests/lib.sh"
. "$(dirname "$0")/lib.sh"
gh_init
gh_toolchains
gh_real_goheap
runs=${RUNS:-5}
# not the shared cache: another checkout may build its own
retainbench_build "$GH_TMP" retainbench
builds=(new)
old=${OLD_GOHEAP:-}
[ -n "$old" ] && builds+=(old)
# run BUILD ARGS...: one go-heap run of BUILD, `time`'s "%e %M" in $GH_TMP/time
run() {
	local b=$1
	shift
	if [ "$b" = old ]; then
		LD_LIBRARY_PATH="$(dirname "$old")" /usr/bin/time -f '%e %M %U %S' -o "$GH_TMP/time" "$old" "$@"
	else
		/usr/bin/time -f '%e %M %U %S' -o "$GH_TMP/time" "$GH_GOHEAP" "$@"
	fi
}
echo "go-heap: $GH_GOHEAP${old:+; old: $old}; $goname; $runs runs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for shape in ${SHAPES:-list}; do
echo
echo "shape: $shape (load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '| build | objects | heap MiB | WriteHeapDump s | live s | live stop ms | live RSS MiB | core s | core RSS MiB | RSS B/object | bound MiB (64 B/object + 64) | live s / dump | core s / dump |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
ratios= cpu=
for spec in ${@:-1000000 4000000 10000000}; do
	n=${spec%%:*} pad=
	[ "$spec" != "$n" ] && pad=-pad
	out="$GH_TMP/out.$shape.$n$pad"
	rm -f "$out"
	# shellcheck disable=SC2086
	retainbench_start "$out" -n "$n" $pad -shape "$shape"
	read -r _ objs bytes <<<"$(grep ^OBJECTS "$out")"
	dump=$(awk '/^DUMP/ {print $2}' "$out")
	for b in "${builds[@]}"; do : >"$GH_TMP/t.live.$b"; : >"$GH_TMP/r.live.$b"; : >"$GH_TMP/s.live.$b"; : >"$GH_TMP/c.live.$b"; done
	for i in $(seq "$runs"); do
		for b in "${builds[@]}"; do
			run "$b" -v -p retained -n 3 "$pid" >/dev/null 2>"$GH_TMP/err" || { cat "$GH_TMP/err"; exit 1; }
			read -r t m u sy <"$GH_TMP/time"
			echo "$t" >>"$GH_TMP/t.live.$b"
			awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f\n", u + s }' >>"$GH_TMP/c.live.$b"
			echo "$m" >>"$GH_TMP/r.live.$b"
			sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/err" >>"$GH_TMP/s.live.$b"
		done
	done
	gcore -o "$GH_TMP/core" "$pid" >/dev/null 2>&1
	for b in "${builds[@]}"; do : >"$GH_TMP/t.core.$b"; : >"$GH_TMP/r.core.$b"; : >"$GH_TMP/c.core.$b"; done
	for i in $(seq "$runs"); do
		for b in "${builds[@]}"; do
			run "$b" -p retained -n 3 "$GH_TMP/core.$pid" "$dir/retainbench" >"$GH_TMP/top.$b" \
				2>"$GH_TMP/err" || { cat "$GH_TMP/err"; exit 1; }
			read -r t m u sy <"$GH_TMP/time"
			echo "$t" >>"$GH_TMP/t.core.$b"
			awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f\n", u + s }' >>"$GH_TMP/c.core.$b"
			echo "$m" >>"$GH_TMP/r.core.$b"
		done
	done
	# (but the header's timing of the type inference)
	if [ -n "$old" ] && ! cmp -s <(sed 's/, [0-9.]* ms$//' "$GH_TMP/top.new") \
		<(sed 's/, [0-9.]* ms$//' "$GH_TMP/top.old"); then
		echo "the two builds' top differ on the core of $shape $n objects" >&2
		exit 1
	fi
	rm -f "$GH_TMP/core.$pid"
	gh_stop "$pid"
	for b in "${builds[@]}"; do
		tl=$(med <"$GH_TMP/t.live.$b") tc=$(med <"$GH_TMP/t.core.$b")
		rl=$(med <"$GH_TMP/r.live.$b") rc=$(med <"$GH_TMP/r.core.$b")
		cl=$(med <"$GH_TMP/c.live.$b") cc=$(med <"$GH_TMP/c.core.$b")
		eval "tl_$b=$tl tc_$b=$tc rl_$b=$rl rc_$b=$rc cl_$b=$cl cc_$b=$cc"
		cpu="$cpu| $b | $objs${pad:+ (pad)} | $cl | $cc |
"
		printf '| %s | %s%s | %d | %s | %s | %s | %d | %s | %d | %d | %d | %.2f | %.2f |\n' "$b" "$objs" \
			"${pad:+ (pad)}" $((bytes >> 20)) "$dump" "$tl" "$(med <"$GH_TMP/s.live.$b")" \
			$((rl >> 10)) "$tc" $((rc >> 10)) $((rc * 1024 / objs)) $(((objs * 64 >> 20) + 64)) \
			"$(echo "$tl / $dump" | bc -l)" "$(echo "$tc / $dump" | bc -l)"
	done
	if [ -n "$old" ]; then
		# shellcheck disable=SC2154
		ratios="$ratios$(printf '| %s%s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |' "$objs" "${pad:+ (pad)}" \
			"$(echo "$tl_new / $tl_old" | bc -l)" "$(echo "$rl_new / $rl_old" | bc -l)" \
			"$(echo "$tc_new / $tc_old" | bc -l)" "$(echo "$rc_new / $rc_old" | bc -l)" \
			"$(echo "$cl_new / $cl_old" | bc -l)" "$(echo "$cc_new / $cc_old" | bc -l)")
"
	fi
done
if [ -n "$old" ]; then
	printf '\n| objects | live s new/old | live RSS new/old | core s new/old | core RSS new/old | live CPU new/old | core CPU new/old |\n'
	printf '|---|---|---|---|---|---|---|\n%s' "$ratios"
fi
# user + system CPU seconds (medians): on a loaded machine the wall time is mostly the wait
# for a CPU, the CPU time much less so
printf '\n| build | objects | live CPU s | core CPU s |\n|---|---|---|---|\n%s' "$cpu"
ratios= cpu=
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
