#!/bin/bash
# tests/run-block.sh: block and mutex profiles of a live Go program, compared with the program's
# own runtime/pprof output, for every installed Go toolchain.
#
# For each toolchain (go1.19 go1.21 go1.22 go1.23 go1.24) x variant (default pie):
#   - build tests/go/heapprog, start it with -contention: it sets SetBlockProfileRate(1) and
#     SetMutexProfileFraction(1), creates channel, select and sync.Mutex contention, writes
#     block.txt / block.pb.gz / mutex.txt / mutex.pb.gz in-process, prints READY and waits;
#   - go-heap -p block -f text      == block.txt, byte for byte (the "cycles/second=" line is
#                                      the target's runtime.ticks estimate, which go-heap reads)
#   - go-heap -p mutex -f text      == mutex.txt (also "sampling period=": mutexprofilerate),
#                                      but the runtime's own lock records, which grow after
#                                      the program's write: each of the program's is in
#                                      go-heap's with at least its cycles and count (below)
#   - go-heap -p block -o X.pb.gz   == block.pb.gz (tests/compare.sh pprof: delay values depend
#                                      on the tick rate, so this checks it too)
#   - go-heap -p mutex -o X.pb.gz   == mutex.pb.gz
#
# The text comparison is a plain diff: compare.sh's text mode parses heap headers only, and the
# block/mutex text has no unstable sort (records are sorted by cycles, descending, and equal
# cycles are rare; where they occur the comparison falls back to comparing sorted records).
# Environment: as tests/run-live.sh (GOHEAP_GO_VERSIONS, GOHEAP_VARIANTS, GOHEAP_TIMEOUT, ...).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"

gh_need_python
gh_need_toolchains

# run and ok come from lib.sh.

# Records of a block/mutex debug=1 text (header lines, then "cycles count @ pcs" + frames,
# one record per "@" line), each as one line, sorted: the order-insensitive form.
records_sorted() {
	awk '/ @( |$)/ { if (r != "") print r; r = $0; next }
	     /^#/ { r = r "|" $0; next }
	     { if (r != "") print r; r = ""; print "H:" $0 }
	     END { if (r != "") print r }' "$1" | sort
}

# The runtime's own lock contention is recorded in the mutex profile: under
# runtime._LostContendedRuntimeLock (1.22+), and from 1.23 on also with the stack that released
# the contended lock, whose leaf is runtime.unlock (runtime.unlockWithRank with static lock
# ranking; mprof.go captureStack).  Both keep growing (sysmon, GC, the scheduler's sched.lock)
# after the program wrote its in-process profile, so those records cannot match at another
# instant, and no instant can be shared: the program must run to write its profile, and the
# runtime records its own lock contention at any rate, 0 included (storeSlow's
# saveBlockEventStack makes the bucket whatever the rate).  (A go1.27 run failed on a
# runtime.unlock <- findRunnable record that appeared in between; go1.26 stripped ones under
# load on a runtime.unlock <- wakep <- goschedImpl <- gopreempt_m record made by a preemption
# after the in-process write.)  So the byte comparison drops them on both sides, each with the
# empty line that ends it (printStackRecord's: leaving it made such a record an extra empty
# line, the "one line more" of issue 37), and rtlock_check compares them as they can be: every
# one the program wrote is in go-heap's read with at least its cycles and count (a bucket is
# never removed and only grows), go-heap's may hold more.  The program's own sync.Mutex
# records never hold these frames.
RTLOCK=runtime._LostContendedRuntimeLock,runtime.unlock,runtime.unlockWithRank
# rtlock_awk MODE FILE: MODE drop: FILE without the runtime's lock records; MODE rt: those
# records, one line each: "CYCLES COUNT @ PCS"
rtlock_awk() {
	awk -v fs="$RTLOCK" -v mode="$1" '
	BEGIN { n = split(fs, f, ",") }
	function runtime_lock(r,   i) {
		for (i = 1; i <= n; i++)
			if (index(r, "\t" f[i] "+") > 0)
				return 1
		return 0
	}
	function flush() {
		if (r != "" && runtime_lock(r) == (mode == "rt"))
			printf "%s", mode == "rt" ? head "\n" : r
		r = ""
	}
	/ @( |$)/ { flush(); r = $0 "\n"; head = $0; next }
	/^#/ && r != "" { r = r $0 "\n"; next }
	/^$/ && r != "" { r = r "\n"; flush(); next }
	{ flush(); if (mode != "rt") print }
	END { flush() }' "$2"
}
drop_rtlock() { rtlock_awk drop "$1"; }

