#!/bin/bash
# tests/run-gdb.sh: the gdb command `go-heap` (gdb/go_heap.py) on a live process, a core and
# a gdbserver target, compared with the program's own runtime/pprof output and with the CLI.
#
# For each toolchain (go1.19 ... go1.24) x variant (GOHEAP_GDB_VARIANTS, default "default pie"):
#   - build tests/go/heapprog, copy it into the test directory (a concurrent rebuild of the
#     shared cache must not replace the file under a running target or a core), start it; it
#     writes heap.txt / allocs.txt itself and waits (tests/go/heapprog/main.go);
#   - CLI:    go-heap -f text PID                                  (the reference for gdb)
#   - live:   gdb -batch -nx -p PID -ex 'source gdb/go_heap.py' -ex 'go-heap --format text'
#             == heap.txt (tests/compare.sh text) and == the CLI's output (byte for byte);
#             in the same session: -p allocs -f text == allocs.txt, -o FILE == the CLI's
#             output, an unknown option is a gdb error;
#   - core:   gcore, then gdb -batch EXE CORE, same checks against heap.txt and against
#             `go-heap -f text CORE EXE`; --force on the core is refused with a gdb error;
#   - remote: gdbserver --attach 127.0.0.1:PORT PID, gdb -ex 'target remote ...', same checks.
# Errors (once): non-Go inferior (sleep), no inferior (plain gdb, and an executable that is
# not running), library not found (GOHEAP_LIBRARY=/nonexistent), profiling disabled
# (tests/go/noprof): each must be one "go-heap: ..." gdb error and no Python traceback.
# --force on tests/go/noprof (live): --dry-run, the write, a second (no-op) write.
# Also: `help go-heap` documents the options, TAB completion completes them, and the
# script finds the library of this build tree without GOHEAP_LIBRARY where it can.
#
# The library under test is $top_builddir/src/.libs/libgoheap.so.0, given through
# GOHEAP_LIBRARY (the script's own lookup is checked separately).
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS,
# GOHEAP_GDB_VARIANTS, GOHEAP_GDB_MODES (default "live core remote"), GOHEAP_TIMEOUT
# (seconds per gdb run, 180), GOHEAP_KEEP=1.
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
# Exit: 0, 1 if anything failed, 77 if nothing ran.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"
SCRIPT="$top_srcdir/gdb/go_heap.py"
LIB="$top_builddir/src/.libs/libgoheap.so.0"
TIMEOUT=${GOHEAP_TIMEOUT:-180}
MODES=${GOHEAP_GDB_MODES:-live core remote}

if ! command -v gdb >/dev/null 2>&1; then
	gh_skip "all: gdb not found"
	gh_summary
fi
if ! gdb -batch -nx -ex 'python import gdb' </dev/null >/dev/null 2>&1; then
	gh_skip "all: this gdb has no Python support"
	gh_summary
fi
gh_need_python
if [ ! -f "$LIB" ]; then
	gh_skip "all: $LIB is not built"
	gh_summary
fi
export GOHEAP_LIBRARY="$LIB"
# A library built with --enable-sanitizers cannot be loaded into gdb: the ASan
# runtime must be the first library of the process, and preloading it into gdb
# breaks gdb itself.  The gdb bridge is tested on normal builds.
if ldd "$LIB" 2>/dev/null | grep -q libasan; then
	gh_skip "all: $LIB is built with sanitizers, which gdb cannot load"
	gh_summary
fi

# gdb_run NAME GDB-ARGS... -- GO-HEAP-COMMANDS...: run gdb in batch mode with go_heap.py
# sourced and each command between markers.  Output of command i goes to $d/NAME.i.out
# (exactly what the command wrote, via gdb's pager), gdb's whole stdout to $d/NAME.log,
# stderr to $d/NAME.err; gdb's status in $rc.
gdb_run() {
	local name=$1 i=0 a
	local args=()
	shift
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		args+=("$1")
		shift
	done
	shift
	args+=(-ex "source $SCRIPT")
	for a in "$@"; do
		args+=(-ex "echo @@BEGIN $i\\n" -ex "$a" -ex "echo @@END $i\\n")
		i=$((i + 1))
	done
	timeout "$TIMEOUT" gdb -batch -nx -iex 'set auto-load no' -iex 'set pagination off' \
		"${args[@]}" </dev/null >"$d/$name.log" 2>"$d/$name.err"
	rc=$?
	i=0
	for a in "$@"; do
		awk -v b="@@BEGIN $i" -v e="@@END $i" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' \
			"$d/$name.log" >"$d/$name.$i.out"
		i=$((i + 1))
	done
}

