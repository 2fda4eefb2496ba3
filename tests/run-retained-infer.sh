#!/bin/bash
# tests/run-retained-infer.sh: the types -p retained infers for small objects without a malloc
# header, against what the program allocated.
#
# For each toolchain (GOHEAP_INFER_VERSIONS, default "1.19 1.22 1.24 1.27": no typed objects; the
# hmap; the swiss maps with the direct-interface bit in Kind_; the newest, with it in TFlag; every
# one of 1.22-1.27 passes when listed), default and stripped (-s -w) builds, tests/go/inferprog
# builds known graphs (a global map of *main.Val whose bucket or group arrays carry their type, a
# global []*main.Item with a headered backing array, and a headered *main.Holder whose fields
# hold a 20 000-long list, interfaces (an empty one holding a pointer, one with methods, one
# holding a struct by value), a buffered channel, maps of 5, 300 and 13 (the last's buckets, or
# its swiss directory's one table's groups, headerless: typed only through the map's header),
# a slice and an array) and prints COUNT lines (the objects of each type it allocated without a header) and
# EXACT lines (with one). From a gcore core of each, and live on the default builds:
#   - -f text: each COUNT type's "T (inferred)" row holds exactly that many objects and its
#     exact row none; each EXACT type's exact row that many and no inferred row; no row of a
#     main. type is inferred that the program did not allocate (the map buckets' and groups'
#     rows are the runtime's); the header counts the inferred objects and no conflict; the
#     small map's one bucket or group is inferred (map.bucket[...] 1.22-1.23, map.group[...]
#     1.24+);
#   - -f objects flags each inferred object (its label "T (inferred)"): 20 000 main.Node;
#   - collapsed: the list's bytes (20 000 x 16) under frames ending "main.Node (inferred)";
#   - top names the list's holder rows "(inferred)"; pprof (newest, default, core): go tool pprof
#     shows the frame "main.Node (inferred)" with the list's bytes;
#   - go1.19: the header says no types are inferred, no row is;
#   - hostile (newest toolchain, default build): damaged copies of its core, a word the inference
#     reads in each: exit 0 or one error line, never a crash.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/retained-lib.sh"
gh_init
gh_sample "${GOHEAP_INFER_VERSIONS:-1.19 1.22 1.24 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# compare KIND TARGET [EXE]
compare() {
	local kind=$1 target=$2 got bad want bucket
	shift 2
	run "$kind.text" -p retained -f text "$target" "$@"
	ok "$kind.text" "$kind: -f text" || return
	if [ "$minor" -lt 22 ]; then
		if grep -q "^# types: go1\.$minor objects carry no type" "$d/$kind.text.out" &&
			! grep -q '(inferred)' "$d/$kind.text.out"; then
			gh_pass "$tag: $kind: no typed objects: the header says none inferred, no row is"
		else
			gh_fail "$tag: $kind: go1.$minor: inferred rows or no header line"
			gh_show "$d/$kind.text.out" 12
		fi
		return
	fi
	# the rows' objects (reachable + unreachable) by name, then the oracle
	awk -F'\t' '!/^#/ && NR > 1 {n[$5] += $1 + $3} END {for (k in n) print k "\t" n[k]}' \
		"$d/$kind.text.out" | sort >"$d/$kind.rows"
	bad=$(awk -F'\t' -v out="$GH_OUT" '
		BEGIN {
			while ((getline l < out) > 0) {
				if (l !~ /^(COUNT|EXACT) /) continue
				w = l; sub(/^[A-Z]+ /, "", w)
				n = w; sub(/.* /, "", n); sub(/ [0-9]+$/, "", w)
				if (l ~ /^COUNT/) cnt[w] = n; else ex[w] = n
			}
		}
		function get(k) { return (k in rows) ? rows[k] + 0 : 0 }
		{ rows[$1] = $2 }
		END {
			for (t in cnt) {
				if (get(t " (inferred)") != cnt[t])
					printf "%s (inferred): %d, allocated %d; ", t, get(t " (inferred)"), cnt[t]
				if (get(t) != 0)
					printf "%s exact: %d, want 0; ", t, get(t)
			}
			for (t in ex) {
				if (get(t) != ex[t])
					printf "%s exact: %d, allocated %d; ", t, get(t), ex[t]
				if (get(t " (inferred)") != 0)
					printf "%s inferred: %d, want 0; ", t, get(t " (inferred)")
			}
			for (r in rows) {
				if (r !~ /main\./ || r !~ / \(inferred\)$/ || r ~ /^map\.(bucket|group)\[/)
					continue
				t = r; sub(/ \(inferred\)$/, "", t)
				if (!(t in cnt))
					printf "%s: %d objects the program never allocated; ", r, rows[r]
			}
		}' "$d/$kind.rows")
	if [ -z "$bad" ]; then
		gh_pass "$tag: $kind: every type's inferred count == allocated ($(grep -c '^COUNT' "$GH_OUT") types: $(sed -n 's/^COUNT main\.\(Node\|Val\|Item\) /\1=/p' "$GH_OUT" | tr '\n' ' ')...), exact rows unmixed, no type the program never allocated"
	else
		gh_fail "$tag: $kind: $bad"
	fi
	# the header, the small map's bucket or group
	got=$(sed -n 's/^# inferred types: \([0-9]*\) objects, [0-9]* bytes .*; \([0-9]*\) conflicting.*/\1 \2/p' \
		"$d/$kind.text.out")
	want=$(sed -n 's/^CONFLICTS //p' "$GH_OUT")
	if [ -n "$got" ] && [ "${got% *}" -ge 26340 ] && [ "${got#* }" = "$want" ]; then
		gh_pass "$tag: $kind: header: ${got% *} objects inferred, ${got#* } conflict (the program's *main.Conf1 seen as a *main.Conf2), the first kept"
	else
		gh_fail "$tag: $kind: header: inferred and conflicts '$got' (want >= 26340, $want)"
	fi
	if [ "$minor" -ge 24 ]; then bucket='map.group[string]*main.Rec (inferred)'; else bucket='map.bucket[string]*main.Rec (inferred)'; fi
	got=$(awk -F'\t' -v b="$bucket" '$1 == b {print $2}' "$d/$kind.rows")
	if [ "$got" = 1 ]; then
		gh_pass "$tag: $kind: the small map's one $bucket"
	else
		gh_fail "$tag: $kind: $bucket: '$got' objects, want 1"
	fi
	# -f objects: the per-object flag
	run "$kind.objects" -p retained -f objects "$target" "$@"
	ok "$kind.objects" "$kind: -f objects" || return
	got=$(awk '/ main\.Node \(inferred\)$/ {n++; b += $2} END {print n + 0, b + 0}' "$d/$kind.objects.out")
	if [ "$got" = "20000 320000" ]; then
		gh_pass "$tag: $kind: -f objects: 20000 objects flagged main.Node (inferred), 320000 bytes"
	else
		gh_fail "$tag: $kind: -f objects: main.Node (inferred) '$got', want '20000 320000'"
	fi
	# collapsed: the list under its inferred frame
	run "$kind.collapsed" -p retained -f collapsed "$target" "$@"
	ok "$kind.collapsed" "$kind: -f collapsed" || return
	got=$(awk '{n = $NF; sub(/ [0-9]+$/, ""); if ($0 ~ /;main\.Node \(inferred\)$/) s += n} END {print s + 0}' \
		"$d/$kind.collapsed.out")
	if [ "$got" = 320000 ]; then
		gh_pass "$tag: $kind: collapsed: 320000 bytes under '...;main.Node (inferred)'"
	else
		gh_fail "$tag: $kind: collapsed: '$got' bytes under main.Node (inferred), want 320000"
	fi
	run "$kind.top" -p retained -n 20 "$target" "$@"
	ok "$kind.top" "$kind: top" || return
	if grep -q 'main\.Node (inferred)' "$d/$kind.top.out"; then
		gh_pass "$tag: $kind: top: the list's holder is named main.Node (inferred)"
	else
		gh_fail "$tag: $kind: top: no main.Node (inferred) holder"
		gh_show "$d/$kind.top.out" 30
	fi
	if [ "$kind" = core ] && [ "$variant" = default ] &&
		[ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ]; then
		run "$kind.pprof" -p retained -o "$d/r.pb.gz" "$target" "$@"
		ok "$kind.pprof" "$kind: pprof" || return
		gh_go "$groot" tool pprof -top -sample_index=inuse_space -nodecount=200 "$d/r.pb.gz" \
			>"$d/pprof.top" 2>"$d/pprof.err"
		got=$(awk '/main\.Node \(inferred\)$/ {print $1}' "$d/pprof.top" | head -1)
		case $got in
		312.50kB | 320000B | 320kB) gh_pass "$tag: $kind: pprof: go tool pprof's frame main.Node (inferred) holds $got" ;;
		*)
			gh_fail "$tag: $kind: pprof: main.Node (inferred)'s flat '$got', want the list's 320000 bytes"
			gh_show "$d/pprof.top" 12
			gh_show "$d/pprof.err" 5
			;;
		esac
	fi
}