# rtlock_check EXPECTED ACTUAL: the runtime's lock records of the program's text against
# go-heap's later read (above); prints what it found, status 1 on a record lost or shrunk
rtlock_check() {
	rtlock_awk rt "$1" >"$1.rt"
	rtlock_awk rt "$2" >"$2.rt"
	awk 'FILENAME == ARGV[1] { c[substr($0, index($0, " @"))] = $1; k[substr($0, index($0, " @"))] = $2; n++; next }
	     { key = substr($0, index($0, " @")); m++
	       if (key in c) { if ($1 + 0 < c[key] + 0 || $2 + 0 < k[key] + 0) bad = bad " shrunk:" key; delete c[key]; seen++ } }
	     END { for (key in c) bad = bad " lost:" key
		   if (bad != "") { print "runtime lock records" substr(bad, 1, 300); exit 1 }
		   printf "%d runtime lock records, %d since the program wrote its own\n", m, m - seen }' \
		"$1.rt" "$2.rt"
}

# text_equal EXPECTED ACTUAL WHAT
text_equal() {
	local n rt
	if [ ! -s "$2" ]; then
		gh_fail "$tag: $3: empty output"
		return
	fi
	if ! rt=$(rtlock_check "$1" "$2"); then
		gh_fail "$tag: $3: $rt"
		return
	fi
	case $rt in 0\ *) rt= ;; *) rt="; $rt" ;; esac
	drop_rtlock "$1" >"$1.f"
	drop_rtlock "$2" >"$2.f"
	set -- "$1.f" "$2.f" "$3"
	n=$(grep -c ' @' "$1")
	if cmp -s "$1" "$2"; then
		gh_pass "$tag: $3 (byte for byte, $n records, $(sed -n 2p "$1")$rt)"
	elif diff <(records_sorted "$1") <(records_sorted "$2") >/dev/null; then
		gh_pass "$tag: $3 ($n records; equal-cycles records in another order$rt)"
	else
		gh_fail "$tag: $3: differs"
		diff "$1" "$2" >"$d/diff.log"
		gh_show "$d/diff.log" 30
	fi
}

compare_pb() {
	if "$CMP" --drop-from "$RTLOCK" pprof "$1" "$2" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag: $3 ($(grep -v '^note:' "$d/cmp.log" | head -n 1))"
	else
		gh_fail "$tag: $3: differs from $(basename "$1")"
		gh_show "$d/cmp.log" 40
	fi
}

block_checks() {
	local k
	for k in block mutex; do
		if ! grep -q ' @' "$d/$k.txt"; then
			gh_fail "$tag: the in-process $k profile has no records (heapprog -contention broken?)"
			continue
		fi
		run "t$k" -p "$k" -f text "$pid"
		ok "t$k" "$k text" && text_equal "$d/$k.txt" "$d/t$k.out" "$k text == in-process $k debug=1"
		run "p$k" -p "$k" -o "$d/gh.$k.pb.gz" "$pid"
		ok "p$k" "$k pprof" && compare_pb "$d/$k.pb.gz" "$d/gh.$k.pb.gz" "$k pprof == in-process $k proto"
	done
}

for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	for variant in $(gh_variants_for "$goname" pie); do
		tag="$goname/$variant"
		gh_build_or_fail "$tag" heapprog "$goname" "$root" "$variant" || continue
		bin=$GH_BIN
		d="$GH_TMP/$goname-$variant"
		mkdir -p "$d"
		if ! gh_start "$bin" -contention -out "$d" 2>"$GH_TMP/start.err"; then
			gh_fail "$tag: heapprog -contention: $(cat "$GH_TMP/start.err")"
			continue
		fi
		pid=$GH_PID
		if ! gh_have_goheap; then
			gh_skip "$tag: block/mutex checks: $GH_GOHEAP is not built"
		elif ! gh_can_read_mem "$pid"; then
			gh_skip "$tag: block/mutex checks: cannot read the target's memory (ptrace is restricted)"
		else
			block_checks
		fi
		gh_stop "$pid"
	done
done
gh_summary
