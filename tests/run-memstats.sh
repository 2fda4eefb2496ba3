#!/bin/bash
# tests/run-memstats.sh: go-heap -p memstats (issue 25) against the program's own
# runtime.ReadMemStats, line by line, on every toolchain.
#
# For each toolchain (GOHEAP_GO_VERSIONS, default tests/lib.sh GH_GO_ALL), default and stripped
# (-s -w) builds, tests/go/memstatsprog in its two modes:
#   - before: ReadMemStats (and getrusage) at the quiet point, then a raw read of a FIFO;
#   - after: the quiet point leaves objects in the Ps' cached spans and tiny blocks (what
#     readmemstats_m's flush folds in), ReadMemStats is the first thing the released program
#     does;
# while it blocks, go-heap reads it:
#   - live (running, then stopped: -v says the pause): every line == the program's, MaxRSS
#     (VmHWM) included;
#   - live --no-stop: the same lines (the program is still), marked best-effort;
#   - -p memstats -f json (mode after, live): byte for byte the program's own json.Marshal of
#     the runtime.MemStats it read (released with "j"), BySize and the pause ring included;
#   - from a gcore core: every line == the program's but MaxRSS, which a core does not record
#     (go-heap says so instead);
#   - -p heap -f text (the default build, mode before): its # runtime.MemStats trailer == the
#     program's lines; released with "h", the program then writes its own heap?debug=1, whose
#     trailer must equal go-heap's but for what its writer's allocations explain (the collector's
#     statistics and pause ring equal, Mallocs/Frees at most 64 more, byte counts within 1-8 MiB).
# The program prints its MemStats in the trailer's lines (mode before: before READY, formatted
# without allocating; mode after: once released by a byte on the FIFO); MaxRSS, in both, is its
# getrusage at the quiet point (gcore, run after go-heap's reads, can raise the peak RSS).
# Tests compare with the program at the instant go-heap read it: mode before's program reads
# its MemStats again once released and a move since the quiet point (the runtime's background
# work) voids the comparison and runs it again (moved, below).
# hostile (the newest toolchain, default build, mode after): damaged copies of its core (an
# absurd allp length, a P pointer and a cached span pointer into nowhere) give exit 1 and one
# error line, never a crash.
# bigparent (the oldest and newest toolchains): memstatsprog exec'd from a 512 MiB image of
# itself: go-heap's MaxRSS is VmHWM (the program's getrusage keeps the old image's peak:
# documented, asserted both ways); every other line == the program's.
# churn (go1.22 and the newest): memstatsprog churn allocates on four goroutines for ever; 5
# stopped reads and one --no-stop read must each succeed and be consistent as ReadMemStats' are
# (HeapAlloc <= HeapInuse <= HeapSys, HeapReleased <= HeapIdle, Alloc == HeapAlloc, Mallocs -
# Frees == HeapObjects, Sys == the sum of the *Sys fields), TotalAlloc, Mallocs, Frees and NumGC
# never decreasing from one read to the next.
# arm64 (every toolchain, default build; the newest stripped too): memstatsprog built with
# GOARCH=arm64 runs under qemu-aarch64-static in mode before, is killed with SIGABRT
# (GOTRACEBACK=crash: qemu writes the guest's core) and go-heap -p memstats of that core on this
# host == the lines it printed, but MaxRSS.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

have_gcore=1
command -v gcore >/dev/null 2>&1 || have_gcore=0
ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)" 2>/dev/null
gh_qemu_probe

# run NAME ARGS...: go-heap ARGS into $d/NAME.out/.err; its status in $rc
run() {
	local name=$1
	shift
	"$GH_GOHEAP" "$@" >"$d/$name.out" 2>"$d/$name.err"
	rc=$?
}