# no_traceback NAME WHAT: FAIL (and return 1) if gdb printed a Python traceback.
no_traceback() {
	if grep -Eq 'Traceback|Python Exception|Error occurred in Python' "$d/$1.err" "$d/$1.log"; then
		gh_fail "$2: Python traceback"
		gh_show "$d/$1.err" 20
		return 1
	fi
	return 0
}

# gdb_error NAME WHAT PATTERN: the session's only go-heap message on stderr is one
# "go-heap: ..." line matching PATTERN (extended regex), and no traceback.
gdb_error() {
	local n
	no_traceback "$1" "$2" || return 1
	n=$(grep -c '^go-heap: ' "$d/$1.err")
	if [ "$n" -ne 1 ]; then
		gh_fail "$2: $n 'go-heap:' lines on stderr, want 1"
		gh_show "$d/$1.err" 10
	elif ! grep '^go-heap: ' "$d/$1.err" | grep -Eq -- "$3"; then
		gh_fail "$2: error does not match /$3/: $(grep '^go-heap: ' "$d/$1.err")"
	else
		gh_pass "$2 ($(grep '^go-heap: ' "$d/$1.err"))"
	fi
}

# profile_checks MODE NAME CLIREF: the gdb session NAME ran
#   0: go-heap --format text   1: go-heap -o $d/NAME.o.txt   (+ mode-specific commands)
# compare its outputs with heap.txt and with the CLI's output CLIREF.
profile_checks() {
	local mode=$1 name=$2 ref=$3
	# the trailer's MaxRSS is VmHWM of /proc/PID: the CLI has it for a live target, gdb's memory
	# source gives no PID (its trailer has none, as a core's): compared without that line
	if [ -s "$ref" ]; then
		grep -v '^# MaxRSS = ' "$ref" >"$d/$name.ref"
		ref="$d/$name.ref"
	fi
	no_traceback "$name" "$tag/$mode: gdb session" || return 1
	if [ ! -s "$d/$name.0.out" ]; then
		gh_fail "$tag/$mode: go-heap --format text printed nothing (gdb exit $rc)"
		gh_show "$d/$name.err" 10
		return 1
	fi
	if "$CMP" text "$d/heap.txt" "$d/$name.0.out" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag/$mode: go-heap --format text == in-process heap debug=1 ($(grep -v '^note:' "$d/cmp.log" | head -n 1))"
	else
		gh_fail "$tag/$mode: go-heap --format text differs from the in-process heap.txt"
		gh_show "$d/cmp.log" 30
	fi
	if [ ! -s "$ref" ]; then
		gh_skip "$tag/$mode: gdb == CLI: the CLI gave no output"
	elif cmp -s "$ref" "$d/$name.0.out"; then
		gh_pass "$tag/$mode: go-heap --format text == the CLI's output, byte for byte"
	else
		gh_fail "$tag/$mode: go-heap --format text differs from the CLI's output"
		diff "$ref" "$d/$name.0.out" | head -n 20 | sed 's/^/    | /'
	fi
	if [ -s "$ref" ] && cmp -s "$ref" "$d/$name.o.txt" && grep -q '^wrote ' "$d/$name.1.out"; then
		gh_pass "$tag/$mode: go-heap -o FILE.txt == the CLI's output ($(head -n 1 "$d/$name.1.out"))"
	else
		gh_fail "$tag/$mode: go-heap -o FILE.txt: file differs from the CLI's output or is missing"
		gh_show "$d/$name.1.out" 5
		gh_show "$d/$name.err" 5
	fi
}

