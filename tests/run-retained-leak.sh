#!/bin/bash
# tests/run-retained-leak.sh: the "who holds the heap" question on a service with a leak:
# go-heap -p retained -o r.pb.gz PID (and CORE EXE), opened in the toolchain's own go tool pprof,
# shows the leaking global at the root of the biggest retained path, with the bytes it retains.
#
# tests/go/leakprog is a net/http service (standard library only) whose handler leaks 10
# *Session (a string key, a 512-byte payload) per request into the global map main.sessions; it
# also holds main.catalog (a global slice of 12 000 *Item with 256-byte descriptions, ~28% of the
# heap) and a goroutine's frame (main.pool) holding 3000 1 KiB buffers (~16%), so that a wrong
# attribution fails.  Its own client sends 2000 requests over HTTP; then it runs runtime.GC,
# writes its debug.WriteHeapDump and stays still (the map does not change) until SIGUSR1.
#
# For each toolchain (GOHEAP_LEAK_VERSIONS, default "1.22 1.27", within GOHEAP_GO_VERSIONS) and
# variant (stripped -s -w on each; the default build too on the newest), live and from a gcore
# core:
#   - the truth: tests/heapdump.py --graph of the program's dump gives what main.sessions,
#     main.catalog and main.pool's frame retain (what becomes unreachable without them); the
#     globals' addresses come from the symbol table of the unstripped twin (its .data and .bss
#     have the stripped build's sizes; go1.22 places them 32 bytes apart), so a stripped root's
#     expected name is bss+<the global's offset from .bss>;
#   - go tool pprof -traces (exact bytes, -unit=B): summed per root frame (each trace's last
#     frame), the biggest root is main.sessions (stripped: its bss+0x... name) with the dump's
#     bytes; the next two are main.catalog and main.pool's frame with theirs;
#   - go tool pprof -top -cum: that root frame's cumulative inuse_space is the same bytes;
#   - go-heap's top view: its first root row is the same holder with the same bytes;
# then, live, SIGUSR1: the service keeps serving and the map keeps growing while go-heap reads it
# (briefly stopped): the biggest root is still main.sessions', with more bytes than before.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_need_python
gh_sample "${GOHEAP_LEAK_VERSIONS:-1.22 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

# pprof_roots PROFILE: "NAME BYTES" per root frame (the last frame of each of go tool pprof's
# traces), biggest first
pprof_roots() {
	"$(gh_pprof_tool "$root")" -traces -sample_index=inuse_space -unit=B "$1" 2>"$d/pprof.err" |
		python3 -c '
import sys, re
tot, cur, val = {}, None, 0
def flush():
    if cur is not None:
        tot[cur] = tot.get(cur, 0) + val
for l in sys.stdin:
    if l.startswith("-----------+"):
        flush(); cur, val = None, 0
        continue
    m = re.match(r"^\s*(\d+)B\s+(.*\S)\s*$", l)
    if m and cur is None and val == 0:
        val, cur = int(m.group(1)), m.group(2)
    elif l.strip() and cur is not None:
        cur = l.strip()
flush()
for k, v in sorted(tot.items(), key=lambda x: -x[1]):
    print(k, v)'
}

