# tests/lib.sh: shared functions for go-heap's integration scripts (run-*.sh).
# Source it from bash after `set -u`:
#
#   . "$(dirname "$0")/lib.sh"
#   gh_init                          # paths, cache, counters, cleanup trap
#   gh_toolchains                    # GH_GO_NAMES / GH_GO_ROOTS; SKIP lines for missing ones
#   bin=$(gh_build heapprog go1.22 /usr/lib/go-1.22 pie) || ...
#   gh_start "$bin" "$dir"           # background, wait for READY; sets GH_PID
#   gh_pass "what" | gh_fail "what: why" | gh_skip "what: why"
#   gh_summary                       # "N passed, N failed, N skipped"; exit 1 / 77 / 0
#
# Environment:
#   top_srcdir, top_builddir  set by automake (AM_TESTS_ENVIRONMENT); default ../ of tests/
#   GOHEAP_CACHE              cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/go-heap)
#   GOHEAP_GO_VERSIONS        toolchains to use (default $GH_GO_ALL: every release Debian ships,
#                             1.19 and 1.21-1.27; extending the matrix is extending GH_GO_ALL)
#   GOHEAP_VARIANTS           build variants (default: gh_variants_for, the sampled matrix)
#   GOHEAP_READY_TIMEOUT      seconds to wait for READY (default 60)
#   GOHEAP_WAIT_SCALE         gh_wait_for's deadlines are this many times their quiet-machine
#                             seconds (default 6: a bound on a hang, never a speed check)
#   GOHEAP_OLDEST_TOO         scripts that keep every toolchain of GOHEAP_GO_VERSIONS; set, the
#                             others run on its newest only (the sanitizer pass's sample)
#   GOHEAP_KEEP=1             keep the temporary directory (its path is printed)

# Every Go release the suite runs on: one line to extend (scripts/install-deps.sh fetches the
# ones Debian ships outside bookworm; a release here must have a row in src/lib/bin/rtlayout.c).
GH_GO_ALL="1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27"

