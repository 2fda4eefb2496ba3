#!/bin/bash
# tests/run-core.sh: profile Go programs post mortem, from core files, and compare them with the
# profiles the programs wrote themselves just before they were dumped.
#
# For each toolchain (go1.19 ... go1.24, as tests/lib.sh finds them):
#   gcore    (the oldest and the newest toolchain; GOHEAP_GCORE_ALL=1: every one)
#            heapprog (default build) is started; once READY, `gcore` (gdb) dumps it while it
#            runs on.  go-heap -f text / -p allocs -f text / -o X.pb.gz on CORE EXE and on CORE
#            alone (executable from NT_FILE) == the in-process heap.txt, allocs.txt, heap.pb.gz.
#   kernel   for each variant in $GOHEAP_CORE_VARIANTS (default "default pie stripped", the
#            last built with -ldflags="-s -w", so that the locator must find the globals): a copy of
#            heapprog is started under `ulimit -c unlimited` with GOTRACEBACK=crash and killed
#            with SIGABRT, so that the kernel writes the core (core_pattern must name a file in
#            the working directory); the copy is then moved under a sysroot, so that CORE alone
#            must fail and --sysroot must find it.  text and pprof compared as above; the
#            summary must say "core file ... (signal 6, threads: N, dumped ...Z)".
#   arm64    heapprog built with GOARCH=arm64 runs under qemu-aarch64-static with
#            GOTRACEBACK=crash and is killed with SIGABRT; qemu writes qemu_heapprog_*.core, an
#            aarch64 core, analysed here on the x86-64 host and compared as above.
# Once: cores cut at several offsets (headers, notes, data) must give exit 1 and one line on
# stderr, never a crash; a core with another toolchain's executable, and a core of a non-Go
# program (sleep), exit 1 with one line.
#
# Environment: as tests/run-live.sh (top_srcdir, top_builddir, GOHEAP_CACHE, GOHEAP_GO_VERSIONS,
# GOHEAP_KEEP, GOHEAP_TIMEOUT), plus GOHEAP_CORE_VARIANTS and GOHEAP_GCORE_ALL.
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
# Exit: 0, 1 if anything failed, 77 if nothing could run.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"
SRC="$top_srcdir/tests/go/heapprog/main.go"

gh_need_python
if ! gh_have_goheap; then
	gh_skip "all: $GH_GOHEAP is not built"
	gh_summary
fi
gh_need_toolchains

# ---- what this machine can do ------------------------------------------------------------

have_gcore=1
why_gcore=
if ! command -v gcore >/dev/null 2>&1; then
	have_gcore=0
	why_gcore="gcore (gdb) not installed"
fi

# Core dumps: raise the soft limit; a hard limit of 0 forbids them.
ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)" 2>/dev/null
have_kcore=1
why_kcore=
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo '?')
if [ "$(ulimit -c)" = 0 ]; then
	have_kcore=0
	why_kcore="core dumps are disabled (ulimit -c hard limit 0)"
elif [ "${pattern#|}" != "$pattern" ] || [ "${pattern#*/}" != "$pattern" ]; then
	have_kcore=0
	why_kcore="kernel.core_pattern is '$pattern': cores are not written to the working directory"
fi
gh_qemu_probe

# ---- helpers ---------------------------------------------------------------------------------

# run and ok come from lib.sh.

# expect_error NAME WHAT GREP ARGS...: go-heap must exit 1 with exactly one line on stderr
# (matching the extended regex GREP unless it is empty).
expect_error() {
	local name=$1 what=$2 re=$3
	shift 3
	run "$name" "$@"
	if [ "$rc" -ne 1 ]; then
		gh_fail "$tag: $what: exit $rc, want 1$( [ "$rc" -gt 128 ] && [ "$rc" != 124 ] && echo " (killed by signal $((rc - 128)))")"
		gh_show "$d/$name.err" 5
	elif [ "$(wc -l <"$d/$name.err")" -ne 1 ]; then
		gh_fail "$tag: $what: exit 1 but $(wc -l <"$d/$name.err") lines on stderr, want 1"
		gh_show "$d/$name.err" 5
	elif [ -n "$re" ] && ! grep -Eq "$re" "$d/$name.err"; then
		gh_fail "$tag: $what: message does not match /$re/: $(cat "$d/$name.err")"
	else
		gh_pass "$tag: $what: exit 1: $(cat "$d/$name.err")"
	fi
}

