#!/bin/bash
# tests/run-retained-live.sh: go-heap -p retained on a live target with the brief stop (the graph
# read running through a recording, the target stopped only while what was read, and what changed
# since, is copied; the graph built again from the copy: src/lib/retained/retlive.c, memsnap.c).
#
# For each toolchain (GOHEAP_RETAINED_LIVE_VERSIONS, default "1.21 1.22 1.27": the arenas'
# bitmap, the heap bits and headers, the newest; within GOHEAP_GO_VERSIONS when set):
#   quiet: tests/go/retainprog (run-retained.sh's known graphs), blocked after its heap dump:
#     - the brief-stop -f objects == a gcore core's of the same process taken right after, object
#       for object (address, size, reachability, root kind, retained bytes and objects,
#       immediate dominator, type), and == the whole-read stop's (GOHEAP_TEST_RETAINED_SNAP=whole);
#     - allocated (less the later tiny block) == MemStats at the dump; reachable == after
#       runtime.GC == tests/heapdump.py --graph's from the dump, and the same reachable addresses;
#     - the header: 0 reads outside the snapshot, one copy while stopped; -v prints the stop;
#     - with the in-memory bound at 64 KiB (GOHEAP_TEST_SNAP_BOUND) the copy goes to an unlinked
#       temporary file and the objects are the same;
#   churn: tests/go/retainchurn, quiet first (main.cache's retained bytes read), then a goroutine
#     replacing every pointer of main.slots with a new 48-byte object, dropping lists and large
#     slices, as fast as it can; three brief-stop reads, each: exit 0, main.list retains exactly
#     50 000 x 16 B, main.cache exactly what it retained quiet, main.slots 2000 x 48 B (up to 2
#     fewer: the churn's own frame may point at its newest), reachable <= allocated, 0 reads
#     outside the snapshot; the stops' lengths printed (not judged: bench/retained-stop-bench.sh);
#   the checks can fail: the same reads with --no-stop (running, best-effort) break a stable holder,
#     and a stop that copies only what the running pass read, 250 ms after it (GOHEAP_TEST_RETAINED_SNAP=noclosure)
#     reads outside its snapshot (each within 6 runs; it took 1 to 3 here).
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_python
gh_sample "${GOHEAP_RETAINED_LIVE_VERSIONS:-1.21 1.22 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }
# same A B: "N T" when the -f objects listings A and B are the same objects, field for field, but
# for T in or directly above the runtime's M and P structures (which the program's threads change
# between two reads, as run-retained.sh tolerates) or whose only difference is a runtime type
# inferred in one (the runtime's own pointer to it, a timer's, moved between the reads); else a
# line saying what differs
same() {
	python3 - "$1" "$2" <<'PY'
import sys
def load(f):
    o = {}
    for l in open(f):
        x = l.split()
        o[x[0]] = x
    return o
a, b = load(sys.argv[1]), load(sys.argv[2])
if set(a) != set(b):
    print("the object sets differ by %d" % len(set(a) ^ set(b)))
    sys.exit(0)
state = ("runtime.mPadded", "runtime.m", "runtime.p")
def under(x, o):
    n = 0
    while x in o and n < 100000:
        if " ".join(o[x][7:]) in state:
            return True
        x = o[x][6]
        n += 1
    return False
holders = set()
for o in (a, b):
    for x in o:
        if " ".join(o[x][7:]) in state:
            holders.add(a[x][6])
            holders.add(b[x][6])
bad, tol = [], 0
for x in a:
    if a[x] == b[x]:
        continue
    if x in holders or under(x, a) or under(x, b):
        tol += 1
    elif a[x][:7] == b[x][:7] and ("runtime." in " ".join(a[x][7:]) or
                                   "runtime." in " ".join(b[x][7:])):
        # a runtime object's inferred type (runtime.X, or a generic over
        # one: atomic.Pointer[runtime.m]): the runtime's own pointer moved
        tol += 1
    else:
        bad.append(x)
if bad:
    print("%d objects differ, the first: %s / %s" % (len(bad), " ".join(a[bad[0]]), " ".join(b[bad[0]])))
else:
    print("%d %d" % (len(a), tol))
PY
}