# GOHEAP_OLDEST_TOO (set by scripts/test.sh's sanitizer pass): the scripts named there run on
# every toolchain of GOHEAP_GO_VERSIONS; every other script on its newest only.
if [ -n "${GOHEAP_OLDEST_TOO+x}" ] && [ -n "${GOHEAP_GO_VERSIONS:-}" ]; then
	case " $GOHEAP_OLDEST_TOO " in
	*" ${0##*/} "*) ;;
	*) GOHEAP_GO_VERSIONS=${GOHEAP_GO_VERSIONS##* } ;;
	esac
fi

GH_PASSED=0
GH_FAILED=0
GH_SKIPPED=0
GH_PIDS=()
GH_TMP=

gh_init() {
	local here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	: "${top_srcdir:=$(cd "$here/.." && pwd)}"
	: "${top_builddir:=$top_srcdir}"
	export top_srcdir top_builddir
	export GH_TESTS="$top_srcdir/tests"
	GH_GOHEAP="$top_builddir/src/go-heap"
	GH_CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
	mkdir -p "$GH_CACHE/build" || { echo "FAIL: cannot create cache $GH_CACHE" >&2; exit 1; }
	GH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/go-heap-test.XXXXXX") || exit 1
	trap gh_cleanup EXIT
	trap 'exit 130' INT TERM
}

# Kill what we started (by pid only), remove the temporary directory.
gh_cleanup() {
	local p
	for p in "${GH_PIDS[@]+"${GH_PIDS[@]}"}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${GH_PIDS[@]+"${GH_PIDS[@]}"}"; do
		wait "$p" 2>/dev/null
	done
	GH_PIDS=()
	if [ -n "$GH_TMP" ] && [ -d "$GH_TMP" ]; then
		if [ "${GOHEAP_KEEP:-0}" = 1 ]; then
			echo "kept $GH_TMP"
		else
			rm -rf "$GH_TMP"
		fi
	fi
}

gh_pass() { GH_PASSED=$((GH_PASSED + 1)); echo "PASS: $*"; }
gh_fail() { GH_FAILED=$((GH_FAILED + 1)); echo "FAIL: $*"; }
gh_skip() { GH_SKIPPED=$((GH_SKIPPED + 1)); echo "SKIP: $*"; }

# Print indented text (a file, or stdin) under a FAIL line, at most $2 lines.
gh_show() {
	local n=${2:-20}
	if [ -s "$1" ]; then
		head -n "$n" "$1" | sed 's/^/    | /'
	fi
}

# gh_show_tail FILE [N]: the last N (default 6) lines of FILE, indented: where a -v run's
# error is (its first lines are the verbose header).
gh_show_tail() {
	if [ -s "$1" ]; then
		tail -n "${2:-6}" "$1" | sed 's/^/    | /'
	fi
}

# The final line CI parses; exit 1 if anything failed, 77 if nothing ran.
# Before it, a "time:" line: the script's wall time and the load average at its end (make
# check's time budget per script, README "Building").
gh_summary() {
	echo "time: $(basename "$0") took ${SECONDS}s, load average at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	echo "$GH_PASSED passed, $GH_FAILED failed, $GH_SKIPPED skipped"
	if [ "$GH_FAILED" -gt 0 ]; then
		exit 1
	elif [ "$GH_PASSED" -eq 0 ]; then
		exit 77
	fi
	exit 0
}

# gh_build_or_fail TAG PROG GONAME GOROOT VARIANT: gh_build into $GH_BIN; if the build fails,
# "FAIL: TAG: build PROG" with the build's log, and status 1.  (Not in a $(...): the FAIL must
# count in this shell.)
gh_build_or_fail() {
	local tag=$1
	shift
	GH_BIN=$(gh_build "$@" 2>"$GH_TMP/build.err") && return 0
	gh_fail "$tag: build $1"
	gh_show "$GH_TMP/build.err" 20
	return 1
}

# gh_need_python: end the script (all skipped) when python3, which tests/compare.sh needs, is
# missing.
gh_need_python() {
	command -v python3 >/dev/null 2>&1 && return 0
	gh_skip "all: python3 not found (needed by tests/compare.sh)"
	gh_summary
}

# gh_need_toolchains: gh_toolchains, and end the script when no Go toolchain is installed.
gh_need_toolchains() {
	gh_toolchains
	[ "${#GH_GO_NAMES[@]}" -gt 0 ] || gh_summary
}

# GOROOT of Go 1.$1, or nothing.  The trixie 1.24 package is unpacked under
# the cache by scripts/install-deps.sh; Debian packages live in /usr/lib.
gh_goroot() {
	local v=$1 d
	for d in "/usr/lib/go-$v" "$GH_CACHE/go-$v/usr/lib/go-$v"; do
		if [ -x "$d/bin/go" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# gh_sample LIST: a script's own sample of toolchains (LIST, e.g. "1.19 1.27"), within
# GOHEAP_GO_VERSIONS when that is set: sets GOHEAP_GO_VERSIONS to the versions of LIST it lists,
# or to LIST itself when it lists none of them.  Call before gh_need_toolchains.
gh_sample() {
	local v sample=
	for v in $1; do
		case " ${GOHEAP_GO_VERSIONS:-$v} " in *" $v "*) sample="$sample $v" ;; esac
	done
	GOHEAP_GO_VERSIONS=${sample# }
	[ -n "$GOHEAP_GO_VERSIONS" ] || GOHEAP_GO_VERSIONS=$1
}

# gh_gcore TAG PID DIR: write process PID's core to DIR/core.PID with gcore (at most 300 s, its
# log in DIR/gcore.log; a failed gcore is noted and tried once more).  Status 0 when the core is
# there (the caller removes it when done); otherwise "SKIP: TAG: core: gcore (gdb) not
# installed" or "FAIL: TAG: gcore wrote no core (twice)" (with the log), and status 1.
gh_gcore() {
	local tag=$1 pid=$2 dir=$3 grc
	if ! command -v gcore >/dev/null 2>&1; then
		gh_skip "$tag: core: gcore (gdb) not installed"
		return 1
	fi
	timeout 300 gcore -o "$dir/core" "$pid" >"$dir/gcore.log" 2>&1
	grc=$?
	[ -s "$dir/core.$pid" ] && return 0
	# gcore (gdb's script, not go-heap) once failed in CI without a trace on a program it
	# dumps every other time: say so, with its log, and try once more before failing.
	echo "note: $tag: gcore wrote no core (exit $grc); its log, then a second try:"
	gh_show "$dir/gcore.log" 5
	rm -f "$dir/core.$pid"
	timeout 300 gcore -o "$dir/core" "$pid" >"$dir/gcore.log" 2>&1
	[ -s "$dir/core.$pid" ] && return 0
	gh_fail "$tag: gcore wrote no core (twice)"
	gh_show "$dir/gcore.log" 5
	rm -f "$dir/core.$pid"
	return 1
}

# Fill GH_GO_NAMES (go1.NN) and GH_GO_ROOTS.  A missing toolchain is a FAIL with the command
# that installs it (scripts/install-deps.sh fetches every one): never a quiet skip.
gh_toolchains() {
	local v root
	GH_GO_NAMES=()
	GH_GO_ROOTS=()
	for v in ${GOHEAP_GO_VERSIONS:-$GH_GO_ALL}; do
		if root=$(gh_goroot "$v"); then
			GH_GO_NAMES+=("go$v")
			GH_GO_ROOTS+=("$root")
		else
			gh_fail "go$v: toolchain not installed (run scripts/install-deps.sh)"
		fi
	done
}

# gh_variants_for GONAME [FULL]: the build variants a check runs for toolchain GONAME.
# GOHEAP_VARIANTS overrides.  Default (the sampled matrix, README "Tests"): "default" and
# "stripped" (-s -w) on every toolchain, plus FULL (e.g. "pie trimpath") on the oldest and the
# newest of the list in use: PIE and -trimpath change nothing release-specific that default and
# stripped do not already exercise, and they are kept on both ends of the range.
gh_variants_for() {
	local g=$1 full=${2-pie trimpath} first last
	if [ -n "${GOHEAP_VARIANTS:-}" ]; then
		echo "$GOHEAP_VARIANTS"
		return
	fi
	first=${GH_GO_NAMES[0]:-}
	last=${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]:-}
	if [ "$g" = "$first" ] || [ "$g" = "$last" ]; then
		echo "default stripped $full"
	else
		echo "default stripped"
	fi
}

# gh_variant_flags VARIANT: its go build flags, quoted for eval (gh_build).
gh_variant_flags() {
	case $1 in
	default) echo "" ;;
	pie) echo "-buildmode=pie" ;;
	trimpath) echo "-trimpath" ;;
	stripped) echo "'-ldflags=-s -w'" ;;
	*) return 1 ;;
	esac
}