# pprof_checks MODE NAME CLIPB [INPROC]: the gdb session NAME wrote $d/NAME.pb.gz (-o);
# compare it with the CLI's CLIPB and, if given, the in-process heap.pb.gz
# (tests/compare.sh pprof: samples, stacks, mappings with build ids, ignoring time_nanos).
pprof_checks() {
	local mode=$1 name=$2 clipb=$3 inproc=${4:-}
	if [ ! -s "$d/$name.pb.gz" ]; then
		gh_fail "$tag/$mode: go-heap -o FILE.pb.gz wrote nothing"
		gh_show "$d/$name.err" 5
		return
	fi
	if [ ! -s "$clipb" ]; then
		gh_skip "$tag/$mode: pprof gdb == CLI: the CLI gave no output"
	elif "$CMP" pprof "$clipb" "$d/$name.pb.gz" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag/$mode: go-heap -o FILE.pb.gz == the CLI's proto ($(grep -v '^note:' "$d/cmp.log" | head -n 1))"
	else
		gh_fail "$tag/$mode: go-heap -o FILE.pb.gz differs from the CLI's proto"
		gh_show "$d/cmp.log" 20
	fi
	[ -n "$inproc" ] || return
	if "$CMP" pprof "$inproc" "$d/$name.pb.gz" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag/$mode: go-heap -o FILE.pb.gz == in-process heap proto"
	else
		gh_fail "$tag/$mode: go-heap -o FILE.pb.gz differs from the in-process heap.pb.gz"
		gh_show "$d/cmp.log" 20
	fi
}

live_mode() {
	local cli=$d/cli.txt
	gdb_run live -p "$pid" -- 'go-heap --format text' "go-heap -o $d/live.o.txt" \
		'go-heap -p allocs -f text' 'go-heap --bogus' "go-heap -o $d/live.pb.gz"
	if grep -q 'ptrace: Operation not permitted' "$d/live.err"; then
		gh_skip "$tag/live: gdb cannot attach (ptrace restricted)"
		return
	fi
	profile_checks live live "$cli" || return
	if "$CMP" text "$d/allocs.txt" "$d/live.2.out" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag/live: go-heap -p allocs -f text == in-process allocs debug=1"
	else
		gh_fail "$tag/live: go-heap -p allocs -f text differs from allocs.txt"
		gh_show "$d/cmp.log" 20
	fi
	pprof_checks live live "$d/cli.pb.gz" "$d/heap.pb.gz"
	if grep -q "^go-heap: unknown option '--bogus'" "$d/live.err"; then
		gh_pass "$tag/live: an unknown option is a gdb error from the CLI's parser"
	else
		gh_fail "$tag/live: go-heap --bogus: no \"unknown option\" error"
		gh_show "$d/live.err" 5
	fi
}

core_mode() {
	local core
	rm -f "$d"/gcore.*
	if ! timeout "$TIMEOUT" gcore -o "$d/gcore" "$pid" >"$d/gcore.log" 2>&1; then
		gh_skip "$tag/core: gcore failed: $(tail -n 1 "$d/gcore.log")"
		return
	fi
	core=$(ls "$d"/gcore.* 2>/dev/null | head -n 1)
	if [ -z "$core" ]; then
		gh_skip "$tag/core: gcore wrote no core"
		return
	fi
	timeout "$TIMEOUT" "$GH_GOHEAP" -f text "$core" "$exe" >"$d/cli-core.txt" 2>"$d/cli-core.err" ||
		gh_fail "$tag/core: the CLI on the core: $(head -n 1 "$d/cli-core.err")"
	timeout "$TIMEOUT" "$GH_GOHEAP" -o "$d/cli-core.pb.gz" "$core" "$exe" 2>/dev/null
	gdb_run core "$exe" "$core" -- 'go-heap --format text' "go-heap -o $d/core.o.txt" \
		'go-heap --force' "go-heap -o $d/core.pb.gz"
	profile_checks core core "$d/cli-core.txt"
	pprof_checks core core "$d/cli-core.pb.gz"
	gdb_error core "$tag/core: go-heap --force on a core is refused" 'read-only'
	rm -f "$core"
}

