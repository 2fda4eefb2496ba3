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
#     own only;
#   - messages are the library's (doc/design.md, "Messages"): src/util words nothing the front
#     ends print, so it names none of the result structures that carry the words;
#   - each file of src/lib is in the folder scripts/tree-move.sh's table gives it (none left at
#     src/lib's top that the table puts in a folder, none without a row);
#   - the library's folders include one way: a folder includes headers of the folders below it
#     in the table's order only (mem < bin < model < goroutine < heap < retained < fmt < the top),
#     so there is no circle between folders; the exceptions are listed in folder_up below (none);
#   - the profile model (src/lib/model/profile.h) includes headers of mem/, bin/ and src/util only
#     and declares no collector's structure (each kind's part is declared by its subsystem).
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

coll=$(find src/lib -name '*.h' -exec grep -nE '^int gh_[a-z_]*collect\(' {} + | grep -v 'gh_target \*' || true)
if [ -z "$coll" ]; then
	gh_pass "the collectors take a gh_target ($(find src/lib -name '*.h' -exec grep -hE '^int gh_[a-z_]*collect\(' {} + | wc -l) declared)"
else
	gh_fail "collectors that do not take a gh_target: $coll"
fi

# gh_exe_symbol (a symbol's address) outside target.c: exe.c defines it; pclntab.c reads the
# executable's own module data (firstmoduledata, text, pclntab) from the file; force.c checks
# the size of the MemProfileRate it writes against the address target.c located
globs=$(grep -n 'gh_exe_symbol(' src/lib/*.c src/lib/*/*.c 2>/dev/null |
	grep -vE '^src/lib/(model/target|bin/exe|bin/pclntab)\.c:' | grep -vE '^src/lib/force\.c:.*name, &link, &size' || true)
locs=$(grep -nE 'gh_locate_globals\(|gh_target_queues\(' src/lib/*.c src/lib/*/*.c 2>/dev/null |
	grep -vE '^src/lib/(model/target|bin/locate)\.c:' | grep -vE '^src/lib/retained/retroots\.c:.*gh_target_queues\(b->s' || true)
if [ -z "$globs$locs" ]; then
	gh_pass "runtime globals located in target.c only ($(grep -c '"runtime\.' src/lib/model/target.c) names there)"
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

