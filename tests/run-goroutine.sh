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
#   - the snapshot (default build): live reads stop the target briefly (the live checks above
#     run with it); -v reports the stop; --no-stop == goroutine.txt but for one best-effort note
#     line; a refused stop (gdb already attached) is one line naming --no-stop; a spinning
#     goroutine (goroutineprog -spin, oldest and newest toolchain) is unwound
#     from its thread's registers during the stop (main.spinForever), marked stale with --no-stop
#   - running goroutines (oldest and newest toolchain): goroutineprog -spin, SIGABRT with
#     GOTRACEBACK=crash, the kernel's core: the spinning goroutine (_Grunning) is unwound from
#     its thread's NT_PRSTATUS registers through the signal frame and holds main.spinForever
#   - stripped build (-s -w; GODEBUG=tracebacklabels=1,tracebackancestors=3, -ancestors): live
#     text == goroutine.txt (allgs located from allgadd/forEachG, -v says so), live traceback ==
#     goroutine.2.txt (header labels on 1.26+ through the located debug.tracebacklabels, ancestors);
#     core text too on the oldest and newest toolchain
#   - pprof (-o .pb.gz) == the program's own goroutine.pb.gz (tests/compare.sh pprof, its writer's
#     sample dropped on each side)
#   - traceback: go-heap -p goroutine -f traceback == goroutine.2.txt (debug=2), live and core,
#     block by block (cmp_tb: writer dropped, argument lists as they are)
#   - ancestors (default build): goroutineprog -ancestors with GODEBUG=tracebackancestors=3: -f
#     traceback == its own debug=2 ("[originating from goroutine N]:" blocks, an elided one),
#     live on every toolchain, from a gcore core too on the oldest and newest (ancestors)
#   - labels: goroutineprog's label sets hold what %q escapes, NUL bytes in a key and in values
#     included (values that differ only after their NUL: cut, two groups would merge)
#   - the layout row (default build): tests/locate-dump --dwarf: every goroutine offset of the
#     release's row of src/lib/bin/rtlayout.c == the binary's DWARF, its gStatusStrings,
#     waitReasonStrings and isIdleInSynctest == the runtime's data
#   - synctest bubbles (go1.24 with GOEXPERIMENT=synctest, 1.25+; N/A line before): the test
#     binary of tests/go/synctestprog parks goroutines in two bubbles, durably blocked and not,
#     labelled ones too (GODEBUG=tracebacklabels=1: 1.26/1.27 print them, NUL bytes quoted);
#     -f traceback (", synctest group N", " (durable)", ", synctest bubble N") and -f text, live
#     and from a gcore core == its own debug=2 / debug=1 (synctest_checks)
#   - arm64 cores (sampled: the oldest and newest toolchain only): goroutineprog built with
#     GOARCH=arm64 CGO_ENABLED=0 runs under qemu-aarch64-static with GOTRACEBACK=crash until READY
#     (its own profiles written; -inject: 2 goroutines parked in a deferred call of a nil-pointer
#     panic, runtime.sigpanic on their stacks), SIGABRT, qemu's core: text == goroutine.txt, traceback ==
#     goroutine.2.txt; the same for a stripped (-s -w) build; -spin: the running goroutine unwound
#     from its thread's NT_PRSTATUS registers through the arm64 signal frame (main.spinForever).
#     Skipped, with the reason, without qemu-aarch64-static or core dumps
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

