#!/bin/bash
# tests/run-hostile.sh: go-heap on hostile and broken input.  Every case runs the CLI under a
# timeout and checks the exit status and the one-line message on stderr; a signal, a
# sanitizer report or a timeout is always a failure.
#
# From a core of tests/go/heapprog (gcore, shrunk by tests/fuzz/shrink-core.py, cached under
# $GOHEAP_CACHE/hostile) patched with tests/fuzz/corepatch.py at the bucket addresses:
#   bucket list with a cycle                        -> 1 "bucket list has a cycle at 0x..."
#   nstk absurdly large (2^48-1) / just above max   -> 1 "stack depth N exceeds the runtime's maximum"
#   allnext / runtime.mbuckets into unmapped memory -> 1 "reading bucket ... address not mapped"
#   bucket type overwritten                         -> 1 "type 7 where 1 was expected"
#   the segment of the first bucket zeroed          -> 1 "type 0 where 1 was expected"
#   counts near 2^63 in two buckets, every format   -> 0 with a well-formed profile
#   the segments of runtime.mbuckets and runtime.MemProfileRate zeroed
#                                                   -> 3 "no heap profile in this core"
#   runtime.mbuckets = nil (empty profile)          -> 0 "heap profile: 0: 0 [0: 1] @ heap/2"
#   the core cut at many offsets (headers, program headers, notes, data)
#                                                   -> 1 one line (0 allowed past the notes)
# Files that are not what they claim:
#   executable of another toolchain's build         -> 1 "... .note.go.buildid differs ..."
#   non-Go ELF (/bin/true) as the executable        -> 1 "... not mapped in the target"
#   non-ELF file as CORE / as EXE, empty CORE       -> 1 "not an ELF file"
#   an executable given as CORE                     -> 1 "is not a core file"
#   arm64 heapprog with the amd64 core              -> 1 "built for ELF machine 183 but the target is machine 62"
# Live targets that change under the walk (tests/fuzz/churn: new buckets from 4 goroutines):
#   go-heap while buckets are created at a high rate (x5, text and pprof)
#                                                   -> 0 with a well-formed profile, or 1 with one line
#   the target killed (SIGKILL) at staggered moments of a walk (x8)
#                                                   -> 0 or 1 with one line, never a hang
#   strace of a normal run: one execve (go-heap itself), no fork, no process_vm_writev,
#   no PTRACE_POKE*, no /proc/PID/* opened for writing, no pwrite
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS
# (the first of 1.22 / the first installed is used; a second one for the mismatch case).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
gh_init
FZ="$GH_TESTS/fuzz"
T=${GOHEAP_HOSTILE_TIMEOUT:-60}

if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
gh_need_python

# hrun ARGS...: go-heap under a timeout; sets RC, OUT, ERR (files), NERR (stderr lines).
hrun() {
	OUT="$GH_TMP/h.out"
	ERR="$GH_TMP/h.err"
	timeout "$T" "$GH_GOHEAP" "$@" >"$OUT" 2>"$ERR" </dev/null
	RC=$?
	NERR=$(wc -l <"$ERR")
	[ -s "$ERR" ] && [ "$(tail -c 1 "$ERR" | od -An -c | tr -d ' ')" != '\n' ] && NERR=$((NERR + 1))
}

# bad_exit WHAT: fail (and return 0) on a timeout, a signal or a sanitizer report.
bad_exit() {
	if [ "$RC" -eq 124 ]; then
		gh_fail "$1: no answer within ${T}s"
	elif [ "$RC" -ge 128 ]; then
		gh_fail "$1: killed by signal $((RC - 128))"
	elif grep -qE 'Sanitizer|runtime error:|LeakSanitizer' "$ERR"; then
		gh_fail "$1: sanitizer report"
	else
		return 1
	fi
	gh_show "$ERR" 12
	return 0
}