utilmsg=$(grep -nE 'goheap_(force_result|profile_stats|write_stats|command_result)' src/util/*.[ch] || true)
if [ -z "$utilmsg" ]; then
	gh_pass "no front-end message in src/util (the words are the library's: goheap.h's result structures)"
else
	gh_fail "src/util words what the front ends print: $(echo "$utilmsg" | head -n 3 | tr '\n' ';')"
fi

# the folders: the table of scripts/tree-move.sh, its order the layers' (lowest first)
if scripts/tree-move.sh --check 2>"$GH_TMP/tree"; then
	gh_pass "each file of src/lib in its folder ($(scripts/tree-move.sh --table | wc -l) rows in scripts/tree-move.sh; $(find src/lib -maxdepth 1 -name '*.[ch]' | wc -l) files at the top)"
else
	gh_fail "src/lib's files against scripts/tree-move.sh's table: $(head -n 5 "$GH_TMP/tree" | tr '\n' ';')"
fi
# Upward includes allowed between folders ("from>to" of folder names, "." the top): none.
folder_up=""
scripts/tree-move.sh --table >"$GH_TMP/table"
FOLDER_UP="$folder_up" python3 - "$GH_TMP/table" <<'PY' >"$GH_TMP/folders" 2>&1
import os, re, sys
order, where = [], {}
for line in open(sys.argv[1]):
    f, d = line.split()
    where[f] = d
    if d != "." and d not in order:
        order.append(d)
order.append(".")
rank = {d: i for i, d in enumerate(order)}
allowed = set(os.environ.get("FOLDER_UP", "").split())
edges, up, n = {}, [], 0
for root, _, names in os.walk("src/lib"):
    for name in sorted(names):
        if not name.endswith((".c", ".h")) or name not in where:
            continue
        a = where[name]
        for line in open(os.path.join(root, name), errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            b = where.get(os.path.basename(m.group(1)))
            if b is None or b == a:
                continue
            n += 1
            edges.setdefault(a, set()).add(b)
            if rank[b] > rank[a] and "%s>%s" % (a, b) not in allowed:
                up.append("%s/%s -> %s" % (a, name, m.group(1)))
# a circle between folders: b reaches a and a includes b
def reach(s, t, seen):
    if s == t:
        return True
    seen.add(s)
    return any(reach(x, t, seen) for x in edges.get(s, ()) if x not in seen)
circles = sorted({"%s<->%s" % tuple(sorted((a, b))) for a in edges for b in edges[a]
                  if reach(b, a, set())})
for u in up: print("up:", u)
for c in circles: print("circle:", c)
print("includes:", n, "folders:", len(order))
PY
if grep -q '^up:' "$GH_TMP/folders"; then
	gh_fail "includes up the folders' order: $(grep '^up:' "$GH_TMP/folders" | head -n 5 | tr '\n' ';')"
elif grep -q '^circle:' "$GH_TMP/folders"; then
	gh_fail "circles between folders: $(grep '^circle:' "$GH_TMP/folders" | tr '\n' ';')"
elif grep -q '^includes:' "$GH_TMP/folders"; then
	gh_pass "src/lib's folders include one way, no circle between folders ($(sed -n 's/^includes: \([0-9]*\) folders: \([0-9]*\)/\1 includes across \2 folders/p' "$GH_TMP/folders"))"
else
	gh_fail "the folder check did not run: $(head -n 3 "$GH_TMP/folders" | tr '\n' ';')"
fi

# the profile model (doc/design.md, "The profile model"): profile.h includes headers of the
# folders below model (mem, bin) and src/util's only, and declares no structure but the model's
# own; a kind's own data is the part its subsystem declares (goroutine.h, heapwalk.h, ...)
python3 - "$GH_TMP/table" src/lib/model/profile.h <<'PY' >"$GH_TMP/model" 2>&1
import re, sys
where = dict(line.split() for line in open(sys.argv[1]))
below = {"mem", "bin"}
own = {"gh_record", "gh_stopinfo", "gh_pmap", "goheap_profile"}
text = open(sys.argv[2]).read()
for h in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
    d = where.get(h.split("/")[-1])
    if d is not None and d not in below:
        print("include: %s (%s/)" % (h, d))
for name in sorted(set(re.findall(r'\bstruct\s+([A-Za-z_]\w*)', text)) - own):
    print("struct: " + name)
print("structs:", len(set(re.findall(r'\bstruct\s+([A-Za-z_]\w*)', text))))
PY
if grep -qE '^(include|struct):' "$GH_TMP/model"; then
	gh_fail "profile.h holds what is not the model's: $(grep -E '^(include|struct):' "$GH_TMP/model" | head -n 8 | tr '\n' ';')"
elif grep -q '^structs:' "$GH_TMP/model"; then
	gh_pass "profile.h declares the model only ($(sed -n 's/^structs: //p' "$GH_TMP/model") structures of its own, headers of mem/ and bin/ only): each kind's part is its subsystem's"
else
	gh_fail "the profile model check did not run: $(head -n 3 "$GH_TMP/model" | tr '\n' ';')"
fi

# every path of the tree named in a comment or doc exists (a file moved by scripts/tree-move.sh
# has its paths rewritten; Go's own src/runtime, src/cmd are not ours)
stale=$(grep -rnoE '(^|[^A-Za-z0-9_.-])src/[a-z_/]+\.[ch]\b' src include tests doc bench scripts \
	README.md Makefile.am configure.ac contrib gdb 2>/dev/null | grep -v '^tests/fuzz/regress/' |
	sed -E 's#^([^:]*:[0-9]+:)[^s]*#\1#' | grep -vE ':src/(runtime|cmd|internal)/' |
	while IFS=: read -r f l p; do [ -e "$p" ] || echo "$f:$l:$p"; done)
if [ -z "$stale" ]; then
	gh_pass "every src/ path named in the tree's comments and docs exists"
else
	gh_fail "paths that no longer exist: $(echo "$stale" | head -n 5 | tr '\n' ' ')"
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
