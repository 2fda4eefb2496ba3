#!/bin/bash
# tests/run-goroutine.sh: the goroutine profile read from outside (go-heap -p goroutine),
# compared with the program's own pprof.Lookup("goroutine") output, for every toolchain.
#
# For each toolchain (GOHEAP_GO_VERSIONS, default tests/lib.sh GH_GO_ALL):
#   - build tests/go/goroutineprog (default; pie on the oldest and newest), start it; it parks
#     ~2400 goroutines in many ways, writes goroutine.txt (debug=1), goroutine.2.txt (debug=2)
#     and goroutine.pb.gz, prints READY and stays still;
#   - live:  go-heap -p goroutine -f text PID   == goroutine.txt
#   - core:  gcore, go-heap -p goroutine -f text CORE EXE == goroutine.txt (default build)
#   - collapsed: the counts sum to the header's total
#   - stripped build: refused with a clear message (allgs is not located without .symtab yet)
#   - pprof (-o .pb.gz) == the program's own goroutine.pb.gz (tests/compare.sh pprof, its writer's
#     sample dropped on each side); traceback (debug=2) output is not implemented yet
#     (doc/goroutines.md)
# The comparison drops exactly one goroutine from each side: the main goroutine, which wrote
# the in-process profile (its record holds main.writeProfiles) and is parked in
# main.idleForever afterwards; the totals are compared as they are (both count it).
# Hostile input (one toolchain): a live target corrupted with gdb (a g pointer into nowhere,
# an absurd stack size, a stack pointer outside its stack, allgs.len absurd) must give an
# error or a marked partial output, never a crash.
#
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
gh_init

gh_need_python
gh_need_toolchains

# cmp_text EXPECTED ACTUAL: debug=1 goroutine texts equal but for the main goroutine.
cmp_text() {
	python3 - "$1" "$2" <<'PY'
import sys
def recs(path, drop):
    data = open(path, encoding="utf-8").read()
    head, _, rest = data.partition("\n")
    blocks = [b for b in rest.split("\n\n") if b.strip()]
    kept = [b for b in blocks if drop not in b]
    if len(blocks) - len(kept) != 1:
        print(f"{path}: {len(blocks) - len(kept)} records hold {drop}, want 1")
        sys.exit(1)
    dropped = [b for b in blocks if drop in b][0]
    if not dropped.startswith("1 @"):
        print(f"{path}: the record holding {drop} has a count other than 1")
        sys.exit(1)
    return head, kept
eh, e = recs(sys.argv[1], "main.writeProfiles")
ah, a = recs(sys.argv[2], "main.idleForever")
bad = 0
if eh != ah:
    print(f"header: want {eh!r}, got {ah!r}"); bad = 1
if len(e) != len(a):
    print(f"records: want {len(e)}, got {len(a)}"); bad = 1
for i, (x, y) in enumerate(zip(e, a)):
    if x != y:
        print(f"record {i} differs:\n--- want\n{x}\n--- got\n{y}")
        bad = 1
        break
if bad:
    sys.exit(1)
n = sum(int(b.split(" ", 1)[0]) for b in e)
print(f"{eh}; {len(e)} records, {n} goroutines equal")
PY
}

compare() {
	if cmp_text "$1" "$2" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag: $3 ($(tail -n 1 "$d/cmp.log"))"
	else
		gh_fail "$tag: $3: differs from $(basename "$1")"
		gh_show "$d/cmp.log" 30
	fi
}

checks() { # PID-or-CORE [EXE] ; $kind = live|core
	run text -p goroutine -f text "$@"
	ok text "$kind text" && compare "$d/out/goroutine.txt" "$d/text.out" "$kind: text == in-process goroutine debug=1"
	run top -p goroutine -f top -n 5 "$@"
	if ok top "$kind top"; then
		if grep -q '^Type: goroutine$' "$d/top.out" && grep -q 'runtime.gopark$' "$d/top.out" &&
			[ "$(grep -cE '^ +[0-9]+ +[0-9.]+%' "$d/top.out")" -eq 5 ]; then
			gh_pass "$tag: $kind: top table of goroutine counts (5 rows)"
		else
			gh_fail "$tag: $kind: top table"
			gh_show "$d/top.out" 12
		fi
	fi
	run col -p goroutine -f collapsed "$@"
	if ok col "$kind collapsed"; then
		local total sum
		total=$(sed -n '1s/^goroutine profile: total //p' "$d/text.out")
		sum=$(awk '{ s += $NF } END { print s + 0 }' "$d/col.out")
		if [ -n "$total" ] && [ "$sum" = "$total" ] && grep -q 'main\.recvForever' "$d/col.out"; then
			gh_pass "$tag: $kind: collapsed counts sum to the total ($sum)"
		else
			gh_fail "$tag: $kind: collapsed counts sum to $sum, total is '$total'"
		fi
	fi
}

have_gcore=1
command -v gcore >/dev/null 2>&1 || have_gcore=0