remote_mode() {
	local port gs_pid try
	for _ in 1 2 3; do
		port=$(gh_free_port) || break
		gdbserver --attach "127.0.0.1:$port" "$pid" >"$d/gdbserver.log" 2>&1 &
		gs_pid=$!
		GH_PIDS+=("$gs_pid")
		for _ in $(seq 100); do
			grep -q 'Listening on port' "$d/gdbserver.log" && break
			kill -0 "$gs_pid" 2>/dev/null || break
			sleep 0.05
		done
		grep -q 'Listening on port' "$d/gdbserver.log" && break
		gh_stop "$gs_pid"
		gs_pid=
	done
	if [ -z "${gs_pid:-}" ]; then
		gh_skip "$tag/remote: gdbserver did not start: $(tail -n 1 "$d/gdbserver.log")"
		return
	fi
	gdb_run remote -ex "target remote 127.0.0.1:$port" -- 'go-heap --format text' \
		"go-heap -o $d/remote.o.txt" "go-heap -o $d/remote.pb.gz"
	profile_checks remote remote "$d/cli.txt"
	pprof_checks remote remote "$d/cli.pb.gz" "$d/heap.pb.gz"
	# gdbserver (without --multi) ends with the session and detaches from the target.
	for _ in $(seq 100); do
		kill -0 "$gs_pid" 2>/dev/null || break
		sleep 0.05
	done
	gh_stop "$gs_pid"
	if ! kill -0 "$pid" 2>/dev/null; then
		gh_fail "$tag/remote: the target died after the gdbserver session"
	fi
}

# ---- help, completion, library lookup (no target needed) ---------------------------------

d="$GH_TMP/misc"
mkdir -p "$d"
gdb_run help -- 'help go-heap' 'complete go-heap --form' 'complete go-heap -p al' \
	'complete go-heap --sample-index=inuse_o' 'complete go-heap -s con' 'complete go-heap --ex'
if no_traceback help "help/completion"; then
	if grep -q -- '--format' "$d/help.0.out" && grep -q -- '--profile' "$d/help.0.out" &&
		grep -q -- '--output' "$d/help.0.out" && grep -q -- '--force' "$d/help.0.out"; then
		gh_pass "help go-heap documents the options"
	else
		gh_fail "help go-heap does not document --format/--profile/--output/--force"
		gh_show "$d/help.0.out" 10
	fi
	want=$'go-heap --format'
	if [ "$(cat "$d/help.1.out")" = "$want" ] &&
		[ "$(cat "$d/help.2.out")" = "go-heap -p allocs" ] &&
		[ "$(cat "$d/help.3.out")" = "go-heap --sample-index=inuse_objects" ]; then
		gh_pass "TAB completion of option names and values"
	else
		gh_fail "TAB completion: got '$(cat "$d/help.1.out")' '$(cat "$d/help.2.out")' '$(cat "$d/help.3.out")'"
	fi
	# Help and completion come from the CLI's own option table (goheap_command_options):
	# every front-end option of `go-heap --help` is in `help go-heap`, block/mutex sample
	# indexes complete, and the CLI-only --exe/--sysroot are offered nowhere (nor the growth
	# options --seconds/--count/--interval: snapshots over time of a running process, which the
	# debugger's stopped inferior is not; goheap_command refuses them with one line).
	missing=
	for o in $("$GH_GOHEAP" --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		case $o in --exe | --sysroot | --seconds | --count | --interval) continue ;; esac
		grep -q -- "$o" "$d/help.0.out" || missing="$missing $o"
	done
	if [ -z "$missing" ] && [ "$(cat "$d/help.4.out")" = "go-heap -s contentions" ] &&
		[ -z "$(cat "$d/help.5.out")" ] && ! grep -q -- '--exe' "$d/help.0.out"; then
		gh_pass "help and completion are the CLI's option table (less --exe/--sysroot)"
	else
		gh_fail "help/completion differ from the CLI's table: missing '$missing', '-s con' -> '$(cat "$d/help.4.out")', '--ex' -> '$(cat "$d/help.5.out")'"
	fi