# hostile_check ADDR VALUE: gh_mutate's check of a damaged core read (exit 0): the header's
# inferred objects are no more than its allocated ones (else adds to bad).
hostile_check() {
	sed -n 's/^# allocated: \([0-9]*\) objects.*/\1/p; s/^# inferred types: \([0-9]*\) objects.*/\1/p' \
		"$d/mut.out" | paste -sd' ' | awk '$2 > $1 {exit 1}' ||
		bad="$bad $1=$2: inferred > allocated;"
}

# hostile CORE EXE: damaged copies of the core (GOHEAP_INFER_MUTATE, default 30): a word of a
# typed object the inference reads (main.Holder's fields, a map header, a bucket or group, the
# channel, an inferred object) set to zero, all ones, a bit, another object's address (at its
# start or inside it) or a type word of the program's: exit 0 or one error line, never a crash,
# and the inferred objects never more than the allocated.
hostile() {
	local core=$1 exe=$2 n=${GOHEAP_INFER_MUTATE:-30} e0=0 e1=0 bad=
	python3 - "$d/core.objects.out" "$n" >"$d/cases" <<'PY'
import random, sys
objs = [l.split() for l in open(sys.argv[1])]
want = [o for o in objs if o[-1] == "(inferred)" or "main.Holder" in o or "map." in " ".join(o)]
tw = [o for o in objs if "main.Holder" in o]
r = random.Random(2930)
for _ in range(int(sys.argv[2])):
    o = r.choice(want)
    a = int(o[0], 16) + 8 * r.randrange(max(1, min(int(o[1]), 4096) // 8))
    other = int(r.choice(objs)[0], 16)
    v = r.choice([0, (1 << 64) - 1, 1 << r.randrange(64), other, other + 8,
                  int(tw[0][0], 16) if tw else 0])
    print("0x%x %s" % (a, v.to_bytes(8, "little").hex()))
PY
	[ -s "$d/cases" ] || { gh_fail "$tag: hostile: no cases"; return; }
	GOHEAP_TIMEOUT=60 gh_mutate "$core" "$exe" "$d/cases" hostile_check -p retained -f text
	if [ -z "$bad" ]; then
		gh_pass "$tag: hostile: $n damaged cores (words the inference reads): $e0 read, $e1 refused with one line, no crash"
	else
		gh_fail "$tag: hostile:$bad"
	fi
}

check() {
	local goname=$1 root=$2 variant=$3 bin pid
	minor=${goname#go1.}
	groot=$root
	tag="$goname/$variant"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d"
	gh_build_or_fail "$tag" inferprog "$goname" "$root" "$variant" || return
	bin=$GH_BIN
	if ! gh_start "$bin" 2>"$d/start.err"; then
		gh_fail "$tag: inferprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	[ "$variant" = default ] && compare live "$pid"
	if gh_gcore "$tag" "$pid" "$d"; then
		compare core "$d/core.$pid" "$bin"
		if [ "$variant" = default ] && [ "$minor" -ge 22 ] &&
			[ "$goname" = "${GH_GO_NAMES[${#GH_GO_NAMES[@]}-1]}" ]; then
			hostile "$d/core.$pid" "$bin"
		fi
		rm -f "$d/core.$pid"
	fi
	gh_stop "$pid"
}

rl_each check
gh_summary
