#!/bin/bash
# tests/run-retained.sh: who holds the heap (go-heap -p retained) against the runtime's own
# debug.WriteHeapDump and runtime.ReadMemStats.
#
# For each toolchain (GOHEAP_RETAINED_VERSIONS, default "1.19 1.21 1.22 1.27": the arenas'
# 2-bit and 1-bit heap bitmaps, the heap bits and headers, the newest (1.25's renumbered specials);
# every one of 1.19 and 1.21-1.27 passes when listed), default and stripped (-s -w) builds:
#   - tests/go/retainprog builds known graphs (main.cache: a map of 10 000 *Val; main.list: a
#     100 000-long list; main.iface: an interface holding the only *Impl; a slice of 500 *Held
#     only main.holder's frame holds; a FinA/FinB cycle with a finalizer on the FinA), runs runtime.GC, reads MemStats (GCSTATS: what the GC
#     kept), makes 1000 linked *Garbage and drops them, writes its heap dump and MemStats,
#     makes one tiny *TinyT and drops it (its block stays its P's mcache.tiny) and blocks on a
#     raw pipe read;
#   - tests/heapdump.py --graph computes, from the dump alone (each object's pointer fields, the
#     data and bss pointer masks, each stack frame's pointer fields from its stack maps), the
#     reachable set, the dominator tree (Cooper-Harvey-Kennedy) and each object's
#     retained bytes, and the retained bytes of named holders (what is unreachable without them);
#   - live (stopped while read) and from a gcore core:
#       * the tiny block is reachable, from its P's mcache.tiny only (gcMarkTinyAllocs);
#       * allocated objects/bytes == MEMSTATS; reachable objects/bytes == GCSTATS (the heap the
#         program's runtime.GC kept) == the checker's (the later tiny block set aside);
#         unreachable == the 1000 *Garbage;
#       * the reachable sets (addresses) are equal; each object's retained bytes and immediate
#         dominator equal the checker's, except in and directly above the runtime's M and P
#         structures, which the program's threads changed between its dump and go-heap's read
#         (counted, printed);
#       * default build: the holders main.list (100 000 x 16 B), main.cache, main.iface,
#         main.bigp and main.hugep (types with on-demand GC masks: 1.27, 1.24+; their masks
#         built from the type) and the frame of main.holder retain what the checker says (top's
#         root rows); 1.24+: the header counts the masks built from types; --path to
#         main.Big (1.22+, by type) or to the *Impl (by the address the dump's main.iface holds)
#         starts at main.iface;
#       * stripped: the biggest root is main.list's bss word, named bss+0x...;
#       * the finalizer cycle (a *FinA with a finalizer and the *FinB it points at, which points
#         back): reached from the finalizer special's root, as the runtime's GC keeps them;
#       * pprof: the samples' objects and bytes sum to the reachable totals, and the root frame
#         with the most inuse_space under it is main.list's (bss+0x... stripped) with its
#         1 600 000 bytes; collapsed sums too.
#   - hostile (newest toolchain, default build): damaged copies of its core (mutate);
#   - the gdb command on that core (in_gdb).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/retained-lib.sh"
gh_init
gh_need_python
# the sample (the three heap-bitmap layouts and the newest), within GOHEAP_GO_VERSIONS when set
# (the sanitizer pass runs the oldest and the newest)
gh_sample "${GOHEAP_RETAINED_VERSIONS:-1.19 1.21 1.22 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# compare KIND TARGET [EXE]
compare() {
	local kind=$1 target=$2 got want ck sum diffs
	shift 2
	run "$kind.objects" -p retained -f objects "$target" "$@"
	ok "$kind.objects" "$kind: -f objects" || return
	run "$kind.top" -p retained -n 100000 "$target" "$@"
	ok "$kind.top" "$kind: -f top" || return

	# the tiny block made after the GC: reachable only from its P's mcache.tiny (the runtime's
	# gcMarkTinyAllocs; the dump has no such root)
	got=$(awk '$4 == "tiny" {n++; b += $2} END {print n + 0, b + 0}' "$d/$kind.objects.out")
	if [ "$got" = "1 16" ]; then
		gh_pass "$tag: $kind: one 16-byte tiny block reached only from its P's mcache.tiny (the dropped *TinyT's)"
	else
		gh_fail "$tag: $kind: tiny blocks reached from mcache.tiny: '$got', not '1 16'"
	fi
	# totals, less that block (made after the dump): allocated == MEMSTATS, reachable ==
	# GCSTATS == the checker's
	got=$(awk '$4 != "tiny" {n++; b += $2; if ($3 == 1) {rn++; rb += $2}} END {print n, b, rn + 0, rb + 0}' \
		"$d/$kind.objects.out")
	want="$(sed -n 's/^MEMSTATS //p' "$GH_OUT") $(sed -n 's/^GCSTATS //p' "$GH_OUT")"
	ck=$(sed -n 's/^TOTAL //p' "$d/graph.txt")
	if [ "$got" = "$want" ] && [ "$got" = "$ck" ]; then
		gh_pass "$tag: $kind: allocated, reachable (less the later tiny block) '$got' == MemStats at the dump, after runtime.GC (HeapObjects HeapAlloc) == the dump's graph"
	else
		gh_fail "$tag: $kind: allocated, reachable '$got' != MemStats '$want' / the dump's graph '$ck'"
	fi
	# the 1000 *Garbage are the unreachable ones
	rl_garbage "$tag: $kind" "$d/$kind.objects.out"

	# per object: reachable, retained bytes, immediate dominator
	rl_graph_cmp "$d/$kind.objects.out" "$d/graph.txt" >"$d/$kind.cmp" 2>&1
	local res
	read -r -a res <<<"$(sed -n 's/^RESULT //p' "$d/$kind.cmp")"
	if [ "${#res[@]}" = 4 ] && [ "${res[1]}" = 0 ] && [ "${res[2]}" = 0 ]; then
		gh_pass "$tag: $kind: the ${res[0]} objects' reachability, retained bytes and immediate dominators == the dump's graph (${res[3]} in the runtime's M/P state, changed since the dump)"
	else
		gh_fail "$tag: $kind: objects differ from the dump's graph: $(head -n 1 "$d/$kind.cmp")"
		gh_show "$d/$kind.cmp" 10
	fi

	# holders
	if [ "$variant" = default ]; then
		local bad= h name gv cv
		for h in main.list main.cache main.iface main.bigp main.hugep frame:main.holder; do
			cv=$(awk -v h="$h" '$1 == "HOLDER" && $2 == h {print $3, $4}' "$d/graph.txt")
			name=${h#frame:}
			if [ "$name" = main.holder ]; then
				gv=$(awk '/stack root goroutine [0-9]*: main.holder$/ {print $2, $3; exit}' "$d/$kind.top.out")
			else
				gv=$(awk -v n="$name" '$6 == "root" && $7 == n {print $2, $3; exit}' "$d/$kind.top.out")
			fi
			[ -n "$gv" ] && [ "$gv" = "$cv" ] || bad="$bad $h: go-heap '$gv', dump '$cv';"
		done
		cv=$(awk '$6 == "root" && $7 == "main.list" {print $2, $3}' "$d/$kind.top.out")
		[ "$cv" = "1600000 100000" ] || bad="$bad main.list retains '$cv', not 100000 x 16 B;"
		if [ -z "$bad" ]; then
			gh_pass "$tag: $kind: the holders main.list (1600000 B), main.cache, main.iface, main.bigp, main.hugep and main.holder's frame retain what the dump's graph says"
		else
			gh_fail "$tag: $kind: holders:$bad"
			gh_show "$d/$kind.top.out" 14
		fi
		# 1.22+: by type (main.Big has a malloc header); every release: by the address of
		# the *Impl main.iface holds (the dump's word)
		local impl want2
		impl=$(awk '$1 == "HOLDERPTR" && $2 == "main.iface" {print $3; exit}' "$d/graph.txt")
		if [ "$minor" -ge 22 ]; then
			run "$kind.path" -p retained --path main.Big "$target" "$@"
			want2=' main.Big '
		else
			run "$kind.path" -p retained --path "$impl" "$target" "$@"
			want2="^  $impl "
		fi
		if [ "$rc" = 0 ] && sed -n 2p "$d/$kind.path.out" | grep -q 'bss root main.iface$' &&
			tail -n 1 "$d/$kind.path.out" | grep -q "$want2"; then
			gh_pass "$tag: $kind: --path $([ "$minor" -ge 22 ] && echo main.Big || echo "$impl (the *Impl)") runs from the root main.iface"
		else
			gh_fail "$tag: $kind: --path (exit $rc)"
			gh_show "$d/$kind.path.out" 6
			gh_show "$d/$kind.path.err" 3
		fi
	else
		cv=$(awk '$6 == "root" {print $2, $3, $7; exit}' "$d/$kind.top.out")
		if [[ "$cv" == "1600000 100000 bss+0x"* ]]; then
			gh_pass "$tag: $kind: the biggest root is main.list's word, named '${cv##* }' (no symbols)"
		else
			gh_fail "$tag: $kind: the biggest root is '$cv', not main.list's 1600000 B as bss+0x..."
		fi
	fi

	# on-demand GC masks (1.24+: main.hugep's type, 1.27: main.bigp's too) built from the type
	if [ "$minor" -ge 24 ]; then
		got=$(sed -n 's/^\([0-9]*\) types. GC masks built from the type.*/\1/p' "$d/$kind.top.out")
		if [ "${got:-0}" -ge 1 ]; then
			gh_pass "$tag: $kind: $got on-demand GC masks built from their types (main.hugep's among them: its holder check above)"
		else
			gh_fail "$tag: $kind: no on-demand GC mask built from a type"
			gh_show "$d/$kind.top.out" 10
		fi
	fi

	# the finalizer cycle: both reached first from the special's root
	got=$(awk '$4 == "finalizer" {n++} END {print n + 0}' "$d/$kind.objects.out")
	if [ "$got" = 2 ] && grep -q "^ *[0-9]*: .* finalizer root finalizer of 0x" "$d/$kind.top.out"; then
		gh_pass "$tag: $kind: the finalizer cycle (FinA, FinB) is reachable from the finalizer's root"
	else
		gh_fail "$tag: $kind: $got objects reached from a finalizer root, not the FinA/FinB cycle's 2"
		grep finalizer "$d/$kind.top.out" | head -n 3
	fi

	# pprof and collapsed sum to the reachable totals (the tiny block included)
	local rall
	rall=$(awk '$3 == 1 {n++; b += $2} END {print n + 0, b + 0}' "$d/$kind.objects.out")
	run "$kind.pprof" -p retained -o "$d/$kind.pb.gz" "$target" "$@"
	if ok "$kind.pprof" "$kind: pprof"; then
		sum=$(python3 "$GH_TESTS/heapdump.py" --pprof-sum "$d/$kind.pb.gz" 2>&1)
		want=$rall
		if [ "${sum% *}" = "$want" ]; then
			gh_pass "$tag: $kind: pprof samples' inuse_objects, inuse_space sum to the reachable $want"
		else
			gh_fail "$tag: $kind: pprof samples sum to '$sum', not '$want'"
		fi
		# the biggest root frame of the pprof's dominator paths: main.list's word, 100 000 x 16 B
		python3 "$GH_TESTS/heapdump.py" --pprof-roots "$d/$kind.pb.gz" >"$d/$kind.roots" 2>&1
		sum=$(sed -n 1p "$d/$kind.roots")
		if [ "$sum" = "main.list 1600000" ] ||
			{ [ "$variant" = stripped ] && [[ "$sum" == "bss+0x"*" 1600000" ]]; }; then
			gh_pass "$tag: $kind: pprof's biggest root frame is main.list's ('$sum'): its inuse_space under it is what it retains"
		else
			gh_fail "$tag: $kind: pprof's biggest root frame is '$sum', not main.list's 1600000 bytes"
			gh_show "$d/$kind.roots" 4
		fi
	fi
	run "$kind.folded" -p retained -f collapsed "$target" "$@"
	if ok "$kind.folded" "$kind: collapsed"; then
		sum=$(awk '{s += $NF} END {print s + 0}' "$d/$kind.folded.out")
		want=${rall#* }
		if [ "$sum" = "$want" ]; then
			gh_pass "$tag: $kind: collapsed stacks sum to the reachable $sum bytes"
		else
			gh_fail "$tag: $kind: collapsed stacks sum to $sum, not $want"
		fi
	fi
}

# mutate_check ADDR VALUE: gh_mutate's check of a damaged core read (exit 0): the header's
# reachable objects are no more than its allocated ones (else adds to bad).
mutate_check() {
	sed -n 's/^# allocated: \([0-9]*\) objects, [0-9]* bytes; reachable: \([0-9]*\) objects.*/\1 \2/p' \
		"$d/mut.out" | awk '$2 > $1 {exit 1}' || bad="$bad $1=$2: reachable > allocated;"
}

# mutate CORE EXE: GOHEAP_RETAINED_MUTATE (default 40) damaged copies of the core (newest
# toolchain, default build), each with one word go-heap -p retained reads set to 0, all-ones, a
# large value or a bit flip (random.Random(2929)): a span's fields or allspans' array, a heap
# object's word (its pointers), runtime.firstmoduledata's data..gcbss words, an allgs g's first
# 64 words (stack bounds, sched): exit 0 or 1 (never a signal or a timeout), 1 with one line on
# stderr, 0 with reachable <= allocated in the header.
mutate() {
	local core=$1 exe=$2 n=${GOHEAP_RETAINED_MUTATE:-40} mheap md allgs e0=0 e1=0 bad=
	mheap=$(nm "$exe" | awk '$3 == "runtime.mheap_" {print $1}')
	md=$(nm "$exe" | awk '$3 == "runtime.firstmoduledata" {print $1}')
	allgs=$(nm "$exe" | awk '$3 == "runtime.allgs" {print $1}')
	python3 "$GH_TESTS/heapdump.py" --spanwords "$core" $((0x$mheap + 65864)) 160 >"$d/words" ||
		{ gh_fail "$tag: mutate: cannot list the span words"; return; }
	python3 - "$d/words" "$d/core.objects.out" "$n" $((0x$md)) $((0x$allgs)) "$core" \
		"$GH_TESTS" >"$d/cases" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[7])
import heapdump
spans = open(sys.argv[1]).read().split()
objs = [l.split() for l in open(sys.argv[2])]
md, allgs = int(sys.argv[4]), int(sys.argv[5])
word = heapdump.core_reader(sys.argv[6])
arr, n = word(allgs), word(allgs + 8)
gs = [word(arr + 8 * i) for i in range(min(n, 64))]
r = random.Random(2929)
for _ in range(int(sys.argv[3])):
    k = r.randrange(4)
    if k == 0:
        a = int(r.choice(spans), 16)
    elif k == 1:
        o = r.choice(objs)
        a = int(o[0], 16) + 8 * r.randrange(max(1, min(int(o[1]), 4096) // 8))
    elif k == 2:
        a = md + 8 * r.randrange(26, 37)
    else:
        a = r.choice(gs) + 8 * r.randrange(64)
    v = r.choice(["0000000000000000", "ffffffffffffffff", "0000000000010000",
                  "%016x" % (1 << r.randrange(64))])
    print("0x%x %s" % (a, bytes.fromhex(v)[::-1].hex()))
PY
	[ -s "$d/cases" ] || { gh_fail "$tag: mutate: no cases"; return; }
	GOHEAP_TIMEOUT=60 gh_mutate "$core" "$exe" "$d/cases" mutate_check -p retained -f text
	if [ -z "$bad" ]; then
		gh_pass "$tag: hostile: $n damaged cores (spans, objects, moduledata, gs): $e0 read, $e1 refused with one line, no crash"
	else
		gh_fail "$tag: hostile:$bad"
	fi
}

# in_gdb CORE EXE: the gdb command on the core (newest toolchain, default build): the header's
# allocated and reachable totals == the CLI's -f objects sums; --path main.Big through gdb too.
in_gdb() {
	local tot want
	gh_gdb "$1" "$2" "go-heap -p retained -n 3" "go-heap -p retained --path main.Big" || return
	tot=$(sed -n 's/^allocated: \([0-9]*\) objects, \([0-9]*\) bytes; reachable: \([0-9]*\) objects ([0-9.]*%), \([0-9]*\) bytes.*/\1 \2 \3 \4/p' "$d/gdb.out")
	want=$(awk '{n++; b += $2; if ($3 == 1) {rn++; rb += $2}} END {print n, b, rn + 0, rb + 0}' \
		"$d/core.objects.out")
	if [ -n "$tot" ] && [ "$tot" = "$want" ] && grep -q '^  bss root main.iface$' "$d/gdb.out"; then
		gh_pass "$tag: gdb: go-heap -p retained on the core: totals $tot == the CLI's; --path main.Big from main.iface"
	else
		gh_fail "$tag: gdb: go-heap -p retained on the core: totals '$tot', the CLI's '$want'"
		gh_show "$d/gdb.out" 12
	fi
}

check() {
	local goname=$1 root=$2 variant=$3 bin pid holders=
	minor=${goname#go1.}
	tag="$goname/$variant"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d"
	gh_build_or_fail "$tag" retainprog "$goname" "$root" "$variant" || return
	bin=$GH_BIN
	if ! gh_start "$bin" "$d/heap.dump" 2>"$d/start.err"; then
		gh_fail "$tag: retainprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	if [ "$variant" = default ]; then
		for s in main.list main.cache main.iface main.bigp main.hugep; do
			holders="$holders --holder=$s=$(nm -S "$bin" | awk -v s="$s" '$4 == s {print "0x" $1 ":0x" $2}')"
		done
		holders="$holders --holder=frame:main.holder"
	fi
	# shellcheck disable=SC2086
	if ! python3 "$GH_TESTS/heapdump.py" --graph "$d/heap.dump" "$minor" \
		"$([ "$minor" -ge 26 ] && echo 1 || echo 0)" precise $holders >"$d/graph.txt" 2>"$d/graph.err"; then
		gh_fail "$tag: the dump's graph (heapdump.py --graph)"
		gh_show "$d/graph.err" 5
		gh_stop "$pid"
		return
	fi
	compare live "$pid"
	if gh_gcore "$tag" "$pid" "$d"; then
		compare core "$d/core.$pid" "$bin"
		if [ "$variant" = default ] && [ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ]; then
			mutate "$d/core.$pid" "$bin"
			in_gdb "$d/core.$pid" "$bin"
		fi
		rm -f "$d/core.$pid"
	fi
	gh_stop "$pid"
	rm -f "$d/heap.dump"
}

rl_each check
gh_summary