# expect WHAT STATUS REGEX ARGS...: exit STATUS; for STATUS != 0 one stderr line matching
# REGEX and an empty stdout; for 0, stdout matches REGEX.
expect() {
	local what=$1 want=$2 pat=$3
	shift 3
	hrun "$@"
	bad_exit "$what" && return
	if [ "$RC" -ne "$want" ]; then
		gh_fail "$what: exit $RC, expected $want"
		gh_show "$ERR" 5
	elif [ "$want" -ne 0 ] && { [ "$NERR" -ne 1 ] || [ -s "$OUT" ]; }; then
		gh_fail "$what: expected one line on stderr and nothing on stdout ($NERR lines)"
		gh_show "$ERR" 5
	elif [ "$want" -ne 0 ] && ! grep -qE "$pat" "$ERR"; then
		gh_fail "$what: message does not match /$pat/: $(head -c 300 "$ERR")"
	elif [ "$want" -eq 0 ] && ! grep -qE "$pat" "$OUT"; then
		gh_fail "$what: output does not match /$pat/"
		gh_show "$OUT" 5
	else
		gh_pass "$what: exit $RC${want:+ }$(head -c 160 "$ERR" | head -n 1)"
	fi
}

# either WHAT ARGS...: exit 0 with a heap profile, or exit 1 with one line; never worse.
either() {
	local what=$1
	shift
	hrun "$@"
	bad_exit "$what" && return
	case $RC in
	0)
		if grep -qE '^(heap profile: |Type: |[^ ]+ -?[0-9]+$)' "$OUT" || { [ -s "$OUT" ] && gzip -t <"$OUT" 2>/dev/null; }; then
			gh_pass "$what: exit 0, well-formed profile$( [ -s "$ERR" ] && printf ' (warning: %s)' "$(head -n 1 "$ERR" | head -c 120)")"
		else
			gh_fail "$what: exit 0 but the profile is malformed"
			gh_show "$OUT" 5
		fi
		;;
	1)
		if [ "$NERR" -eq 1 ]; then
			gh_pass "$what: exit 1: $(head -c 160 "$ERR")"
		else
			gh_fail "$what: exit 1 with $NERR lines on stderr"
			gh_show "$ERR" 5
		fi
		;;
	*)
		gh_fail "$what: exit $RC"
		gh_show "$ERR" 5
		;;
	esac
}

