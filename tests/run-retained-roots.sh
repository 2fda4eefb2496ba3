#!/bin/bash
# tests/run-retained-roots.sh: the garbage collector's less common roots in go-heap -p retained:
# the queued finalizers and cleanups (markroot's fixedRootFinalizers, fixedRootCleanups:
# runtime.allfin, gcCleanups), a stack-allocated defer record's closure and a panic (scanstack's
# walk of gp._defer, gp._panic), a cleanup's and a weak pointer's specials.
#
# tests/go/rootsprog (main.go for every release, extra_go124.go for 1.24+) makes, each holding a
# payload of a size nothing else in its heap has (whole pages):
#   - 6 *Queued (40960 B payloads) with finalizers, dropped: the first finalizer runs and blocks,
#     the rest stay queued; each is held only by its queued finalizer;
#   - a parked goroutine whose pending defer's closure alone holds 90112 B (nine defers: no
#     open-coded one; the record and the closure are on the stack, uintptrs to the compiler);
#   - a goroutine parked in a deferred call while it panics with a *PanicVal holding 106496 B;
#   - 1.24+: runtime.AddCleanup on a live *Owner whose argument holds 57344 B (the cleanup special
#     holds it); 4 dropped objects with cleanups that block, their 24576 B payloads queued (1.24:
#     on finq; 1.25+: gcCleanups' blocks; a cleanup goroutine that took one out and runs it
#     keeps it only as long as its frame does: the runtime frees it, and so does go-heap's view);
#     a weak.Make of a live *WeakObj whose weak.Pointer is dropped (the special holds the handle);
# then runtime.GC, MemStats (GCSTATS: what the GC kept), its own debug.WriteHeapDump.
#
# For each toolchain (GOHEAP_ROOTS_VERSIONS, default 1.19 and 1.21-1.27, within
# GOHEAP_GO_VERSIONS), default and stripped builds, live and from a gcore core:
#   - reachable objects and bytes == GCSTATS (the heap the program's runtime.GC kept; objects
#     the dump lacks, made by the runtime after it, set aside: at most 3, all reachable, counted):
#     every root the GC has, go-heap has (go-heap before these roots: 268 024 of 677 960 bytes on go1.27);
#   - the 6 queued finalizers' payloads are reached from "queued" roots, 6 roots retaining a
#     *Queued and its payload each; the dump's graph (tests/heapdump.py --graph: WriteHeapDump lists
#     the queued finalizers) reaches them too;
#   - the defer's payload: reached from the stack, main.deferHolder's frame retains exactly it
#     (the dump does not list defer records' closures: its graph leaves it unreachable);
#   - the panic's payload: main.panicker's runtime.gopanic frame retains the *PanicVal and it;
#   - 1.24+: the cleanup's payload is reached from the "cleanup of OWNER" special root; the queued
#     cleanups' payloads that are allocated are all reached from "queued" roots (3 or 4); a
#     "weak handle of WEAKOBJ" special root (the dump lists neither cleanups nor weak handles);
#   - hostile (newest toolchain): damaged copies of the core (allfin, its block's alllink and
#     cnt, g._defer, g._panic): exit 0 or one line, never a crash;
#   - stripped (-s -w): the same, the queues found without symbols: runtime.allfin is the one
#     .bss/.noptrbss word runtime.markroot loads that runtime.queuefinalizer refers to,
#     gcCleanups (1.25+) the one address runtime.runCleanups materialises whose .all markroot
#     loads (the header says so).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/retained-lib.sh"
gh_init
gh_need_python
gh_sample "${GOHEAP_ROOTS_VERSIONS:-1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# build_dir GONAME GOROOT VARIANT: tests/go/rootsprog as a package (its files carry build tags:
# gh_build compiles main.go alone), cached by the files' hash; prints the binary's path
build_dir() {
	local goname=$1 root=$2 variant=$3 src="$top_srcdir/tests/go/rootsprog" want dir flags
	flags=$(gh_variant_flags "$variant") || return 1
	want=$( { cat "$src"/*.go | sha256sum; echo "$root"; "$root/bin/go" version; echo "$flags"; } |
		sha256sum | cut -d' ' -f1)
	dir="$GH_CACHE/build/rootsprog-$goname-$variant-${want:0:12}"
	if [ -x "$dir/rootsprog" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ]; then
		echo "$dir/rootsprog"
		return 0
	fi
	mkdir -p "$dir" || return 1
	if ! (cd "$src" && eval "gh_go \"\$root\" build $flags -o \"\$dir/rootsprog.tmp\" .") \
		>"$dir/build.log" 2>&1; then
		sed 's/^/    | /' "$dir/build.log" >&2
		return 1
	fi
	mv -f "$dir/rootsprog.tmp" "$dir/rootsprog" && echo "$want" >"$dir/stamp" && echo "$dir/rootsprog"
}

# count SIZE COND: the objects of that size in $d/$kind.objects.out (awk COND on the line)
count() {
	awk -v s="$1" "\$2 == s && ($2) {n++} END {print n + 0}" "$d/$kind.objects.out"
}

# compare KIND TARGET [EXE]
compare() {
	local kind=$1 target=$2 got want n r
	shift 2
	run "$kind.objects" -p retained -f objects "$target" "$@"
	ok "$kind.objects" "$kind: -f objects" || return
	run "$kind.top" -p retained -n 100000 "$target" "$@"
	ok "$kind.top" "$kind: top" || return
	# stripped: no runtime.allfin/gcCleanups symbols: found through markroot's code
	if [ "$variant" = stripped ]; then
		if grep -q "^queued finalizers and cleanups (allfin, gcCleanups, found through markroot's code)" "$d/$kind.top.out"; then
			gh_pass "$tag: $kind: the queues found without symbols, through runtime.markroot's code (and queuefinalizer's, runCleanups')"
		else
			gh_fail "$tag: $kind: the queues not found without symbols"
			grep -i "queued\|not roots" "$d/$kind.top.out" | head -n 3
		fi
	fi
	# objects the dump does not have were made after it, by the runtime (seen: a P's timer heap
	# growing, 16 B, once in a few runs): set aside, at most 3 and all reachable, and counted
	rl_new_objects "$d/$kind.objects.out" "$d/graph.txt" >"$d/$kind.new"
	local nnew bnew rnew
	read -r nnew bnew rnew <<<"$(sed -n 2p "$d/$kind.new")"
	got=$(awk -v skip=" $(sed -n 1p "$d/$kind.new") " '$3 == 1 && index(skip, " " $1 " ") == 0 {n++; b += $2} END {print n + 0, b + 0}' "$d/$kind.objects.out")
	want=$(sed -n 's/^GCSTATS //p' "$GH_OUT")
	if [ "$got" = "$want" ] && [ "$nnew" -le 3 ] && [ "$rnew" = True ]; then
		gh_pass "$tag: $kind: reachable objects, bytes '$got' == what the program's runtime.GC kept (HeapObjects HeapAlloc) ($nnew objects, $bnew B, made by the runtime after the dump set aside)"
	else
		gh_fail "$tag: $kind: reachable '$got' != GCSTATS '$want' ($nnew objects, $bnew B, made after the dump, reachable: $rnew)"
		gh_show "$d/$kind.top.out" 12
	fi
	# the queued finalizers
	n=$(count 40960 '$3 == 1 && $4 == "queued"')
	r=$(grep -c '^ *[0-9]*: *40992 *2 .* queued root queued finalizer of 0x' "$d/$kind.top.out")
	if [ "$n" = 6 ] && [ "$r" = 6 ] && [ "$(count 40960 '$3 == 1 && 1')" = "$dump_q" ]; then
		gh_pass "$tag: $kind: the 6 queued finalizers' payloads are reached from 'queued' roots, each root retaining its *Queued and payload (40992 B); the dump's graph reaches the same $dump_q"
	else
		gh_fail "$tag: $kind: queued finalizers: $n payloads reached from queued roots, $r roots of 40992 B, the dump's graph $dump_q (want 6 6 6)"
		grep -i queued "$d/$kind.top.out" | head -n 8
	fi
	# the stack-allocated defer's closure
	n=$(count 90112 '$3 == 1 && $4 == "stack"')
	r=$(awk '/stack root goroutine [0-9]*: main.deferHolder$/ {print $2, $3; exit}' "$d/$kind.top.out")
	if [ "$n" = 1 ] && [ "$r" = "90112 1" ]; then
		gh_pass "$tag: $kind: the pending defer's closure's payload: reached from the stack, main.deferHolder's frame retains it (90112 B; the dump's graph: $dump_d reachable)"
	else
		gh_fail "$tag: $kind: the defer's payload: $n reached from the stack, main.deferHolder retains '$r' (want 1, '90112 1')"
	fi
	# the panic
	n=$(count 106496 '$3 == 1 && $4 == "stack"')
	r=$(awk '/stack root goroutine [0-9]*: runtime.gopanic$/ {print $2; exit}' "$d/$kind.top.out")
	if [ "$n" = 1 ] && [ "${r:-0}" -ge 106496 ] && [ "${r:-0}" -le 106560 ]; then
		gh_pass "$tag: $kind: the panic's payload: reached from the stack, runtime.gopanic's frame retains the *PanicVal and it ($r B)"
	else
		gh_fail "$tag: $kind: the panic's payload: $n reached from the stack, runtime.gopanic's frame retains '$r'"
	fi
	[ "$minor" -ge 24 ] || return
	local owner weak
	owner=$(sed -n 's/^OWNER //p' "$GH_OUT")
	weak=$(sed -n 's/^WEAKOBJ //p' "$GH_OUT")
	n=$(count 57344 '$3 == 1 && $4 == "finalizer"')
	r=$(awk -v o="$owner" '$0 ~ "finalizer root cleanup of " o " " {print $2; exit}' "$d/$kind.top.out")
	if [ "$n" = 1 ] && [ "${r:-0}" -ge 57344 ] && [ "${r:-0}" -le 57600 ]; then
		gh_pass "$tag: $kind: the cleanup's argument's payload is reached from the special 'cleanup of $owner' ($r B)"
	else
		gh_fail "$tag: $kind: the cleanup's payload: $n reached from specials, 'cleanup of $owner' retains '$r'"
	fi
	n=$(count 24576 '$3 == 1 && $4 == "queued"')
	got=$(count 24576 '1')
	if [ "$n" = "$got" ] && [ "$n" -ge 3 ]; then
		gh_pass "$tag: $kind: the $n queued cleanups' payloads still allocated are all reached from 'queued' roots"
	else
		gh_fail "$tag: $kind: queued cleanups: $n of $got payloads reached from queued roots (want all, at least 3)"
	fi
	if grep -q "finalizer root weak handle of $weak " "$d/$kind.top.out"; then
		gh_pass "$tag: $kind: the dropped weak.Pointer's handle is held by the special 'weak handle of $weak'"
	else
		gh_fail "$tag: $kind: no 'weak handle of $weak' root"
	fi
}

# hostile CORE EXE: damaged copies of the newest toolchain's core, one word each: runtime.allfin
# (unreadable), its first block's alllink (a cycle) and cnt (too many), each of the first 16
# goroutines' g._defer (pointing at the g itself: a record of garbage whose link may loop) and
# g._panic; exit 0 (the header says the queues' blocks are damaged where they are) or 1 with one
# line, never a crash or a timeout.
hostile() {
	local core=$1 exe=$2 allfin allgs fb arr n i addr bad= e0=0 e1=0 cases=
	allfin=$(nm "$exe" | awk '$3 == "runtime.allfin" {print $1}')
	allgs=$(nm "$exe" | awk '$3 == "runtime.allgs" {print $1}')
	fb=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" $((0x$allfin)))
	arr=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" $((0x$allgs)))
	n=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" $((0x$allgs + 8)))
	le() { python3 -c "import sys; print(int(sys.argv[1]).to_bytes(8, 'little').hex())" "$1"; }
	cases="$((0x$allfin)) $(le $((0xffffffffffff0000)))
$fb $(le "$fb")
$((fb + 16)) $(le 65535)"
	for ((i = 0; i < n && i < 16; i++)); do
		addr=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" $((arr + 8 * i)))
		cases="$cases
$((addr + 40)) $(le "$addr")
$((addr + 32)) $(le "$addr")"
	done
	printf '%s\n' "$cases" >"$d/cases"
	GOHEAP_TIMEOUT=60 gh_mutate "$core" "$exe" "$d/cases" : -p retained
	if [ -z "$bad" ]; then
		gh_pass "$tag: hostile: $((e0 + e1)) damaged cores (allfin, its block's alllink and cnt, g._defer, g._panic): $e0 read, $e1 refused with one line, no crash"
	else
		gh_fail "$tag: hostile:$bad"
	fi
}

check() {
	local goname=$1 root=$2 variant=$3 bin pid
	minor=${goname#go1.}
	tag="$goname/$variant"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d"
	if ! bin=$(build_dir "$goname" "$root" "$variant" 2>"$d/build.err"); then
		gh_fail "$tag: build rootsprog"
		gh_show "$d/build.err" 10
		return
	fi
	if ! gh_start "$bin" "$d/heap.dump" 2>"$d/start.err"; then
		gh_fail "$tag: rootsprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	if ! python3 "$GH_TESTS/heapdump.py" --graph "$d/heap.dump" "$minor" \
		"$([ "$minor" -ge 26 ] && echo 1 || echo 0)" precise >"$d/graph.txt" 2>"$d/graph.err"; then
		gh_fail "$tag: the dump's graph (heapdump.py --graph)"
		gh_show "$d/graph.err" 5
		gh_stop "$pid"
		return
	fi
	dump_q=$(awk '$2 == 40960 && $3 == 1' "$d/graph.txt" | wc -l)
	dump_d=$(awk '$2 == 90112 && $3 == 1' "$d/graph.txt" | wc -l)
	compare live "$pid"
	if gh_gcore "$tag" "$pid" "$d"; then
		compare core "$d/core.$pid" "$bin"
		[ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ] && [ "$variant" = default ] &&
			hostile "$d/core.$pid" "$bin"
		rm -f "$d/core.$pid"
	fi
	gh_stop "$pid"
	rm -f "$d/heap.dump"
}

rl_each check
gh_summary
