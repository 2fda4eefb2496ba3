#!/bin/bash
# tests/run-force.sh: go-heap --force on live Go programs whose linker disabled heap profiling,
# for every installed Go toolchain (issue 6).
#
# The target is tests/go/forceprog: it never references runtime.MemProfile, so
# runtime.MemProfileRate is 0; all its deliberate allocation happens in main.allocateSteadily.
# For each toolchain (go1.19, go1.21 to go1.27):
#   - go-heap PID exits 3 and names --force                  (profiling disabled before)
#   - --force --dry-run: exit 0, says what it would write; the rate stays 0
#   - --force -v: exit 0, "0 -> 524288"; the program itself now reads 524288
#   - a second --force is a no-op ("already 524288: nothing changed")
#   - after a few seconds main.allocateSteadily holds >= 90% of alloc_space
#     (go-heap -p allocs -f collapsed -s alloc_space)
#   - the program keeps allocating flat out on two goroutines for a while, then exits cleanly
#     on SIGTERM ("EXIT ok ... rate=524288", status 0)
#   - the same on a position-independent build (load bias)
#   - SIGKILL of go-heap in the middle of the stop (GOHEAP_TEST_STOP_DELAY_MS keeps it stopped
#     for 3 s): every thread was in tracing stop, and afterwards none is, the program runs on
#     and allocates, and nothing was written
#   - SIGTERM of go-heap in the middle of the stop is held until the target is resumed: the
#     write completes and the program runs on
#   - the stack walk: with GOHEAP_TEST_UNSAFE_FUNC naming a function of the target, go-heap
#     must find it at each of 20 stops and refuse (exit 1, one line, rate still 0):
#     main.parkLocked (a goroutine parked on its locked thread: past the runtime's g0 frames,
#     through g.sched from go1.25, where mcall clears the frame pointer)
#     and main.spinTop (a thread running user code, or preempted, or descheduled)
#   - a target with 100 extra threads (runtime.LockOSThread): --force succeeds, -v reports
#     more than 100 stopped threads, the program runs on
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS,
# GOHEAP_KEEP=1, GOHEAP_TIMEOUT (seconds per go-heap run, default 60).
# Test hooks used (src/lib/force.c): GOHEAP_TEST_STOP_DELAY_MS=N keeps the target stopped N ms
# longer; GOHEAP_TEST_UNSAFE_FUNC=NAME counts NAME as part of the sampling path.
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
# Exit: 0, 1 if anything failed, 77 if nothing could run (no go-heap, no Go, ptrace forbidden).
set -u
. "$(dirname "$0")/lib.sh"
gh_init

if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP not built"
	gh_summary
fi
gh_need_toolchains

# run NAME ARGS...: run go-heap; stdout to $d/NAME.out, stderr to $d/NAME.err, status in $rc.
run() {
	local name=$1
	shift
	timeout "${GOHEAP_TIMEOUT:-60}" "$GH_GOHEAP" "$@" >"$d/$name.out" 2>"$d/$name.err"
	rc=$?
}

