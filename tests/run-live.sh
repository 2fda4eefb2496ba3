#!/bin/bash
# tests/run-live.sh: profile a live Go program with go-heap and compare them with the program's own
# runtime/pprof output, for every installed Go toolchain and build variant.
#
# For each toolchain (tests/lib.sh GH_GO_ALL: go1.19, go1.21-go1.27) x variant (default and
# stripped everywhere, pie and trimpath on the oldest and newest: gh_variants_for):
#   - build tests/go/heapprog (cached under $GOHEAP_CACHE/build), start it; it writes its own
#     heap/allocs profiles (debug=1 text and proto) into a directory, checks they settled,
#     prints READY and waits (see the comment at the top of tests/go/heapprog/main.go);
#   - go-heap -f text                   == heap.txt      (tests/compare.sh text)
#   - go-heap -f text, a second time    == heap.txt      (reading does not disturb the target)
#   - go-heap -p allocs -f text         == allocs.txt
#   - go-heap -o X.pb.gz                == heap.pb.gz    (tests/compare.sh pprof)
#   - go-heap -p allocs -o X.pb.gz      == allocs.pb.gz
#   - go-heap -f pprof (to stdout)      == heap.pb.gz
#   - go-heap -f collapsed -s S         sane; values sum to the in-process header totals
#   - go-heap -o X.folded               == the -f collapsed output
#   - go-heap (top): exit 0, names main.* functions; -n 3 -s alloc_objects: 1..3 rows
#
# Environment: top_srcdir, top_builddir (automake), GOHEAP_CACHE, GOHEAP_GO_VERSIONS,
# GOHEAP_VARIANTS, GOHEAP_KEEP=1 (keep outputs), GOHEAP_TIMEOUT (seconds per go-heap run, 120).
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".
# Exit: 0, 1 if anything failed, 77 if nothing could run.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
CMP="$GH_TESTS/compare.sh"

gh_need_python
gh_need_toolchains

# run and ok come from lib.sh.

# Sum the values of collapsed output ("frame;frame;... VALUE" lines) into $sum; 1 if malformed.
collapsed_sum() {
	awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1; exit } { s += $NF } END { if (bad) exit 1; printf "%d\n", s }' "$1"
}

# header_field FILE N: field N (1..4) of "heap profile: a: b [c: d] @ heap/r".
header_field() {
	sed -n '1s/^heap profile: \([0-9]*\): \([0-9]*\) \[\([0-9]*\): \([0-9]*\)\].*/\1 \2 \3 \4/p' "$1" | cut -d' ' -f"$2"
}