# gh_go GOROOT ARGS...: run that toolchain's go with a clean, offline,
# module-free environment and a per-version build cache.
gh_go() {
	local root=$1 name
	shift
	name=$(basename "$root")
	env GOROOT="$root" GOCACHE="$GH_CACHE/gocache-go${name#go-}" GOPATH="$GH_CACHE/gopath" \
		GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off GOENV=off \
		GOOS= GOARCH= "$root/bin/go" "$@"
}

# gh_pprof_tool GOROOT: the path of that toolchain's pprof binary, for `go tool pprof` without the
# go command in front.  Go 1.25+ (trixie's packages) ship no prebuilt pkg/tool/*/pprof: `go tool
# pprof` builds it, with its standard-library dependencies, into GOCACHE on first use, which is
# minutes on a loaded machine (3 min 38 s at load 30) and, with HOME pointed at a temporary
# directory, every time: that is what failed run-watch.sh's `timeout 60 go tool pprof` under
# load (issue 37).  Built here once into the test cache's GOCACHE (gh_go), then reused.  Status
# 1 (the go command's error on stderr) if it cannot be built.
gh_pprof_tool() {
	local root=$1 t
	t="$root/pkg/tool/$("$root/bin/go" env GOHOSTOS)_$("$root/bin/go" env GOHOSTARCH)/pprof"
	if [ -x "$t" ]; then
		echo "$t"
		return 0
	fi
	t=$(gh_go "$root" tool -n pprof) || return 1
	[ -x "$t" ] || { echo "gh_pprof_tool: go tool -n pprof printed '$t'" >&2; return 1; }
	echo "$t"
}