# status OUT PID: ask the program for a STATUS line (SIGUSR1) and print it; 1 if none comes
# (within 30 s: a loaded machine).
status() {
	local out=$1 pid=$2 n i
	n=$(grep -c '^STATUS' "$out")
	kill -USR1 "$pid" 2>/dev/null || return 1
	for i in $(seq 600); do
		if [ "$(grep -c '^STATUS' "$out")" -gt "$n" ]; then
			grep '^STATUS' "$out" | tail -n 1
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# all_stopped: every thread of $pid is in tracing stop (sets during and total).
all_stopped() {
	during=$(traced_threads "$pid")
	total=$(ls /proc/"$pid"/task | wc -l)
	[ "$during" -eq "$total" ]
}

# field LINE NAME: the value of NAME=VALUE in a STATUS/EXIT line.
field() { sed -n "s/.* $2=\([-0-9]*\).*/\1/p" <<<"$1"; }

# traced_threads PID: how many of its threads are in tracing stop ("t" in /proc/PID/task/*/stat).
traced_threads() {
	local f n=0 st
	for f in /proc/"$1"/task/*/stat; do
		st=$(sed 's/.*) \(.\).*/\1/' "$f" 2>/dev/null)
		[ "$st" = t ] && n=$((n + 1))
	done
	echo "$n"
}

# stop_clean PID OUT WHAT: SIGTERM; PASS if it exits 0 with an "EXIT ok" line.
stop_clean() {
	local pid=$1 out=$2 what=$3 st
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	gh_stop "$pid" 2>/dev/null
	if [ "$st" -eq 0 ] && grep -q '^EXIT ok' "$out"; then
		gh_pass "$tag: $what ($(grep '^EXIT ok' "$out" | cut -d' ' -f3-))"
	else
		gh_fail "$tag: $what: exit status $st"
		gh_show "$out" 5
	fi
}

# Refuse early, and skip everything, if this user may not ptrace at all.
probe_ptrace() {
	if ! gh_can_read_mem "$1"; then
		return 1
	fi
	run probe --force --dry-run "$1"
	[ "$rc" -eq 0 ]
}

basic_checks() {
	local pid=$1 out=$2 line share

	run before "$pid"
	if [ "$rc" -eq 3 ] && grep -q -- '--force' "$d/before.err"; then
		gh_pass "$tag: exit 3 naming --force before"
	else
		gh_fail "$tag: before --force: exit $rc (want 3 naming --force)"
		gh_show "$d/before.err" 3
	fi

	run dry --force --dry-run "$pid"
	line=$(status "$out" "$pid")
	if [ "$rc" -eq 0 ] && grep -q 'dry run: would write 524288' "$d/dry.out" &&
		[ "$(field "$line" rate)" = 0 ]; then
		gh_pass "$tag: --dry-run reports and changes nothing"
	else
		gh_fail "$tag: --dry-run: exit $rc, program says '$line'"
		gh_show "$d/dry.out" 3
		gh_show "$d/dry.err" 3
	fi

	run force --force -v "$pid"
	line=$(status "$out" "$pid")
	if [ "$rc" -eq 0 ] && grep -q '0 -> 524288' "$d/force.out" &&
		[ "$(field "$line" rate)" = 524288 ]; then
		gh_pass "$tag: --force enables profiling ($(grep stopped "$d/force.err"))"
	else
		gh_fail "$tag: --force: exit $rc, program says '$line'"
		gh_show "$d/force.out" 3
		gh_show "$d/force.err" 3
	fi

	run again --force "$pid"
	if [ "$rc" -eq 0 ] && grep -q 'already 524288: nothing changed' "$d/again.out"; then
		gh_pass "$tag: a second --force is a no-op"
	else
		gh_fail "$tag: second --force: exit $rc"
		gh_show "$d/again.out" 3
		gh_show "$d/again.err" 3
	fi

	sleep 3
	run allocs -p allocs -f collapsed -s alloc_space "$pid"
	share=$(awk '{ t += $NF } /main\.allocateSteadily/ { m += $NF }
		END { if (t > 0) printf "%d", 100 * m / t; else print 0 }' "$d/allocs.out")
	if [ "$rc" -eq 0 ] && [ "$share" -ge 90 ]; then
		gh_pass "$tag: main.allocateSteadily has $share% of alloc_space"
	else
		gh_fail "$tag: main.allocateSteadily has ${share:-?}% of alloc_space (exit $rc)"
		gh_show "$d/allocs.out" 5
		gh_show "$d/allocs.err" 3
	fi
}

first=1
for i in "${!GH_GO_NAMES[@]}"; do
	go=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	for variant in $(gh_variants_for "$go" pie); do
		tag="$go/$variant"
		d="$GH_TMP/$go-$variant"
		mkdir -p "$d"
		if ! bin=$(gh_build forceprog "$go" "$root" "$variant"); then
			gh_fail "$tag: building forceprog"
			continue
		fi
		if ! gh_start "$bin" -workers 2 -pause 0; then
			gh_fail "$tag: forceprog did not start"
			continue
		fi
		pid=$GH_PID
		out=$GH_OUT
		if [ "$first" = 1 ]; then
			first=0
			if ! probe_ptrace "$pid"; then
				gh_skip "all: cannot use ptrace on a child process here: $(head -n 1 "$d/probe.err" 2>/dev/null)"
				gh_stop "$pid"
				gh_summary
			fi
		fi
		basic_checks "$pid" "$out"
		# Two goroutines allocating flat out, now sampled, for a while.
		sleep 4
		if kill -0 "$pid" 2>/dev/null; then
			stop_clean "$pid" "$out" "heavy allocation after --force, then a clean exit"
		else
			gh_fail "$tag: forceprog died after --force"
			gh_show "$GH_ERR" 10
		fi
	done

	tag="$go"
	d="$GH_TMP/$go-kill"
	mkdir -p "$d"
	gh_build_or_fail "$tag: kill during the stop" forceprog "$go" "$root" default || continue
	bin=$GH_BIN

	# SIGKILL in the middle of the stop: the kernel detaches (exit_ptrace).
	if gh_start "$bin" -threads 10; then
		pid=$GH_PID
		out=$GH_OUT
		# the stop held 30 s (it is killed long before): waited for, not slept for
		GOHEAP_TEST_STOP_DELAY_MS=30000 "$GH_GOHEAP" --force "$pid" >"$d/kill.out" 2>"$d/kill.err" &
		gp=$!
		gh_wait_for 5 all_stopped
		kill -KILL "$gp"
		wait "$gp" 2>/dev/null
		sleep 0.3
		after=$(traced_threads "$pid")
		l1=$(status "$out" "$pid")
		progressed() {
			l2=$(status "$out" "$pid")
			[ "$(field "$l2" allocs)" -gt "$(field "$l1" allocs)" ]
		}
		gh_wait_for 2 progressed
		if [ "$during" -eq "$total" ] && [ "$after" -eq 0 ] &&
			[ "$(field "$l2" allocs)" -gt "$(field "$l1" allocs)" ] &&
			[ "$(field "$l2" rate)" = 0 ]; then
			gh_pass "$tag: SIGKILL of go-heap mid-stop ($during/$total threads stopped) leaves the program running, unchanged"
		else
			gh_fail "$tag: SIGKILL mid-stop: $during/$total stopped during, $after after; '$l1' -> '$l2'"
		fi
		stop_clean "$pid" "$out" "clean exit after a SIGKILLed go-heap"
	else
		gh_fail "$tag: forceprog -threads 10 did not start"
	fi

	# SIGTERM in the middle of the stop waits for the resume.
	if gh_start "$bin" -threads 10; then
		pid=$GH_PID
		out=$GH_OUT
		GOHEAP_TEST_STOP_DELAY_MS=1500 "$GH_GOHEAP" --force "$pid" >"$d/term.out" 2>"$d/term.err" &
		gp=$!
		# SIGTERM once every thread is stopped (waited for: go-heap's start is slow under load)
		gh_wait_for 5 all_stopped
		kill -TERM "$gp"
		wait "$gp"
		grc=$?
		sleep 0.2
		after=$(traced_threads "$pid")
		line=$(status "$out" "$pid")
		if [ "$after" -eq 0 ] && [ "$(field "$line" rate)" = 524288 ]; then
			gh_pass "$tag: SIGTERM of go-heap mid-stop is held until the target is resumed (go-heap status $grc)"
		else
			gh_fail "$tag: SIGTERM mid-stop: $after threads still stopped, program says '$line'"
			gh_show "$d/term.err" 3
		fi
		stop_clean "$pid" "$out" "clean exit after a SIGTERMed go-heap"
	else
		gh_fail "$tag: forceprog -threads 10 did not start"
	fi

	# The stack walk finds a known function on its thread at every stop (the hook makes it
	# "unsafe", so go-heap retries 20 times and refuses): main.parkLocked lies past the
	# runtime's g0 frames (mcall), main.spinTop under a thread running user code, preempted
	# by the runtime's signal, or descheduled.  Nothing may be written.
	# From go1.25 runtime.mcall clears BP on the switch to g0 ("as caller may execute on
	# another M", asm_amd64.s), so the chain ends there: the walk crosses through the g mcall
	# pushed and its g.sched (ptrace.c, cross_step), which this checks on 1.25+.
	if gh_start "$bin" -threads 3 -spin -workers 1 -pause 0; then
		pid=$GH_PID
		out=$GH_OUT
		for fn in main.parkLocked main.spinTop; do
			GOHEAP_TEST_UNSAFE_FUNC=$fn run "unsafe-$fn" --force "$pid"
			line=$(status "$out" "$pid")
			if [ "$rc" -eq 1 ] && [ "$(field "$line" rate)" = 0 ] &&
				grep -q "was inside $fn at each of 20 stops: nothing written" "$d/unsafe-$fn.err" &&
				[ "$(wc -l <"$d/unsafe-$fn.err")" -eq 1 ]; then
				gh_pass "$tag: stack walk finds $fn at each of 20 stops (go-heap refuses, rate still 0)"
			else
				gh_fail "$tag: $fn counted unsafe: exit $rc, program says '$line'"
				gh_show "$d/unsafe-$fn.err" 3
			fi
		done
		[ "$(traced_threads "$pid")" -eq 0 ] || gh_fail "$tag: threads left in tracing stop after the refusals"
		stop_clean "$pid" "$out" "clean exit after 40 stops"
	else
		gh_fail "$tag: forceprog -threads 3 -spin did not start"
	fi

	# 100 extra threads.
	if gh_start "$bin" -threads 100; then
		pid=$GH_PID
		out=$GH_OUT
		run threads100 --force -v "$pid"
		n=$(sed -n 's/.*stopped \([0-9]*\) threads.*/\1/p' "$d/threads100.err")
		line=$(status "$out" "$pid")
		if [ "$rc" -eq 0 ] && [ "${n:-0}" -gt 100 ] && [ "$(field "$line" rate)" = 524288 ]; then
			gh_pass "$tag: 100-thread target ($(grep stopped "$d/threads100.err" | sed 's/^go-heap: //'))"
		else
			gh_fail "$tag: 100-thread target: exit $rc, '$line'"
			gh_show "$d/threads100.err" 3
		fi
		stop_clean "$pid" "$out" "clean exit of the 100-thread target"
	else
		gh_fail "$tag: forceprog -threads 100 did not start"
	fi
done
gh_summary