hostile_done=0
hostile() { # PID BIN: corrupt the live target with gdb, go-heap must not crash
	local pid=$1 bin=$2 allgs arr g0 g1 g2 rc2
	allgs=$(gdb -batch -nx -p "$pid" -ex 'info address runtime.allgs' "$bin" 2>/dev/null |
		sed -n 's/.*is at address \(0x[0-9a-f]*\).*/\1/p; s/.*static storage at address \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
	if [ -z "$allgs" ]; then
		gh_skip "$tag: hostile: gdb could not find runtime.allgs"
		return
	fi
	# g 10: pointer into nowhere; g 11: stack.hi absurd; g 12: sched.sp outside its stack.
	gdb -batch -nx -p "$pid" "$bin" -ex "set language c" \
		-ex "set \$a = *(long *)$allgs" \
		-ex "set *(long *)(\$a + 80) = 0x10" \
		-ex "set \$g = *(long *)(\$a + 88)" -ex "set *(long *)(\$g + 8) = *(long *)\$g + (1L << 40)" \
		-ex "set \$h = *(long *)(\$a + 96)" -ex "set *(long *)(\$h + 56) = 0x20" \
		>"$d/gdb1.log" 2>&1
	run hostile1 -p goroutine -f text "$pid"
	if [ "$rc" -ge 128 ] || [ "$rc" = 124 ]; then
		gh_fail "$tag: hostile (bad g pointer, absurd stack, sp outside): go-heap died ($rc)"
		gh_show "$d/hostile1.err" 5
	elif [ "$rc" = 0 ] && grep -q '^# go-heap: .*unreadable.*partial' "$d/hostile1.out"; then
		gh_pass "$tag: hostile (bad g pointer, absurd stack, sp outside): marked partial ($(grep '^# go-heap' "$d/hostile1.out"))"
	elif [ "$rc" != 0 ] && [ -s "$d/hostile1.err" ]; then
		gh_pass "$tag: hostile: refused ($(head -n 1 "$d/hostile1.err"))"
	else
		gh_fail "$tag: hostile: rc $rc and no mark of the damage"
		gh_show "$d/hostile1.out" 3
	fi
	gdb -batch -nx -p "$pid" "$bin" -ex "set language c" -ex "set *(long *)($allgs + 8) = 1L << 40" >"$d/gdb2.log" 2>&1
	run hostile2 -p goroutine -f text "$pid"
	rc2=$rc
	if [ "$rc2" = 1 ] && grep -qi 'allgs' "$d/hostile2.err"; then
		gh_pass "$tag: hostile (allgs.len = 2^40): refused ($(head -n 1 "$d/hostile2.err"))"
	else
		gh_fail "$tag: hostile (allgs.len = 2^40): rc $rc2, want 1 with a message naming allgs"
		gh_show "$d/hostile2.err" 3
	fi
	hostile_done=1
}

n=${#GH_GO_NAMES[@]}
for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	variants="default stripped"
	if [ "$i" = 0 ] || [ "$i" = $((n - 1)) ]; then
		variants="default pie stripped"
	fi
	for variant in $variants; do
		tag="$goname/$variant"
		gh_build_or_fail "$tag" goroutineprog "$goname" "$root" "$variant" || continue
		bin=$GH_BIN
		d="$GH_TMP/$goname-$variant"
		mkdir -p "$d/out"
		if ! gh_start "$bin" -out "$d/out" 2>"$GH_TMP/start.err"; then
			gh_fail "$tag: goroutineprog: $(cat "$GH_TMP/start.err")"
			continue
		fi
		pid=$GH_PID
		if ! gh_have_goheap; then
			gh_skip "$tag: $GH_GOHEAP is not built"
		elif ! gh_can_read_mem "$pid"; then
			gh_skip "$tag: cannot read the target's memory (ptrace restricted)"
		elif [ "$variant" = stripped ]; then
			run text -p goroutine -f text "$pid"
			if [ "$rc" = 1 ] && grep -q 'stripped binaries' "$d/text.err"; then
				gh_pass "$tag: stripped: refused clearly ($(head -n 1 "$d/text.err" | cut -c1-100))"
			else
				gh_fail "$tag: stripped: rc $rc, want 1 with 'stripped binaries ... not supported'"
				gh_show "$d/text.err" 3
			fi
		else
			kind=live
			checks "$pid"
			if [ "$variant" = default ]; then
				run pb -p goroutine -o "$d/gh.goroutine.pb.gz" "$pid"
				if ok pb "pprof"; then
					if "$GH_TESTS/compare.sh" --drop-sample main.writeProfiles,main.idleForever \
						pprof "$d/out/goroutine.pb.gz" "$d/gh.goroutine.pb.gz" >"$d/cmp.log" 2>&1; then
						gh_pass "$tag: live: pprof == in-process goroutine proto ($(grep -v '^note:' "$d/cmp.log" | head -n 1))"
					else
						gh_fail "$tag: live: pprof differs from the in-process goroutine proto"
						gh_show "$d/cmp.log" 30
					fi
				fi
				if [ "$have_gcore" = 0 ]; then
					gh_skip "$tag: core: gcore (gdb) not installed"
				else
					timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
					if [ -s "$d/core.$pid" ]; then
						kind=core
						checks "$d/core.$pid" "$bin"
					else
						gh_fail "$tag: gcore wrote no core"
						gh_show "$d/gcore.log" 5
					fi
					rm -f "$d/core.$pid"
				fi
				if [ "$hostile_done" = 0 ] && [ "$have_gcore" = 1 ]; then
					hostile "$pid" "$bin"
				fi
			fi
		fi
		gh_stop "$pid"
	done
done
gh_summary