# core_checks CORE EXE OUTDIR WHAT: the text, allocs and pprof comparisons.
core_checks() {
	local core=$1 exe=$2 out=$3 what=$4
	run "$what.text" -f text "$core" "$exe"
	ok "$what.text" "$what: text" &&
		gh_compare_profiles text "$out/heap.txt" "$d/$what.text.out" "$what: text == in-process heap debug=1"
	run "$what.atext" -p allocs -f text "$core" "$exe"
	ok "$what.atext" "$what: allocs text" &&
		gh_compare_profiles text "$out/allocs.txt" "$d/$what.atext.out" "$what: allocs text == in-process allocs debug=1"
	run "$what.pb" -o "$d/$what.heap.pb.gz" "$core" "$exe"
	ok "$what.pb" "$what: pprof" &&
		gh_compare_profiles pprof "$out/heap.pb.gz" "$d/$what.heap.pb.gz" "$what: pprof == in-process heap proto"
}

# summary_check CORE EXE WHAT SIGNAL: the top output names the core, signal, threads, time.
summary_check() {
	local re="core file $1 \\($4, threads: [1-9][0-9]*, dumped [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"
	run "$3.top" "$1" "$2"
	if ok "$3.top" "$3: top"; then
		if grep -Eq "$re" "$d/$3.top.out"; then
			gh_pass "$tag: $3: summary: $(grep -Eo "core file .*Z\\)" "$d/$3.top.out" | head -n 1)"
		else
			gh_fail "$tag: $3: summary does not say /$re/"
			gh_show "$d/$3.top.out" 3
		fi
	fi
}

# wait_exit PID: wait (60 s at most) for a program we started and killed to exit.
wait_exit() {
	local n=0
	while kill -0 "$1" 2>/dev/null && [ "$n" -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	gh_stop "$1"
}

# build_arm64 GONAME GOROOT: heapprog for GOARCH=arm64 (gh_build_arm64).
build_arm64() { gh_build_arm64 heapprog "$1" "$2" default; }

# elf_layout CORE: "PHDRS_END NOTES_START NOTES_END" of a 64-bit little-endian core.
elf_layout() {
	python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    h = f.read(64)
    phoff, = struct.unpack_from("<Q", h, 32)
    phentsize, phnum = struct.unpack_from("<HH", h, 54)
    f.seek(phoff)
    for _ in range(phnum):
        t, _fl, off, _va, _pa, fsz, _msz, _al = struct.unpack("<IIQQQQQQ", f.read(56))
        if t == 4:
            print(phoff + phnum * phentsize, off, off + fsz)
            break
PY
}

# cut_checks CORE EXE KIND: truncate CORE (in place, so largest cut first) at several offsets.
cut_checks() {
	local core=$1 exe=$2 kind=$3 size lay phend nstart nend off want re
	size=$(stat -c %s "$core")
	lay=$(elf_layout "$core") || lay=
	if [ -z "$lay" ]; then
		gh_fail "$tag: truncated $kind cores: cannot find the notes of $core"
		return
	fi
	set -- $lay
	phend=$1 nstart=$2 nend=$3
	# "offset:exit" (01: either is fine, the cut may spare what the walk reads), applied
	# largest first.  The kernel writes the notes first and the memory after them; gdb
	# writes the memory first, then the notes, then section headers we do not need.
	local cuts="$((size - 1)):01 $(((nstart + nend) / 2)):1 $((phend - 10)):1 100:1 63:1 10:1 3:1 0:1"
	if [ "$kind" = gcore ]; then
		cuts="$cuts $((nend - 1)):1 $((nstart / 2)):1"
	else
		cuts="$cuts $((size / 2)):01 $((nend + 4096)):1"
	fi
	cuts=$(echo "$cuts" | tr ' ' '\n' | sort -t: -k1,1 -rn -u)
	for c in $cuts; do
		off=${c%%:*}
		want=${c#*:}
		[ "$off" -lt "$(stat -c %s "$core")" ] || continue
		truncate -s "$off" "$core" || { gh_fail "$tag: truncate $core"; return; }
		re=
		if [ "$off" -lt 4 ]; then
			re='is not an ELF file'
		elif [ "$off" -lt "$nend" ]; then
			re='is truncated'
		fi
		if [ "$want" = 1 ]; then
			expect_error "cut$off" "$kind core cut at $off of $size bytes" "$re" -f text "$core" "$exe"
			continue
		fi
		run "cut$off" -f text "$core" "$exe"
		if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "$(wc -l <"$d/cut$off.err")" -eq 1 ]; }; then
			gh_pass "$tag: $kind core cut at $off of $size bytes: exit $rc, no crash$( [ "$rc" = 1 ] && echo ": $(cat "$d/cut$off.err")")"
		else
			gh_fail "$tag: $kind core cut at $off of $size bytes: exit $rc (want 0, or 1 with one line)"
			gh_show "$d/cut$off.err" 5
		fi
	done
}