fi

# Without GOHEAP_LIBRARY the script looks next to itself (src/.libs, build/src/.libs).
case $(cd "$top_builddir" && pwd) in
"$(cd "$top_srcdir" && pwd)" | "$(cd "$top_srcdir" && pwd)/build")
	env -u GOHEAP_LIBRARY gdb -batch -nx -ex "source $SCRIPT" \
		-ex 'python print("LIB=" + _load_library()._name)' </dev/null >"$d/find.log" 2>&1
	found=$(sed -n 's/^LIB=//p' "$d/find.log")
	if [ -n "$found" ] && [ "$(readlink -f "$found")" = "$(readlink -f "$LIB")" ]; then
		gh_pass "the script finds this build's library by itself ($found)"
	else
		gh_fail "the script did not find $LIB by itself"
		gh_show "$d/find.log" 5
	fi
	;;
*)
	gh_skip "library lookup relative to the script: this build dir is neither the source tree nor its build/"
	;;
esac

# ---- errors ------------------------------------------------------------------------------

GOHEAP_LIBRARY=/nonexistent gdb_run nolib -- 'go-heap --format text'
gdb_error nolib "library not found (GOHEAP_LIBRARY=/nonexistent)" 'cannot load libgoheap'

gdb_run noinf -- 'go-heap --format text'
gdb_error noinf "no inferior (plain gdb)" 'no inferior'

gdb_run noinf2 /bin/sleep -- 'go-heap --format text'
gdb_error noinf2 "no inferior (an executable that is not running)" 'no inferior'

sleep 600 >/dev/null 2>&1 &
spid=$!
GH_PIDS+=("$spid")
gdb_run notgo -p "$spid" -- 'go-heap --format text'
if grep -q 'ptrace: Operation not permitted' "$d/notgo.err"; then
	gh_skip "non-Go inferior: gdb cannot attach (ptrace restricted)"
else
	gdb_error notgo "non-Go inferior (sleep)" 'Go|symbol|buildinfo|version'
fi
gh_stop "$spid"

# ---- every toolchain ---------------------------------------------------------------------

if ! gh_have_goheap; then
	gh_skip "gdb == CLI checks: $GH_GOHEAP is not built"
