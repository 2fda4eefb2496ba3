#!/bin/bash
# bench/retained-bench.sh: go-heap -p retained against a heap of N small objects
# (bench/retainbench), live (the brief stop: bench/retained-stop-bench.sh compares it with the
# whole-read stop and -p types') and from a core:
# wall time and peak RSS (median of RUNS), the stop's length (-v), beside the target's own
# debug.WriteHeapDump time (the in-process anchor, measured in the same run).
#
# Usage: bench/retained-bench.sh [N ...]   (default 1000000 4000000; RUNS=5; GOHEAP_GO_VERSIONS
#        picks the toolchain, default the newest)
set -u
. "$(dirname "$0")/../tests/lib.sh"
gh_init
gh_toolchains
gh_real_goheap
runs=${RUNS:-5}
last=$(( ${#GH_GO_NAMES[@]} - 1 ))
goname=${GH_GO_NAMES[$last]} root=${GH_GO_ROOTS[$last]}
dir="$GH_CACHE/build/retainbench-$goname"
mkdir -p "$dir"
(cd "$top_srcdir/bench/retainbench" && gh_go "$root" build -o "$dir/retainbench" main.go) || exit 1
med() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
printf '| objects | heap MiB | WriteHeapDump s | live s | live stop ms | live RSS MiB | core s | core RSS MiB | RSS B/object |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for n in ${@:-1000000 4000000}; do
	out="$GH_TMP/out.$n"
	"$dir/retainbench" -n "$n" >"$out" 2>&1 </dev/null &
	pid=$!
	GH_PIDS+=("$pid")
	while ! grep -q READY "$out" 2>/dev/null; do sleep 0.2; done
	read -r _ objs bytes <<<"$(grep ^OBJECTS "$out")"
	dump=$(awk '/^DUMP/ {print $2}' "$out")
	: >"$GH_TMP/t.live"; : >"$GH_TMP/r.live"; : >"$GH_TMP/s.live"
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$GH_TMP/time" "$GH_GOHEAP" -v -p retained -n 3 "$pid" \
			>/dev/null 2>"$GH_TMP/err" || { cat "$GH_TMP/err"; exit 1; }
		read -r t m <"$GH_TMP/time"
		echo "$t" >>"$GH_TMP/t.live"
		echo "$m" >>"$GH_TMP/r.live"
		sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$GH_TMP/err" >>"$GH_TMP/s.live"
	done
	gcore -o "$GH_TMP/core" "$pid" >/dev/null 2>&1
	: >"$GH_TMP/t.core"; : >"$GH_TMP/r.core"
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$GH_TMP/time" "$GH_GOHEAP" -p retained -n 3 \
			"$GH_TMP/core.$pid" "$dir/retainbench" >/dev/null 2>"$GH_TMP/err" || { cat "$GH_TMP/err"; exit 1; }
		read -r t m <"$GH_TMP/time"
		echo "$t" >>"$GH_TMP/t.core"
		echo "$m" >>"$GH_TMP/r.core"
	done
	rm -f "$GH_TMP/core.$pid"
	gh_stop "$pid"
	rl=$(med <"$GH_TMP/r.live")
	rc=$(med <"$GH_TMP/r.core")
	printf '| %s | %d | %s | %s | %s | %d | %s | %d | %d |\n' "$objs" $((bytes >> 20)) "$dump" \
		"$(med <"$GH_TMP/t.live")" "$(med <"$GH_TMP/s.live")" $((rl >> 10)) \
		"$(med <"$GH_TMP/t.core")" $((rc >> 10)) $((rc * 1024 / objs))
done