# ---- per toolchain ---------------------------------------------------------------------------

first=1
prev_exe=
for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}

	# -- gcore of a running program.
	tag="$goname/gcore"
	d="$GH_TMP/$goname-gcore"
	mkdir -p "$d/out"
	if [ "$i" != 0 ] && [ "$i" != $((${#GH_GO_NAMES[@]} - 1)) ] && [ "${GOHEAP_GCORE_ALL:-0}" != 1 ]; then
		# sampled (README "Testing"): gcore writes every readable byte (1.2 GiB of mostly
		# zeros for heapprog from go1.21 on), and its core's format does not depend on the
		# release; the walkers' release differences are exercised by the kernel cores below,
		# on every release and variant
		:
	elif [ "$have_gcore" = 0 ]; then
		gh_skip "$tag: $why_gcore"
	elif ! bin=$(gh_build heapprog "$goname" "$root" default 2>"$GH_TMP/build.err"); then
		gh_fail "$tag: build heapprog"
		gh_show "$GH_TMP/build.err" 20
	elif ! gh_start "$bin" -out "$d/out" 2>"$GH_TMP/start.err"; then
		gh_fail "$tag: heapprog: $(cat "$GH_TMP/start.err")"
	elif ! gh_can_read_mem "$GH_PID"; then
		gh_skip "$tag: cannot ptrace the target (kernel.yama.ptrace_scope or CAP_SYS_PTRACE)"
		gh_stop "$GH_PID"
	else
		pid=$GH_PID
		timeout 300 gcore -o "$d/core" "$pid" >"$d/gcore.log" 2>&1
		grc=$?
		gh_stop "$pid"
		core="$d/core.$pid"
		if [ ! -s "$core" ]; then
			gh_fail "$tag: gcore wrote no core (exit $grc)"
			gh_show "$d/gcore.log" 10
		else
			gh_pass "$tag: gcore wrote $(($(stat -c %s "$core") / 1048576)) MiB"
			core_checks "$core" "$bin" "$d/out" gcore
			run noexe -f text "$core"
			ok noexe "CORE without EXE" &&
				gh_compare_profiles text "$d/out/heap.txt" "$d/noexe.out" "CORE alone (executable from NT_FILE): text == in-process"
			summary_check "$core" "$bin" gcore "signal [0-9]+|no signal"
			if [ -n "$prev_exe" ]; then
				expect_error wrongexe "core with another toolchain's executable" "" -f text "$core" "$prev_exe"
			fi
			if [ "$first" = 1 ]; then
				cut_checks "$core" "$bin" gcore
			fi
		fi
		rm -f "$core"
		prev_exe=$bin
	fi

	# -- kernel cores, for each variant.
	other_variant=
	for variant in ${GOHEAP_CORE_VARIANTS:-default pie stripped}; do
		tag="$goname/$variant/kernel"
		d="$GH_TMP/$goname-$variant-kernel"
		mkdir -p "$d/out" "$d/run"
		if [ "$have_kcore" = 0 ]; then
			gh_skip "$tag: $why_kcore"
			continue
		fi
		gh_build_or_fail "$tag" heapprog "$goname" "$root" "$variant" || continue
		bin=$GH_BIN
		# A private copy, moved under a sysroot after the crash.
		cp "$bin" "$d/run/heapprog" || { gh_fail "$tag: copy heapprog"; continue; }
		cd "$d/run" || exit 1
		GOTRACEBACK=crash gh_start "$d/run/heapprog" -out "$d/out" 2>"$GH_TMP/start.err"
		src=$?
		cd "$GH_TMP" || exit 1
		if [ "$src" -ne 0 ]; then
			gh_fail "$tag: heapprog: $(cat "$GH_TMP/start.err")"
			continue
		fi
		kill -ABRT "$GH_PID"
		wait_exit "$GH_PID" 2>/dev/null
		core=$(ls -t "$d/run"/core* 2>/dev/null | head -n 1)
		if [ -z "$core" ] || [ ! -s "$core" ]; then
			gh_skip "$tag: SIGABRT with GOTRACEBACK=crash produced no core in the working directory (core_pattern '$pattern')"
			continue
		fi
		gh_pass "$tag: kernel wrote $(basename "$core") ($(($(stat -c %s "$core") / 1048576)) MiB)"
		core_checks "$core" "$d/run/heapprog" "$d/out" kernel
		if [ "$variant" = stripped ]; then
			# No .symtab: the globals must come from the locator, as for a live process.
			run located -v -f text "$core" "$d/run/heapprog"
			if [ "$rc" -eq 0 ] && grep -q 'mbuckets via .*layout guard: layout checked' "$d/located.err" &&
				! grep -q 'from .symtab' "$d/located.err"; then
				gh_pass "$tag: stripped executable: globals located in the core ($(grep -o 'mbuckets via [^;]*' "$d/located.err" | head -n 1))"
			else
				gh_fail "$tag: stripped executable: the locator did not report its work (exit $rc)"
				gh_show "$d/located.err" 8
			fi
		fi
		summary_check "$core" "$d/run/heapprog" kernel "signal 6"
		if [ -n "$other_variant" ]; then
			expect_error wrongvariant "core with the executable of another build ($other_variant)" "" \
				-f text "$core" "$other_variant"
		fi
		# -p types reads type names from the executable's pages the kernel did not dump
		run types.recorded -p types -f text "$core" "$d/run/heapprog"
		rc_types_recorded=$rc
		mkdir -p "$d/root$d/run" && mv "$d/run/heapprog" "$d/root$d/run/heapprog"
		expect_error moved "CORE alone, the recorded executable is gone" "" -f text "$core"
		run sysroot -f text --sysroot "$d/root" "$core"
		ok sysroot "--sysroot" &&
			gh_compare_profiles text "$d/out/heap.txt" "$d/sysroot.out" "--sysroot DIR CORE: text == in-process"
		# Another file at the recorded path (rebuilt since the crash; here /bin/true): CORE EXE
		# reads the executable's undumped pages from EXE, not from that path; CORE alone is
		# refused (the core's own first page has the old build id).
		if [ "$rc_types_recorded" = 0 ] && cp /bin/true "$d/run/heapprog" 2>/dev/null; then
			run types.impostor -p types -f text "$core" "$d/root$d/run/heapprog"
			if [ "$rc" = 0 ] && cmp -s "$d/types.recorded.out" "$d/types.impostor.out"; then
				gh_pass "$tag: the recorded path rebuilt: CORE EXE reads EXE's pages (-p types text unchanged)"
			else
				gh_fail "$tag: the recorded path rebuilt: CORE EXE's -p types differs from before (exit $rc)"
				diff "$d/types.recorded.out" "$d/types.impostor.out" | head -n 6 >&2
			fi
			expect_error impostor "CORE alone, another program at the recorded path" "" -f text "$core"
			rm -f "$d/run/heapprog"
		fi
		if [ "$first" = 1 ] && [ "$variant" = default ]; then
			cut_checks "$core" "$d/root$d/run/heapprog" kernel
		fi
		rm -f "$core"
		other_variant=$bin
	done

	# -- arm64 under qemu-user.
	tag="$goname/arm64/qemu"
	d="$GH_TMP/$goname-arm64"
	mkdir -p "$d/out" "$d/run"
	if [ "$have_qemu" = 0 ]; then
		gh_skip "$tag: $why_qemu"
	elif ! bin=$(build_arm64 "$goname" "$root" 2>"$GH_TMP/build.err"); then
		gh_fail "$tag: build heapprog for GOARCH=arm64"
		gh_show "$GH_TMP/build.err" 20
	else
		cd "$d/run" || exit 1
		GOTRACEBACK=crash gh_start qemu-aarch64-static "$bin" -out "$d/out" 2>"$GH_TMP/start.err"
		src=$?
		cd "$GH_TMP" || exit 1
		if [ "$src" -ne 0 ]; then
			gh_fail "$tag: heapprog under qemu: $(cat "$GH_TMP/start.err")"
		else
			kill -ABRT "$GH_PID"
			wait_exit "$GH_PID" 2>/dev/null
			# qemu writes the guest's core as qemu_PROG_DATE-TIME_PID.core; the kernel may
			# also write a core of qemu itself (x86-64), which is not what we want.
			core=$(ls -t "$d/run"/qemu_*.core 2>/dev/null | head -n 1)
			rm -f "$d/run/core" "$d/run"/core.[0-9]*
			if [ -z "$core" ] || [ ! -s "$core" ]; then
				gh_fail "$tag: qemu wrote no qemu_*.core after SIGABRT"
				gh_show "$GH_ERR" 5
			else
				gh_pass "$tag: qemu wrote $(basename "$core") ($(($(stat -c %s "$core") / 1048576)) MiB)"
				core_checks "$core" "$bin" "$d/out" arm64
				run arm64.noexe -f text "$core"
				ok arm64.noexe "arm64: CORE without EXE" &&
					gh_compare_profiles text "$d/out/heap.txt" "$d/arm64.noexe.out" "arm64: CORE alone (executable from AT_EXECFN): text == in-process"
				summary_check "$core" "$bin" arm64 "signal 6"
				rm -f "$core"
			fi
		fi
	fi
	first=0
done

# ---- a core of a program that is not written in Go ----------------------------------------
tag=non-go
d="$GH_TMP/non-go"
mkdir -p "$d"
if [ "$have_gcore" = 1 ]; then
	sleep 300 </dev/null >/dev/null 2>&1 &
	spid=$!
	GH_PIDS+=("$spid")
	timeout 120 gcore -o "$d/core" "$spid" >"$d/gcore.log" 2>&1
	gh_stop "$spid"
	if [ -s "$d/core.$spid" ]; then
		expect_error nongo "core of sleep(1)" "" -f text "$d/core.$spid"
	else
		gh_skip "$tag: gcore could not dump sleep(1)"
	fi
	rm -f "$d/core.$spid"
else
	gh_skip "$tag: $why_gcore"
fi

gh_summary