fi
gh_toolchains
noprof_done=0
for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	for variant in ${GOHEAP_GDB_VARIANTS:-$(gh_variants_for "$goname" pie)}; do
		tag="$goname/$variant"
		gh_build_or_fail "$tag" heapprog "$goname" "$root" "$variant" || continue
		bin=$GH_BIN
		d="$GH_TMP/$goname-$variant"
		mkdir -p "$d"
		exe="$d/heapprog"
		cp "$bin" "$exe" || { gh_fail "$tag: copy heapprog"; continue; }
		if ! gh_start "$exe" -out "$d" 2>"$GH_TMP/start.err"; then
			gh_fail "$tag: heapprog: $(cat "$GH_TMP/start.err")"
			continue
		fi
		pid=$GH_PID
		if ! gh_can_read_mem "$pid"; then
			gh_skip "$tag: cannot read the target's memory (ptrace is restricted)"
			gh_stop "$pid"
			continue
		fi
		: >"$d/cli.txt"
		if gh_have_goheap; then
			timeout "$TIMEOUT" "$GH_GOHEAP" -f text "$pid" >"$d/cli.txt" 2>"$d/cli.err" ||
				gh_fail "$tag: the CLI on the live target: $(head -n 1 "$d/cli.err")"
			timeout "$TIMEOUT" "$GH_GOHEAP" -o "$d/cli.pb.gz" "$pid" 2>/dev/null
		fi
		for mode in $MODES; do
			case $mode in
			live) live_mode ;;
			core)
				if command -v gcore >/dev/null 2>&1; then core_mode; else gh_skip "$tag/core: gcore not found"; fi ;;
			remote)
				if command -v gdbserver >/dev/null 2>&1; then remote_mode; else gh_skip "$tag/remote: gdbserver not found"; fi ;;
			esac
		done
		gh_stop "$pid"
		rm -f "$d"/gcore.*
	done

	# Profiling disabled (MemProfileRate 0, nothing recorded): once, with the first toolchain.
	if [ "$noprof_done" = 0 ] && ! gh_build_or_fail "$goname: profiling disabled" noprof "$goname" "$root" default; then
		noprof_done=1
	elif [ "$noprof_done" = 0 ]; then
		nbin=$GH_BIN
		noprof_done=1
		d="$GH_TMP/noprof"
		mkdir -p "$d"
		cp "$nbin" "$d/noprof"
		if gh_start "$d/noprof" 2>"$GH_TMP/start.err"; then
			gdb_run disabled -p "$GH_PID" -- 'go-heap --format text' 'go-heap --force --dry-run' \
				'go-heap --force' 'go-heap --force'
			gdb_error disabled "$goname: profiling disabled in the target" 'disabled.*--force'
			# --force: the checked write of runtime.MemProfileRate through write_memory.
			if grep -q '^dry run: would write 524288 .*(now 0)' "$d/disabled.1.out" &&
				grep -q '^runtime.MemProfileRate 0 -> 524288 .*enabled' "$d/disabled.2.out" &&
				grep -q '^runtime.MemProfileRate is already 524288' "$d/disabled.3.out"; then
				gh_pass "$goname: --force in gdb: dry run, then 0 -> 524288, then already set"
			else
				gh_fail "$goname: --force in gdb: got '$(cat "$d/disabled.1.out")' '$(cat "$d/disabled.2.out")' '$(cat "$d/disabled.3.out")'"
				gh_show "$d/disabled.err" 5
			fi
			if kill -0 "$GH_PID" 2>/dev/null; then
				gh_pass "$goname: the target runs on after --force in gdb"
			else
				gh_fail "$goname: the target died after --force in gdb"
			fi
			gh_stop "$GH_PID"
		else
			gh_fail "noprof: $(cat "$GH_TMP/start.err")"
		fi
	fi
done
# The goroutine profile through gdb: the same library, the same walker over gdb's reads; on the
# oldest and newest toolchain, live and on a gcore core:
#   - go-heap -p goroutine -f text == the CLI's (live and core; the core's == live);
#   - go-heap -p goroutine -f traceback == the program's own WriteTo(w, 2) (goroutine.2.txt),
#     block by block (run-goroutine.sh's cmp_tb: the writer goroutine dropped on each side);
#   - info goroutines: one line per goroutine; the goroutine ids, their bracketed statuses,
#     first frames (function, file:line) and "created by" equal those of goroutine.2.txt
#     (gor_list_cmp; the writer, main.writeProfiles in-process, is main.idleForever outside);
#     after switching to the thread a line names ("(thread N)"), that line, and only it,
#     is marked '*'.
# cmp_tb EXPECTED ACTUAL, from tests/run-goroutine.sh (one definition for both scripts).
eval "$(sed -n '/^cmp_tb() {$/,/^}$/p' "$GH_TESTS/run-goroutine.sh")"

