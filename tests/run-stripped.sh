#!/bin/bash
# tests/run-stripped.sh: locating the runtime's profiling globals without .symtab/DWARF, and the
# Go version without .go.buildinfo, on real binaries (src/lib/bin/locate.c; tests/locate-dump prints what
# the locator finds).
#
# For each toolchain (go1.19 go1.21 go1.22 go1.23 go1.24; a missing one is a SKIP):
#   tests/go/stripprog (prints the true addresses through //go:linkname) and tests/go/heapprog
#   (links runtime/pprof, so the block/mutex readers exist), each built as
#     amd64, amd64 -buildmode=pie, arm64              (with .symtab: the twins)
#     amd64 -s -w, amd64 -buildmode=pie -s -w, arm64 -s -w
#   - twins: located (ignoring .symtab) == the .symtab symbols (runtime.allgs too), the inferred version == the
#     .go.buildinfo one, and the DWARF layouts of runtime.bucket/memRecord/memRecordCycle ==
#     the built-in table;
#   - -s -w builds: no .symtab; stripprog is run (arm64 under qemu-aarch64-static) and the
#     located addresses + load bias == the addresses it prints; the version is inferred;
#   - a damaged copy (mProf_FlushLocked overwritten with int3) and a non-Go ELF are refused;
#   - once the CLI reads stripped targets: `go-heap -f text PID` on heapprog -s -w (and PIE)
#     == heapprog's own heap debug=1 text (tests/compare.sh).
# A real binary built by a newer Go: lefthook-linux-x64 from the npm registry (go1.27 when
# written; cached under $GOHEAP_CACHE/npm): globals located, version and layout recognised; then
# live, with --force and some work, a profile whose records are consistent (bytes = count x size,
# in-use <= allocated).  SKIP with the reason when npm or the registry is unavailable.
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS,
# GOHEAP_KEEP=1, GOHEAP_NPM=0 (skip the npm part), GOHEAP_TIMEOUT (seconds per go-heap run).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
DUMP="$top_builddir/tests/locate-dump"
NAMES="mbuckets bbuckets xbuckets mProfCycle MemProfileRate"
# The twins also compare runtime.allgs and runtime.debug.tracebacklabels (1.26+; 0x0 on both
# sides before) for goroutine profiles, runtime.mheap_ for -p types (0x0 on both sides for a
# release without a heap row) and runtime.memstats, gcController and allp for -p memstats (the
# same without a MemStats row), runtime.sched and allm for watch's go_goroutines/go_threads;
# stripprog does not print them.
TWIN_NAMES="$NAMES allgs tracebacklabels mheap_ memstats gcController allp sched allm"

if [ ! -x "$DUMP" ]; then
	gh_skip "all: $DUMP not built (make check builds it)"
	gh_summary
fi
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)