# snapline FILE: the header's snapshot figures "bytes ranges rounds filebytes spans changed misses"
snapline() {
	sed -n 's/.*stopped [0-9.]* ms while \([0-9]*\) bytes in \([0-9]*\) ranges it read running were copied (\([0-9]*\) rounds; \([0-9]*\) bytes in a temporary file; \([0-9]*\) spans in use, \([0-9]*\) changed); \([0-9]*\) reads outside.*/\1 \2 \3 \4 \5 \6 \7/p' "$1"
}
# stopms FILE: -v's stop in ms
stopms() { sed -n 's/.*retained snapshot: the target was stopped for \([0-9.]*\) ms.*/\1/p' "$1"; }
# holder FILE NAME: "bytes objects" a root retains (top)
holder() { awk -v n="$2" '$6 == "root" && $7 == n {print $2, $3; exit}' "$1"; }

quiet() {
	local goname=$1 root=$2 bin pid s
	tag="$goname/quiet"
	d="$GH_TMP/$goname-quiet"
	mkdir -p "$d"
	gh_build_or_fail "$tag" retainprog "$goname" "$root" default || return
	bin=$GH_BIN
	if ! gh_start "$bin" "$d/heap.dump" 2>"$d/start.err"; then
		gh_fail "$tag: retainprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	run live.objects -p retained -f objects "$pid"
	ok live.objects "brief stop: -f objects" || { gh_stop "$pid"; return; }
	if gh_gcore "$tag" "$pid" "$d"; then
		run core.objects -p retained -f objects "$d/core.$pid" "$bin"
		if ok core.objects "core: -f objects"; then
			read -r -a s <<<"$(same "$d/live.objects.out" "$d/core.objects.out")"
			if [ "${#s[@]}" = 2 ]; then
				gh_pass "$tag: the brief stop's ${s[0]} objects == the gcore core's, object for object (reachability, root kind, retained bytes and objects, immediate dominator, type; ${s[1]} in the runtime's M/P state, changed between the reads)"
			else
				gh_fail "$tag: the brief stop's objects differ from the core's: ${s[*]}"
			fi
		fi
		rm -f "$d/core.$pid"
	fi
	GOHEAP_TEST_RETAINED_SNAP=whole run whole.objects -p retained -f objects "$pid"
	if ok whole.objects "whole-read stop: -f objects"; then
		read -r -a s <<<"$(same "$d/live.objects.out" "$d/whole.objects.out")"
		if [ "${#s[@]}" = 2 ]; then
			gh_pass "$tag: the brief stop's objects == the whole-read stop's (${s[1]} in the M/P state)"
		else
			gh_fail "$tag: the brief stop's objects differ from the whole-read stop's: ${s[*]}"
		fi
	fi
	# against the program's MemStats and its own heap dump's graph
	if python3 "$GH_TESTS/heapdump.py" --graph "$d/heap.dump" "${goname#go1.}" \
		"$([ "${goname#go1.}" -ge 26 ] && echo 1 || echo 0)" precise >"$d/graph.txt" 2>"$d/graph.err"; then
		local got want ck
		got=$(awk '$4 != "tiny" {n++; b += $2; if ($3 == 1) {rn++; rb += $2}} END {print n, b, rn + 0, rb + 0}' \
			"$d/live.objects.out")
		want="$(sed -n 's/^MEMSTATS //p' "$GH_OUT") $(sed -n 's/^GCSTATS //p' "$GH_OUT")"
		ck=$(sed -n 's/^TOTAL //p' "$d/graph.txt")
		awk '$4 != "tiny" && $3 == 1 {print $1}' "$d/live.objects.out" | sort >"$d/reach.live"
		awk '$1 ~ /^0x/ && $3 == 1 {print $1}' "$d/graph.txt" | sort >"$d/reach.dump"
		if [ "$got" = "$want" ] && [ "$got" = "$ck" ] && cmp -s "$d/reach.live" "$d/reach.dump"; then
			gh_pass "$tag: allocated, reachable '$got' == MemStats at the dump, after runtime.GC == heapdump.py's graph, the same $(wc -l <"$d/reach.live") reachable addresses"
		else
			gh_fail "$tag: allocated, reachable '$got', MemStats '$want', the dump's graph '$ck'; reachable addresses differ by $(comm -3 "$d/reach.live" "$d/reach.dump" | wc -l)"
		fi
	else
		gh_fail "$tag: the dump's graph (heapdump.py --graph)"
		gh_show "$d/graph.err" 5
	fi
	run live.top -v -p retained -n 5 "$pid"
	if ok live.top "brief stop: -v"; then
		read -r -a s <<<"$(snapline "$d/live.top.out")"
		if [ "${#s[@]}" = 7 ] && [ "${s[6]}" = 0 ] && [ "${s[2]}" = 1 ] && [ -n "$(stopms "$d/live.top.err")" ]; then
			gh_pass "$tag: ${s[0]} bytes in ${s[1]} ranges copied while stopped $(stopms "$d/live.top.err") ms, one copy (nothing changed), 0 reads outside the snapshot"
		else
			gh_fail "$tag: the snapshot's header '${s[*]}' (want 0 reads outside, 1 copy), stop '$(stopms "$d/live.top.err")'"
			grep 'consistent snapshot' "$d/live.top.out"
		fi
	fi
	GOHEAP_TEST_SNAP_BOUND=65536 run spill.objects -p retained -f objects "$pid"
	GOHEAP_TEST_SNAP_BOUND=65536 run spill.top -p retained -n 1 "$pid"
	read -r -a s <<<"$(snapline "$d/spill.top.out")"
	local sm
	sm=$(same "$d/live.objects.out" "$d/spill.objects.out")
	if [ "$rc" = 0 ] && [ "${#s[@]}" = 7 ] && [ "${s[3]}" -gt 0 ] && [ "${s[6]}" = 0 ] &&
		[[ "$sm" =~ ^[0-9]+\ [0-9]+$ ]]; then
		gh_pass "$tag: bound 64 KiB: ${s[3]} bytes of the copy in an unlinked temporary file, the same objects (${sm#* } in the M/P state)"
	else
		gh_fail "$tag: bound 64 KiB: exit $rc, header '${s[*]}', objects: $sm"
		gh_show "$d/spill.top.err" 3
	fi
	gh_stop "$pid"
	rm -f "$d/heap.dump"
}

# stable RUN: the stable holders of the churn target in $d/RUN.out; "" or what is wrong
stable() {
	local f="$d/$1.out" bad= v n cons
	# frames scanned conservatively (an asynchronously preempted GC mark worker's, whose spilled
	# registers may point into the list or the map it was scanning): a few of their objects are
	# then also reached from that frame, so their holder retains a little less; the totals
	# still hold (bytes = objects x size), and the loss is counted in the PASS line
	# (or running goroutines' whole stacks: a mark worker caught running on go1.21, 15 of the
	# map's values also reached from it, once; or stacks not unwound to their end)
	cons=$(sed -n 's/^stacks: [0-9]* frames precise.*, \([0-9]*\) frames conservative.*conservative too: \([0-9]*\) running goroutines.*the rest of \([0-9]*\) stacks not unwound.*/\1 \2 \3/p' "$f" |
		awk '{ print $1 + $2 + $3 }')
	v=$(holder "$f" main.list)
	n=${v#* }
	if [ "$v" != "800000 50000" ]; then
		if [ "${cons:-0}" -gt 0 ] && [ -n "$v" ] && [ "${v% *}" = $((n * 16)) ] && [ "$n" -ge 49000 ] &&
			[ "$n" -lt 50000 ]; then
			echo "main.list $n of 50000 ($cons conservative frames or stacks);" >>"$d/tol"
		else
			bad="$bad main.list '$v';"
		fi
	fi
	v=$(holder "$f" main.cache)
	n=${v#* }
	if [ "$v" != "$cache" ]; then
		if [ "${cons:-0}" -gt 0 ] && [ -n "$v" ] && [ "${v% *}" -le "${cache% *}" ] &&
			[ "$n" -ge $((${cache#* } - 100)) ]; then
			echo "main.cache $n of ${cache#* } ($cons conservative frames or stacks);" >>"$d/tol"
		else
			bad="$bad main.cache '$v' (quiet '$cache');"
		fi
	fi
	v=$(holder "$f" main.slots)
	n=${v#* }
	if [ -z "$v" ] || [ "${v% *}" != $((n * 48)) ] || [ "$n" -gt 2000 ] || [ "$n" -lt 1998 ]; then
		bad="$bad main.slots '$v';"
	fi
	v=$(sed -n 's/^allocated: \([0-9]*\) objects, [0-9]* bytes; reachable: \([0-9]*\) objects.*/\1 \2/p' "$f")
	[ -n "$v" ] && [ "${v#* }" -le "${v% *}" ] || bad="$bad allocated, reachable '$v';"
	echo "$bad"
}

churn() {
	local goname=$1 root=$2 bin pid i bad s sb= sw miss=0 broke=0 outside=0
	tag="$goname/churn"
	d="$GH_TMP/$goname-churn"
	mkdir -p "$d"
	gh_build_or_fail "$tag" retainchurn "$goname" "$root" default || return
	bin=$GH_BIN
	if ! gh_start "$bin" 2>"$d/start.err"; then
		gh_fail "$tag: retainchurn: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	run quiet -p retained -n 10 "$pid"
	ok quiet "quiet read" || { gh_stop "$pid"; return; }
	cache=$(holder "$d/quiet.out" main.cache)
	kill -USR1 "$pid"
	gh_wait_for 5 grep -q '^CHURNING' "$GH_OUT"
	sleep 0.3
	for i in 1 2 3; do
		run "brief$i" -v -p retained -n 20 "$pid"
		read -r -a s <<<"$(snapline "$d/brief$i.out")"
		: >"$d/tol"
		bad=$(stable "brief$i")
		[ "$rc" = 0 ] || bad="$bad exit $rc: $(head -n 1 "$d/brief$i.err");"
		[ "${#s[@]}" = 7 ] && [ "${s[6]}" = 0 ] || bad="$bad reads outside the snapshot '${s[6]:-?}';"
		if [ -z "$bad" ]; then
			gh_pass "$tag: run $i: main.list 50000 x 16 B, main.cache $cache, main.slots '$(holder "$d/brief$i.out" main.slots)', reachable <= allocated, 0 reads outside; stopped $(stopms "$d/brief$i.err") ms (${s[0]} bytes in ${s[2]} copies, ${s[5]} of ${s[4]} spans changed since the running read)$( [ -s "$d/tol" ] && echo "; also held by conservatively scanned frames: $(tr '\n' ' ' <"$d/tol")")"
		else
			gh_fail "$tag: run $i:$bad"
			grep 'consistent snapshot' "$d/brief$i.out"
		fi
		sb="$sb $(stopms "$d/brief$i.err")"
	done
	GOHEAP_TEST_RETAINED_SNAP=whole run whole -v -p retained -n 20 "$pid"
	sw=$(stopms "$d/whole.err")
	bad=$(stable whole)
	local med
	med=$(echo "$sb" | tr ' ' '\n' | grep . | sort -g | sed -n 2p)
	# the stops' lengths are reported, not judged (timings belong to bench/: the comparison is
	# bench/retained-stop-bench.sh's table); judged: both read, the same stable holders
	if [ "$rc" = 0 ] && [ -z "$bad" ] && [ -n "$med" ] && [ -n "$sw" ]; then
		gh_pass "$tag: the whole-read stop reads the same stable holders; stops: brief median $med ms (of$sb), whole-read $sw ms"
	else
		gh_fail "$tag: brief stops$sb ms (median '$med'), the whole-read stop '$sw' ms (exit $rc;$bad)"
	fi
	# the checks can fail (up to 6 runs each, until one does)
	local nn=0 nc=0
	for i in 1 2 3 4 5 6; do
		[ "$broke" -gt 0 ] && [ "$outside" -gt 0 ] && break
		if [ "$broke" = 0 ]; then
			run "nostop$i" --no-stop -p retained -n 20 "$pid"
			nn=$i
			[ -n "$(stable "nostop$i")" ] && broke=$((broke + 1))
		fi
		if [ "$outside" = 0 ]; then
			GOHEAP_TEST_RETAINED_SNAP=noclosure run "noclosure$i" -p retained -n 20 "$pid"
			nc=$i
			read -r -a s <<<"$(snapline "$d/noclosure$i.out")"
			[ "${s[6]:-0}" -gt 0 ] && outside=$((outside + 1))
		fi
	done
	if [ "$broke" -gt 0 ] && [ "$outside" -gt 0 ]; then
		gh_pass "$tag: the checks can fail: --no-stop broke a stable holder (run $nn: $(stable "nostop$nn")); a stop copying only what the running read read (noclosure) read outside its snapshot (run $nc: ${s[6]} reads)"
	else
		gh_fail "$tag: the controls did not fail in 6 runs: --no-stop broke $broke, noclosure read outside $outside"
	fi
	gh_stop "$pid"
}

for i in "${!GH_GO_NAMES[@]}"; do
	quiet "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}"
	churn "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}"
done
gh_summary