# ---- toolchains and programs ------------------------------------------------
gh_toolchains >/dev/null
[ ${#GH_GO_NAMES[@]} -gt 0 ] || { gh_skip "all: no Go toolchain installed"; gh_summary; }
gi=0
for i in "${!GH_GO_NAMES[@]}"; do
	[ "${GH_GO_NAMES[$i]}" = go1.22 ] && gi=$i
done
goname=${GH_GO_NAMES[$gi]}
goroot=${GH_GO_ROOTS[$gi]}
other=
for i in "${!GH_GO_NAMES[@]}"; do
	[ "$i" != "$gi" ] && other=$i
done
bin=$(gh_build heapprog "$goname" "$goroot" default) || { gh_fail "building heapprog ($goname)"; gh_summary; }

# The shrunk core of heapprog, made once per build of heapprog.
hdir="$GH_CACHE/hostile"
mkdir -p "$hdir"
core="$hdir/heapprog-$goname.core"
stamp="$(sha256sum <"$bin" | cut -d' ' -f1)"
if [ ! -s "$core" ] || [ "$(cat "$core.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$core" "$core.stamp"
	if ! command -v gcore >/dev/null 2>&1; then
		why="gcore (gdb) not installed"
	elif ! gh_start "$bin" "$GH_TMP/hp" 2>"$GH_TMP/start.log"; then
		why="heapprog did not start: $(head -c 200 "$GH_TMP/start.log")"
	elif ! gh_can_read_mem "$GH_PID"; then
		why="ptrace is not permitted"
		gh_stop "$GH_PID"
	else
		timeout 300 gcore -o "$GH_TMP/big" "$GH_PID" >"$GH_TMP/gcore.log" 2>&1
		gh_stop "$GH_PID"
		if [ -s "$GH_TMP/big.$GH_PID" ] && python3 "$FZ/shrink-core.py" "$GH_TMP/big.$GH_PID" "$core.tmp"; then
			mv -f "$core.tmp" "$core" && echo "$stamp" >"$core.stamp"
		else
			why="gcore wrote no core"
		fi
		rm -f "$GH_TMP/big.$GH_PID" "$core.tmp"
	fi
fi

if [ ! -s "$core" ]; then
	gh_skip "core cases: ${why:-no core}"
else
	c="$GH_TMP/t.core"
	patched() { cp -f "$core" "$c" && python3 "$FZ/corepatch.py" "$c" "$@"; }
	hrun -v -f top "$core" "$bin"
	mb=$(grep -Eo 'runtime\.mbuckets 0x[0-9a-f]+' "$ERR" "$OUT" | head -n 1 | grep -Eo '0x[0-9a-f]+')
	mr=$(grep -Eo 'runtime\.MemProfileRate 0x[0-9a-f]+' "$ERR" "$OUT" | head -n 1 | grep -Eo '0x[0-9a-f]+')
	mapfile -t b < <(python3 "$FZ/corepatch.py" "$core" buckets "${mb:-0}" 3 2>/dev/null)
	if [ "$RC" -ne 0 ] || [ -z "$mb" ] || [ ${#b[@]} -lt 3 ]; then
		gh_fail "reference core: exit $RC, runtime.mbuckets '${mb:-?}', ${#b[@]} buckets found"
		gh_show "$ERR" 5
	else
		gh_pass "reference core: runtime.mbuckets $mb, first buckets ${b[*]}"
		patched write $((b[2] + 8)) "${b[0]}" &&
			expect "cycle in the bucket list" 1 "bucket list has a cycle at ${b[0]}" -f text "$c" "$bin"
		patched write $((b[0] + 40)) 0xffffffffffff &&
			expect "nstk 2^48-1" 1 "stack depth 281474976710655 exceeds the runtime's maximum" -f text "$c" "$bin"
		# maxStack is 32 up to go1.22, maxProfStackDepth 1024 from 1.23.
		case $goname in
		go1.1[0-9] | go1.2[0-2]) smax=32 ;;
		*) smax=1024 ;;
		esac
		patched write $((b[1] + 40)) $((smax + 1)) &&
			expect "nstk one above the maximum" 1 "stack depth $((smax + 1)) exceeds the runtime's maximum $smax" -f pprof -o "$GH_TMP/o.pb.gz" "$c" "$bin"
		patched write $((b[1] + 8)) 0xdead0000 &&
			expect "allnext into unmapped memory" 1 "reading bucket .*0xdead0000.*not mapped" -f text "$c" "$bin"
		patched write "$mb" 0xffffffffffff0000 &&
			expect "runtime.mbuckets into unmapped memory" 1 "0xffffffffffff0000.*not mapped" -f text "$c" "$bin"
		patched write $((b[0] + 16)) 7 &&
			expect "bucket type overwritten" 1 "type 7 where 1 was expected" -f text "$c" "$bin"
		# Counts near 2^63 in two buckets: the writers' sums wrap as Go's int64 do (fuzz_walk
		# and fuzz_pprof found signed overflows there); every format must still come out.
		cp -f "$core" "$c"
		for k in 0 1; do
			ns=$(python3 "$FZ/corepatch.py" "$c" read $((b[k] + 40)))
			r0=$((b[k] + 48 + ns * 8))
			for w in 0 1 2 3; do
				python3 "$FZ/corepatch.py" "$c" write $((r0 + 8 * w)) 0x7ffffffffffffff0
			done
		done
		for f in text top collapsed pprof; do
			either "counts near 2^63, -f $f" -f "$f" "$c" "$bin"
		done
		patched zero-seg "${b[0]}" &&
			expect "segment of the buckets zeroed" 1 "type 0 where 1 was expected" -f text "$c" "$bin"
		# Both segments: on go1.19 runtime.MemProfileRate lies in another segment of the core
		# than runtime.mbuckets, and with the rate kept an empty list is an empty profile
		# (the case below), as the program's own writer would give.
		patched zero-seg "$mb" && python3 "$FZ/corepatch.py" "$c" zero-seg "${mr:-$mb}" &&
			expect "segments of runtime.mbuckets and MemProfileRate zeroed" 3 "no heap profile in this core" -f text "$c" "$bin"
		patched write "$mb" 0 &&
			expect "empty profile (runtime.mbuckets nil)" 0 '^heap profile: 0: 0 \[0: [01]\] @ heap/2$' -f text "$c" "$bin"
		patched write "$mb" 0 &&
			expect "empty profile, pprof" 0 '' -f pprof "$c" "$bin"
		[ -s "$OUT" ] && gzip -t <"$OUT" 2>/dev/null || gh_fail "empty profile, pprof: not a gzip stream"
	fi

	# Truncated cores: inside the headers and notes an error is due; past them, either.
	read -r phend nstart nend load1 < <(python3 "$FZ/corepatch.py" "$core" layout)
	size=$(stat -c %s "$core")
	for off in 1 4 16 52 63 64 120 $((phend - 1)) $((nstart + 3)) $(((nstart + nend) / 2)) $((nend - 1)); do
		head -c "$off" "$core" >"$c"
		expect "core cut at $off of $size bytes" 1 "." -f text "$c" "$bin"
	done
	for off in $load1 $((load1 + 100)) $((size / 3)) $((size / 2)) $((size - 4096)) $((size - 1)); do
		head -c "$off" "$core" >"$c"
		either "core cut at $off of $size bytes (data)" -f text "$c" "$bin"
	done
	: >"$c"
	expect "empty core file" 1 "not an ELF file" -f text "$c" "$bin"

	# Files that are not what they claim.
	if [ -n "$other" ]; then
		obin=$(gh_build heapprog "${GH_GO_NAMES[$other]}" "${GH_GO_ROOTS[$other]}" default) &&
			expect "executable of ${GH_GO_NAMES[$other]} with a $goname core" 1 "is not the executable of core file.*buildid differs" -f text "$core" "$obin"
	else
		gh_skip "mismatched executable: only one toolchain installed"
	fi
	[ -x /bin/true ] && expect "non-Go ELF as the executable" 1 "true is position-independent but is not mapped|true.*(not a Go|wrong executable)" -f text "$core" /bin/true
	printf 'not an ELF file at all\n' >"$GH_TMP/text"
	expect "non-ELF file as CORE" 1 "not an ELF file" -f text "$GH_TMP/text" "$bin"
	expect "non-ELF file as EXE" 1 "not an ELF file" -f text "$core" "$GH_TMP/text"
	expect "an executable as CORE" 1 "is not a core file" -f text "$bin"
	# Wrong architecture: heapprog for arm64 (gh_go clears GOARCH, so go is run directly).
	adir="$GH_CACHE/build/hostile-heapprog-$goname-arm64"
	mkdir -p "$adir"
	if [ ! -x "$adir/heapprog" ] || [ "$GH_TESTS/go/heapprog/main.go" -nt "$adir/heapprog" ]; then
		(cd "$GH_TESTS/go/heapprog" && env GOROOT="$goroot" GOCACHE="$GH_CACHE/gocache-$goname-arm64" \
			GOPATH="$GH_CACHE/gopath" GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off \
			GOTELEMETRY=off GOENV=off GOOS=linux GOARCH=arm64 CGO_ENABLED=0 \
			"$goroot/bin/go" build -o "$adir/heapprog" main.go) >"$adir/build.log" 2>&1
	fi
	if [ -x "$adir/heapprog" ]; then
		expect "arm64 executable with an amd64 core" 1 "built for ELF machine 183 but the target is machine 62" -f text "$core" "$adir/heapprog"
	else
		gh_fail "arm64 build of heapprog failed"
		gh_show "$adir/build.log" 5
	fi
fi

# ---- live targets that change under the walk ---------------------------------
cdir="$GH_CACHE/build/churn-$goname"
mkdir -p "$cdir"
if [ ! -x "$cdir/churn" ] || [ "$FZ/churn/main.go" -nt "$cdir/churn" ]; then
	(cd "$FZ/churn" && gh_go "$goroot" build -o "$cdir/churn" main.go) >"$cdir/build.log" 2>&1 ||
		{ gh_fail "building tests/fuzz/churn"; gh_show "$cdir/build.log" 5; }
fi
if [ -x "$cdir/churn" ] && gh_start "$cdir/churn"; then
	if ! gh_can_read_mem "$GH_PID"; then
		gh_skip "live cases: ptrace is not permitted"
		gh_stop "$GH_PID"
	else
		sleep 1
		for i in 1 2 3 4 5; do
			either "buckets created during the walk, text #$i" -f text "$GH_PID"
			if [ "$RC" = 0 ]; then
				n=$(grep -c '^[0-9]*: [0-9]* \[' "$OUT")
				printf '    (%s records)\n' "$n"
			fi
		done
		for i in 1 2; do
			either "buckets created during the walk, pprof #$i" -f pprof "$GH_PID"
		done
		# Read-only outside force mode, and no other program run: strace every system
		# call that could write to the target or start a program.
		lt="$top_builddir/libtool"
		if command -v strace >/dev/null 2>&1 && [ -x "$lt" ]; then
			timeout "$T" "$lt" --mode=execute strace -f -qq -o "$GH_TMP/strace.log" \
				-e trace=execve,execveat,fork,vfork,clone3,process_vm_writev,ptrace,open,openat,pwrite64,pwritev \
				"$GH_GOHEAP" -f text "$GH_PID" >/dev/null 2>&1
			nexec=$(grep -cE 'execve(at)?\(' "$GH_TMP/strace.log")
			bad=$(grep -E "process_vm_writev|PTRACE_POKE|PTRACE_SETREGS|/proc/$GH_PID/[^\"]*\", O_(WRONLY|RDWR)|pwrite|[^a-z_]v?fork\(" "$GH_TMP/strace.log" | head -n 3)
			if [ "$nexec" -ne 1 ] || [ -n "$bad" ]; then
				gh_fail "read-only without --force: $nexec execve calls (1 expected, go-heap itself)${bad:+; $bad}"
			else
				gh_pass "read-only without --force: no write to the target, no program started (strace)"
			fi
		else
			gh_skip "read-only check: strace or libtool missing"
		fi
		gh_stop "$GH_PID"
		for d in 0 0.001 0.005 0.01 0.02 0.05 0.1 0.2; do
			if ! gh_start "$cdir/churn"; then
				gh_fail "churn did not start"
				continue
			fi
			sleep 0.5
			pid=$GH_PID
			timeout "$T" "$GH_GOHEAP" -f text "$pid" >"$GH_TMP/k.out" 2>"$GH_TMP/k.err" </dev/null &
			gp=$!
			sleep "$d"
			kill -KILL "$pid" 2>/dev/null
			wait "$gp"
			RC=$?
			OUT="$GH_TMP/k.out"
			ERR="$GH_TMP/k.err"
			NERR=$(wc -l <"$ERR")
			gh_stop "$pid" 2>/dev/null
			what="target killed ${d}s into the walk"
			bad_exit "$what" && continue
			if [ "$RC" = 0 ] && grep -q '^heap profile: ' "$OUT"; then
				gh_pass "$what: exit 0 (the walk finished first)"
			elif [ "$RC" = 1 ] && [ "$NERR" -eq 1 ]; then
				gh_pass "$what: exit 1: $(head -c 160 "$ERR")"
			else
				gh_fail "$what: exit $RC, $NERR lines on stderr"
				gh_show "$ERR" 5
			fi
		done
	fi
else
	gh_fail "churn did not start"
fi

gh_summary