# sg_build PROG GONAME GOROOT ARCH FLAGS...: build tests/go/PROG for GOARCH=ARCH with the given
# go build flags into the cache (rebuilt when source, toolchain or flags change); prints the path.
sg_build() {
	local prog=$1 goname=$2 root=$3 arch=$4 src dir want tag
	shift 4
	src="$top_srcdir/tests/go/$prog/main.go"
	tag=$(echo "$arch $*" | tr -c 'a-zA-Z0-9\n' '_')
	dir="$GH_CACHE/build/stripped-$prog-$goname-$tag"
	want=$( { sha256sum <"$src"; echo "$root $arch $*"; "$root/bin/go" version; } | sha256sum | cut -d' ' -f1)
	if [ -x "$dir/$prog" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$want" ]; then
		echo "$dir/$prog"
		return 0
	fi
	mkdir -p "$dir" || return 1
	if ! (cd "$(dirname "$src")" && env GOROOT="$root" GOCACHE="$GH_CACHE/gocache-$goname-$arch" \
		GOPATH="$GH_CACHE/gopath" GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOPROXY=off \
		GOTELEMETRY=off GOENV=off GOOS=linux GOARCH="$arch" CGO_ENABLED=0 \
		"$root/bin/go" build "$@" -o "$dir/$prog.tmp" main.go) >"$dir/build.log" 2>&1; then
		sed 's/^/    | /' "$dir/build.log" >&2
		return 1
	fi
	mv -f "$dir/$prog.tmp" "$dir/$prog" && echo "$want" >"$dir/stamp" && echo "$dir/$prog"
}

# addrs FILE: the five "NAME 0xADDR" lines of a locate-dump output, as "NAME=ADDR ...".
addrs() {
	local n out=
	for n in $NAMES; do
		out="$out $n=$(awk -v n="$n" '$1 == n { print $2 }' "$1")"
	done
	echo "${out# }"
}

has_symtab() { readelf -SW "$1" 2>/dev/null | grep -q ' \.symtab '; }

# link_base BIN: lowest PT_LOAD address, page-truncated, in hex (no 0x).
link_base() {
	local v m=
	for v in $(readelf -lW "$1" | awk '$1 == "LOAD" { print $3 }'); do
		if [ -z "$m" ] || [ $((v)) -lt $((m)) ]; then
			m=$v
		fi
	done
	printf '%x\n' $(( m - m % 4096 ))
}

# twin_checks TAG BIN: an unstripped build: located == .symtab; inferred version; DWARF.
twin_checks() {
	local tag=$1 bin=$2 real inf
	if ! "$DUMP" --infer --dwarf "$bin" >"$d/loc.out" 2>"$d/loc.err"; then
		gh_fail "$tag: locator refused an unstripped build: $(cat "$d/loc.err")"
		return
	fi
	"$DUMP" --symtab "$bin" >"$d/sym.out" 2>"$d/sym.err"
	if [ "$(NAMES=$TWIN_NAMES addrs "$d/loc.out")" = "$(NAMES=$TWIN_NAMES addrs "$d/sym.out")" ]; then
		gh_pass "$tag: located == .symtab ($(addrs "$d/loc.out" | cut -c1-60)... $(NAMES="allgs mheap_" addrs "$d/loc.out"))"
	else
		gh_fail "$tag: located != .symtab"
		echo "    | located: $(NAMES=$TWIN_NAMES addrs "$d/loc.out")"
		echo "    | symtab:  $(NAMES=$TWIN_NAMES addrs "$d/sym.out")"
		gh_show "$d/loc.out" 8
	fi
	real=$(sed -n '1s/^version //p' "$d/sym.out")
	inf=$(sed -n '1s/^version //p' "$d/loc.out")
	if [ "$inf" = "$real (inferred)" ]; then
		gh_pass "$tag: version inferred without .go.buildinfo: $inf"
	else
		gh_fail "$tag: inferred version '$inf', .go.buildinfo says '$real'"
	fi
	if grep -q '^dwarf DWARF layouts match (3 of 3' "$d/loc.out"; then
		gh_pass "$tag: DWARF runtime.bucket/memRecord/memRecordCycle == built-in layout"
	else
		gh_fail "$tag: DWARF layout check: $(grep '^dwarf' "$d/loc.out")"
	fi
}

# stripped_checks TAG BIN RUNNER...: a -s -w build of stripprog: locate, run, compare.
stripped_checks() {
	local tag=$1 bin=$2 bias=0 base start n want got ok=1
	shift 2
	if has_symtab "$bin"; then
		gh_fail "$tag: $bin still has .symtab (not stripped?)"
		return
	fi
	if [ "$#" -eq 0 ]; then
		gh_start "$bin" || { gh_fail "$tag: stripprog did not start"; return; }
	else
		gh_start "$@" "$bin" || { gh_fail "$tag: stripprog did not start under $1"; return; }
	fi
	cp "$GH_OUT" "$d/truth.out"
	if readelf -hW "$bin" | grep -q 'DYN'; then
		base=$(link_base "$bin")
		start=$(awk -v b="$bin" '$6 == b && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' \
			"/proc/$GH_PID/maps")
		if [ -z "$start" ]; then
			gh_fail "$tag: no offset-0 mapping of the PIE in /proc/$GH_PID/maps"
			gh_stop "$GH_PID"
			return
		fi
		bias=$(printf '%x' $((0x$start - 0x$base)))
	fi
	gh_stop "$GH_PID"
	if ! "$DUMP" --bias "$bias" "$bin" >"$d/loc.out" 2>"$d/loc.err"; then
		gh_fail "$tag: locator refused: $(cat "$d/loc.err")"
		return
	fi
	for n in $NAMES; do
		want=$(awk -v n="$n" '$1 == "ADDR" && $2 == n { print $3 }' "$d/truth.out")
		got=$(awk -v n="$n" '$1 == n { print $2 }' "$d/loc.out")
		if [ -z "$want" ] || [ "$((want))" != "$((got))" ]; then
			ok=0
			echo "    | $n: located $got, the program says ${want:-nothing}"
		fi
	done
	if [ "$ok" = 1 ]; then
		gh_pass "$tag: located + bias 0x$bias == the program's own addresses ($(sed -n 's/^version //p' "$d/loc.out"))"
	else
		gh_fail "$tag: located addresses differ from the program's"
		gh_show "$d/loc.out" 8
	fi
	if "$DUMP" --infer --bias "$bias" "$bin" >"$d/inf.out" 2>"$d/inf.err" &&
		grep -q "^version $(sed -n 's/^version //p' "$d/loc.out") (inferred)$" "$d/inf.out"; then
		gh_pass "$tag: version inferred: $(head -n 1 "$d/inf.out" | cut -d' ' -f2-)"
	else
		gh_fail "$tag: version inference: $(head -n 1 "$d/inf.out") $(cat "$d/inf.err")"
	fi
}

# damaged_checks TAG BIN: overwrite mProf_FlushLocked with int3 (a copy): the locator must refuse.
damaged_checks() {
	local tag=$1 bin=$2 addr off
	addr=$(nm "$bin" 2>/dev/null | awk '$3 == "runtime.mProf_FlushLocked" { print $1 }')
	off=$(readelf -SW "$bin" | sed -n 's/.*\] \.text  *PROGBITS  *\([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
	if [ -z "$addr" ] || [ -z "$off" ]; then
		gh_skip "$tag: damaged copy: no symbol to patch"
		return
	fi
	python3 - "$bin" "$d/damaged" "$addr" $off <<'PY'
import sys
src, dst, addr, taddr, toff = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16), int(sys.argv[5], 16)
b = bytearray(open(src, "rb").read())
o = addr - taddr + toff
b[o:o + 0x40] = b"\xcc" * 0x40
open(dst, "wb").write(b)
PY
	if "$DUMP" "$d/damaged" >"$d/dmg.out" 2>"$d/dmg.err"; then
		gh_fail "$tag: damaged mProf_FlushLocked was not refused"
		gh_show "$d/dmg.out" 6
	elif grep -q 'runtime.mbuckets' "$d/dmg.err"; then
		gh_pass "$tag: damaged copy refused ($(sed 's/.*decoding its runtime code: //' "$d/dmg.err" | cut -c1-100))"
	else
		gh_fail "$tag: damaged copy refused without naming runtime.mbuckets: $(cat "$d/dmg.err")"
	fi
}

# Records of a heap debug=1 text: "N: B [M: C] @ ..." with B = N*s and C = M*s for one s, N <= M.
text_consistent() {
	awk '
	/^heap profile:/ { hdr = 1; next }
	/^[0-9]+: [0-9]+ \[[0-9]+: [0-9]+\] @/ {
		gsub(/[\[\]:]/, " ")
		n = $1; b = $2; m = $3; c = $4; recs++
		if (n > m) { bad++; print "in-use > allocated: " $0; next }
		if (m > 0 && c % m != 0) { bad++; print "alloc bytes not count x size: " $0; next }
		if (m > 0 && n > 0 && b * m != c * n) { bad++; print "in-use size != alloc size: " $0; next }
		if (m == 0 && c != 0) { bad++; print "bytes without objects: " $0 }
	}
	END { if (!hdr || recs == 0) { print "no header or no records"; exit 1 } ; if (bad) exit 1; print recs }' "$1"
}

# ---- toolchains --------------------------------------------------------------------------------
gh_toolchains
for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	minor=${goname#go1.}
	ln=
	[ "$minor" -ge 23 ] && ln="-checklinkname=0"
	d="$GH_TMP/$goname"
	mkdir -p "$d"

	for spec in "amd64 default" "amd64 pie -buildmode=pie" "arm64 default"; do
		set -- $spec
		arch=$1 vname=$2
		shift 2
		for prog in stripprog heapprog; do
			tag="$goname $arch $vname $prog (twin)"
			if ! bin=$(sg_build "$prog" "$goname" "$root" "$arch" "$@" -ldflags="$ln" 2>"$d/build.err"); then
				gh_fail "$tag: build failed"
				gh_show "$d/build.err" 10
				continue
			fi
			twin_checks "$tag" "$bin"
			if [ "$prog" = stripprog ] && [ "$arch $vname" = "amd64 default" ]; then
				damaged_checks "$goname amd64 damaged" "$bin"
			fi
		done
	done

	for spec in "amd64 -s-w" "amd64 pie-s-w -buildmode=pie" "arm64 -s-w"; do
		set -- $spec
		arch=$1 vname=$2
		shift 2
		tag="$goname $arch $vname stripprog"
		if ! bin=$(sg_build stripprog "$goname" "$root" "$arch" "$@" -ldflags="$ln -s -w" 2>"$d/build.err"); then
			gh_fail "$tag: build failed"
			gh_show "$d/build.err" 10
			continue
		fi
		if [ "$arch" = arm64 ]; then
			if [ -z "$QEMU" ]; then
				gh_skip "$tag: qemu-aarch64-static not installed (cannot run the arm64 build)"
				continue
			fi
			stripped_checks "$tag" "$bin" "$QEMU"
		else
			stripped_checks "$tag" "$bin"
		fi
	done
done

# Non-Go ELF: refused cleanly.
if "$DUMP" /bin/sh >"$GH_TMP/nongo.out" 2>"$GH_TMP/nongo.err"; then
	gh_fail "non-Go ELF (/bin/sh) was not refused"
elif [ -s "$GH_TMP/nongo.err" ]; then
	gh_pass "non-Go ELF refused: $(cut -c1-100 "$GH_TMP/nongo.err")"
else
	gh_fail "non-Go ELF refused without a message"
fi

# ---- end to end: go-heap on stripped heapprog ----------------------------------------------------
e2e() {
	local goname=$1 root=$2 vname=$3 bin rc minor=${1#go1.} ln=
	shift 3
	[ "$minor" -ge 23 ] && ln="-checklinkname=0"
	d="$GH_TMP/e2e-$goname-$vname"
	mkdir -p "$d"
	local tag="$goname $vname heapprog"
	if ! bin=$(sg_build heapprog "$goname" "$root" amd64 "$@" -ldflags="-s -w" 2>"$d/build.err"); then
		gh_fail "$tag: build failed"
		return
	fi
	if ! gh_start "$bin" -out "$d" 2>"$d/start.err"; then
		gh_fail "$tag: heapprog did not start: $(cat "$d/start.err")"
		return
	fi
	timeout "${GOHEAP_TIMEOUT:-120}" "$GH_GOHEAP" -f text "$GH_PID" >"$d/text.out" 2>"$d/text.err"
	rc=$?
	gh_stop "$GH_PID"
	if [ "$rc" -ne 0 ] && grep -qi 'stripped\|not supported yet\|no symbol table' "$d/text.err" &&
		! grep -q 'decoding its runtime code' "$d/text.err"; then
		gh_skip "$tag: go-heap does not use the locator yet: $(head -c 150 "$d/text.err")"
	elif [ "$rc" -ne 0 ]; then
		gh_fail "$tag: go-heap exited $rc: $(head -c 300 "$d/text.err")"
	elif "$GH_TESTS/compare.sh" text "$d/heap.txt" "$d/text.out" >"$d/cmp.log" 2>&1; then
		gh_pass "$tag: go-heap -f text == in-process heap debug=1 ($(head -n 1 "$d/cmp.log"))"
	else
		gh_fail "$tag: go-heap -f text differs from the in-process profile"
		gh_show "$d/cmp.log" 20
	fi
}
if ! gh_have_goheap; then
	gh_skip "end to end: $GH_GOHEAP not built"
else
	for i in "${!GH_GO_NAMES[@]}"; do
		e2e "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" s-w
		e2e "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" pie-s-w -buildmode=pie
	done
fi

# ---- a real binary from a newer Go: lefthook-linux-x64 (npm) ----------------------------------
npm_dir="$GH_CACHE/npm"
lh=
if [ "${GOHEAP_NPM:-1}" = 0 ]; then
	gh_skip "npm lefthook-linux-x64: GOHEAP_NPM=0"
elif ! command -v npm >/dev/null 2>&1; then
	gh_skip "npm lefthook-linux-x64: npm not installed"
else
	mkdir -p "$npm_dir"
	tgz=$(ls -t "$npm_dir"/lefthook-linux-x64-*.tgz 2>/dev/null | head -n 1)
	if [ -z "$tgz" ]; then
		(cd "$npm_dir" && timeout 180 npm pack --silent lefthook-linux-x64 >"$GH_TMP/npm.log" 2>&1)
		tgz=$(ls -t "$npm_dir"/lefthook-linux-x64-*.tgz 2>/dev/null | head -n 1)
	fi
	if [ -z "$tgz" ]; then
		gh_skip "npm lefthook-linux-x64: npm pack failed (registry unreachable?): $(tail -n 1 "$GH_TMP/npm.log" 2>/dev/null)"
	else
		mkdir -p "$GH_TMP/lefthook" && tar -xzf "$tgz" -C "$GH_TMP/lefthook" &&
			lh=$(find "$GH_TMP/lefthook" -type f -name lefthook | head -n 1)
		[ -n "$lh" ] || gh_fail "npm lefthook-linux-x64: no lefthook binary in $(basename "$tgz")"
	fi
fi
if [ -n "$lh" ]; then
	tag="npm $(basename "$tgz" .tgz)"
	d="$GH_TMP/lefthook"
	chmod +x "$lh"
	if has_symtab "$lh"; then
		gh_skip "$tag: not stripped any more; the locator is not exercised"
	fi
	if "$DUMP" "$lh" >"$d/loc.out" 2>"$d/loc.err" && "$DUMP" --infer "$lh" >"$d/inf.out" 2>"$d/inf.err"; then
		ver=$(sed -n '1s/^version //p' "$d/loc.out")
		if [ "$(addrs "$d/loc.out")" = "$(addrs "$d/inf.out")" ] && ! grep -vE '^(allgs|tracebacklabels) ' "$d/loc.out" | grep -q ' 0x0$'; then
			gh_pass "$tag ($ver): all five globals located: $(addrs "$d/loc.out")"
		else
			gh_fail "$tag ($ver): globals not all located"
			gh_show "$d/loc.out" 8
		fi
		if grep -q "^version $ver (inferred)$" "$d/inf.out"; then
			gh_pass "$tag: version inferred without .go.buildinfo: $ver"
		else
			gh_fail "$tag: inferred '$(head -n 1 "$d/inf.out")', .go.buildinfo says $ver"
		fi
		if "$DUMP" --dwarf "$lh" >"$d/dw.out" 2>"$d/dw.err"; then
			gh_pass "$tag: runtime layout for $ver known ($(grep '^dwarf' "$d/dw.out"))"
		else
			gh_fail "$tag: runtime layout: $(cat "$d/dw.err")"
		fi
	else
		gh_fail "$tag: locator refused: $(cat "$d/loc.err" "$d/inf.err")"
	fi

	# Live: lefthook runs a hook of 30 short commands (work between them); we force profiling on
	# while it runs, let it work, then read the profile and check its records' arithmetic.
	if ! gh_have_goheap; then
		gh_skip "$tag: live: $GH_GOHEAP not built"
	elif ! command -v git >/dev/null 2>&1; then
		gh_skip "$tag: live: git not installed (lefthook needs a repository)"
	else
		repo="$d/repo"
		mkdir -p "$repo"
		(cd "$repo" && git init -q . && {
			echo "work:"
			echo "  commands:"
			for j in $(seq 1 30); do
				echo "    c$j:"
				echo "      run: sleep 0.3; echo step $j"
			done
		} >lefthook.yml)
		(cd "$repo" && exec "$lh" run work >"$d/lh.out" 2>&1) &
		lhpid=$!
		GH_PIDS+=("$lhpid")
		sleep 0.5
		if ! kill -0 "$lhpid" 2>/dev/null; then
			gh_skip "$tag: live: lefthook exited at once: $(tail -n 2 "$d/lh.out" | tr '\n' ' ')"
		else
			timeout "${GOHEAP_TIMEOUT:-120}" "$GH_GOHEAP" --force=1 -f text "$lhpid" >"$d/f.out" 2>"$d/f.err"
			frc=$?
			sleep 3
			timeout "${GOHEAP_TIMEOUT:-120}" "$GH_GOHEAP" -f text "$lhpid" >"$d/t.out" 2>"$d/t.err"
			trc=$?
			if [ "$frc" -ne 0 ] && grep -qi 'not supported yet\|no symbol table\|unsupported runtime layout' "$d/f.err" &&
				! grep -q 'decoding its runtime code' "$d/f.err"; then
				gh_skip "$tag: live: go-heap does not read this target yet: $(head -c 200 "$d/f.err")"
			elif [ "$frc" -ne 0 ] && grep -q 'no .symtab entry for runtime.MemProfileRate' "$d/f.err"; then
				gh_skip "$tag: live: --force does not take the located MemProfileRate yet (src/lib/force.c)"
			elif [ "$frc" -ne 0 ] || [ "$trc" -ne 0 ]; then
				gh_fail "$tag: live: go-heap --force exited $frc, then -f text exited $trc: $(head -c 300 "$d/f.err" "$d/t.err")"
			elif n=$(text_consistent "$d/t.out" 2>&1); then
				gh_pass "$tag: live after --force and work: $n records, each bytes = count x size, in-use <= allocated"
			else
				gh_fail "$tag: live profile inconsistent: $n"
				gh_show "$d/t.out" 10
			fi
		fi
		gh_stop "$lhpid"
	fi
fi

gh_summary