# cmp_text EXPECTED ACTUAL [WRITER IDLER]: debug=1 goroutine texts equal but for the writer
# goroutine, whose record holds WRITER in-process (default main.writeProfiles) and IDLER outside
# (default main.idleForever).
cmp_text() {
	python3 - "$1" "$2" "${3:-main.writeProfiles}" "${4:-main.idleForever}" <<'PY'
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
eh, e = recs(sys.argv[1], sys.argv[3])
ah, a = recs(sys.argv[2], sys.argv[4])
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

# cmp_tb EXPECTED ACTUAL: debug=2 tracebacks (runtime.Stack(all)) equal block by block, but for
# the writer goroutine (main.writeProfiles in-process, main.idleForever outside).  Headers
# ("N minutes", labels, "locked to thread"), frame names with their argument lists (printArgs:
# words, "{...}", "...", "?" for dead register spill slots; "(...)" for inlined frames), file:line,
# "+0x..", "created by ... in goroutine N" and the order (allgs) are compared as they are; the
# last line counts the frames whose argument list holds at least one word.  Optional 3rd and 4th
# arguments: the writer's function in-process and outside (cmp_text's).
cmp_tb() {
	python3 - "$1" "$2" "${3:-main.writeProfiles}" "${4:-main.idleForever}" <<'PY'
import re, sys
def blocks(path, drop):
    data = open(path, encoding="utf-8").read()
    bs = [b for b in data.rstrip("\n").split("\n\n") if b.strip()]
    kept = [b for b in bs if drop not in b]
    if len(bs) - len(kept) != 1:
        print(f"{path}: {len(bs) - len(kept)} blocks hold {drop}, want 1"); sys.exit(1)
    return kept
e = blocks(sys.argv[1], sys.argv[3])
a = blocks(sys.argv[2], sys.argv[4])
if len(e) != len(a):
    print(f"goroutines: want {len(e)}, got {len(a)}")
for i, (x, y) in enumerate(zip(e, a)):
    if x != y:
        print(f"goroutine block {i} differs:\n--- want\n{x}\n--- got\n{y}"); sys.exit(1)
if len(e) != len(a):
    sys.exit(1)
nargs = sum(1 for b in a for l in b.split("\n")[1:] if re.search(r"\(.*0x[0-9a-f]+.*\)$", l) and not l.startswith(("\t", "created by ")))
print(f"{len(e)} goroutine tracebacks equal, {nargs} frames with argument words")
PY
}

# tb_check NAME WANT LABEL TARGET [EXE]: go-heap -p goroutine -f traceback TARGET into $d/NAME.out,
# compared with WANT (a debug=2 file) by cmp_tb; LABEL names the check.  0 when it was written.
tb_check() {
	local name=$1 want=$2 label=$3
	shift 3
	run "$name" -p goroutine -f traceback "$@"
	ok "$name" "$label traceback" || return 1
	if cmp_tb "$want" "$d/$name.out" >"$d/cmp$name.log" 2>&1; then
		gh_pass "$tag: $label: traceback == in-process goroutine debug=2 ($(tail -n 1 "$d/cmp$name.log"))"
	else
		gh_fail "$tag: $label: traceback differs from $(basename "$want")"
		gh_show "$d/cmp$name.log" 40
	fi
}

checks() { # PID-or-CORE [EXE] ; $kind = live|core
	run text -p goroutine -f text "$@"
	ok text "$kind text" && compare "$d/out/goroutine.txt" "$d/text.out" "$kind: text == in-process goroutine debug=1"
	tb_check tb "$d/out/goroutine.2.txt" "$kind" "$@"
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

# snapshot PID: the stop (issue 13, 3).  -v reports the stop (its length, threads, goroutines
# re-read while stopped); --no-stop writes the same records as the program's own, with one more
# comment line saying the snapshot is best-effort.
snapshot() {
	local pid=$1
	run snapv -v -p goroutine -f text "$pid"
	if ok snapv "-v"; then
		if grep -qE '^go-heap: goroutine snapshot: the target was stopped for [0-9.]+ ms \([0-9]+ threads; [0-9]+ of [0-9]+ goroutines re-read while stopped\)' "$d/snapv.err" &&
			! grep -q '^# go-heap' "$d/snapv.out"; then
			gh_pass "$tag: live: -v reports the stop ($(sed -n 's/^go-heap: goroutine snapshot: the target was stopped for \([0-9.]* ms ([^)]*)\).*/\1/p' "$d/snapv.err"))"
		else
			gh_fail "$tag: live: -v does not report the stop (or the output has a note)"
			gh_show "$d/snapv.err" 5
		fi
	fi
	# the stop refused (a debugger is the tracer already): one line that suggests --no-stop
	if command -v gdb >/dev/null 2>&1; then
		local gpid t
		gdb -nx -batch -p "$pid" -ex 'shell sleep 5' >"$d/gdbhold.log" 2>&1 </dev/null &
		gpid=$!
		for ((t = 0; t < 200; t++)); do
			[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" != 0 ] && break
			sleep 0.05
		done
		run refused -p goroutine -f text "$pid"
		wait "$gpid" 2>/dev/null
		if [ "$rc" = 1 ] && [ "$(wc -l <"$d/refused.err")" = 1 ] &&
			grep -q '^go-heap: goroutine profile: cannot stop the target for a consistent snapshot (.*already traced.*); --no-stop reads it without stopping (best-effort)$' "$d/refused.err"; then
			gh_pass "$tag: live: a refused stop is one line suggesting --no-stop"
		else
			gh_fail "$tag: live: a refused stop (gdb attached): rc $rc"
			gh_show "$d/refused.err" 3
		fi
	fi
	run nostop --no-stop -v -p goroutine -f text "$pid"
	if ok nostop "--no-stop"; then
		if [ "$(grep -c '^# go-heap: ' "$d/nostop.out")" = 1 ] &&
			grep -q '^# go-heap: best-effort snapshot: the target was not stopped (--no-stop)$' "$d/nostop.out" &&
			grep -q 'goroutine snapshot: best-effort' "$d/nostop.err"; then
			# the note is the last line
			head -n -1 "$d/nostop.out" >"$d/nostop.txt"
			compare "$d/out/goroutine.txt" "$d/nostop.txt" "live --no-stop: text == in-process but for its best-effort note"
		else
			gh_fail "$tag: live --no-stop: no best-effort note line (or -v line)"
			tail -n 2 "$d/nostop.out"
		fi
	fi
	# the public API (tests/api-goroutine.c, linked to libgoheap.so): a profile collected with
	# goheap_options.no_traceback writes text and refuses traceback/list; without it, tracebacks
	local api="$top_builddir/tests/api-goroutine"
	if [ ! -x "$api" ]; then
		gh_fail "$tag: live: $api not built (make check builds it)"
	elif "$api" "$pid" >"$d/api.out" 2>&1; then
		gh_pass "$tag: live: API no_traceback: text written, traceback and list refused; without it the traceback is written ($(grep -c '^ok:' "$d/api.out") checks)"
	else
		gh_fail "$tag: live: API no_traceback"
		gh_show "$d/api.out" 10
	fi
}

# wait_line FILE PREFIX PID TRIES: wait (0.05 s a try) until FILE has a line starting with
# PREFIX, or PID has exited; 0 when the line is there.
wait_line() {
	local t
	for ((t = 0; t < $4; t++)); do
		grep -q "^$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.05
	done
	grep -q "^$2" "$1" 2>/dev/null
}

# spin_live BIN: a goroutine spinning in main.spinForever (_Grunning, on its own thread) in a
# live target.  With the stop it is unwound from its thread's registers (PTRACE_GETREGSET) and
# its record holds main.spinForever; with --no-stop its stack comes from g.sched, marked stale.
# GODEBUG=asyncpreemptoff=1: sysmon's async preemption would otherwise make the spinner
# _Grunnable for a moment, and an unstopped read catching it then has no running goroutine.
spin_live() {
	local bin=$1 sd="$d/spinlive" spid t
	mkdir -p "$sd/out"
	( cd "$sd" && GODEBUG=asyncpreemptoff=1 exec "$bin" -out "$sd/out" -spin >"$sd/run.out" 2>"$sd/run.err" </dev/null ) &
	spid=$!
	GH_PIDS+=("$spid")
	if ! wait_line "$sd/run.out" SPINNING "$spid" 1200; then
		gh_fail "$tag: goroutineprog -spin (live) did not get SPINNING"
		gh_stop "$spid"
		return
	fi
	run spinl -p goroutine -f text "$spid"
	if ok spinl "running goroutine (live, stopped)"; then
		if grep -q '^# go-heap: 1 running goroutine(s) unwound from their thread.s registers (stopped)$' "$d/spinl.out" &&
			awk -v RS= '/^1 @ / && /main\.spinForever/ { f = 1 } END { exit !f }' "$d/spinl.out" &&
			! grep -q 'may be stale' "$d/spinl.out"; then
			gh_pass "$tag: live: the running goroutine unwound from its thread's registers during the stop (main.spinForever)"
		else
			gh_fail "$tag: live: running goroutine not unwound from registers to main.spinForever"
			grep '^# go-heap' "$d/spinl.out"
			awk -v RS= '/spinForever/' "$d/spinl.out" | head -n 5
		fi
	fi
	run spinn --no-stop -p goroutine -f text "$spid"
	if ok spinn "running goroutine (live, --no-stop)"; then
		if grep -q '^# go-heap: best-effort snapshot: the target was not stopped (--no-stop); 1 running goroutine(s): stack from g.sched, may be stale (live, not stopped)' "$d/spinn.out"; then
			gh_pass "$tag: live --no-stop: the running goroutine is marked stale"
		else
			gh_fail "$tag: live --no-stop: the note does not mark the running goroutine stale"
			grep '^# go-heap' "$d/spinn.out"
		fi
	fi
	gh_stop "$spid"
}

have_gcore=1
command -v gcore >/dev/null 2>&1 || have_gcore=0

# ancestors BIN CORE(0|1): GODEBUG=tracebackancestors=3 makes the runtime keep, in g.ancestors, the
# stacks of the goroutines that created each goroutine (and of their creators); its traceback
# prints them after "created by" ("[originating from goroutine N]:", frames at the saved PCs
# themselves, "...additional frames elided..." for a full array, "created by F" without an id).
# goroutineprog -ancestors adds goroutines started 120 frames deep.  go-heap's -f traceback must
# equal the program's own debug=2, live (and from a gcore core with CORE 1); the program's own
# must show what is compared, so that the check cannot pass vacuously.
ancestors() {
	local bin=$1 core=$2 ad="$d/anc" apid norig nelided
	mkdir -p "$ad/out"
	( cd "$ad" && GODEBUG=tracebackancestors=3 exec "$bin" -out "$ad/out" -ancestors \
		>"$ad/run.out" 2>"$ad/run.err" </dev/null ) &
	apid=$!
	GH_PIDS+=("$apid")
	if ! wait_line "$ad/run.out" READY "$apid" 1200; then
		gh_fail "$tag: goroutineprog -ancestors did not get READY: $(tail -n 2 "$ad/run.err" | tr '\n' ' ')"
		gh_stop "$apid"
		return
	fi
	norig=$(grep -c '^\[originating from goroutine [0-9]*\]:$' "$ad/out/goroutine.2.txt")
	nelided=$(grep -c '^\.\.\.additional frames elided\.\.\.$' "$ad/out/goroutine.2.txt")
	if [ "$norig" -lt 100 ] || [ "$nelided" -lt 1 ] ||
		! grep -A8 '^\[originating from goroutine [02-9][0-9]*\]:$' "$ad/out/goroutine.2.txt" | grep -q '^created by main\.creator$'; then
		gh_fail "$tag: ancestors: the program's own traceback lacks what this check compares ($norig ancestor blocks, $nelided elided, an ancestor's 'created by')"
		gh_stop "$apid"
		return
	fi
	if tb_check anc "$ad/out/goroutine.2.txt" "ancestors: live ($norig ancestor blocks)" "$apid"; then
		# -f list takes each goroutine's own "created by" (1.21+: "in goroutine 1"), not an
		# ancestor's
		run ancl -p goroutine -f list "$apid"
		if ok ancl "ancestors live list"; then
			local nb nl
			nb=$(grep -c '^goroutine [0-9]* \[' "$d/anc.out")
			nl=$(grep -c . "$d/ancl.out")
			if [ "$nb" = "$nl" ] && ! grep -q 'originating' "$d/ancl.out" &&
				[ "$(grep -c 'created by main\.spawn\( in goroutine 1\)\? *$' "$d/ancl.out")" -ge 1000 ]; then
				gh_pass "$tag: ancestors: live: -f list, one line per goroutine with its own creator ($nl)"
			else
				gh_fail "$tag: ancestors: live: -f list: $nl lines for $nb goroutines, or an ancestor's line"
				gh_show "$d/ancl.out" 5
			fi
		fi
	fi
	if [ "$core" = 1 ] && [ "$have_gcore" = 1 ]; then
		timeout 300 gcore -o "$ad/core" "$apid" >"$ad/gcore.log" 2>&1
		if [ -s "$ad/core.$apid" ]; then
			tb_check ancc "$ad/out/goroutine.2.txt" "ancestors: core" "$ad/core.$apid" "$bin"
		else
			gh_fail "$tag: ancestors: gcore wrote no core"
			gh_show "$ad/gcore.log" 5
		fi
		rm -f "$ad/core.$apid"
	fi
	gh_stop "$apid"
}

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

# spin_core BIN: running goroutines in kernel cores.  goroutineprog -spin leaves one goroutine
# spinning in main.spinForever (_Grunning; GODEBUG=asyncpreemptoff=1 keeps the crash handler
# from preempting it); SIGABRT with GOTRACEBACK=crash makes the kernel write ./core while every
# thread sits in the runtime's signal handler.  The running goroutine must be unwound from its
# thread's registers (NT_PRSTATUS -> signal frame) and its stack must hold main.spinForever.
spin_core() {
	local bin=$1 sd="$d/spin" pattern spid t core
	pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
	if [ "$(ulimit -H -c)" = 0 ] || [ "$pattern" != core ]; then
		gh_skip "$tag: running goroutine in a kernel core: core_pattern '$pattern' / ulimit -H -c $(ulimit -H -c)"
		return
	fi
	mkdir -p "$sd/out"
	( ulimit -c unlimited; cd "$sd" && GOTRACEBACK=crash GODEBUG=asyncpreemptoff=1 \
		exec "$bin" -out "$sd/out" -spin >"$sd/run.out" 2>"$sd/run.err" </dev/null ) &
	spid=$!
	GH_PIDS+=("$spid")
	if ! wait_line "$sd/run.out" SPINNING "$spid" 1200; then
		gh_fail "$tag: goroutineprog -spin did not get READY and SPINNING ($(tr '\n' ' ' <"$sd/run.out"))"
		gh_show "$sd/run.err" 5
		kill -KILL "$spid" 2>/dev/null
		return
	fi
	kill -ABRT "$spid"
	for ((t = 0; t < 600; t++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	core="$sd/core"
	if [ ! -s "$core" ]; then
		gh_fail "$tag: SIGABRT with GOTRACEBACK=crash wrote no $core"
		return
	fi
	run spin -p goroutine -f text "$core" "$bin"
	if ok spin "running goroutine (kernel core)"; then
		if grep -q '^# go-heap: 1 running goroutine(s) unwound from their thread.s registers (core)$' "$d/spin.out" &&
			awk -v RS= '/^1 @ / && /main\.spinForever/ { f = 1 } END { exit !f }' "$d/spin.out"; then
			gh_pass "$tag: kernel core: the running goroutine unwound from its thread's registers ($(awk -v RS= '/main\.spinForever/' "$d/spin.out" | grep -c '^#') frames, main.spinForever)"
		else
			gh_fail "$tag: kernel core: running goroutine not unwound from registers to main.spinForever"
			grep '^# go-heap' "$d/spin.out"
			awk -v RS= '/spinForever/' "$d/spin.out" | head -n 5
		fi
		# The truth for that frame, from the same instant: GOTRACEBACK=crash made the
		# spinning thread print its own goroutine from the signal context (the runtime's
		# unwinder with unwindTrap: symbolized at the trapped pc itself, not pc-1):
		#   main.spinForever()\n\t/path/main.go:LINE +0xOFF fp=... pc=...
		# go-heap's frame line "#\t0x..\tmain.spinForever+0xOFF\t/path/main.go:LINE"
		# must name the same line and offset.
		local want got
		want=$(awk '/^main\.spinForever\(/ { getline; sub(/^\t/, ""); print $1, $2; exit }' "$sd/run.err")
		got=$(awk -F'\t' '$3 ~ /^main\.spinForever\+/ { off = $3; sub(/^main\.spinForever\+/, "", off); print $4, "+" off; exit }' "$d/spin.out")
		if [ -z "$want" ]; then
			gh_fail "$tag: kernel core: the runtime's crash output has no main.spinForever frame to compare with"
			gh_show "$sd/run.err" 5
		elif [ "$want" = "$got" ]; then
			gh_pass "$tag: kernel core: the running goroutine's innermost frame is the runtime's own from its signal context ($got)"
		else
			gh_fail "$tag: kernel core: running frame '$got', the runtime printed '$want' (trap pc symbolized as a return pc?)"
		fi
	fi
	# -p retained on the same core: the running goroutine's stack from the sp its thread was
	# interrupted at (its interrupted frame every word, the frames above with their maps), not
	# its whole stack from g.stack.lo, whose dead part holds old values
	run spinret -p retained -n 3 "$core" "$bin"
	if ok spinret "-p retained, running goroutine (kernel core)"; then
		if grep -q "^stacks: .* 0 running goroutines' whole stacks (and the interrupted frame of 1 more, unwound from their threads' registers)" "$d/spinret.out"; then
			gh_pass "$tag: kernel core: -p retained unwinds the running goroutine from its thread's registers (0 whole stacks scanned)"
		else
			gh_fail "$tag: kernel core: -p retained did not unwind the running goroutine from its registers"
			grep '^stacks:' "$d/spinret.out"
		fi
	fi
	rm -f "$core"
}

# arm64 cores (issue 13, 4), sampled: the oldest and newest toolchain only.  goroutineprog is
# built with GOARCH=arm64 CGO_ENABLED=0 and run under qemu-aarch64-static with GOTRACEBACK=crash;
# once it has written its own profiles (READY) it is killed with SIGABRT and qemu writes the
# guest's core (qemu_goroutineprog_*.core, as in tests/run-core.sh).  Every goroutine is parked
# at that point (main in main.idleForever, dropped from both sides as for the amd64 checks; the
# signal lands on an idle M), so the crash path changes no other goroutine.
gh_qemu_probe

# build_arm64 GONAME GOROOT VARIANT: goroutineprog for GOARCH=arm64 (gh_build_arm64).
build_arm64() { gh_build_arm64 goroutineprog "$@"; }

# qemu_core BIN DIR GODEBUG WAITFOR [ARGS...]: run BIN under qemu-aarch64-static in DIR/run
# (profiles into DIR/out) with GOTRACEBACK=crash, wait for a stdout line starting with WAITFOR,
# SIGABRT it; QCORE is the core qemu wrote (empty if none; DIR/why says why).
qemu_core() {
	local bin=$1 dir=$2 godebug=$3 waitfor=$4 qpid t
	shift 4
	QCORE=
	rm -rf "$dir/run" "$dir/out"
	mkdir -p "$dir/run" "$dir/out"
	( ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"; cd "$dir/run" &&
		GOTRACEBACK=crash GODEBUG=$godebug exec qemu-aarch64-static "$bin" -out "$dir/out" "$@" \
		>"$dir/run.out" 2>"$dir/run.err" </dev/null ) &
	qpid=$!
	GH_PIDS+=("$qpid")
	if ! wait_line "$dir/run.out" "$waitfor" "$qpid" 2400; then
		echo "goroutineprog (arm64, qemu) did not print $waitfor: $(tail -n 3 "$dir/run.err" | tr '\n' ' ')" >"$dir/why"
		gh_stop "$qpid"
		return
	fi
	kill -ABRT "$qpid"
	for ((t = 0; t < 600; t++)); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.1
	done
	gh_stop "$qpid"
	rm -f "$dir/run/core" "$dir/run"/core.[0-9]*   # a core of qemu itself, if any
	QCORE=$(ls -t "$dir/run"/qemu_*.core 2>/dev/null | head -n 1)
}

# arm64_core GONAME GOROOT VARIANT: text and traceback from an arm64 qemu core == the program's
# own debug=1 / debug=2 output (writer dropped), goroutineprog -inject: 2 more goroutines parked
# in a deferred call of a nil-pointer panic (runtime.sigpanic above the faulting frame: the
# injected-call rules, the LR slot the signal handler pushed); stripped (-s -w): allgs located from arm64
# machine code.  default: then goroutineprog -spin (GODEBUG=asyncpreemptoff=1): the spinning
# goroutine is unwound from its thread's NT_PRSTATUS registers (x0..x30, sp, pc) through
# runtime.sigtramp's arm64 signal frame and holds main.spinForever.
arm64_core() {
	local goname=$1 root=$2 variant=$3 bin core QCORE
	tag="$goname/arm64-$variant/qemu"
	d="$GH_TMP/$goname-arm64-$variant"
	mkdir -p "$d"
	if [ "$have_qemu" = 0 ]; then
		gh_skip "$tag: $why_qemu"
		return
	fi
	if ! bin=$(build_arm64 "$goname" "$root" "$variant" 2>"$d/build.err"); then
		gh_fail "$tag: build goroutineprog for GOARCH=arm64"
		gh_show "$d/build.err" 20
		return
	fi
	rm -f "$d/why"
	qemu_core "$bin" "$d" "" READY -inject
	core=$QCORE
	if [ -z "$core" ] || [ ! -s "$core" ]; then
		gh_fail "$tag: qemu wrote no qemu_*.core after SIGABRT ($(cat "$d/why" 2>/dev/null))"
		gh_show "$d/run.err" 5
		return
	fi
	run text -p goroutine -f text "$core" "$bin"
	ok text "arm64 core text" && compare "$d/out/goroutine.txt" "$d/text.out" "arm64 core: text == in-process goroutine debug=1"
	tb_check tb "$d/out/goroutine.2.txt" "arm64 core" "$core" "$bin"
	rm -f "$core"
	[ "$variant" = default ] || return
	# a running goroutine: -spin, the crash handler leaves its thread in sigtramp
	rm -f "$d/why"
	qemu_core "$bin" "$d" asyncpreemptoff=1 SPINNING -spin
	core=$QCORE
	if [ -z "$core" ] || [ ! -s "$core" ]; then
		gh_fail "$tag: -spin: qemu wrote no qemu_*.core after SIGABRT ($(cat "$d/why" 2>/dev/null))"
		gh_show "$d/run.err" 5
		return
	fi
	run spin -p goroutine -f text "$core" "$bin"
	if ok spin "arm64 running goroutine (qemu core)"; then
		if grep -q '^# go-heap: 1 running goroutine(s) unwound from their thread.s registers (core)$' "$d/spin.out" &&
			awk -v RS= '/^1 @ / && /main\.spinForever/ { f = 1 } END { exit !f }' "$d/spin.out"; then
			gh_pass "$tag: arm64 core: the running goroutine unwound from its thread's registers through the signal frame (main.spinForever)"
		else
			gh_fail "$tag: arm64 core: running goroutine not unwound from registers to main.spinForever"
			grep '^# go-heap' "$d/spin.out"
			awk -v RS= '/spinForever/' "$d/spin.out" | head -n 5
		fi
	fi
	rm -f "$core"
}

# dwarf_check BIN: the release's row of src/lib/bin/rtlayout.c against BIN's own DWARF and data
# (tests/dwarfcheck.c through tests/locate-dump --dwarf): every goroutine offset go-heap reads
# (runtime.g, gobuf, m, the synctest bubble, debug.tracebacklabels; fields the row says the
# release lacks must be absent) and the traceback tables (gStatusStrings, waitReasonStrings,
# isIdleInSynctest) equal the compiler's and the runtime's.
dwarf_check() {
	local dump="$top_builddir/tests/locate-dump"
	if [ ! -x "$dump" ]; then
		gh_fail "$tag: $dump not built (make check builds it)"
	elif "$dump" --dwarf "$1" >"$d/dwarf.out" 2>"$d/dwarf.err" &&
		grep -q '^dwarf DWARF layouts match .*; goroutine offsets match' "$d/dwarf.out"; then
		gh_pass "$tag: rtlayout row == the binary's DWARF and runtime tables ($(sed -n 's/^dwarf DWARF layouts match ([^)]*); //p' "$d/dwarf.out"))"
	else
		gh_fail "$tag: rtlayout row != the binary's DWARF"
		gh_show "$d/dwarf.err" 5
		gh_show "$d/dwarf.out" 5
	fi
}

# build_synctest GONAME GOROOT: tests/go/synctestprog as a test binary (go test -c; go1.24 with
# GOEXPERIMENT=synctest, its testing/synctest being an experiment there), cached; prints its path.
build_synctest() {
	local goname=$1 root=$2 dir want exp= src="$top_srcdir/tests/go/synctestprog"
	[ "$goname" = go1.24 ] && exp=synctest
	dir="$GH_CACHE/build/synctestprog-$goname"
	want=$( { cat "$src"/*.go | sha256sum; echo "$root"; "$root/bin/go" version; echo "exp=$exp"; } | sha256sum | cut -d' ' -f1)
	if [ -x "$dir/synctestprog.test" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ]; then
		echo "$dir/synctestprog.test"
		return 0
	fi
	mkdir -p "$dir" || return 1
	rm -f "$dir/stamp"
	if ! (cd "$src" && GOEXPERIMENT=$exp gh_go "$root" test -c -vet=off -o "$dir/synctestprog.test.tmp" .) >"$dir/build.log" 2>&1; then
		sed 's/^/    | /' "$dir/build.log" >&2
		return 1
	fi
	mv -f "$dir/synctestprog.test.tmp" "$dir/synctestprog.test" && echo "$want" >"$dir/stamp" &&
		echo "$dir/synctestprog.test"
}

# synctest_checks GONAME GOROOT: testing/synctest bubbles in the traceback (debug=2) headers.
# synctestprog parks goroutines in two bubbles, durably blocked and not, plus labelled ones
# outside (NUL bytes, invalid UTF-8, quotes), writes its own debug=1 and debug=2 output (its
# writer outside the bubbles, dropped from both sides) and stays still; run with
# GODEBUG=tracebacklabels=1 so that 1.26 and 1.27 print the labels in the headers (quoted:
# "\x00").  go-heap's -f traceback and -f text, live and from a gcore core, must equal them
# (go1.24: ", synctest group N"; 1.25+: " (durable)" and ", synctest bubble N").  Not
# applicable before go1.24 (no testing/synctest): an N/A line, not a skip.
synctest_checks() {
	local goname=$1 root=$2 minor=${1#go1.} bin pid nb nd nl what
	tag="$goname/synctest"
	d="$GH_TMP/$goname-synctest"
	mkdir -p "$d/out"
	if [ "$minor" -lt 24 ]; then
		echo "N/A: $tag: testing/synctest does not exist before go1.24 (nothing to compare)"
		return
	fi
	if ! bin=$(build_synctest "$goname" "$root" 2>"$d/build.err"); then
		gh_fail "$tag: build synctestprog (go test -c)"
		gh_show "$d/build.err" 20
		return
	fi
	if ! GODEBUG=asynctimerchan=0,tracebacklabels=1 gh_start "$bin" -test.run='^TestBubbles$' \
		-test.timeout=0 -out "$d/out" 2>"$d/start.err"; then
		gh_fail "$tag: synctestprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	# what the program's own traceback shows, so that the comparison cannot pass vacuously
	nb=$(grep -cE '^goroutine [0-9]+ \[.*, synctest (bubble|group) [0-9]+' "$d/out/goroutine.2.txt")
	nd=$(grep -cE '^goroutine [0-9]+ \[[^]]*\(durable\)' "$d/out/goroutine.2.txt")
	nl=$(grep -cE '^goroutine [0-9]+ \[.*\\x00' "$d/out/goroutine.2.txt")
	what="$nb goroutines in bubbles, $nd durable, $nl headers with NUL labels"
	if [ "$nb" -lt 30 ] || { [ "$minor" -ge 25 ] && [ "$nd" -lt 20 ]; } ||
		{ [ "$minor" -ge 26 ] && [ "$nl" -lt 4 ]; }; then
		gh_fail "$tag: the program's own traceback lacks what this check compares ($what)"
		gh_show "$d/out/goroutine.2.txt" 10
	fi
	kind=live
	synctest_cmp "$pid" "$what"
	if [ "$have_gcore" = 0 ]; then
		gh_skip "$tag: core: gcore (gdb) not installed"
	else
		timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
		if [ -s "$d/core.$pid" ]; then
			kind=core
			synctest_cmp "$d/core.$pid" "$what" "$bin"
		else
			gh_fail "$tag: gcore wrote no core"
			gh_show "$d/gcore.log" 5
		fi
		rm -f "$d/core.$pid"
	fi
	gh_stop "$pid"
}

# synctest_cmp PID-or-CORE WHAT [EXE]: synctestprog's traceback and text, $kind = live|core.
synctest_cmp() {
	local target=$1 what=$2
	shift 2
	synctest_cmp_fmt traceback "$target" "; $what" "$@"
	synctest_cmp_fmt text "$target" "" "$@"
}

# synctest_cmp_fmt traceback|text PID-or-CORE NOTE [EXE]: go-heap's -f FORMAT against
# synctestprog's own goroutine.2.txt (debug=2, cmp_tb) or goroutine.txt (debug=1, cmp_text),
# the writer dropped; NOTE ends the PASS line.
synctest_cmp_fmt() {
	local fmt=$1 target=$2 note=$3 name cmpf want log debug lines
	shift 3
	case $fmt in
	traceback) name=stb cmpf=cmp_tb want=goroutine.2.txt log=cmptb.log debug=2 lines=40 ;;
	text) name=stx cmpf=cmp_text want=goroutine.txt log=cmp.log debug=1 lines=30 ;;
	esac
	run "$name" -p goroutine -f "$fmt" "$target" "$@"
	ok "$name" "$kind $fmt" || return
	if "$cmpf" "$d/out/$want" "$d/$name.out" synctestprog.writeProfiles \
		synctestprog.idleForever >"$d/$log" 2>&1; then
		gh_pass "$tag: $kind: $fmt == in-process debug=$debug ($(tail -n 1 "$d/$log" | sed 's/, [0-9]* frames with argument words//')$note)"
	else
		gh_fail "$tag: $kind: $fmt differs from $want"
		gh_show "$d/$log" "$lines"
	fi
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
		[ "$variant" = default ] && dwarf_check "$bin"
		# the stripped build with GODEBUG=tracebacklabels=1 (1.26+; earlier releases ignore
		# it): the traceback's header labels then depend on runtime.debug.tracebacklabels,
		# which go-heap locates in goroutineheader's code (these GOPATH-mode builds default
		# to 0, module builds of 1.27 to 1); and with tracebackancestors=3 and -ancestors,
		# so that its traceback holds creators' stacks symbolized without a .symtab
		godebug=${GODEBUG-} extra=()
		if [ "$variant" = stripped ]; then
			godebug=tracebacklabels=1,tracebackancestors=3
			extra=(-ancestors)
		fi
		if ! GODEBUG=$godebug gh_start "$bin" -out "$d/out" "${extra[@]}" 2>"$GH_TMP/start.err"; then
			gh_fail "$tag: goroutineprog: $(cat "$GH_TMP/start.err")"
			continue
		fi
		pid=$GH_PID
		if ! gh_have_goheap; then
			gh_skip "$tag: $GH_GOHEAP is not built"
		elif ! gh_can_read_mem "$pid"; then
			gh_skip "$tag: cannot read the target's memory (ptrace restricted)"
		elif [ "$variant" = stripped ]; then
			# -s -w: runtime.allgs and fingStatus located from machine code (locate.c)
			run text -p goroutine -f text "$pid"
			ok text "stripped live text" &&
				compare "$d/out/goroutine.txt" "$d/text.out" "stripped: live: text == in-process goroutine debug=1"
			# argument lists need funcdata through moduledata.gofunc (located, no go:func.* symbol)
			if [ "${goname#go1.}" -ge 26 ] 2>/dev/null &&
				! grep -qE '^goroutine [0-9]+ \[.*( labels:\{|\] \{)' "$d/out/goroutine.2.txt"; then
				gh_fail "$tag: stripped: the program's own traceback has no header labels (GODEBUG=tracebacklabels=1)"
			fi
			if ! grep -q '^\[originating from goroutine [0-9]*\]:$' "$d/out/goroutine.2.txt"; then
				gh_fail "$tag: stripped: the program's own traceback has no ancestors (GODEBUG=tracebackancestors=3)"
			fi
			tb_check tb "$d/out/goroutine.2.txt" "stripped: live" "$pid"
			run vv -v -p goroutine -f text "$pid"
			if grep -q 'allgs via allgadd' "$d/vv.err" "$d/vv.out" 2>/dev/null; then
				gh_pass "$tag: stripped: -v says how allgs was found"
			else
				gh_fail "$tag: stripped: -v does not say 'allgs via allgadd'"
				gh_show "$d/vv.err" 5
			fi
			if [ "$i" = 0 ] || [ "$i" = $((n - 1)) ]; then
				if [ "$have_gcore" = 0 ]; then
					gh_skip "$tag: stripped core: gcore (gdb) not installed"
				else
					timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
					if [ -s "$d/core.$pid" ]; then
						run ctext -p goroutine -f text "$d/core.$pid" "$bin"
						ok ctext "stripped core text" &&
							compare "$d/out/goroutine.txt" "$d/ctext.out" "stripped: core: text == in-process goroutine debug=1"
					else
						gh_fail "$tag: stripped: gcore wrote no core"
						gh_show "$d/gcore.log" 5
					fi
					rm -f "$d/core.$pid"
				fi
			fi
		else
			kind=live
			checks "$pid"
			if [ "$variant" = default ]; then
				snapshot "$pid"
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
		if [ "$variant" = default ] && gh_have_goheap && gh_can_read_mem "$$" 2>/dev/null; then
			if [ "$i" = 0 ] || [ "$i" = $((n - 1)) ]; then
				ancestors "$bin" 1
			else
				ancestors "$bin" 0
			fi
		fi
		if [ "$variant" = default ] && { [ "$i" = 0 ] || [ "$i" = $((n - 1)) ]; } && gh_have_goheap; then
			spin_core "$bin"
			gh_can_read_mem "$$" 2>/dev/null && spin_live "$bin"
		fi
	done
	gh_have_goheap && synctest_checks "$goname" "$root"
	if { [ "$i" = 0 ] || [ "$i" = $((n - 1)) ]; } && gh_have_goheap; then
		arm64_core "$goname" "$root" default
		arm64_core "$goname" "$root" stripped
	fi
done
gh_summary