# gor_list_cmp DEBUG2 LIST LWP: `info goroutines` (LIST) against the debug=2 text; LWP is the
# selected thread's ("" if none was selected on purpose: then no line may be marked but one
# on that thread, which the test does not know, so '*' lines are only counted).
gor_list_cmp() {
	python3 - "$1" "$2" "$3" <<'PY'
import re, sys
def expected(path):
    want, writer = {}, None
    data = open(path, encoding="utf-8").read()
    for b in [b for b in data.rstrip("\n").split("\n\n") if b.strip()]:
        lines = b.split("\n")
        m = re.match(r"^goroutine (\d+) (\[.*):$", lines[0])
        if not m:
            print(f"debug=2: bad header {lines[0]!r}"); sys.exit(1)
        goid, status = int(m.group(1)), m.group(2)
        func = fileline = created = None
        for k, l in enumerate(lines[1:], 1):
            if l.startswith("created by "):
                created = l
                break
            if func is None and l and not l.startswith(("\t", ".")):
                func = l[:l.rindex("(")]
                fileline = re.sub(r" \+0x[0-9a-f]+$", "", lines[k + 1][1:])
        if "main.writeProfiles" in b:
            writer = goid
        want[goid] = (status, func or "(stack unavailable)", fileline, created)
    return want, writer
want, writer = expected(sys.argv[1])
lwp = int(sys.argv[3]) if sys.argv[3] else None
got, marked, bad = {}, [], 0
for l in open(sys.argv[2], encoding="utf-8").read().splitlines():
    if l.startswith("#") or not l.strip():
        continue
    m = re.match(r"^([* ]) +(\d+) (.*)$", l)
    if not m or int(m.group(2)) in got:
        print(f"bad or repeated line {l!r}"); sys.exit(1)
    goid, rest = int(m.group(2)), m.group(3)
    th = re.search(r"  \(thread (\d+)\)$", rest)
    if th:
        rest = rest[:th.start()]
    if m.group(1) == "*":
        marked.append((goid, int(th.group(1)) if th else None))
    # the writer's status differs (running in-process): its bracketed part as it is
    st = rest[:rest.find("]") + 1] if goid == writer else want.get(goid, ("",))[0]
    if not rest.startswith(st):
        print(f"goroutine {goid}: status: want {st!r} at the start of {rest!r}"); sys.exit(1)
    f = rest[len(st):].strip().split("  ")
    created = None
    if f and f[-1].startswith("created by "):
        created = f.pop()
    func = f[0] if f else None
    fileline = f[1] if len(f) > 1 else None
    got[goid] = (st, func, fileline, created)
if writer is None or writer not in got or got[writer][1] != "main.idleForever":
    print(f"the writer goroutine {writer}: {got.get(writer)}"); sys.exit(1)
del want[writer], got[writer]
if set(want) != set(got):
    print(f"goroutine ids: {len(want)} in debug=2, {len(got)} listed; only in debug=2: "
          f"{sorted(set(want) - set(got))[:5]}, only listed: {sorted(set(got) - set(want))[:5]}")
    sys.exit(1)
for goid in sorted(want):
    if want[goid] != got[goid]:
        print(f"goroutine {goid}:\n  want {want[goid]}\n  got  {got[goid]}"); sys.exit(1)
if lwp is not None and (len(marked) != 1 or marked[0][1] != lwp):
    print(f"marked {marked}, want one line on thread {lwp}"); sys.exit(1)
if lwp is None and len(marked) > 1:
    print(f"marked {marked}: more than one"); sys.exit(1)
print(f"{len(got)} goroutines: ids, statuses, first frames and creators equal"
      + (f"; '*' on goroutine {marked[0][0]} (thread {lwp})" if lwp is not None else ""))
PY
}

# The gdb commands of one goroutine session: text, traceback, list, then the list again after
# switching to the thread of the first "(thread N)" line (LWP=N is printed).
GOR_SWITCH='python import re; lwp = int(re.search(r"\(thread (\d+)\)$", gdb.execute("info goroutines", to_string=True), re.M).group(1)); [t.switch() for t in gdb.selected_inferior().threads() if t.ptid[1] == lwp]; print("LWP=%d" % lwp)'

