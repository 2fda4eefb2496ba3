#!/bin/bash
# bench/infer-bench.sh: what -p retained's type inference (src/lib/retained/retinfer.c) costs, as a share of
# the whole command, on bench/retainbench's heap (N small objects: a tenth in a global map whose
# group arrays carry their type, so its values are inferred; the rest a list from an untyped
# global, not inferred) from a gcore core: the median of RUNS of the command's wall time and of
# the inference's own time (the header's "inferred types: ..., X ms"), in the same runs.
#
# Usage: bench/infer-bench.sh [N ...]   (default 1000000 4000000; RUNS=5; GOHEAP_GO_VERSIONS picks
#        the toolchain, default the newest)
set -u
. "$(dirname "$0")/../tests/lib.sh"
. "$(dirname "$0")/lib.sh"
gh_init
gh_toolchains
gh_real_goheap
runs=${RUNS:-5}
# its own: retained-bench.sh builds the other
retainbench_build "$GH_CACHE/build" retainbench-infer
echo "$goname, load average $(cut -d' ' -f1-3 /proc/loadavg), RUNS=$runs"
printf '| objects | inferred objects | core s | inference ms | inference / total |\n'
printf '|---|---|---|---|---|\n'
for n in ${@:-1000000 4000000}; do
	out="$GH_TMP/out.$n"
	retainbench_start "$out" -n "$n" -runs 1
	read -r _ objs _ <<<"$(grep ^OBJECTS "$out")"
	gcore -o "$GH_TMP/core" "$pid" >/dev/null 2>&1
	gh_stop "$pid"
	: >"$GH_TMP/t"; : >"$GH_TMP/i"
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e' -o "$GH_TMP/time" "$GH_GOHEAP" -p retained -n 3 \
			"$GH_TMP/core.$pid" "$dir/retainbench" >"$GH_TMP/top" 2>"$GH_TMP/err" ||
			{ cat "$GH_TMP/err"; exit 1; }
		cat "$GH_TMP/time" >>"$GH_TMP/t"
		sed -n 's/.*inferred types: \([0-9]*\) objects.*kept), \([0-9.]*\) ms.*/\2/p' "$GH_TMP/top" >>"$GH_TMP/i"
		inf=$(sed -n 's/.*inferred types: \([0-9]*\) objects.*/\1/p' "$GH_TMP/top")
	done
	rm -f "$GH_TMP/core.$pid"
	t=$(med <"$GH_TMP/t") ms=$(med <"$GH_TMP/i")
	printf '| %s | %s | %s | %s | %s |\n' "$objs" "$inf" "$t" "$ms" \
		"$(awk -v a="$ms" -v b="$t" 'BEGIN {printf "%.3f", a / 1000 / b}')"
done