# While first=1 the results are held (held), so that a check run twice counts once.
eval "orig_gh_pass() $(declare -f gh_pass | tail -n +2)"
eval "orig_gh_fail() $(declare -f gh_fail | tail -n +2)"
eval "orig_gh_skip() $(declare -f gh_skip | tail -n +2)"
held=()
gh_pass() { if [ "$first" = 1 ]; then held+=("P$*"); else orig_gh_pass "$@"; fi; }
gh_fail() { if [ "$first" = 1 ]; then held+=("F$*"); else orig_gh_fail "$@"; fi; }
gh_skip() { if [ "$first" = 1 ]; then held+=("S$*"); else orig_gh_skip "$@"; fi; }
release_held() {
	local e
	for e in "${held[@]+"${held[@]}"}"; do
		case $e in
		P*) orig_gh_pass "${e#P}" ;;
		F*) orig_gh_fail "${e#F}" ;;
		*) orig_gh_skip "${e#S}" ;;
		esac
	done
	held=()
}

# same WHAT GOT WANT: the files equal line by line.  On a first attempt (first=1) a difference
# is only recorded in $differed: check runs once more with a fresh program, and says so.
first=0
differed=
same() {
	if cmp -s "$2" "$3"; then
		gh_pass "$tag: $1: $(wc -l <"$3") lines == the program's ReadMemStats${retried:+ (second run)}"
	elif [ "$first" = 1 ]; then
		differed="$differed; $1: $(diff_fields "$2" "$3")"
	else
		gh_fail "$tag: $1: differs from the program's ReadMemStats (< go-heap, > program)"
		diff "$2" "$3" | cut -c1-160 >"$2.diff"
		gh_show "$2.diff" 12
	fi
}

# moved PROGOUT: mode before's bracket.  The program reads its MemStats again once released
# and prints "MOVED Field a->b ..." when they changed since its quiet point (the runtime's
# background work: a sweep freeing the last GC's workbufs, a stack span), go-heap's reads
# being in between: its lines are then not the program at go-heap's instant, and nothing is
# compared.  A first attempt runs again (once_more's NOTE says what moved); status 1 then.
moved() {
	local m
	m=$(sed -n 's/^MOVED //p' "$1")
	[ -z "$m" ] && return 0
	if [ "$first" = 1 ]; then
		differed="$differed; the program's MemStats moved after its quiet point: $m"
	else
		gh_fail "$tag: the program's MemStats moved after its quiet point twice (go-heap's reads in between): $m"
	fi
	return 1
}

