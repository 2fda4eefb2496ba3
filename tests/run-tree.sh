#!/bin/bash
# tests/run-tree.sh: the tree keeps the shape doc/design.md describes.
#   - every C file under src/ has its row in doc/design.md's map;
#   - no source file above 1300 lines (split along a seam instead);
#   - no include circle between modules (x.c and x.h are one module);
#   - backends are told apart by their capability table, never by comparing ops-table
#     pointers (`== &gh_live_ops` and the like);
#   - no issue numbers in the code's comments;
#   - libgoheap.so exports goheap_* only, and the collectors take a gh_target, not the session;
#   - the runtime's globals are located in target.c only (find_globals, gh_target_queues: the
#     collectors read gh_target's gh_rtaddrs, never look a global up themselves);
#   - the tools (src/cli, src/watch) include no library header: goheap.h, src/util's and their
#     own only.
# Seconds; no Go toolchain needed.
. "$(dirname "$0")/lib.sh"
gh_init
cd "$top_srcdir" || exit 1

missing=
for f in $(find src -name '*.c' | sort); do
	grep -q "$(basename "$f")" doc/design.md || missing="$missing $f"
done
if [ -z "$missing" ]; then
	gh_pass "every C file under src/ has its row in doc/design.md ($(find src -name '*.c' | wc -l) files)"
else
	gh_fail "C files without a row in doc/design.md's map:$missing"
fi

long=$(find src include -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1300 {print $2 " (" $1 ")"}')
if [ -z "$long" ]; then
	gh_pass "no source file above 1300 lines (longest: $(find src include -name '*.[ch]' -exec wc -l {} + | grep -v ' total$' | sort -n | tail -n 1 | awk '{print $2, $1}'))"
else
	gh_fail "source files above 1300 lines: $long"
fi

# modules: src/DIR/x.c, x.h and x_int.h (its internal header) are module x; an edge for each
# #include "y.h" of a file in the tree
python3 - <<'PY' >"$GH_TMP/circles" 2>&1
import os, re, sys
files = {}
for root, _, names in os.walk("src"):
    for n in names:
        if n.endswith((".c", ".h")):
            files[n] = os.path.join(root, n)
def mod(n):
    m = n.rsplit(".", 1)[0]
    return m[:-4] if m.endswith("_int") else m
edges = {}
for n, p in files.items():
    for line in open(p, errors="replace"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and os.path.basename(m.group(1)) in files:
            a, b = mod(n), mod(os.path.basename(m.group(1)))
            if a != b:
                edges.setdefault(a, set()).add(b)
# Tarjan's strongly connected components
index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: out.append(sorted(c))
for v in sorted(set(edges) | {w for s in edges.values() for w in s}):
    if v not in index: visit(v)
for c in out: print("circle:", " ".join(c))
print("modules:", len(set(edges) | {w for s in edges.values() for w in s}))
PY
if grep -q '^circle:' "$GH_TMP/circles"; then
	gh_fail "include circles between modules: $(grep '^circle:' "$GH_TMP/circles" | tr '\n' ';')"
else
	gh_pass "no include circle between modules ($(sed -n 's/^modules: //p' "$GH_TMP/circles") modules)"
fi

cmpops=$(grep -rnE '[!=]=[[:space:]]*&gh_(live|core|no)_(ops|caps)|&gh_(live|core|no)_(ops|caps)[[:space:]]*[!=]=' src || true)
if [ -z "$cmpops" ]; then
	gh_pass "no ops- or capability-table pointer comparisons (backends answer through their capabilities)"
else
	gh_fail "ops- or capability-table pointer comparisons: $cmpops"
fi

issues=$(grep -rnE '(issue|Issue) #?[0-9]+' src include gdb || true)
if [ -z "$issues" ]; then
	gh_pass "no issue numbers in the code"
else
	gh_fail "issue numbers in the code: $(echo "$issues" | head -n 3)"
fi

coll=$(grep -nE '^int gh_[a-z_]*collect\(' src/lib/*.h | grep -v 'gh_target \*' || true)
if [ -z "$coll" ]; then
	gh_pass "the collectors take a gh_target ($(grep -cE '^int gh_[a-z_]*collect\(' src/lib/*.h | awk -F: '{s += $2} END {print s}') declared)"
else
	gh_fail "collectors that do not take a gh_target: $coll"
fi

# gh_exe_symbol (a symbol's address) outside target.c: exe.c defines it; pclntab.c reads the
# executable's own module data (firstmoduledata, text, pclntab) from the file; force.c checks
# the size of the MemProfileRate it writes against the address target.c located
globs=$(grep -n 'gh_exe_symbol(' src/lib/*.c src/lib/*/*.c 2>/dev/null |
	grep -vE '^src/lib/(target|exe|pclntab)\.c:' | grep -vE '^src/lib/force\.c:.*name, &link, &size' || true)
locs=$(grep -nE 'gh_locate_globals\(|gh_target_queues\(' src/lib/*.c src/lib/*/*.c 2>/dev/null |
	grep -vE '^src/lib/(target|locate)\.c:' | grep -vE '^src/lib/retroots\.c:.*gh_target_queues\(b->s' || true)
if [ -z "$globs$locs" ]; then
	gh_pass "runtime globals located in target.c only ($(grep -c '"runtime\.' src/lib/target.c) names there)"
else
	gh_fail "runtime globals looked up outside target.c: $(echo "$globs $locs" | head -n 3)"
fi

libhdrs=$(find src/lib -name '*.h' -exec basename {} \; | sort -u)
toolinc=
for f in $(find src/cli src/watch -name '*.[ch]' | sort); do
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		if echo "$libhdrs" | grep -qx "$(basename "$h")"; then
			toolinc="$toolinc $f:$h"
		fi
	done
done
if [ -z "$toolinc" ]; then
	gh_pass "src/cli and src/watch include no library header (goheap.h, src/util's and their own)"
else
	gh_fail "library headers included by the tools:$toolinc"
fi

so=$(ls "$top_builddir"/src/.libs/libgoheap.so 2>/dev/null | head -n 1)
if [ -z "$so" ]; then
	gh_skip "libgoheap.so not built (a static-only build): its exports not checked"
else
	other=$(nm -D --defined-only "$so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^goheap_' || true)
	if [ -z "$other" ]; then
		gh_pass "libgoheap.so exports goheap_* only ($(nm -D --defined-only "$so" | awk '$2 ~ /[TDBR]/' | wc -l) symbols)"
	else
		gh_fail "libgoheap.so exports more than goheap_*: $(echo $other | head -c 300)"
	fi
fi
gh_summary