# gh_build PROG GONAME GOROOT VARIANT: build tests/go/PROG/main.go (or
# bench/PROG.go when PROG is heapbench) into
# $cache/build/PROG-GONAME-VARIANT/PROG and print that path.  Rebuilds only
# when the source, the toolchain or the flags changed (stamp file).
gh_build() {
	local prog=$1 goname=$2 root=$3 variant=$4 src flags dir stamp want log
	case $prog in
	heapbench) src="$top_srcdir/bench/heapbench.go" ;;
	*) src="$top_srcdir/tests/go/$prog/main.go" ;;
	esac
	[ -f "$src" ] || { echo "gh_build: no $src" >&2; return 1; }
	flags=$(gh_variant_flags "$variant") || { echo "gh_build: unknown variant $variant" >&2; return 1; }
	want=$( { sha256sum <"$src"; echo "$root"; "$root/bin/go" version; echo "$flags"; } | sha256sum | cut -d' ' -f1)
	# the source's hash in the name: two checkouts with different programs never share a build
	dir="$GH_CACHE/build/$prog-$goname-$variant-${want:0:12}"
	stamp="$dir/stamp"
	if [ -x "$dir/$prog" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		echo "$dir/$prog"
		return 0
	fi
	mkdir -p "$dir" || return 1
	rm -f "$stamp"
	log="$dir/build.log"
	if ! (cd "$(dirname "$src")" &&
		eval "gh_go \"\$root\" build $flags -o \"\$dir/\$prog.tmp\" \"\$(basename \"\$src\")\"") >"$log" 2>&1; then
		echo "gh_build: $prog for $goname/$variant failed:" >&2
		sed 's/^/    | /' "$log" >&2
		return 1
	fi
	mv -f "$dir/$prog.tmp" "$dir/$prog" && echo "$want" >"$stamp" || return 1
	echo "$dir/$prog"
}