# expect KIND TARGET [EXE]
expect() {
	local kind=$1 target=$2 got want top cum
	shift 2
	run "$kind.pprof" -p retained -o "$d/$kind.pb.gz" "$target" "$@"
	ok "$kind.pprof" "$kind: -o r.pb.gz" || return
	pprof_roots "$d/$kind.pb.gz" >"$d/$kind.roots"
	got=$(head -n 3 "$d/$kind.roots" | tr '\n' ' ')
	want="$n_sess $b_sess $n_cat $b_cat goroutine $b_pool "
	# the pool's frame is "goroutine N: main.pool": its N is the program's
	got=$(head -n 3 "$d/$kind.roots" | sed 's/^goroutine [0-9]*: main.pool /goroutine /' | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		gh_pass "$tag: $kind: go tool pprof -traces: the biggest root frame is $n_sess with $b_sess B (== the dump's graph), then $n_cat $b_cat B, main.pool's frame $b_pool B"
	else
		gh_fail "$tag: $kind: go tool pprof -traces' biggest root frames: '$got', the dump's graph: '$want'"
		gh_show "$d/$kind.roots" 5
		gh_show "$d/pprof.err" 3
	fi
	cum=$("$(gh_pprof_tool "$root")" -top -cum -sample_index=inuse_space -unit=B -nodefraction=0 \
		"$d/$kind.pb.gz" 2>/dev/null | awk -v n="$n_sess" '$6 == n && NF == 6 {sub(/B$/, "", $4); print $4}')
	if [ "$cum" = "$b_sess" ]; then
		gh_pass "$tag: $kind: go tool pprof -top -cum: $n_sess's cumulative inuse_space is $cum B"
	else
		gh_fail "$tag: $kind: go tool pprof -top -cum: $n_sess's cumulative inuse_space '$cum', not $b_sess"
	fi
	run "$kind.top" -p retained -n 5 "$target" "$@"
	ok "$kind.top" "$kind: top" || return
	top=$(awk '$6 == "root" {print $2, $7; exit}' "$d/$kind.top.out")
	if [ "$top" = "$b_sess $n_sess" ]; then
		gh_pass "$tag: $kind: top's biggest root: $n_sess retaining $b_sess B"
	else
		gh_fail "$tag: $kind: top's biggest root '$top', not '$b_sess $n_sess'"
		gh_show "$d/$kind.top.out" 16
	fi
}

check() {
	local goname=$1 variant=$2 bin twin pid bss bssb a_sess a_cat
	minor=${goname#go1.}
	tag="$goname/$variant"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d"
	gh_build_or_fail "$tag" leakprog "$goname" "$root" "$variant" || return
	bin=$GH_BIN
	gh_build_or_fail "$tag" leakprog "$goname" "$root" default || return
	twin=$GH_BIN
	# the globals' places from the unstripped twin's symbol table: the stripped build's .data
	# and .bss have the same sizes and symbols in the same order (go1.22 starts them 32 bytes
	# apart: a smaller .rodata), so a global's offset from .bss is the same in both
	if [ "$(readelf -SW "$bin" | awk '$2 ~ /^\.(data|bss|noptrdata|noptrbss)$/ {print $2, $6}')" != \
		"$(readelf -SW "$twin" | awk '$2 ~ /^\.(data|bss|noptrdata|noptrbss)$/ {print $2, $6}')" ]; then
		gh_fail "$tag: the stripped and default builds' .data/.bss sizes differ"
		return
	fi
	# (offset:size from the twin, then the address in this build)
	bss=$(readelf -SW "$twin" | awk '$2 == ".bss" {print $4}')
	bssb=$(readelf -SW "$bin" | awk '$2 == ".bss" {print $4}')
	a_sess=$(nm -S "$twin" | awk '$4 == "main.sessions" {print $1, $2}')
	a_cat=$(nm -S "$twin" | awk '$4 == "main.catalog" {print $1, $2}')
	[ -n "$a_sess" ] && [ -n "$a_cat" ] || { gh_fail "$tag: no main.sessions or main.catalog in the twin"; return; }
	a_sess="$((0x${a_sess% *} - 0x$bss)):0x${a_sess#* }"
	a_cat="$((0x${a_cat% *} - 0x$bss)):0x${a_cat#* }"
	if [ "$variant" = stripped ]; then
		n_sess=$(printf 'bss+%#x' "${a_sess%:*}")
		n_cat=$(printf 'bss+%#x' "${a_cat%:*}")
	else
		n_sess=main.sessions
		n_cat=main.catalog
	fi
	a_sess=$(printf '%#x' $((0x$bssb + ${a_sess%:*}))):${a_sess#*:}
	a_cat=$(printf '%#x' $((0x$bssb + ${a_cat%:*}))):${a_cat#*:}
	if ! gh_start "$bin" "$d/heap.dump" 2>"$d/start.err"; then
		gh_fail "$tag: leakprog: $(cat "$d/start.err")"
		return
	fi
	pid=$GH_PID
	if ! python3 "$GH_TESTS/heapdump.py" --graph "$d/heap.dump" "$minor" \
		"$([ "$minor" -ge 26 ] && echo 1 || echo 0)" precise \
		"--holder=main.sessions=$a_sess" \
		"--holder=main.catalog=$a_cat" --holder=frame:main.pool \
		>"$d/graph.txt" 2>"$d/graph.err"; then
		gh_fail "$tag: the dump's graph (heapdump.py --graph)"
		gh_show "$d/graph.err" 5
		gh_stop "$pid"
		return
	fi
	b_sess=$(awk '$1 == "HOLDER" && $2 == "main.sessions" {print $3}' "$d/graph.txt")
	b_cat=$(awk '$1 == "HOLDER" && $2 == "main.catalog" {print $3}' "$d/graph.txt")
	b_pool=$(awk '$1 == "HOLDER" && $2 == "frame:main.pool" {print $3}' "$d/graph.txt")
	echo "# $tag: the dump's graph: main.sessions ($n_sess) retains $b_sess B, main.catalog $b_cat B, main.pool's frame $b_pool B; $(grep '^SESSIONS' "$GH_OUT")"
	expect live "$pid"
	if gh_gcore "$tag" "$pid" "$d"; then
		expect core "$d/core.$pid" "$bin"
		rm -f "$d/core.$pid"
	fi
	# the map keeps growing while go-heap reads it
	kill -USR1 "$pid"
	if gh_wait_for 20 grep -q '^GROWING' "$GH_OUT"; then
		sleep 1
		run grow -p retained -o "$d/grow.pb.gz" "$pid"
		if ok grow "growing: -o r.pb.gz"; then
			pprof_roots "$d/grow.pb.gz" >"$d/grow.roots"
			read -r gn gb <"$d/grow.roots"
			if [ "$gn" = "$n_sess" ] && [ "${gb:-0}" -gt "$b_sess" ]; then
				gh_pass "$tag: growing: while the service serves and leaks, the biggest root frame is still $n_sess, now $gb B (> $b_sess) (go-heap: $("$(gh_pprof_tool "$root")" -comments "$d/grow.pb.gz" 2>/dev/null | grep -o 'stopped [0-9.]* ms'))"
			else
				gh_fail "$tag: growing: the biggest root frame is '$gn' with '$gb' B, not $n_sess above $b_sess"
				gh_show "$d/grow.roots" 3
			fi
		fi
	else
		gh_fail "$tag: growing: leakprog did not resume after SIGUSR1"
	fi
	gh_stop "$pid"
	rm -f "$d/heap.dump"
}

for i in "${!GH_GO_NAMES[@]}"; do
	root=${GH_GO_ROOTS[$i]}
	check "${GH_GO_NAMES[$i]}" stripped
	if [ "$i" = $((${#GH_GO_NAMES[@]} - 1)) ]; then
		check "${GH_GO_NAMES[$i]}" default
	fi
done
gh_summary
