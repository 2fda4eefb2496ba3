#!/bin/bash
# tests/run-errors.sh: go-heap's behaviour on bad input.  Every error case must exit with
# the contract's status, print exactly one line on stderr and nothing on stdout, and
# leave no output file behind.
#
#   no arguments, unknown option, bad -f/-p/-s/-n value, two PIDs   -> 2
#   PID of a non-Go process (sleep)                                 -> 1
#   PID that does not exist                                         -> 1
#   a file that is not ELF given as CORE                            -> 1
#   tests/go/noprof (MemProfileRate 0, nothing recorded),
#   for every installed toolchain: exit 3, the message names --force -> 3
#   --help, --version                                               -> 0, stdout not empty
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS.
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
gh_init

if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi

# expect WHAT STATUS [GREP] -- ARGS...: run go-heap ARGS, check the status, one stderr line
# (matching the extended regex GREP if given), empty stdout, and no $GH_TMP/out.* file.
expect() {
	local what=$1 want=$2 pat="" rc n
	shift 2
	if [ "$1" != "--" ]; then
		pat=$1
		shift
	fi
	shift
	rm -f "$GH_TMP"/out.*
	timeout 60 "$GH_GOHEAP" "$@" >"$GH_TMP/stdout" 2>"$GH_TMP/stderr" </dev/null
	rc=$?
	n=$(wc -l <"$GH_TMP/stderr")
	# A last line without a newline still counts as a line.
	[ -s "$GH_TMP/stderr" ] && [ "$(tail -c 1 "$GH_TMP/stderr" | od -An -c | tr -d ' ')" != '\n' ] && n=$((n + 1))
	if [ "$rc" -ne "$want" ]; then
		gh_fail "$what: exit $rc, want $want"
		gh_show "$GH_TMP/stderr" 5
	elif [ "$n" -ne 1 ]; then
		gh_fail "$what: $n lines on stderr, want exactly 1"
		gh_show "$GH_TMP/stderr" 5
	elif [ -s "$GH_TMP/stdout" ]; then
		gh_fail "$what: wrote $(wc -c <"$GH_TMP/stdout") bytes to stdout"
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$GH_TMP/stderr"; then
		gh_fail "$what: stderr does not match /$pat/: $(cat "$GH_TMP/stderr")"
	elif ls "$GH_TMP"/out.* >/dev/null 2>&1; then
		gh_fail "$what: left an output file behind: $(ls "$GH_TMP"/out.*)"
	else
		gh_pass "$what (exit $rc: $(cat "$GH_TMP/stderr"))"
	fi
}

# expect_ok WHAT -- ARGS...: exit 0 and something on stdout.
expect_ok() {
	local what=$1 rc
	shift 2
	timeout 60 "$GH_GOHEAP" "$@" >"$GH_TMP/stdout" 2>"$GH_TMP/stderr" </dev/null
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$GH_TMP/stdout" ]; then
		gh_fail "$what: exit $rc, $(wc -c <"$GH_TMP/stdout") bytes on stdout"
		gh_show "$GH_TMP/stderr" 5
	else
		gh_pass "$what"
	fi
}

# A PID that is not in use: count down from pid_max.
free_pid() {
	local p
	p=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
	p=$((p - 1))
	while [ -e "/proc/$p" ] && [ "$p" -gt 300 ]; do
		p=$((p - 1))
	done
	echo "$p"
}

# --- usage errors (2) -------------------------------------------------------
expect "no arguments" 2 --
expect "unknown option" 2 -- --no-such-option 1
expect "bad -f value" 2 -- -f nosuchformat 1
expect "bad -p value" 2 -- -p nosuchprofile 1
expect "bad -s value" 2 -- -s nosuchindex 1
expect "bad -n value" 2 -- -n abc 1
expect "too many arguments" 2 -- 1 2 3
expect_ok "--help" -- --help
expect_ok "--version" -- --version

# --- process errors (1) -----------------------------------------------------
sleep 100 &
spid=$!
GH_PIDS+=("$spid")
expect "non-Go process (sleep, pid $spid)" 1 -- "$spid"
expect "non-Go process, -o FILE" 1 -- -o "$GH_TMP/out.pb.gz" "$spid"
gh_stop "$spid"
np=$(free_pid)
expect "nonexistent pid $np" 1 -- "$np"
expect "nonexistent pid, -o FILE" 1 -- -o "$GH_TMP/out.txt" "$np"

# --- files that are not cores (1) -------------------------------------------
printf 'this is not an ELF file\n' >"$GH_TMP/notelf"
expect "not-ELF file as CORE" 1 -- "$GH_TMP/notelf"
expect "not-ELF file as CORE with EXECUTABLE" 1 -- "$GH_TMP/notelf" "$GH_TMP/notelf"
expect "missing CORE file" 1 -- "$GH_TMP/no-such-core"

# --- memory profiling disabled (3) ------------------------------------------
gh_toolchains
for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	gh_build_or_fail "$goname" noprof "$goname" "${GH_GO_ROOTS[$i]}" default || continue
	bin=$GH_BIN
	if ! gh_start "$bin" 2>"$GH_TMP/start.err"; then
		gh_fail "$goname: noprof: $(cat "$GH_TMP/start.err")"
		continue
	fi
	if ! gh_can_read_mem "$GH_PID"; then
		gh_skip "$goname: noprof: cannot read the target's memory (ptrace is restricted)"
	else
		expect "$goname: noprof (profiling disabled)" 3 --force -- "$GH_PID"
		expect "$goname: noprof, -o FILE" 3 --force -- -o "$GH_TMP/out.pb.gz" "$GH_PID"
	fi
	gh_stop "$GH_PID"
done
gh_summary