# gh_start BIN ARGS...: start BIN in the background with its stdout and stderr
# in $GH_TMP/start.N.{out,err}, wait until a stdout line starts with READY.
# Sets GH_PID, GH_OUT, GH_ERR.  Returns 1 (with the reason on stderr) if the
# program exits or the timeout passes first.
GH_NSTART=0
gh_start() {
	local bin=$1 t0 limit
	shift
	GH_NSTART=$((GH_NSTART + 1))
	GH_OUT="$GH_TMP/start.$GH_NSTART.out"
	GH_ERR="$GH_TMP/start.$GH_NSTART.err"
	"$bin" "$@" >"$GH_OUT" 2>"$GH_ERR" </dev/null &
	GH_PID=$!
	GH_PIDS+=("$GH_PID")
	limit=$(( ${GOHEAP_READY_TIMEOUT:-60} * 20 ))
	t0=0
	while ! grep -q '^READY' "$GH_OUT" 2>/dev/null; do
		if ! kill -0 "$GH_PID" 2>/dev/null; then
			wait "$GH_PID"
			echo "$(basename "$bin") exited (status $?) before READY: $(tail -n 3 "$GH_ERR" | tr '\n' ' ')" >&2
			return 1
		fi
		t0=$((t0 + 1))
		if [ "$t0" -ge "$limit" ]; then
			echo "$(basename "$bin") not READY after ${GOHEAP_READY_TIMEOUT:-60}s" >&2
			gh_stop "$GH_PID"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

# gh_stop PID: stop one program started by gh_start.
gh_stop() {
	local p=$1 keep=() q
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	for q in "${GH_PIDS[@]+"${GH_PIDS[@]}"}"; do
		[ "$q" = "$p" ] || keep+=("$q")
	done
	GH_PIDS=("${keep[@]+"${keep[@]}"}")
}

# gh_have_goheap: is the CLI built?
gh_have_goheap() { [ -x "$GH_GOHEAP" ]; }

# gh_real_goheap: for benchmarks, point GH_GOHEAP at the real binary of an
# uninstalled build: src/go-heap is then libtool's shell wrapper, whose own
# start-up (~10 ms of shell) is not go-heap's.
gh_real_goheap() {
	if [ -x "$top_builddir/src/.libs/go-heap" ] && head -c 2 "$GH_GOHEAP" 2>/dev/null | grep -q '#!'; then
		export LD_LIBRARY_PATH="$top_builddir/src/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		GH_GOHEAP="$top_builddir/src/.libs/go-heap"
	fi
}

# gh_can_read_mem PID: can this user read the target's memory (ptrace
# access mode ATTACH, as process_vm_readv and /proc/PID/mem need)?
# gh_build_arm64 PROG GONAME GOROOT VARIANT: tests/go/PROG for GOARCH=arm64 (default, or
# stripped: -ldflags=-s -w), cached like gh_build (gh_go would clear GOARCH); the binary's path.
gh_build_arm64() {
	local prog=$1 goname=$2 root=$3 variant=$4 src="$top_srcdir/tests/go/$1/main.go" dir want ld=
	[ "$variant" = stripped ] && ld="-s -w"
	dir="$GH_CACHE/build/$prog-$goname-arm64-$variant"
	want=$( { sha256sum <"$src"; echo "$root"; "$root/bin/go" version; echo "arm64 $ld"; } | sha256sum | cut -d' ' -f1)
	if [ -x "$dir/$prog" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ]; then
		echo "$dir/$prog"
		return 0
	fi
	mkdir -p "$dir" || return 1
	rm -f "$dir/stamp"
	if ! (cd "$(dirname "$src")" && env GOROOT="$root" \
		GOCACHE="$GH_CACHE/gocache-go$(basename "$root" | sed 's/^go-//')" \
		GOPATH="$GH_CACHE/gopath" GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off \
		GOTELEMETRY=off GOENV=off GOOS=linux GOARCH=arm64 CGO_ENABLED=0 \
		"$root/bin/go" build -ldflags="$ld" -o "$dir/$prog.tmp" main.go) >"$dir/build.log" 2>&1; then
		sed 's/^/    | /' "$dir/build.log" >&2
		return 1
	fi
	mv -f "$dir/$prog.tmp" "$dir/$prog" && echo "$want" >"$dir/stamp" && echo "$dir/$prog"
}

# gh_qemu_probe: can arm64 programs run under qemu-user and leave cores here?  Sets have_qemu (1 or
# 0) and why_qemu (the reason, for the SKIP line).  Each script raises its own core-size limit.
gh_qemu_probe() {
	have_qemu=1
	why_qemu=
	if ! command -v qemu-aarch64-static >/dev/null 2>&1; then
		have_qemu=0
		why_qemu="qemu-aarch64-static not installed (Debian package qemu-user-static, scripts/install-deps.sh)"
	elif [ "$(ulimit -H -c)" = 0 ]; then
		have_qemu=0
		why_qemu="core dumps are disabled (ulimit -c hard limit 0)"
	fi
}

# gh_qemu_core BIN ARGS...: run BIN ARGS... (a GOARCH=arm64 Go program that prints READY when
# ready) under qemu-aarch64-static in $d/run (which must exist) with GOTRACEBACK=crash and the
# core-size limit raised, its stdout in $d/run.out and stderr in $d/run.err; once READY (at most
# 120 s), SIGABRT makes qemu write the guest's core.  Status 0 and the core's path in GH_QCORE;
# else "FAIL: $tag: BIN (arm64, qemu) not READY: ..." or "FAIL: $tag: qemu wrote no qemu_*.core
# after SIGABRT" and status 1.
gh_qemu_core() {
	local bin=$1 qpid t
	GH_QCORE=
	( ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"; cd "$d/run" &&
		GOTRACEBACK=crash exec qemu-aarch64-static "$@" \
		>"$d/run.out" 2>"$d/run.err" </dev/null ) &
	qpid=$!
	GH_PIDS+=("$qpid")
	for ((t = 0; t < 2400; t++)); do
		grep -q '^READY' "$d/run.out" 2>/dev/null && break
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q '^READY' "$d/run.out"; then
		gh_fail "$tag: $(basename "$bin") (arm64, qemu) not READY: $(tail -n 3 "$d/run.err" | tr '\n' ' ')"
		gh_stop "$qpid"
		return 1
	fi
	kill -ABRT "$qpid"
	for ((t = 0; t < 600; t++)); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.1
	done
	{ wait "$qpid"; } 2>/dev/null   # reaped here: no "Aborted (core dumped)" line
	gh_stop "$qpid"
	GH_QCORE=$(ls -t "$d/run"/qemu_*.core 2>/dev/null | head -n 1)
	if [ -z "$GH_QCORE" ] || [ ! -s "$GH_QCORE" ]; then
		gh_fail "$tag: qemu wrote no qemu_*.core after SIGABRT"
		gh_show "$d/run.err" 5
		GH_QCORE=
		return 1
	fi
}

# gh_gdb CORE EXE COMMAND...: the gdb command (gdb/go_heap.py over this build's libgoheap.so.0)
# on EXE and its CORE: gdb -batch runs each COMMAND (e.g. "go-heap -p types -n 3"), its output in
# $d/gdb.out (at most 120 s; gdb's status is not looked at), status 0.  Status 1 without running
# gdb when this build's library has ASan, which gdb cannot load ("N/A: $tag: gdb: ...", as
# scripts/test.sh leaves run-gdb.sh out of its sanitizer build), or when gdb or the library is
# missing ("SKIP: $tag: gdb: gdb or LIB missing").
gh_gdb() {
	local core=$1 exe=$2 lib="$top_builddir/src/.libs/libgoheap.so.0" c ex=()
	shift 2
	if grep -q '^SAN_CFLAGS = -fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
		echo "N/A: $tag: gdb: this build's library has ASan, which gdb cannot load"
		return 1
	fi
	if ! command -v gdb >/dev/null 2>&1 || [ ! -e "$lib" ]; then
		gh_skip "$tag: gdb: gdb or $lib missing"
		return 1
	fi
	for c in "$@"; do
		ex+=(-ex "$c")
	done
	GOHEAP_LIBRARY=$lib timeout 120 gdb -batch -nx -ex "source $top_srcdir/gdb/go_heap.py" \
		"${ex[@]}" "$exe" "$core" >"$d/gdb.out" 2>&1
	return 0
}

gh_can_read_mem() {
	python3 - "$1" <<'PY' 2>/dev/null
import sys
pid = sys.argv[1]
with open(f"/proc/{pid}/maps") as m:
    lo = int(m.readline().split("-")[0], 16)
with open(f"/proc/{pid}/mem", "rb", buffering=0) as f:
    f.seek(lo)
    sys.exit(0 if len(f.read(16)) == 16 else 1)
PY
}

# ---- running go-heap in the comparison scripts --------------------------------------------
# Both need $d (the check's output directory) and $tag (its name in PASS/FAIL lines).

# run NAME ARGS...: run go-heap, stdout to $d/NAME.out, stderr to $d/NAME.err, status in $rc.
run() {
	local name=$1
	shift
	timeout "${GOHEAP_TIMEOUT:-120}" "$GH_GOHEAP" "$@" >"$d/$name.out" 2>"$d/$name.err"
	rc=$?
}

# ok NAME WHAT: the last run exited 0 (else FAIL with its stderr); returns 1 on failure.
ok() {
	if [ "$rc" -ne 0 ]; then
		gh_fail "$tag: $2: go-heap exited $rc$( [ "$rc" = 124 ] && echo ' (timeout)')"
		# the error is the last line (-v's lines come first)
		if [ "$(wc -l <"$d/$1.err")" -gt 6 ]; then
			gh_show "$d/$1.err" 3
			echo "    | ..."
			tail -n 3 "$d/$1.err" | sed 's/^/    | /'
		else
			gh_show "$d/$1.err" 6
		fi
		return 1
	fi
	return 0
}

# ---- helpers of the scripts that serve or scrape -------------------------

# gh_mutate CORE EXE CASES CHECK OPTION...: damaged copies of CORE, one a line of the file CASES
# ("ADDR VALUE": the 8 bytes at ADDR set to VALUE, hex in the core's byte order), each read by
# go-heap OPTION... DAMAGED-CORE EXE (run mut: $d/mut.out and $d/mut.err; GOHEAP_TIMEOUT
# applies); the word is restored after each run, the copy removed at the end.  Counts the
# runs that exit 0 in the caller's e0 and those that exit 1 in its e1; adds "ADDR=VALUE: ...;"
# to the caller's bad for an exit 1 with more than one line on stderr and for any other exit
# status; after an exit 0 it runs CHECK ADDR VALUE (the caller's function that checks
# $d/mut.out and may add to bad, or : for none).
gh_mutate() {
	local core=$1 exe=$2 cases=$3 check=$4 addr val old
	shift 4
	cp "$core" "$d/mut.core"
	while read -r addr val; do
		# damaged in place, restored after the run
		old=$(python3 "$GH_TESTS/heapdump.py" --patch "$d/mut.core" "$addr" "$val")
		run mut "$@" "$d/mut.core" "$exe"
		python3 "$GH_TESTS/heapdump.py" --patch "$d/mut.core" "$addr" "$old" >/dev/null
		case $rc in
		0)
			e0=$((e0 + 1))
			"$check" "$addr" "$val" ;;
		1)
			e1=$((e1 + 1))
			[ "$(wc -l <"$d/mut.err")" = 1 ] || bad="$bad $addr=$val: $(wc -l <"$d/mut.err") stderr lines;" ;;
		*)
			bad="$bad $addr=$val: exit $rc;" ;;
		esac
	done <"$cases"
	rm -f "$d/mut.core"
}

