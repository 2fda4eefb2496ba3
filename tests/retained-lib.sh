# shellcheck shell=bash
# tests/retained-lib.sh: shell functions shared by the -p retained tests (sourced after
# tests/lib.sh by tests/run-retained.sh, run-retained-arm64.sh, run-retained-infer.sh and
# run-retained-roots.sh).

# rl_each FN: FN GONAME GOROOT VARIANT for each toolchain in use (GH_GO_NAMES, GH_GO_ROOTS), for
# each of the default and the stripped (-s -w) builds.
rl_each() {
	local i variant
	for i in "${!GH_GO_NAMES[@]}"; do
		for variant in default stripped; do
			"$1" "${GH_GO_NAMES[$i]}" "${GH_GO_ROOTS[$i]}" "$variant"
		done
	done
}

# rl_garbage LABEL OBJECTS [SKIP]: the program's 1000 *Garbage (made and dropped after its last
# GC) are the unreachable objects of go-heap's -f objects output OBJECTS, less the addresses in
# SKIP (objects the runtime made after the dump): "PASS: LABEL: 1000 unreachable objects ..." or
# FAIL with their count.
rl_garbage() {
	local got
	got=$(awk -v skip=" ${3-} " '$3 == 0 && index(skip, " " $1 " ") == 0' "$2" | wc -l)
	if [ "$got" = 1000 ]; then
		gh_pass "$1: 1000 unreachable objects (the *Garbage made after the last GC)"
	else
		gh_fail "$1: $got unreachable objects, not the 1000 *Garbage"
	fi
}

# rl_graph_cmp OBJECTS GRAPH [SKIP]: compare go-heap's -p retained -f objects output (OBJECTS)
# with tests/heapdump.py --graph's (GRAPH), object by object: reachability, retained bytes and
# immediate dominator.  The tiny block made after the dump and the addresses in SKIP (a
# space-separated list: objects made after the dump) are set aside.  Objects in or directly above
# the runtime's M and P structures (runtime.mPadded, runtime.m, runtime.p), which the program's
# threads change between its dump and go-heap's read, are tolerated and counted.  Prints
# "SETS N M" (objects only go-heap has, only the dump has) when the sets differ; otherwise
# "RESULT OBJECTS REACH-DIFFS BAD TOLERATED" and up to 10 of the bad objects.
rl_graph_cmp() {
	python3 - "$1" "$2" "${3-}" <<'PY'
import sys
g, c = {}, {}
skip = set(sys.argv[3].split())
for l in open(sys.argv[1]):
    f = l.split()
    if f[3] != "tiny" and f[0] not in skip:       # the tiny block was made after the dump
        g[f[0]] = (f[2], f[4], f[6], " ".join(f[7:]))
for l in open(sys.argv[2]):
    f = l.split()
    if f[0].startswith("0x"):
        c[f[0]] = (f[2], f[3], f[4])
if set(g) != set(c):
    print("SETS %d %d" % (len(set(g) - set(c)), len(set(c) - set(g))))
    sys.exit(0)
reach = [a for a in g if g[a][0] != c[a][0]]
# the runtime's M and P state: which P points at which M changed after the dump
state = ("runtime.mPadded", "runtime.m", "runtime.p")
def under(a, tree):
    seen = 0
    while a.startswith("0x") and seen < 100000:
        if g[a][3] in state:
            return True
        a = tree(a)
        seen += 1
    return False
# ... and the objects directly above one of them (an M or P moved between holders)
holders = set()
for a in g:
    if g[a][3] in state:
        holders.add(g[a][2])
        holders.add(c[a][2])
bad = tol = 0
ex = []
for a in g:
    if g[a][0] == "0" or (g[a][1], g[a][2]) == (c[a][1], c[a][2]):
        continue
    if a in holders or under(a, lambda x: g[x][2]) or under(a, lambda x: c[x][2]):
        tol += 1
    else:
        bad += 1
        ex.append("%s go-heap %s %s, dump %s %s (%s)" % (a, g[a][1], g[a][2], c[a][1], c[a][2], g[a][3]))
print("RESULT %d %d %d %d" % (len(g), len(reach), bad, tol))
print("\n".join(ex[:10]))
PY
}

# rl_new_objects OBJECTS GRAPH [notiny]: the objects of go-heap's -f objects OBJECTS that the
# dump's graph GRAPH (heapdump.py --graph) does not have: made after the dump by the runtime.
# Prints their addresses on one line, then "COUNT BYTES ALL_REACHABLE" (True/False), then
# "REACHABLE UNREACHABLE LARGEST_UNREACHABLE_BYTES"; notiny: the P's tiny block (a root of its
# own, never in the dump) is not counted.
rl_new_objects() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import sys
c = set(l.split()[0] for l in open(sys.argv[2]) if l.startswith("0x"))
new = [l.split() for l in open(sys.argv[1])
       if not (sys.argv[3] == "notiny" and l.split()[3] == "tiny") and l.split()[0] not in c]
print(" ".join(f[0] for f in new))
print(len(new), sum(int(f[1]) for f in new), all(f[2] == "1" for f in new))
un = [int(f[1]) for f in new if f[2] != "1"]
print(len(new) - len(un), len(un), max(un, default=0))
PY
}
