#!/bin/bash
# tests/run-valgrind.sh: go-heap under valgrind memcheck on the normal path (`make
# check-valgrind`): a live heapprog and a core of it, in the text, pprof, top and collapsed
# formats, plus -v.  Every run must report zero errors and zero leaked bytes (definite,
# indirect and possible; "still reachable" is libc's and allowed).
#
# The CLI is a libtool wrapper script in the build tree, so valgrind runs through
# `libtool --mode=execute`.  Environment: top_srcdir, top_builddir, GOHEAP_CACHE,
# GOHEAP_GO_VERSIONS (the first two installed toolchains are used).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
gh_init

gh_have_goheap || { gh_skip "all: $GH_GOHEAP is not built"; gh_summary; }
command -v valgrind >/dev/null 2>&1 || { gh_skip "all: valgrind not installed"; gh_summary; }
lt="$top_builddir/libtool"
[ -x "$lt" ] || lt=
gh_toolchains >/dev/null

# vg WHAT ARGS...: go-heap ARGS under memcheck.
vg() {
	local what=$1 log="$GH_TMP/vg.log" rc
	shift
	# shellcheck disable=SC2086
	timeout 600 ${lt:+$lt --mode=execute} valgrind --tool=memcheck --error-exitcode=99 \
		--leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --track-fds=no \
		--log-file="$log" "$GH_GOHEAP" "$@" >"$GH_TMP/vg.out" 2>"$GH_TMP/vg.err" </dev/null
	rc=$?
	local errs leaks
	errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
	leaks=$(grep -E '(definitely|indirectly|possibly) lost: [1-9]' "$log" | head -n 1)
	if [ "$rc" -ne 0 ] || [ "${errs:-x}" != 0 ] || [ -n "$leaks" ]; then
		gh_fail "$what: exit $rc, ${errs:-?} errors${leaks:+, $leaks}"
		grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|  (at|by) |[0-9,]+ bytes in)' "$log" | head -n 20 | sed 's/^/    | /'
		gh_show "$GH_TMP/vg.err" 3
	else
		gh_pass "$what: 0 errors, no leaks ($(grep -Eo 'total heap usage: [0-9,]+ allocs' "$log"))"
	fi
}

n=0
for i in "${!GH_GO_NAMES[@]}"; do
	[ $n -lt 2 ] || break
	n=$((n + 1))
	goname=${GH_GO_NAMES[$i]}
	bin=$(gh_build heapprog "$goname" "${GH_GO_ROOTS[$i]}" default) || { gh_fail "$goname: build"; continue; }
	if ! gh_start "$bin" "$GH_TMP/$goname"; then
		gh_fail "$goname: heapprog did not start"
		continue
	fi
	if ! gh_can_read_mem "$GH_PID"; then
		gh_skip "$goname: ptrace is not permitted"
		gh_stop "$GH_PID"
		continue
	fi
	vg "$goname: live -f text" -f text "$GH_PID"
	vg "$goname: live -f pprof" -o "$GH_TMP/live.pb.gz" "$GH_PID"
	vg "$goname: live -v -f top -p allocs" -v -f top -p allocs "$GH_PID"
	vg "$goname: live -f collapsed" -f collapsed "$GH_PID"
	if command -v gcore >/dev/null 2>&1 &&
		timeout 300 gcore -o "$GH_TMP/core" "$GH_PID" >/dev/null 2>&1 && [ -s "$GH_TMP/core.$GH_PID" ]; then
		c="$GH_TMP/core.$GH_PID"
		vg "$goname: core -f text" -f text "$c" "$bin"
		vg "$goname: core -f pprof" -o "$GH_TMP/core.pb.gz" "$c" "$bin"
		vg "$goname: core -v -f top" -v -f top "$c"
		rm -f "$c"
	else
		gh_skip "$goname: core: gcore unavailable or wrote nothing"
	fi
	gh_stop "$GH_PID"
done
gh_summary