# diff_fields GOT WANT: "Field go-heap/program" of each line that differs (arrays: their name)
diff_fields() {
	awk 'FILENAME == ARGV[1] { a[$2] = $0; next }
	     ($2 in a) && a[$2] != $0 { x = a[$2]; sub(/^# [^ ]* = /, "", x); y = $0; sub(/^# [^ ]* = /, "", y)
		if (length(x) > 40) printf "%s ", $2; else printf "%s %s/%s ", $2, x, y }' "$1" "$2"
}

# bad NAME WHAT VADDR HEX: a copy of $core with 8 bytes at VADDR replaced; go-heap -p memstats
# of it must exit 1 with one line on stderr matching WHAT
bad() {
	local name=$1 what=$2
	cp "$core" "$d/bad.core"
	python3 "$GH_TESTS/heapdump.py" --patch "$d/bad.core" "$3" "$4" >/dev/null
	run "$name" -p memstats "$d/bad.core" "$exe"
	if [ "$rc" = 1 ] && [ "$(wc -l <"$d/$name.err")" = 1 ] && grep -q "$what" "$d/$name.err"; then
		gh_pass "$tag: hostile core: $name: one error line ($(cut -c1-90 "$d/$name.err"))"
	else
		gh_fail "$tag: hostile core: $name (exit $rc)"
		gh_show "$d/$name.err" 3
	fi
	rm -f "$d/bad.core"
}

# hostile CORE EXE: damaged copies of a core
hostile() {
	local core=$1 exe=$2 allp arr p0 mc
	if ! command -v python3 >/dev/null 2>&1; then
		gh_skip "$tag: hostile core: python3 not installed"
		return
	fi
	allp=$((0x$(nm "$exe" | awk '$3 == "runtime.allp" {print $1}')))
	arr=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" "$allp" 2>/dev/null)
	p0=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" "$arr" 2>/dev/null)
	bad allp-len 'runtime.allp is damaged' $((allp + 8)) ffffffffffff0000
	bad allp0 'reading allp\[0\].mcache\|allp\[0\]' "$arr" 1000000000000000
	if [ -n "$p0" ]; then
		# p.mcache at 56 (1.23+); its alloc[0] at 48 (1.24+)
		mc=$(python3 "$GH_TESTS/heapdump.py" --peek "$core" $((p0 + 56)) 2>/dev/null)
		[ -n "$mc" ] && bad span 'mcache of allp\[0\] is damaged\|cached span' $((mc + 48 + 8 * 5)) 0800000000000000
	fi
}

# check GONAME GOROOT VARIANT MODE
check() {
	local goname=$1 root=$2 variant=$3 mode=$4 bin pid i
	tag="$goname/$variant/$mode"
	d="$GH_TMP/$goname-$variant-$mode"
	mkdir -p "$d"
	gh_build_or_fail "$tag" memstatsprog "$goname" "$root" "$variant" || return
	bin=$GH_BIN
	mkfifo "$d/fifo" || { gh_fail "$tag: mkfifo"; return; }
	if ! gh_start "$bin" "$d/fifo" "$mode" 2>"$d/start.err"; then
		gh_fail "$tag: memstatsprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	prog_out=$GH_OUT

	run live -v -p memstats "$pid"
	if [ "$rc" != 0 ]; then
		gh_fail "$tag: live: exit $rc: $(tail -n 2 "$d/live.err")"
	elif ! grep -q 'memstats snapshot: the target was stopped for' "$d/live.err"; then
		gh_fail "$tag: live: -v does not print the pause"
		gh_show "$d/live.err" 5
	fi
	pause=$(sed -n 's/.*memstats snapshot: the target was stopped for \([0-9.]* ms\).*/\1/p' "$d/live.err")
	run nostop -p memstats --no-stop "$pid"
	[ "$rc" = 0 ] || gh_fail "$tag: --no-stop: exit $rc: $(tail -n 2 "$d/nostop.err")"
	if [ "$variant" = default ] && [ "$mode" = before ]; then
		run heap -p heap -f text "$pid"
		[ "$rc" = 0 ] || gh_fail "$tag: -p heap -f text: exit $rc: $(tail -n 2 "$d/heap.err")"
	fi
	if [ "$mode" = after ]; then
		run json -p memstats -f json "$pid"
		[ "$rc" = 0 ] || gh_fail "$tag: -p memstats -f json: exit $rc: $(tail -n 2 "$d/json.err")"
	fi
	core=
	if [ "$have_gcore" = 1 ]; then
		timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
		if [ -s "$d/core.$pid" ]; then
			core="$d/core.$pid"
			run core -p memstats "$core" "$bin"
			[ "$rc" = 0 ] || gh_fail "$tag: core: exit $rc: $(tail -n 2 "$d/core.err")"
			if [ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ] &&
				[ "$variant" = default ] && [ "$mode" = after ]; then
				hostile "$core" "$bin"
			fi
			rm -f "$core"
		else
			gh_fail "$tag: gcore wrote no core"
			gh_show "$d/gcore.log" 5
		fi
	fi

	# release the program (mode after: it prints its ReadMemStats; the default build in mode
	# before: "h", it writes its own heap?debug=1, compared with go-heap's read just before:
	# not with heap.out, read before gcore, which can raise the target's peak RSS, MaxRSS, on a
	# kernel that gives a read fault a page: a CI run's trailer said 5 693 440 against the
	# program's 1 258 098 688, this core's size)
	if [ -s "$d/heap.out" ]; then
		run heap2 -p heap -f text "$pid"
		[ "$rc" = 0 ] || gh_fail "$tag: -p heap -f text (before the release): exit $rc: $(tail -n 2 "$d/heap2.err")"
		echo h >"$d/fifo"
	elif [ -s "$d/json.out" ]; then
		echo j >"$d/fifo"
	else
		echo x >"$d/fifo"
	fi
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	gh_stop "$pid"
	sed '/^HEAPTEXT$/,$d; /^JSON$/,$d' "$prog_out" | grep -v '^READY\|^MOVED' >"$d/prog.txt"
	sed -n '/^JSON$/{n;p}' "$prog_out" >"$d/prog.json"
	sed -n '/^HEAPTEXT$/,$p' "$prog_out" | sed 1d >"$d/own-heap.txt"
	if [ "$(grep -c '^# ' "$d/prog.txt")" -lt 27 ]; then
		gh_fail "$tag: the program printed no MemStats"
		gh_show "$d/prog.txt" 5
		return
	fi
	moved "$prog_out" || return
	[ -s "$d/live.out" ] && same "live (stopped ${pause:-?})" "$d/live.out" "$d/prog.txt"
	if [ -s "$d/json.out" ]; then
		# json.Marshal's bytes, the line's newline aside
		echo >>"$d/json.out"
		same "-p memstats -f json == its json.Marshal(ReadMemStats)" "$d/json.out" "$d/prog.json"
	fi
	if [ -s "$d/nostop.out" ]; then
		if grep -q '^# go-heap: best-effort' "$d/nostop.out"; then
			grep -v '^# go-heap: best-effort' "$d/nostop.out" >"$d/nostop.txt"
			same "live --no-stop (marked best-effort)" "$d/nostop.txt" "$d/prog.txt"
		else
			gh_fail "$tag: --no-stop output is not marked best-effort"
		fi
	fi
	if [ "$have_gcore" = 0 ]; then
		gh_skip "$tag: core: gcore (gdb) not installed"
	elif [ -s "$d/core.out" ]; then
		grep -v '^# MaxRSS' "$d/prog.txt" >"$d/prog-nomaxrss.txt"
		if grep -q '^# go-heap: no MaxRSS: a core' "$d/core.out"; then
			grep -v '^# go-heap: no MaxRSS' "$d/core.out" >"$d/core.txt"
			same "core (MaxRSS: said to be absent)" "$d/core.txt" "$d/prog-nomaxrss.txt"
		else
			gh_fail "$tag: core: MaxRSS not said to be absent"
		fi
	fi
	if [ -s "$d/heap.out" ]; then
		sed -n '/^# runtime.MemStats$/,$p' "$d/heap.out" >"$d/heap.trailer"
		if [ "$(sed -n '/^# runtime.MemStats$/{x;p;q};h' "$d/heap.out")" != "" ]; then
			gh_fail "$tag: -p heap -f text: no blank line before the trailer"
		fi
		same "-p heap -f text's trailer" "$d/heap.trailer" "$d/prog.txt"
		sed -n '/^# runtime.MemStats$/,$p' "$d/heap2.out" >"$d/heap2.trailer"
		own_trailer
	fi
}

# own_trailer: -p heap -f text's trailer read just before the release (heap2) against the
# program's own heap?debug=1 trailer, written once released: the statistics of the collector and its pause ring equal, the
# allocation counters and the heap's page counts no further apart than the writer's own
# allocations (new(runtime.MemStats), a span for its size class, the text's buffers) explain
own_trailer() {
	sed -n '/^# runtime.MemStats$/,$p' "$d/own-heap.txt" >"$d/own.trailer"
	if [ ! -s "$d/own.trailer" ]; then
		gh_fail "$tag: the program's own heap?debug=1 has no trailer"
		return
	fi
	if python3 - "$d/heap2.trailer" "$d/own.trailer" >"$d/own.cmp" 2>&1 <<'PY'
import re, sys
def load(p):
    out = {}
    for l in open(p):
        m = re.match(r"^# (\w+) = (.*)$", l.rstrip("\n"))
        if m:
            out[m.group(1)] = m.group(2)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
equal = ["Lookups", "NextGC", "LastGC", "PauseNs", "PauseEnd", "NumGC", "NumForcedGC",
         "GCCPUFraction", "DebugGC", "MCache", "BuckHashSys"]
grow = {"Mallocs": 64, "Frees": 64, "TotalAlloc": 1 << 20}   # own - go-heap in [0, N]
near = {"Alloc": 1 << 20, "HeapAlloc": 1 << 20, "HeapObjects": 64, "HeapSys": 4 << 20,
        "HeapIdle": 4 << 20, "HeapInuse": 4 << 20, "HeapReleased": 4 << 20, "Sys": 4 << 20,
        "GCSys": 1 << 20, "OtherSys": 1 << 20, "MaxRSS": 8 << 20}
bad = []
if set(a) != set(b):
    bad.append("fields %s vs %s" % (sorted(a), sorted(b)))
for k in equal:
    if a.get(k) != b.get(k):
        bad.append("%s %s != %s" % (k, a.get(k, "")[:40], b.get(k, "")[:40]))
for k, n in grow.items():
    d = int(b[k]) - int(a[k])
    if not 0 <= d <= n:
        bad.append("%s %s -> %s" % (k, a[k], b[k]))
for k, n in near.items():
    if abs(int(b[k]) - int(a[k])) > n:
        bad.append("%s %s vs %s" % (k, a[k], b[k]))
for k in ("Stack", "MSpan"):
    x, y = [list(map(int, v.split(" / "))) for v in (a[k], b[k])]
    if abs(x[0] - y[0]) > 1 << 20 or abs(x[1] - y[1]) > 1 << 20:
        bad.append("%s %s vs %s" % (k, a[k], b[k]))
print("; ".join(bad) if bad else "Mallocs +%d, HeapAlloc %+d" % (
    int(b["Mallocs"]) - int(a["Mallocs"]), int(b["HeapAlloc"]) - int(a["HeapAlloc"])))
sys.exit(1 if bad else 0)
PY
	then
		gh_pass "$tag: -p heap -f text's trailer == the program's own heap?debug=1 trailer but its writer's allocations ($(cat "$d/own.cmp"))"
	else
		gh_fail "$tag: -p heap -f text's trailer vs the program's own heap?debug=1: $(cat "$d/own.cmp")"
	fi
}

# build_arm64 GONAME GOROOT VARIANT: memstatsprog for GOARCH=arm64 (gh_build_arm64).
build_arm64() { gh_build_arm64 memstatsprog "$@"; }

# arm64 GONAME GOROOT VARIANT: a qemu core of memstatsprog (mode before) against its lines
arm64() {
	local goname=$1 root=$2 variant=$3 bin pid core i
	tag="$goname/arm64/$variant/qemu"
	d="$GH_TMP/$goname-arm64-$variant"
	mkdir -p "$d/run"
	if [ "$have_qemu" = 0 ]; then
		gh_skip "$tag: $why_qemu"
		return
	fi
	if ! bin=$(build_arm64 "$goname" "$root" "$variant" 2>"$d/build.err"); then
		gh_fail "$tag: build memstatsprog for GOARCH=arm64"
		gh_show "$d/build.err" 10
		return
	fi
	mkfifo "$d/fifo" || { gh_fail "$tag: mkfifo"; return; }
	cd "$d/run" || return
	GOTRACEBACK=crash gh_start qemu-aarch64-static "$bin" "$d/fifo" before 2>"$d/start.err"
	i=$?
	cd "$GH_TMP" || exit 1
	if [ "$i" != 0 ]; then
		gh_fail "$tag: memstatsprog under qemu: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	grep -v '^READY' "$GH_OUT" | grep -v '^# MaxRSS' >"$d/prog.txt"
	kill -ABRT "$pid"
	for i in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	gh_stop "$pid"
	core=$(ls -t "$d/run"/qemu_*.core 2>/dev/null | head -n 1)
	rm -f "$d/run/core" "$d/run"/core.[0-9]*
	if [ -z "$core" ] || [ ! -s "$core" ]; then
		gh_fail "$tag: qemu wrote no qemu_*.core after SIGABRT"
		return
	fi
	run core -p memstats "$core" "$bin"
	rm -f "$core"
	if [ "$rc" != 0 ]; then
		gh_fail "$tag: exit $rc: $(tail -n 2 "$d/core.err")"
	elif grep -q '^# go-heap: no MaxRSS: a core' "$d/core.out"; then
		grep -v '^# go-heap: no MaxRSS' "$d/core.out" >"$d/core.txt"
		same "arm64 core read on $(uname -m) (MaxRSS: said to be absent)" "$d/core.txt" "$d/prog.txt"
	else
		gh_fail "$tag: core: MaxRSS not said to be absent"
	fi
}

# field NAME FILE: the value of "# NAME = v" (the first number of "a / b": "Stack" etc. use
# field2 for the second)
field() { sed -n "s/^# $1 = \([0-9]*\).*/\1/p" "$2"; }
field2() { sed -n "s/^# $1 = [0-9]* \/ \([0-9]*\)$/\1/p" "$2"; }

# churn GONAME GOROOT: reads under allocation
churn() {
	local goname=$1 root=$2 bin pid n bad= prev= cur k f v w
	tag="$goname/churn"
	d="$GH_TMP/$goname-churn"
	mkdir -p "$d"
	gh_build_or_fail "$tag" memstatsprog "$goname" "$root" default || return
	bin=$GH_BIN
	mkfifo "$d/fifo" || { gh_fail "$tag: mkfifo"; return; }
	if ! gh_start "$bin" "$d/fifo" churn 2>"$d/start.err"; then
		gh_fail "$tag: memstatsprog churn: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	for n in 1 2 3 4 5 6; do
		if [ "$n" = 6 ]; then
			run "read$n" -p memstats --no-stop "$pid"
		else
			run "read$n" -p memstats "$pid"
		fi
		f="$d/read$n.out"
		if [ "$rc" != 0 ]; then
			bad="$bad; read $n: exit $rc: $(tail -n 1 "$d/read$n.err")"
			continue
		fi
		v=$(field HeapAlloc "$f"); w=$(field HeapInuse "$f")
		[ "$v" -le "$w" ] || bad="$bad; read $n: HeapAlloc $v > HeapInuse $w"
		v=$(field HeapSys "$f")
		[ "$w" -le "$v" ] || bad="$bad; read $n: HeapInuse $w > HeapSys $v"
		[ "$(field HeapReleased "$f")" -le "$(field HeapIdle "$f")" ] ||
			bad="$bad; read $n: HeapReleased > HeapIdle"
		[ "$(field Alloc "$f")" = "$(field HeapAlloc "$f")" ] || bad="$bad; read $n: Alloc != HeapAlloc"
		[ $(( $(field Mallocs "$f") - $(field Frees "$f") )) = "$(field HeapObjects "$f")" ] ||
			bad="$bad; read $n: Mallocs - Frees != HeapObjects"
		[ "$(field Sys "$f")" = $(( $(field HeapSys "$f") + $(field2 Stack "$f") + \
			$(field2 MSpan "$f") + $(field2 MCache "$f") + $(field BuckHashSys "$f") + \
			$(field GCSys "$f") + $(field OtherSys "$f") )) ] || bad="$bad; read $n: Sys != the sum of the *Sys"
		cur="$(field TotalAlloc "$f") $(field Mallocs "$f") $(field Frees "$f") $(field NumGC "$f")"
		if [ -n "$prev" ]; then
			set -- $prev
			for k in $cur; do
				[ "$k" -ge "$1" ] || bad="$bad; read $n: a counter went back ($prev -> $cur)"
				shift
			done
		fi
		prev=$cur
	done
	gh_stop "$pid"
	if [ -z "$bad" ]; then
		gh_pass "$tag: 5 stopped reads and 1 --no-stop read under allocation: consistent, counters never back (NumGC ${prev##* })"
	else
		gh_fail "$tag: ${bad#; }"
	fi
}

# bigparent GONAME GOROOT: memstatsprog exec'd from a 512 MiB image of itself (mode bigparent:
# the same process, exec without fork).  The program's getrusage ru_maxrss keeps the old
# image's peak (the kernel's exec_mmap moves it into the process's maxrss); /proc/PID/status's
# VmHWM, which go-heap prints, is the new image's, and nothing outside the process reads the
# other (doc/memstats.md): go-heap's MaxRSS == VmHWM x 1024, under 512 MiB, the program's own
# >= 512 MiB; every other line == the program's.
bigparent() {
	local goname=$1 root=$2 bin pid i hwm mine theirs
	tag="$goname/bigparent"
	d="$GH_TMP/$goname-bigparent"
	mkdir -p "$d"
	gh_build_or_fail "$tag" memstatsprog "$goname" "$root" default || return
	bin=$GH_BIN
	mkfifo "$d/fifo" || { gh_fail "$tag: mkfifo"; return; }
	if ! gh_start "$bin" "$d/fifo" bigparent 2>"$d/start.err"; then
		gh_fail "$tag: memstatsprog bigparent: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	run live -p memstats "$pid"
	hwm=$(awk '$1 == "VmHWM:" { print $2 * 1024 }' "/proc/$pid/status")
	echo x >"$d/fifo"
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	gh_stop "$pid"
	grep -v '^READY\|^MOVED' "$GH_OUT" >"$d/prog.txt"
	moved "$GH_OUT" || return
	if [ "$rc" != 0 ]; then
		gh_fail "$tag: live: exit $rc: $(tail -n 2 "$d/live.err")"
		return
	fi
	mine=$(field MaxRSS "$d/live.out")
	theirs=$(field MaxRSS "$d/prog.txt")
	if [ -n "$mine" ] && [ "$mine" = "$hwm" ] && [ "$mine" -lt $((512 << 20)) ] &&
		[ -n "$theirs" ] && [ "$theirs" -ge $((512 << 20)) ]; then
		gh_pass "$tag: MaxRSS $mine == VmHWM x 1024; the program's getrusage $theirs keeps the exec'd image's 512 MiB (documented)"
	else
		gh_fail "$tag: MaxRSS: go-heap ${mine:-none}, VmHWM x 1024 ${hwm:-none}, the program's ${theirs:-none} (want go-heap == VmHWM < 512 MiB <= the program's)"
	fi
	grep -v '^# MaxRSS' "$d/live.out" >"$d/live-nomaxrss.txt"
	grep -v '^# MaxRSS' "$d/prog.txt" >"$d/prog-nomaxrss.txt"
	same "live, but MaxRSS" "$d/live-nomaxrss.txt" "$d/prog-nomaxrss.txt"
}

# once_more CHECK ARGS...: CHECK (check or arm64) and, when it differed, once more with a fresh
# program.  A difference may be the program's own doing after (or, mode after, before) its
# ReadMemStats: the runtime freeing a stack span or allocating on a wakeup under load (seen:
# 32 KiB between GCSys and HeapSys, go1.19 live and a go1.21 qemu core, under load); the
# second run is said in a NOTE line and counted.
once_more() {
	first=1 differed= retried= held=()
	"$@"
	first=0
	if [ -z "$differed" ]; then
		release_held
	else
		echo "NOTE: $tag: the first run differed (${differed#; }); running it again"
		retried=1
		rm -rf "$d"
		"$@"
		retries=$((retries + 1))
	fi
}

last=$(( ${#GH_GO_NAMES[@]} - 1 ))
retries=0
for i in "${!GH_GO_NAMES[@]}"; do
	for variant in default stripped; do
		for mode in before after; do
			once_more check "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" "$variant" "$mode"
		done
	done
	once_more arm64 "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" default
	[ "$i" = "$last" ] && once_more arm64 "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" stripped
	if [ "$i" = 0 ] || [ "$i" = "$last" ]; then
		once_more bigparent "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}"
	fi
	if [ "${GH_GO_NAMES[$i]}" = go1.22 ] || { [ "$i" = "$last" ] && [ "$i" != 0 ]; }; then
		churn "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}"
	fi
done
echo "checks run a second time after a difference: $retries"
gh_summary
