#!/bin/bash
# tests/run-types.sh: the heap by type (go-heap -p types, issue 23) against the runtime's own
# debug.WriteHeapDump and runtime.ReadMemStats, for every toolchain.
#
# For each toolchain (GOHEAP_GO_VERSIONS, default tests/lib.sh GH_GO_ALL), default and stripped
# (-s -w: runtime.mheap_ located from runtime.sweepone's code, -v says so) builds:
#   - tests/go/typesprog allocates uniquely named types on every allocation path (tiny, small
#     noscan, small pointerful <= 512 B, pointerful > 512 B with a header, large with and
#     without pointers, slices, maps, strings, channels), settles (runtime.GC, FreeOSMemory),
#     writes its heap dump and its MemStats (raw syscalls, nothing allocated afterwards) and
#     blocks on a raw pipe read;
#   - the dump is parsed by tests/heapdump.py (phantom slots past nelems left out);
#   - live (read while it runs: it is still) and from a gcore core:
#       * go-heap's objects (-f objects: address, size) == the dump's objects, as sets;
#       * every object typed from its malloc header (1.22+) has the type the dump's first word
#         of the object points at;
#       * the totals (-f top's header) == the program's HeapObjects/HeapAlloc == the dump's;
#       * 1.22+: the counts of the typed known types (main.HdrT by header, main.LargeT by
#         largeType, main.ElemT as slices' headers, *main.ChanT as channel buffers) == what the
#         program made; collapsed's counts and pprof's samples sum to the totals.
#   - hostile (newest toolchain, default build, from damaged copies of its core): a junk malloc
#     header is counted by shape with a warning; an absurd allspans length is one error line;
#     60 cores each with one damaged word of the span list or an mspan: exit 0 (rows == totals)
#     or 1 (one line), never a crash (mutate).
#   - 1.22+: the shape of main.SmallPtrT (24 B, its pointer word first) read from the span's
#     heap bits: 'ptrs 24 B 0b100' counts at least the 1000 made.
#   - go1.25 built with GOEXPERIMENT=greenteagc (the build info says so; the heap bits sit
#     before the inline mark bits), compared as the default build, live and core; its DWARF's
#     runtime.spanInlineMarkBits == the row's (tests/locate-dump --dwarf).
#   - arm64 (the oldest and the newest toolchain): typesprog under qemu-aarch64-static, SIGABRT,
#     qemu's core compared as above (arm64).
#   - the gdb command on the newest toolchain's core (in_gdb): totals == MemStats.
#   - the snapshot under allocation (go1.22 and the newest): typesprog -churn changes spans of
#     HdrT's size class while go-heap reads it; 5 reads, each stopped briefly to re-read what
#     changed: the typed counts stay exact, the rows add up to the totals (churn); on the newest
#     also -churn-big, 10 000+ spans first, so that the stop compares the churn's spans (the
#     upper half of allspans) on its second thread.
#   - unswept (every toolchain's default build, go1.25 with greenteagc, the newest stripped):
#     typesprog -unswept, run with GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1, makes and drops
#     GarbT/GarbHdrT (addresses noted), then garbage until an automatic GC ran, reads its
#     MemStats and spins on raw system calls (the background sweeper never gets the P):
#       * unswept spans are present (else a skip saying so);
#       * totals == that MemStats; the objects listed 'u' (allocated, unmarked by the last GC:
#         gcmarkBits, or'ed with Green Tea's inline mark bits) sum to the unreachable figure;
#       * from a gcore core: the same objects, the same 'u' flags;
#       * then the program's debug.WriteHeapDump (which sweeps every span first): its objects ==
#         go-heap's objects not 'u'; its MemStats after the dump == before - the unreachable
#         objects and bytes; after a runtime.GC its HeapAlloc <= the bytes go-heap found
#         reachable; every dropped GarbT/GarbHdrT go-heap listed is 'u'.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_python
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# compare KIND TARGET [EXE]: go-heap -p types of TARGET (a PID or a core) against the dump.
compare() {
	local kind=$1 target=$2 n1 n2 nh bad tot want total known=
	shift 2
	run "$kind.objects" -p types -f objects "$target" "$@" || true
	ok "$kind.objects" "$kind: -f objects" || return
	run "$kind.top" -p types -n 5 "$target" "$@"
	ok "$kind.top" "$kind: -f top" || return
	run "$kind.text" -p types -f text "$target" "$@"
	ok "$kind.text" "$kind: -f text" || return
	run "$kind.folded" -p types -f collapsed "$target" "$@"
	ok "$kind.folded" "$kind: -f collapsed" || return

	# the object sets
	awk '{print $1, $2}' "$d/$kind.objects.out" | sort >"$d/$kind.g.set"
	grep -v '^MEMSTATS' "$d/dump.txt" | awk '{print $1, $2}' | sort >"$d/dump.set"
	n1=$(wc -l <"$d/$kind.g.set")
	n2=$(wc -l <"$d/dump.set")
	if cmp -s "$d/$kind.g.set" "$d/dump.set"; then
		gh_pass "$tag: $kind: go-heap's $n1 objects (address, size) == the heap dump's"
	else
		gh_fail "$tag: $kind: go-heap's $n1 objects != the heap dump's $n2 (< go-heap, > dump)"
		diff "$d/$kind.g.set" "$d/dump.set" >"$d/$kind.diff"
		gh_show "$d/$kind.diff" 10
	fi

	# headered objects: their type == the dump's first word
	awk '$4 == "h" {print $1, $3}' "$d/$kind.objects.out" | sort >"$d/$kind.h"
	grep -v '^MEMSTATS' "$d/dump.txt" | awk '{print $1, $3}' | sort >"$d/dump.first"
	nh=$(wc -l <"$d/$kind.h")
	bad=$(join "$d/$kind.h" "$d/dump.first" | awk '$2 != $3' | wc -l)
	missing=$(join -v1 "$d/$kind.h" "$d/dump.first" | wc -l)
	if [ "$minor" -ge 22 ] && [ "$nh" -lt 300 ]; then
		gh_fail "$tag: $kind: only $nh objects typed from a malloc header (typesprog makes 350+)"
	elif [ "$minor" -lt 22 ]; then
		if [ "$nh" -eq 0 ]; then
			gh_pass "$tag: $kind: no object typed from a header (go1.$minor has none)"
		else
			gh_fail "$tag: $kind: $nh objects typed from a header on go1.$minor, which has none"
		fi
	elif [ "$bad" -eq 0 ] && [ "$missing" -eq 0 ]; then
		gh_pass "$tag: $kind: the type of each of $nh headered objects == the dump's first word"
	else
		gh_fail "$tag: $kind: $bad headered objects' types differ from the dump's first word, $missing not in the dump"
		join "$d/$kind.h" "$d/dump.first" | awk '$2 != $3' >"$d/$kind.hbad"
		gh_show "$d/$kind.hbad" 5
	fi

	# totals
	tot=$(sed -n 's/^objects \([0-9]*\), bytes \([0-9]*\) .*/\1 \2/p' "$d/$kind.top.out")
	want=$(sed -n 's/^MEMSTATS //p' "$GH_OUT")
	total=$(sed -n 's/^MEMSTATS //p' "$d/dump.txt")
	if [ -n "$tot" ] && [ "$tot" = "$want" ] && [ "$tot" = "$total" ]; then
		gh_pass "$tag: $kind: totals $tot == HeapObjects HeapAlloc (ReadMemStats, the dump's)"
	else
		gh_fail "$tag: $kind: totals '$tot' != ReadMemStats '$want' / the dump's '$total'"
		gh_show "$d/$kind.top.out" 8
	fi
	sum=$(awk '{s += $NF} END {print s + 0}' "$d/$kind.folded.out")
	if [ "$sum" = "${tot%% *}" ]; then
		gh_pass "$tag: $kind: collapsed counts sum to the $sum objects"
	else
		gh_fail "$tag: $kind: collapsed counts sum to $sum, not ${tot%% *}"
	fi
	# pprof: the samples' objects and bytes sum to the totals
	run "$kind.pprof" -p types -o "$d/$kind.pb.gz" "$target" "$@"
	if ok "$kind.pprof" "$kind: pprof"; then
		sum=$(python3 "$GH_TESTS/heapdump.py" --pprof-sum "$d/$kind.pb.gz" 2>&1)
		if [ "$sum" = "$tot" ]; then
			gh_pass "$tag: $kind: pprof samples sum to the totals ($sum)"
		else
			gh_fail "$tag: $kind: pprof samples sum to '$sum', not '$tot'"
		fi
	fi

	# the typed known types' counts
	if [ "$minor" -lt 22 ]; then
		echo "N/A: $tag: $kind: go1.$minor has no allocation headers: shapes only (no type counts)"
		return
	fi
	bad=
	for t in main.HdrT main.LargeT main.ElemT '*main.ChanT'; do
		local name=${t#\*} n got
		n=$(awk -v t="$name" '$1 == "COUNT" && $2 == t {print $3}' "$GH_OUT")
		got=$(awk -F'\t' -v t="$t" '$3 == t {s += $1} END {print s + 0}' "$d/$kind.text.out")
		known="$known $t=$got"
		[ "$n" = "$got" ] || bad="$bad $t: $got (made $n)"
	done
	# main.SmallPtrT {p; a, b}: 24 B, pointer word first, from the span's heap bits
	got=$(awk -F'\t' '$4 == "ptrs 24 B 0b100" {s += $1} END {print s + 0}' "$d/$kind.text.out")
	known="$known, shape 'ptrs 24 B 0b100'=$got"
	[ "$got" -ge 1000 ] || bad="$bad shape 'ptrs 24 B 0b100': $got (SmallPtrT: 1000 made)"
	if [ -z "$bad" ]; then
		gh_pass "$tag: $kind: typed counts ==$known, as typesprog made them"
	else
		gh_fail "$tag: $kind: typed counts differ:$bad"
		gh_show "$d/$kind.text.out" 12
	fi
}

# hostile CORE EXE: damaged copies of a core (newest toolchain, default build): a junk malloc
# header is counted by shape with a warning, never named; an absurd mheap_.allspans length and a
# page of zeroed span pointers give an error line (exit 1) or a counted warning, never a crash.
hostile() {
	local core=$1 exe=$2 h mheap
	h=$(awk '$4 == "h" {print $1; exit}' "$d/core.objects.out")
	cp "$core" "$d/bad.core"
	python3 "$GH_TESTS/heapdump.py" --patch "$d/bad.core" "$h" 0d0c0b0a09080700 >/dev/null
	run bad1 -p types -f text "$d/bad.core" "$exe"
	if [ "$rc" = 0 ] && grep -q "^# warning: 1 objects have a header or largeType that is no type" "$d/bad1.out" &&
		grep -q 'implausible header' "$d/bad1.out"; then
		gh_pass "$tag: hostile core: a junk malloc header is counted by shape, with a warning"
	else
		gh_fail "$tag: hostile core: a junk malloc header (exit $rc)"
		gh_show "$d/bad1.out" 8
		gh_show "$d/bad1.err" 3
	fi
	# mheap_.allspans {ptr, len, cap} at the row's offset (65864 from go1.21)
	mheap=$(nm "$exe" | awk '$3 == "runtime.mheap_" {print $1}')
	cp "$core" "$d/bad.core"
	python3 "$GH_TESTS/heapdump.py" --patch "$d/bad.core" $((0x$mheap + 65864 + 8)) ffffffffffff0000 >/dev/null
	run bad2 -p types "$d/bad.core" "$exe"
	if [ "$rc" = 1 ] && grep -q 'mheap_.allspans .* is not a span list' "$d/bad2.err"; then
		gh_pass "$tag: hostile core: an absurd allspans length is one error line"
	else
		gh_fail "$tag: hostile core: an absurd allspans length (exit $rc)"
		gh_show "$d/bad2.err" 3
	fi
	rm -f "$d/bad.core"
	mutate "$core" "$exe" "$mheap"
}

# mutate_check ADDR VALUE: gh_mutate's check of a damaged core read (exit 0): counts a header
# warning in ew; the rows add up to the header's totals (else adds to bad).
mutate_check() {
	local sum tot
	grep -q '^# warning' "$d/mut.out" && ew=$((ew + 1))
	sum=$(awk -F'\t' '$1 ~ /^[0-9]+$/ {o += $1; b += $2} END {print o + 0, b + 0}' "$d/mut.out")
	tot=$(sed -n 's/^# objects \([0-9]*\), bytes \([0-9]*\) .*/\1 \2/p' "$d/mut.out")
	[ "$sum" = "$tot" ] || bad="$bad $1=$2: rows $sum, totals $tot;"
}

# mutate CORE EXE MHEAP: GOHEAP_TYPES_MUTATE (default 60) damaged copies of the core, each with
# one word the span walker reads (allspans' header or array, an mspan's fields; random.Random
# (4242)) set to 0, all-ones, a large value or a bit flip: go-heap -p types -f text exits 0 or
# 1 (never a signal or a timeout), 1 with one line on stderr; 0 with rows that add up to its
# totals.
mutate() {
	local core=$1 exe=$2 mheap=$3 n=${GOHEAP_TYPES_MUTATE:-60} e0=0 e1=0 ew=0 bad=
	python3 "$GH_TESTS/heapdump.py" --spanwords "$core" $((0x$mheap + 65864)) 160 >"$d/words" ||
		{ gh_fail "$tag: mutate: cannot list the span words"; return; }
	python3 - "$d/words" "$n" >"$d/cases" <<'PY'
import random, sys
words = open(sys.argv[1]).read().split()
r = random.Random(4242)
for _ in range(int(sys.argv[2])):
    a = int(r.choice(words), 16)
    v = r.choice(["0000000000000000", "ffffffffffffffff", "0000000000010000",
                  "%016x" % (1 << r.randrange(64))])
    print("0x%x %s" % (a, bytes.fromhex(v)[::-1].hex()))
PY
	gh_mutate "$core" "$exe" "$d/cases" mutate_check -p types -f text
	if [ -z "$bad" ]; then
		gh_pass "$tag: mutate: $n damaged span words: $e0 read ($ew with a warning), $e1 one error line, no crash"
	else
		gh_fail "$tag: mutate:$(echo "$bad" | cut -c1-300)"
	fi
}

# churn GONAME GOROOT: typesprog -churn allocates and drops objects of HdrT's size class (and
# small ones) for ever while go-heap reads it: the snapshot (read running, stopped to re-read
# the spans that changed) must re-read spans in at least one of 5 reads, and every read must
# count the known typed objects exactly (300 HdrT ... : none lost or counted twice in the spans
# they share with the churn) and add its rows up to its totals.
churn() {
	local goname=$1 root=$2 mode=${3:--churn} k rew=0 bad= got sum tot line
	minor=${goname#go1.}
	tag="$goname/default${mode#-churn}"
	d="$GH_TMP/$goname-churn$mode"
	mkdir -p "$d"
	gh_build_or_fail "$tag" typesprog "$goname" "$root" default || return
	if ! gh_start "$GH_BIN" "$mode" 2>"$d/start.err"; then
		gh_fail "$tag: typesprog -churn: $(cat "$d/start.err")"
		return
	fi
	for k in 1 2 3 4 5; do
		run "churn$k" -v -p types -f text "$GH_PID"
		ok "churn$k" "churn: snapshot $k" || { bad="$bad run $k failed;"; continue; }
		line=$(grep -o '[0-9]* of [0-9]* spans re-read' "$d/churn$k.err")
		[ "${line%% *}" -gt 0 ] 2>/dev/null && rew=$((rew + 1))
		for t in main.HdrT main.LargeT main.ElemT '*main.ChanT'; do
			local name=${t#\*} n
			n=$(awk -v t="$name" '$1 == "COUNT" && $2 == t {print $3}' "$GH_OUT")
			got=$(awk -F'\t' -v t="$t" '$3 == t {s += $1} END {print s + 0}' "$d/churn$k.out")
			[ "$n" = "$got" ] || bad="$bad run $k: $t $got (made $n);"
		done
		sum=$(awk -F'\t' '$1 ~ /^[0-9]+$/ {o += $1; b += $2} END {print o + 0, b + 0}' "$d/churn$k.out")
		tot=$(sed -n 's/^# objects \([0-9]*\), bytes \([0-9]*\) .*/\1 \2/p' "$d/churn$k.out")
		[ "$sum" = "$tot" ] || bad="$bad run $k: rows sum to $sum, totals $tot;"
	done
	if [ "$mode" = -churn-big ] && ! grep -q 'of [0-9]\{5,\} spans in use' "$d/churn1.out"; then
		bad="$bad fewer than 10000 spans: the second reader was not used;"
	fi
	if [ -z "$bad" ] && [ "$rew" -gt 0 ]; then
		gh_pass "$tag: churn: 5 snapshots under allocation ($rew re-read changed spans while stopped): typed counts exact, rows == totals"
	else
		gh_fail "$tag: churn: $bad (snapshots that re-read spans: $rew of 5)"
		gh_show "$d/churn1.err" 3
	fi
	gh_stop "$GH_PID"
}

# in_gdb CORE EXE: the gdb command (gdb/go_heap.py over the shared library) on the core: its
# -p types totals == the program's MemStats.
in_gdb() {
	local tot want
	gh_gdb "$1" "$2" "go-heap -p types -n 3" || return
	tot=$(sed -n 's/^objects \([0-9]*\), bytes \([0-9]*\) .*/\1 \2/p' "$d/gdb.out")
	want=$(sed -n 's/^MEMSTATS //p' "$GH_OUT")
	if [ -n "$tot" ] && [ "$tot" = "$want" ]; then
		gh_pass "$tag: gdb: go-heap -p types on the core: totals $tot == HeapObjects HeapAlloc"
	else
		gh_fail "$tag: gdb: go-heap -p types on the core: totals '$tot', MemStats '$want'"
		gh_show "$d/gdb.out" 8
	fi
}

# arm64 GONAME GOROOT: typesprog built for GOARCH=arm64, run under qemu-aarch64-static with
# GOTRACEBACK=crash; once READY (its dump written) SIGABRT makes qemu write the guest's core
# (qemu_*.core, as tests/run-goroutine.sh does): compare core == its heap dump and MemStats.
arm64() {
	local goname=$1 root=$2 dir want src="$top_srcdir/tests/go/typesprog/main.go" core
	minor=${goname#go1.}
	tag="$goname/arm64-default/qemu"
	d="$GH_TMP/$goname-arm64"
	mkdir -p "$d/run"
	if ! command -v qemu-aarch64-static >/dev/null 2>&1; then
		gh_skip "$tag: qemu-aarch64-static not installed (qemu-user-static, scripts/install-deps.sh)"
		return
	elif [ "$(ulimit -H -c)" = 0 ]; then
		gh_skip "$tag: core dumps are disabled (ulimit -c hard limit 0)"
		return
	fi
	dir="$GH_CACHE/build/typesprog-$goname-arm64"
	want=$( { sha256sum <"$src"; echo "$root"; "$root/bin/go" version; echo arm64; } | sha256sum | cut -d' ' -f1)
	if [ ! -x "$dir/typesprog" ] || [ "$(cat "$dir/stamp" 2>/dev/null)" != "$want" ]; then
		mkdir -p "$dir"
		if ! (cd "$(dirname "$src")" && env GOROOT="$root" GOCACHE="$GH_CACHE/gocache-$goname-arm64" \
			GOPATH="$GH_CACHE/gopath" GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off \
			GOTELEMETRY=off GOENV=off GOOS=linux GOARCH=arm64 CGO_ENABLED=0 \
			"$root/bin/go" build -o "$dir/typesprog" main.go) >"$d/build.log" 2>&1; then
			gh_fail "$tag: build typesprog for GOARCH=arm64"
			gh_show "$d/build.log" 10
			return
		fi
		echo "$want" >"$dir/stamp"
	fi
	gh_qemu_core "$dir/typesprog" "$d/heap.dump" || return
	core=$GH_QCORE
	if ! python3 "$GH_TESTS/heapdump.py" "$d/heap.dump" "$minor" >"$d/dump.txt" 2>"$d/dump.err"; then
		gh_fail "$tag: parsing the heap dump"
		gh_show "$d/dump.err" 5
	else
		GH_OUT="$d/run.out" compare core "$core" "$dir/typesprog"
	fi
	rm -rf "$d/run" "$d/heap.dump"
}

# build_exp GONAME GOROOT EXPERIMENT: typesprog built with GOEXPERIMENT=EXPERIMENT (a cache
# directory of its own); prints its path, or FAILs.
build_exp() {
	local goname=$1 root=$2 exp=$3 dir want src="$top_srcdir/tests/go/typesprog/main.go"
	dir="$GH_CACHE/build/typesprog-$goname-exp-$exp"
	want=$( { sha256sum <"$src"; echo "$root"; "$root/bin/go" version; echo "$exp"; } | sha256sum | cut -d' ' -f1)
	if [ -x "$dir/typesprog" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ]; then
		echo "$dir/typesprog"
		return 0
	fi
	mkdir -p "$dir"
	if ! (cd "$(dirname "$src")" && GOEXPERIMENT=$exp gh_go "$root" build -o "$dir/typesprog" \
		main.go) >"$dir/build.log" 2>&1; then
		gh_fail "$goname/$exp: build typesprog with GOEXPERIMENT=$exp"
		gh_show "$dir/build.log" 10
		return 1
	fi
	echo "$want" >"$dir/stamp"
	echo "$dir/typesprog"
}

# check GONAME GOROOT VARIANT: typesprog of that build, live and from a core.
check() {
	local goname=$1 root=$2 variant=$3 bin pid
	minor=${goname#go1.}
	tag="$goname/$variant"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d"
	if [ "$variant" = greenteagc ]; then
		bin=$(build_exp "$goname" "$root" greenteagc) || return
		# the row's spanInlineMarkBits (size, marks) against this build's DWARF
		if "$top_builddir/tests/locate-dump" --dwarf "$bin" >"$d/dwarf.out" 2>&1 &&
			grep -q '^dwarf DWARF layouts match .*; goroutine offsets match' "$d/dwarf.out"; then
			gh_pass "$tag: rtlayout row (spanInlineMarkBits included) == this build's DWARF"
		else
			gh_fail "$tag: rtlayout row != this build's DWARF"
			gh_show "$d/dwarf.out" 5
		fi
	else
		gh_build_or_fail "$tag" typesprog "$goname" "$root" "$variant" || return
		bin=$GH_BIN
	fi
	if ! gh_start "$bin" "$d/heap.dump" 2>"$d/start.err"; then
		gh_fail "$tag: typesprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	if ! python3 "$GH_TESTS/heapdump.py" "$d/heap.dump" "$minor" ${GT:+"$GT"} >"$d/dump.txt" \
		2>"$d/dump.err"; then
		gh_fail "$tag: parsing the heap dump"
		gh_show "$d/dump.err" 5
		gh_stop "$pid"
		return
	fi
	compare live "$pid"
	if [ "$variant" = stripped ]; then
		# the walker found runtime.mheap_ from machine code, not .symtab
		run located -v -p types -n 1 "$pid"
		if grep -q 'mheap_ via sweepone' "$d/located.err"; then
			gh_pass "$tag: runtime.mheap_ located from machine code (-v says so)"
		else
			gh_fail "$tag: -v does not say runtime.mheap_ was located"
			gh_show "$d/located.err" 5
		fi
	fi
	if gh_gcore "$tag" "$pid" "$d"; then
		compare core "$d/core.$pid" "$bin"
		if [ "$variant" = default ] && [ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ]; then
			hostile "$d/core.$pid" "$bin"
			in_gdb "$d/core.$pid" "$bin"
		fi
		rm -f "$d/core.$pid"
	fi
	gh_stop "$pid"
	rm -f "$d/heap.dump"
}

# unswept GONAME GOROOT VARIANT: the heap right after an automatic GC, its spans not yet swept
# (typesprog -unswept): the last GC's unreachable objects, against the program's own figures.
unswept() {
	local goname=$1 root=$2 variant=$3 bin pid out want tot spans ur lu t after gcb drop
	minor=${goname#go1.}
	tag="$goname/$variant/unswept"
	d="$GH_TMP/$goname-$variant-unswept"
	mkdir -p "$d"
	rm -f "$d/go"
	if [ "$variant" = greenteagc ]; then
		bin=$(build_exp "$goname" "$root" greenteagc) || return
	else
		gh_build_or_fail "$tag" typesprog "$goname" "$root" "$variant" || return
		bin=$GH_BIN
	fi
	if ! GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 gh_start "$bin" -unswept "$d/heap.dump" "$d/go" \
		2>"$d/start.err"; then
		gh_fail "$tag: typesprog -unswept: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	out=$GH_OUT
	if grep -q '^UNSWEPT SKIP' "$out"; then
		gh_skip "$tag: $(sed -n 's/^UNSWEPT SKIP //p' "$out")"
		gh_stop "$pid"
		return
	fi
	want=$(sed -n 's/^MEMSTATS //p' "$out")
	run us.top -p types -n 3 "$pid"
	ok us.top "unswept: -f top" || { gh_stop "$pid"; return; }
	run us.objects -p types -f objects "$pid"
	ok us.objects "unswept: -f objects" || { gh_stop "$pid"; return; }
	spans=$(sed -n 's/^not swept since the last GC: \([0-9]*\) spans.*/\1/p' "$d/us.top.out")
	if [ "${spans:-0}" -lt 100 ]; then
		gh_skip "$tag: only ${spans:-0} unswept spans when go-heap read (the sweeper ran first): nothing to compare"
		gh_stop "$pid"
		return
	fi
	tot=$(sed -n 's/^objects \([0-9]*\), bytes \([0-9]*\) .*/\1 \2/p' "$d/us.top.out")
	if [ -n "$tot" ] && [ "$tot" = "$want" ]; then
		gh_pass "$tag: live: $spans unswept spans; totals $tot == HeapObjects HeapAlloc right after the GC"
	else
		gh_fail "$tag: live: totals '$tot' != ReadMemStats '$want'"
		gh_show "$d/us.top.out" 8
	fi
	ur=$(sed -n 's/^the last GC found unreachable ([^)]*): \([0-9]*\) objects, \([0-9]*\) bytes.*/\1 \2/p' "$d/us.top.out")
	lu=$(awk '$5 == "u" {n++; b += $2} END {print n + 0, b + 0}' "$d/us.objects.out")
	if [ -n "$ur" ] && [ "$ur" = "$lu" ] && [ "${ur%% *}" -gt 0 ]; then
		gh_pass "$tag: live: unreachable $ur (objects bytes) == the objects listed 'u'"
	else
		gh_fail "$tag: live: unreachable '$ur', objects listed 'u': $lu"
		gh_show "$d/us.top.out" 8
	fi
	if [ "$variant" = stripped ]; then
		if grep -q 'runtime.gcphase unknown: an unswept span means _GCoff' "$d/us.top.out"; then
			gh_pass "$tag: stripped: the mark bits are taken as valid from the unswept spans (gcphase unknown), said in the output"
		else
			gh_fail "$tag: stripped: the output does not say gcphase is unknown"
		fi
	fi
	awk '{print $1, $2, $5}' "$d/us.objects.out" | sort >"$d/live.set"
	if gh_gcore "$tag" "$pid" "$d"; then
		run us.core -p types -f objects "$d/core.$pid" "$bin"
		if ok us.core "unswept: core -f objects"; then
			awk '{print $1, $2, $5}' "$d/us.core.out" | sort >"$d/core.set"
			if cmp -s "$d/live.set" "$d/core.set"; then
				gh_pass "$tag: core: the same $(wc -l <"$d/core.set") objects and 'u' flags as live"
			else
				gh_fail "$tag: core: objects or 'u' flags differ from live's"
				diff "$d/live.set" "$d/core.set" | head -n 5
			fi
		fi
		rm -f "$d/core.$pid"
	fi
	# let it go on: the dump (every span swept first), MemStats after it and after a GC
	touch "$d/go"
	for ((t = 0; t < 1200; t++)); do
		grep -q '^DONE' "$out" && break
		sleep 0.05
	done
	if ! grep -q '^DONE' "$out"; then
		gh_fail "$tag: typesprog -unswept did not finish its dump"
		gh_stop "$pid"
		return
	fi
	gh_stop "$pid"
	if python3 "$GH_TESTS/heapdump.py" "$d/heap.dump" "$minor" ${GT:+"$GT"} >"$d/dump.txt" \
		2>"$d/dump.err"; then
		grep -v '^MEMSTATS' "$d/dump.txt" | awk '{print $1, $2}' | sort >"$d/dump.set"
		awk '$3 != "u" {print $1, $2}' "$d/live.set" >"$d/reach.set"
		if cmp -s "$d/reach.set" "$d/dump.set"; then
			gh_pass "$tag: the dump after its sweep == go-heap's objects not found unreachable ($(wc -l <"$d/dump.set"))"
		else
			gh_fail "$tag: the dump after its sweep ($(wc -l <"$d/dump.set")) != go-heap's objects not 'u' ($(wc -l <"$d/reach.set"))"
			diff "$d/reach.set" "$d/dump.set" >"$d/reach.diff"
			gh_show "$d/reach.diff" 6
		fi
	else
		gh_fail "$tag: parsing the heap dump"
		gh_show "$d/dump.err" 5
	fi
	after=$(sed -n 's/^AFTERDUMP //p' "$out")
	t=$(echo "$want $ur" | awk '{print $1 - $3, $2 - $4}')
	if [ "$after" = "$t" ]; then
		gh_pass "$tag: MemStats after the dump's sweep ($after) == before - unreachable"
	else
		gh_fail "$tag: MemStats after the dump's sweep '$after' != before - unreachable '$t'"
	fi
	gcb=$(sed -n 's/^AFTERGC [0-9]* //p' "$out")
	if [ -n "$gcb" ] && [ "$gcb" -le "${t#* }" ]; then
		gh_pass "$tag: HeapAlloc after runtime.GC $gcb <= the $((${t#* })) bytes go-heap found reachable"
	else
		gh_fail "$tag: HeapAlloc after runtime.GC '$gcb' > the '${t#* }' bytes go-heap found reachable"
	fi
	sed -n 's/^DROPPED //p' "$out" | sort >"$d/dropped"
	drop=$(join "$d/dropped" <(awk '{print $1, $3}' "$d/live.set") | awk '{n++; if ($2 == "u") u++} END {print n + 0, u + 0}')
	if [ "${drop%% *}" -gt 0 ] && [ "${drop%% *}" = "${drop#* }" ]; then
		gh_pass "$tag: all ${drop%% *} of the $(wc -l <"$d/dropped") dropped GarbT/GarbHdrT still in the heap are 'u' (the rest swept already)"
	else
		gh_fail "$tag: dropped GarbT/GarbHdrT still in the heap, and of them 'u': $drop"
	fi
	rm -f "$d/heap.dump"
}

last=$(( ${#GH_GO_NAMES[@]} - 1 ))
for i in "${!GH_GO_NAMES[@]}"; do
	for variant in default stripped; do
		check "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" "$variant"
	done
	# go1.25 with GOEXPERIMENT=greenteagc: Green Tea's inline mark bits before the heap bits
	# (the release's default is off; the build info says it is on)
	if [ "${GH_GO_NAMES[$i]}" = go1.25 ]; then
		GT=1 check "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" greenteagc
		GT=1 unswept "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" greenteagc
	fi
	# right after an automatic GC: the last GC's unreachable objects
	unswept "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" default
	[ "$i" = "$last" ] && unswept "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" stripped
	# arm64 (qemu cores): the oldest and the newest toolchain
	if [ "$i" = 0 ] || [ "$i" = "$last" ]; then
		arm64 "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}"
	fi
	# the snapshot under allocation: the first toolchain with headers and the newest
	case ${GH_GO_NAMES[$i]} in
	go1.22) churn "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" ;;
	*) [ "$i" = "$last" ] && [ "$i" != 0 ] && churn "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" ;;
	esac
	# the same with 10 000+ spans (the stop's second reader), on the newest
	[ "$i" = "$last" ] && churn "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" -churn-big
done
gh_summary