# gh_free_port: a TCP port free on 127.0.0.1 now.
gh_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# gh_wait_for SECONDS CMD...: run CMD every 0.25 s until it succeeds; 1 if it never did.
# SECONDS is what a quiet machine needs; the deadline is that times GOHEAP_WAIT_SCALE (default
# 6) of wall-clock time, so that a loaded machine (scripts/test.sh --load) waits longer: a
# deadline here bounds a hang, it never judges speed (bench/ measures that).
gh_wait_for() {
	local end=$(( $(date +%s) + $1 * ${GOHEAP_WAIT_SCALE:-6} ))
	shift
	while :; do
		"$@" && return 0
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.25
	done
}

# gh_prom_query HOST:PORT EXPR: the first value of a Prometheus instant query, or nothing.
gh_prom_query() {
	python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    r = json.load(urllib.request.urlopen(url, timeout=10))
    print(r["data"]["result"][0]["value"][1])
except Exception:
    pass
PY
}

# gh_compare_profiles EXPECTED ACTUAL MODE WHAT: tests/compare.sh (in $CMP) on two profiles,
# a PASS with its first line or a FAIL with its log; $d and $tag as the scripts set them.
gh_compare_profiles() {
	if "$CMP" "$1" "$2" "$3" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag: $4 ($(grep -v '^note:' "$d/cmp.log" | head -n 1))"
	else
		gh_fail "$tag: $4: differs from $(basename "$2")"
		gh_show "$d/cmp.log" 40
	fi
}
