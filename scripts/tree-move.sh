#!/bin/bash
# scripts/tree-move.sh: puts each file of libgoheap in its subsystem folder (doc/design.md, "Map").
#
# The table below says, for each file of src/lib, the folder it lives in.  The script
#   - git mv's each file still at src/lib/FILE (or anywhere else under src/lib) to its folder;
#   - rewrites every path "src/lib/FILE" of the tree (Makefile.am's source lists, configure.ac,
#     comments in src, tests, doc, bench, scripts) to its new place;
#   - writes Makefile.am's lib_includes line (one -I per folder).
# #include lines are never touched: the library is compiled with -I of each folder
# (Makefile.am's lib_includes), so a content merge of a moved file stays clean.  It is
# idempotent: run it again after merging work that edits or adds files in src/lib (add a row
# for each new file first: a file of src/lib without a row is reported and the script fails).
# After merging a branch made before the move: git carries its edits of a moved file to the
# new place (rename detection); a file it added stays at src/lib (give it a row); a line both
# sides changed (Makefile.am's source lists, a comment's path) conflicts: take the branch's
# side of those hunks (old paths; `git merge -X theirs BRANCH` when no other hunk conflicts,
# tried on a branch that adds a file and edits retinfer.c, Makefile.am's list and a comment),
# then run this script and commit what it changed.
#   scripts/tree-move.sh            move and rewrite
#   scripts/tree-move.sh --table    print the table (FILE FOLDER; "." is src/lib itself)
#   scripts/tree-move.sh --check    report misplaced or unlisted files; exit 1 if any
#
# Folders, lowest first; a folder includes headers of the folders below it only
# (tests/run-tree.sh checks it):
#   mem        the memory sources (live, core), the ptrace stop, the stop's snapshot, test hooks
#   bin        the executable: ELF, symbols and pclntab, the release table, the locator
#   model      the located target, the profile model, the heap profile walk, the layout guard
#   goroutine  goroutines: read, unwind, labels, arguments, group
#   heap       the heap by type, MemStats
#   retained   who holds the heap: graph, inference, roots, dominators, leaks, the live copy
#   fmt        the writers
#   .          the session, the command table, force mode, growth (the top)
set -u
table() {
	cat <<'EOF'
memsrc.h mem
memsrc.c mem
memsrc_live.c mem
memsrc_core.c mem
memsrc_core_open.c mem
memsrc_core_int.h mem
memsnap.h mem
memsnap.c mem
ptrace.h mem
ptrace_int.h mem
ptrace.c mem
ptrace_stacks.c mem
testhooks.h mem
exe.h bin
exe.c bin
sym.h bin
pclntab.c bin
rtlayout.h bin
rtlayout.c bin
rtaddrs.h bin
locate.h bin
locate_int.h bin
locate.c bin
decode.c bin
goversion.c bin
target.h model
target.c model
profile.h model
profile.c model
walk.h model
walk.c model
layoutguard.c model
goroutine.h goroutine
goroutine_int.h goroutine
goroutine.c goroutine
gorshare.h goroutine
gorread.c goroutine
gorlabels.c goroutine
gorunwind.c goroutine
gorstack.c goroutine
gorsnap.c goroutine
gorgroup.c goroutine
gorargs.h goroutine
gorargs.c goroutine
heapwalk.h heap
heapwalk.c heap
heaptypes.c heap
memstats.h heap
memstats.c heap
retained.h retained
retained_int.h retained
retmodel.h retained
retained.c retained
retgraph.c retained
retinfer.c retained
retroots.c retained
retstack.c retained
retspill.h retained
retspill.c retained
retlive.h retained
retlive.c retained
retleak.h retained
retleak.c retained
dominators.c retained
writers.h fmt
fmt_common.h fmt
fmt_common.c fmt
fmt_pprof.c fmt
pprof_small.c fmt
pprof_gzip.h fmt
pprof_gzip.c fmt
pprof_builder.h fmt
pprof_stream.c fmt
fmt_text.c fmt
fmt_top.c fmt
fmt_collapsed.c fmt
fmt_goroutine.c fmt
fmt_golist.c fmt
fmt_types.c fmt
fmt_retained.c fmt
fmt_memstats.c fmt
fmt_leak.c fmt
session.h .
session.c .
command.c .
force.c .
growth.c .
EOF
}
# the folders in the order of the table (lowest first), for the -I list
folders() { table | awk '$2 != "." && !seen[$2]++ {print $2}'; }

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mode=${1:-move}
case $mode in
--table) table; exit 0 ;;
--check|move) ;;
*) echo "usage: scripts/tree-move.sh [--table|--check]" >&2; exit 2 ;;
esac

# want FILE: its path by the table (empty when the table has no row)
declare -A place
while read -r f d; do
	if [ "$d" = . ]; then place[$f]=src/lib/$f; else place[$f]=src/lib/$d/$f; fi
done < <(table)

bad=0
# every file under src/lib has its row, and is at its place
while IFS= read -r p; do
	f=$(basename "$p")
	if [ -z "${place[$f]:-}" ]; then
		echo "tree-move: $p has no row in scripts/tree-move.sh's table" >&2
		bad=1
	elif [ "$p" != "${place[$f]}" ]; then
		if [ "$mode" = --check ]; then
			echo "tree-move: $p belongs in ${place[$f]}" >&2
			bad=1
		elif [ -e "${place[$f]}" ]; then
			echo "tree-move: $p and ${place[$f]} both exist" >&2
			bad=1
		else
			mkdir -p "$(dirname "${place[$f]}")"
			git mv "$p" "${place[$f]}" || bad=1
		fi
	fi
done < <(find src/lib -type f -name '*.[ch]' | sort)
[ "$mode" = --check ] && exit $bad

# paths in the tree's text: src/lib/FILE (at a word's start: not .../src/lib/FILE of another
# tree) -> its place.  Only files git knows, no generated ones.
files=$(git ls-files -- Makefile.am configure.ac src include tests doc bench scripts contrib \
	debian gdb .ci README.md | grep -vE '\.(gz|png|svg|bin|core)$|^tests/fuzz/(regress|corpus)/' |
	grep -v '^scripts/tree-move.sh$')
sedprog=$(table | awk '$2 != "." {
	f = $1; gsub(/\./, "\\.", f)
	printf "s#(^|[^A-Za-z0-9_.-])src/lib/%s([^A-Za-z0-9_]|$)#\\1src/lib/%s/%s\\2#g\n", f, $2, $1
}')
# shellcheck disable=SC2086
for f in $files; do
	[ -f "$f" ] || continue
	if grep -qE 'src/lib/[a-z_]+\.[ch]' "$f"; then
		sed -E -i "$sedprog" "$f"
	fi
done

# Makefile.am: one -I per folder for the library's own compilation
inc="lib_includes = -I\$(top_srcdir)/src/lib"
for d in $(folders); do inc="$inc -I\$(top_srcdir)/src/lib/$d"; done
if grep -q '^lib_includes = ' Makefile.am; then
	sed -i "s#^lib_includes = .*#$inc#" Makefile.am
else
	echo "tree-move: Makefile.am has no lib_includes line (add: $inc)" >&2
	bad=1
fi
exit $bad