live_checks() {
	local f want sum api="$top_builddir/tests/api-stream"

	# goheap_profile_collect_write (what the CLI runs: the walk streamed into an encoder
	# thread) against goheap_profile_collect + goheap_profile_write, through libgoheap.so
	if [ ! -x "$api" ]; then
		gh_fail "$tag: $api not built (make check builds it)"
	elif "$api" "$pid" >"$d/api.out" 2>&1; then
		gh_pass "$tag: API collect_write == collect + write ($(grep -c '^ok:' "$d/api.out") checks; $(grep -m 1 '^ok: heap pprof' "$d/api.out" | sed 's/^[^:]*: [^:]*: //'))"
	else
		gh_fail "$tag: API collect_write != collect + write"
		gh_show "$d/api.out" 8
	fi

	run text -f text "$pid"
	ok text "text" && gh_compare_profiles text "$d/heap.txt" "$d/text.out" "text == in-process heap debug=1"

	run text2 -f text "$pid"
	ok text2 "text, second read" &&
		gh_compare_profiles text "$d/heap.txt" "$d/text2.out" "text, second read == in-process (target undisturbed)"

	run atext -p allocs -f text "$pid"
	ok atext "allocs text" && gh_compare_profiles text "$d/allocs.txt" "$d/atext.out" "allocs text == in-process allocs debug=1"

	run pb -o "$d/gh.heap.pb.gz" "$pid"
	if ok pb "pprof"; then
		if [ -s "$d/pb.out" ]; then
			gh_fail "$tag: pprof -o FILE also wrote to stdout"
		else
			gh_compare_profiles pprof "$d/heap.pb.gz" "$d/gh.heap.pb.gz" "pprof (-o .pb.gz) == in-process heap proto"
		fi
	fi

	run apb -p allocs -o "$d/gh.allocs.pb.gz" "$pid"
	ok apb "allocs pprof" &&
		gh_compare_profiles pprof "$d/allocs.pb.gz" "$d/gh.allocs.pb.gz" "allocs pprof == in-process allocs proto"

	run pbstdout -f pprof "$pid"
	ok pbstdout "pprof to stdout" &&
		gh_compare_profiles pprof "$d/heap.pb.gz" "$d/pbstdout.out" "pprof to stdout == in-process heap proto"

	# collapsed: values are exact at MemProfileRate 1, so the sums must equal the header totals.
	for f in "inuse_space 2" "alloc_objects 3" "inuse_objects 1"; do
		set -- $f # two words: sample index, header field
		run "col_$1" -f collapsed -s "$1" "$pid"
		ok "col_$1" "collapsed -s $1" || continue
		want=$(header_field "$d/heap.txt" "$2")
		if ! sum=$(collapsed_sum "$d/col_$1.out") || [ ! -s "$d/col_$1.out" ]; then
			gh_fail "$tag: collapsed -s $1: empty or malformed (want 'frames VALUE' lines)"
			gh_show "$d/col_$1.out" 5
		elif ! grep -q 'main\.recA' "$d/col_$1.out" || ! grep -q 'main\.inlinedCallers' "$d/col_$1.out"; then
			gh_fail "$tag: collapsed -s $1: main.recA / main.inlinedCallers missing"
		elif [ "$sum" != "$want" ]; then
			gh_fail "$tag: collapsed -s $1: values sum to $sum, the in-process header says $want"
		else
			gh_pass "$tag: collapsed -s $1 ($(wc -l <"$d/col_$1.out") stacks, sum $sum)"
		fi
	done

	run folded -o "$d/gh.folded" -s inuse_space "$pid"
	if ok folded "collapsed (-o .folded)"; then
		if cmp -s "$d/gh.folded" "$d/col_inuse_space.out"; then
			gh_pass "$tag: -o .folded selects collapsed"
		else
			gh_fail "$tag: -o X.folded differs from -f collapsed"
		fi
	fi

	run top "$pid"
	if ok top "top"; then
		if [ ! -s "$d/top.out" ] || ! grep -q 'main\.' "$d/top.out"; then
			gh_fail "$tag: top: empty or names no main.* function"
			gh_show "$d/top.out" 10
		else
			gh_pass "$tag: top ($(wc -l <"$d/top.out") lines)"
		fi
	fi
	# -n N: at most N table rows after the "flat flat% sum% cum cum%" header (go tool pprof -top).
	run topn -n 3 -s alloc_objects "$pid"
	if ok topn "top -n 3 -s alloc_objects"; then
		rows=$(awk 'hdr { n++ } /flat%.*cum%/ { hdr = 1 } END { print n + 0 }' "$d/topn.out")
		if ! grep -q 'flat%.*cum%' "$d/topn.out"; then
			gh_fail "$tag: top -n 3: no 'flat flat% sum% cum cum%' table header"
			gh_show "$d/topn.out" 10
		elif [ "$rows" -lt 1 ] || [ "$rows" -gt 3 ]; then
			gh_fail "$tag: top -n 3: $rows table rows, want 1..3"
			gh_show "$d/topn.out" 10
		elif ! grep -q 'alloc_objects' "$d/topn.out"; then
			gh_fail "$tag: top -s alloc_objects: the output does not name alloc_objects"
		else
			gh_pass "$tag: top -n 3 -s alloc_objects ($rows rows)"
		fi
	fi
}

for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	for variant in $(gh_variants_for "$goname"); do
		tag="$goname/$variant"
		gh_build_or_fail "$tag" heapprog "$goname" "$root" "$variant" || continue
		bin=$GH_BIN
		d="$GH_TMP/$goname-$variant"
		mkdir -p "$d"
		if ! gh_start "$bin" -out "$d" 2>"$GH_TMP/start.err"; then
			gh_fail "$tag: heapprog: $(cat "$GH_TMP/start.err")"
			continue
		fi
		pid=$GH_PID
		gh_pass "$tag: heapprog wrote its in-process profiles and they settled"
		if ! gh_have_goheap; then
			gh_skip "$tag: go-heap checks: $GH_GOHEAP is not built"
		elif ! gh_can_read_mem "$pid"; then
			gh_skip "$tag: go-heap checks: cannot read the target's memory (ptrace is restricted: kernel.yama.ptrace_scope or CAP_SYS_PTRACE)"
		else
			live_checks
		fi
		gh_stop "$pid"
	done
done
gh_summary