# gor_checks MODE NAME: the session NAME ran text, traceback, list, switch, list.
gor_checks() {
	local mode=$1 name=$2 lwp
	no_traceback "$name" "$goname/$mode: goroutine gdb session" || return
	if cmp_tb "$d/out/goroutine.2.txt" "$d/$name.1.out" >"$d/$name.cmptb" 2>&1; then
		gh_pass "$goname/$mode: go-heap -p goroutine -f traceback in gdb == in-process debug=2 ($(tail -n 1 "$d/$name.cmptb"))"
	else
		gh_fail "$goname/$mode: go-heap -p goroutine -f traceback in gdb differs from goroutine.2.txt"
		gh_show "$d/$name.cmptb" 20
		gh_show "$d/$name.err" 5
	fi
	if gor_list_cmp "$d/out/goroutine.2.txt" "$d/$name.2.out" "" >"$d/$name.cmpl" 2>&1; then
		gh_pass "$goname/$mode: info goroutines == in-process debug=2 ($(tail -n 1 "$d/$name.cmpl"))"
	else
		gh_fail "$goname/$mode: info goroutines differs from goroutine.2.txt"
		gh_show "$d/$name.cmpl" 10
		gh_show "$d/$name.2.out" 5
	fi
	lwp=$(sed -n 's/^LWP=//p' "$d/$name.3.out")
	if [ -n "$lwp" ] && gor_list_cmp "$d/out/goroutine.2.txt" "$d/$name.4.out" "$lwp" >"$d/$name.cmpl2" 2>&1; then
		gh_pass "$goname/$mode: info goroutines marks the selected thread's goroutine ($(tail -n 1 "$d/$name.cmpl2"))"
	else
		gh_fail "$goname/$mode: info goroutines after 'thread' (LWP ${lwp:-none}): wrong '*'"
		gh_show "$d/$name.cmpl2" 5
		gh_show "$d/$name.3.out" 3
	fi
}

gor_done=
for k in 0 $((${#GH_GO_NAMES[@]} - 1)); do
	[ "$k" -ge 0 ] && gh_have_goheap || continue
	case " $gor_done " in *" $k "*) continue ;; esac
	gor_done="$gor_done $k"
	goname=${GH_GO_NAMES[$k]}
	d="$GH_TMP/$goname-goroutine"
	mkdir -p "$d/out"
	if gh_build_or_fail "$goname: gdb goroutine" goroutineprog "$goname" "${GH_GO_ROOTS[$k]}" default &&
		gh_start "$GH_BIN" -out "$d/out" 2>"$GH_TMP/start.err"; then
		gbin=$GH_BIN
		"$GH_GOHEAP" -p goroutine -f text "$GH_PID" >"$d/cli.txt" 2>"$d/cli.err"
		gdb_run gor -p "$GH_PID" -- 'go-heap -p goroutine -f text' \
			'go-heap -p goroutine -f traceback' 'info goroutines' "$GOR_SWITCH" 'info goroutines'
		timeout 300 gcore -o "$d/core" "$GH_PID" >"$d/gcore.log" 2>&1
		gh_stop "$GH_PID"
		if [ -s "$d/cli.txt" ] && cmp -s "$d/cli.txt" "$d/gor.0.out"; then
			gh_pass "$goname: go-heap -p goroutine -f text in gdb (live) == the CLI's ($(head -n 1 "$d/cli.txt"))"
		else
			gh_fail "$goname: goroutine text in gdb (live) differs from the CLI's"
			diff "$d/cli.txt" "$d/gor.0.out" | head -n 8 | sed 's/^/    | /'
			gh_show "$d/gor.err" 5
		fi
		gor_checks live gor
		core=$(ls "$d"/core.* 2>/dev/null | head -n 1)
		if [ -n "$core" ]; then
			gdb_run gorc "$gbin" "$core" -- 'go-heap -p goroutine -f text' \
				'go-heap -p goroutine -f traceback' 'info goroutines' "$GOR_SWITCH" 'info goroutines'
			"$GH_GOHEAP" -p goroutine -f text "$core" "$gbin" >"$d/clic.txt" 2>"$d/clic.err"
			if [ -s "$d/clic.txt" ] && cmp -s "$d/clic.txt" "$d/gorc.0.out" &&
				cmp -s "$d/clic.txt" "$d/cli.txt"; then
				gh_pass "$goname: goroutine text in gdb (core) == the CLI's on the core == live"
			else
				gh_fail "$goname: goroutine text in gdb (core) differs"
				diff "$d/clic.txt" "$d/gorc.0.out" | head -n 8 | sed 's/^/    | /'
			fi
			gor_checks core gorc
			rm -f "$core"
		else
			gh_fail "$goname: gcore wrote no core of goroutineprog"
		fi
	else
		gh_fail "$goname: goroutineprog did not start: $(cat "$GH_TMP/start.err" 2>/dev/null)"
	fi
done
gh_summary
