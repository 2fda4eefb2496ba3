#!/bin/bash
# tests/run-growth.sh: what keeps growing (issue 36): go-heap -p types|retained --seconds N and
# --count K --interval N on a live process, against what the program itself says it added.
#
# tests/go/growprog holds main.leak (a global map[int]*Item, 1000 Items at the start) and
# main.steady (300 *Steady, never changed); each SIGUSR1 adds 500 Items (656 B with pointers:
# 1.22+ types each exactly by its malloc header) and prints "ADDED 500 TOTAL START_NS END_NS".
# For each toolchain (GOHEAP_GROWTH_VERSIONS, default "1.22 1.27", within GOHEAP_GO_VERSIONS):
#   - the step is bracketed exactly: go-heap -v prints when each snapshot was taken
#     (CLOCK_REALTIME); the test sends SIGUSR1 once snapshot k is taken and checks that the
#     program's ADDED window lies between snapshot k's end and snapshot k+1's start;
#   - -p types --seconds 4 -f text: main.Item's row grew by exactly 500 objects and 500 times
#     its slot size (its bytes / objects), main.Steady's did not change; the header names 2
#     snapshots; -f pprof (go tool pprof -raw): a sample for main.Item with values 500 and
#     500 x slot, the profile's duration the window;
#   - -p retained --seconds 4 -f text: the paths from the root main.leak that end in main.Item
#     gained exactly 500 objects, 500 x slot bytes; the root's summary row retains at least
#     500 x slot bytes more;
#   - --count 3 --interval 3 (a step in each interval): main.Item (types) and the root main.leak
#     (retained) are leak suspects (suspect 1, '!' in top), main.Steady is no row and a steady
#     run (no step) has no suspect;
#   - go-heap watch: /pprof/PID/types?seconds=4 and retained?seconds=4 with the step inside the
#     window show the same +500 (go tool pprof), and /metrics is answered during the wait;
#   - watch --on-memory-pressure --output-dir (newest toolchain): growprog -pressure (1 MiB made
#     resident every 20 ms) and a steady growprog: in a cgroup v2 the test makes with
#     memory.high 48 MiB, and with --memory-pressure-rss 80M, the pressured program leaves one
#     set (heap, types, retained: main.Blob, root main.blobs) in 8 s (--memory-pressure-period
#     1h: not two), the steady one none; where /sys/fs/cgroup is no writable v2 with the memory
#     controller, two cgroup v1 memory cgroups the test makes (96 MiB memory.limit_in_bytes
#     each): growprog -pressure growing 1 MiB every 200 ms until the kernel's OOM killer ends
#     it (exit 137, memory.oom_control's oom_kill) leaves its set before that, a steady one in
#     the other cgroup (watch -v names its v1 cgroup) none; neither writable: SKIP; the
#     cgroups are removed at the end (trap); GOMEMLIMIT: growprog -pressure -memlimit 64 MiB
#     (1 MiB every 200 ms, no other limit) leaves one set, a steady one with the same limit none,
#     and watch -v read both limits as the programs' runtimes report them, and the steady one's
#     mappedReady as its runtime/metrics (total - heap/released) gives it (within 64 KiB);
#   - usage: a core (one instant) and -p heap --seconds are refused with one line and exit 2.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
# the cgroups the pressure part makes, removed at exit once their programs are killed
GH_CGROUPS=()
trap 'gh_cleanup; for c in "${GH_CGROUPS[@]+"${GH_CGROUPS[@]}"}"; do rmdir "$c" 2>/dev/null; done' EXIT
gh_need_python
gh_sample "${GOHEAP_GROWTH_VERSIONS:-1.22 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

STEP=500

# grow NAME SIGNALS ARGS...: go-heap -v ARGS PID in the background; after each of the first
# SIGNALS snapshots, SIGUSR1 and wait for the program's ADDED line; then wait for go-heap.
# Output in $d/NAME.out, .err; status 1 (with a FAIL) when go-heap failed or a step was not
# bracketed by the snapshots.
grow() {
	local name=$1 nsig=$2 k gpid added=0 n
	shift 2
	"$GH_GOHEAP" -v "$@" "$pid" >"$d/$name.out" 2>"$d/$name.err" &
	gpid=$!
	for ((k = 1; k <= nsig; k++)); do
		if ! gh_wait_for 60 grep -q "^go-heap: snapshot $k of" "$d/$name.err"; then
			gh_fail "$tag: $name: no snapshot $k"
			gh_show_tail "$d/$name.err" 6
			wait "$gpid"
			return 1
		fi
		n=$(grep -c '^ADDED' "$out")
		kill -USR1 "$pid"
		gh_wait_for 30 eval "[ \$(grep -c '^ADDED' '$out') -gt $n ]" ||
			{ gh_fail "$tag: $name: the program added nothing"; wait "$gpid"; return 1; }
		added=$((added + 1))
	done
	if ! wait "$gpid"; then
		gh_fail "$tag: $name: go-heap $* failed"
		gh_show_tail "$d/$name.err" 6
		return 1
	fi
	# each ADDED window between the snapshot before it and the one after it
	python3 - "$d/$name.err" "$out" "$nsig" <<'PY' >"$d/$name.bracket" 2>&1 || { gh_fail "$tag: $name: the step was not bracketed by the snapshots"; gh_show "$d/$name.bracket" 5; return 1; }
import re, sys
snaps = [tuple(map(int, m.groups())) for m in
         re.finditer(r"snapshot \d+ of \d+ taken from (\d+) to (\d+) ns", open(sys.argv[1]).read())]
adds = [tuple(map(int, l.split()[3:5])) for l in open(sys.argv[2]) if l.startswith("ADDED")]
nsig = int(sys.argv[3])
adds = adds[-nsig:] if nsig else []
for k, (a0, a1) in enumerate(adds):
    if not (snaps[k][1] < a0 and a1 < snaps[k + 1][0]):
        print("step %d (%d..%d) not between snapshot %d's end %d and %d's start %d"
              % (k + 1, a0, a1, k + 1, snaps[k][1], k + 2, snaps[k + 1][0]))
        sys.exit(1)
PY
	return 0
}

# The types text's row of TYPE: "objects_delta bytes_delta objects bytes suspect"
types_row() {
	awk -F'\t' -v t="$2" '$6 == t { print $1, $2, $3, $4, $5 }' "$d/$1.out"
}

# check_types_pb PROFILE NAME: go tool pprof -raw of a types growth profile has the single
# profile's sample types, a duration near the window and a main.Item sample of +STEP objects;
# CHECK=0 when so ($d/NAME.check says what was found, $d/NAME.raw the dump).
check_types_pb() {
	"$root/bin/go" tool pprof -raw "$1" >"$d/$2.raw" 2>&1
	python3 - "$d/$2.raw" "$STEP" <<'PY' >"$d/$2.check" 2>&1
import re, sys
txt = open(sys.argv[1]).read()
step = int(sys.argv[2])
assert "objects/count space/bytes" in txt, "sample types"
dur = re.search(r"Duration: ([\d.]+)", txt)
assert dur and 2.5 < float(dur.group(1)) < 6, "duration %s" % (dur and dur.group(1))
samples = txt.split("Samples:")[1].split("Locations")[0]
locs = {}
for m in re.finditer(r"^\s*(\d+): 0x0 M=\d+ (.*)$", txt.split("Locations")[1], re.M):
    locs[m.group(1)] = m.group(2).strip().split(" ")[0]
rows = re.findall(r"^\s*(-?\d+)\s+(-?\d+):\s*(\d+)\s*\n(?:\s+shape:.*\n)?", samples, re.M)
for o, b, l in rows:
    if locs.get(l) == "main.Item":
        o, b = int(o), int(b)
        assert o == step and b % step == 0, "main.Item %d %d" % (o, b)
        print("main.Item", o, b)
        sys.exit(0)
print("no main.Item sample; locations", list(locs.values())[:10])
sys.exit(1)
PY
	CHECK=$?
}

for i in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$i]}
	root=${GH_GO_ROOTS[$i]}
	tag="$goname"
	d="$GH_TMP/$goname"
	mkdir -p "$d"
	gh_build_or_fail "$tag" growprog "$goname" "$root" default || continue
	if ! gh_start "$GH_BIN" -base 1000 -step $STEP; then
		gh_fail "$tag: growprog did not start"
		continue
	fi
	pid=$GH_PID
	out=$GH_OUT

	# ---- -p types --seconds: the step by type, exactly ----
	if grow types 1 -p types --seconds 4 -f text; then
		read -r od bd on bn su <<<"$(types_row types main.Item)"
		if [ "${od:-}" = "$STEP" ] && [ -n "$on" ] && [ "$on" -gt 0 ] &&
			[ "$bd" = "$((STEP * (bn / on)))" ] && [ $((bn % on)) = 0 ]; then
			gh_pass "$tag: types --seconds 4: main.Item +$od objects, +$bd bytes ($STEP x $((bn / on)) B slots), as the program added"
		else
			gh_fail "$tag: types --seconds 4: main.Item row '$od $bd $on $bn' (want +$STEP objects)"
			gh_show "$d/types.out" 15
		fi
		if [ -z "$(types_row types main.Steady)" ] && grep -q '^# go-heap -p types: growth over 2 snapshots' "$d/types.out" &&
			[ "$(grep -c '^# snapshot [12]: ' "$d/types.out")" = 2 ]; then
			gh_pass "$tag: types: main.Steady unchanged (no row); the header has the 2 snapshots and their times"
		else
			gh_fail "$tag: types: main.Steady has a row, or the header lacks the snapshots"
			gh_show "$d/types.out" 8
		fi
	fi

	# ---- the same as pprof, read by the toolchain's go tool pprof ----
	if grow typespb 1 -p types --seconds 3 -o "$d/types.pb.gz"; then
		check_types_pb "$d/types.pb.gz" typespb
		if [ "$CHECK" = 0 ]; then
			gh_pass "$tag: types pprof: go tool pprof reads objects/count space/bytes, $(cat "$d/typespb.check"), the window as its duration"
		else
			gh_fail "$tag: types pprof: $(tail -1 "$d/typespb.check")"
			gh_show "$d/typespb.raw" 30
		fi
	fi

	# ---- -p retained --seconds: the step by holder ----
	if grow retained 1 -p retained --seconds 4 -f text; then
		slot=$(awk '$6 == "main.Item" { print $4 / $3; exit }' "$d/types.out")
		read -r po pb rr <<<"$(awk -F'\t' '
			$8 == "path" && $9 ~ /^main\.leak;/ && $9 ~ /;main\.Item$/ { o += $1; b += $2 }
			$8 == "root" && $9 == "main.leak" { r = $3 }
			END { print o + 0, b + 0, r + 0 }' "$d/retained.out")"
		if [ "$po" = "$STEP" ] && [ "$pb" = "$((STEP * ${slot:-0}))" ] && [ "$rr" -ge "$pb" ]; then
			gh_pass "$tag: retained --seconds 4: the paths main.leak;...;main.Item +$po objects, +$pb bytes; the root main.leak retains +$rr bytes"
		else
			gh_fail "$tag: retained --seconds 4: main.leak;...;main.Item +$po objects +$pb bytes, root +$rr (want +$STEP, +$((STEP * ${slot:-0})))"
			gh_show "$d/retained.out" 20
		fi
	fi

	# ---- --count 3: leak suspects ----
	if grow count 2 -p types --count 3 --interval 3 -f text; then
		read -r od bd on bn su <<<"$(types_row count main.Item)"
		nsus=$(awk -F'\t' '!/^#/ && NR > 1 && $5 == 1' "$d/count.out" | wc -l)
		if [ "${od:-}" = "$((2 * STEP))" ] && [ "$su" = 1 ] && [ -z "$(types_row count main.Steady)" ]; then
			gh_pass "$tag: types --count 3: main.Item +$od in two steps, a leak suspect ($nsus suspects in all); main.Steady no row"
		else
			gh_fail "$tag: types --count 3: main.Item '$od $bd $on $bn $su' (want +$((2 * STEP)), suspect 1)"
			gh_show "$d/count.out" 15
		fi
	fi
	if grow rcount 2 -p retained --count 3 --interval 3; then
		if grep -qE '^ +[0-9]+:!.* root main\.leak$' "$d/rcount.out"; then
			gh_pass "$tag: retained --count 3: the root main.leak is marked a leak suspect ('!') in top"
		else
			gh_fail "$tag: retained --count 3: the root main.leak is not marked"
			gh_show "$d/rcount.out" 20
		fi
	fi
	if grow steady 0 -p types --count 3 --interval 1 -f text; then
		nsus=$(awk -F'\t' '!/^#/ && NR > 1 && $5 == 1 && ($6 == "main.Item" || $6 == "main.Steady")' "$d/steady.out" | wc -l)
		if [ "$nsus" = 0 ] && grep -q 'leak suspects (bytes grew in each of the 2 intervals' "$d/steady.out"; then
			gh_pass "$tag: a steady run (no step): main.Item and main.Steady are no suspects"
		else
			gh_fail "$tag: steady run: $nsus suspects among main.Item/main.Steady"
			gh_show "$d/steady.out" 15
		fi
	fi

	# ---- go-heap watch: /pprof/PID/types?seconds=N, retained?seconds=N ----
	port=$(gh_free_port)
	"$GH_GOHEAP" watch --listen "127.0.0.1:$port" --interval 60s "$pid" >"$d/watch.out" 2>"$d/watch.err" &
	wpid=$!
	GH_PIDS+=("$wpid")
	if gh_wait_for 30 curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"; then
		n=$(grep -c '^ADDED' "$out")
		curl -s -o "$d/wtypes.pb.gz" -w '%{http_code}' "http://127.0.0.1:$port/pprof/$pid/types?seconds=4" >"$d/wtypes.code" &
		cpid=$!
		sleep 1.5
		kill -USR1 "$pid"
		mt=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/metrics")
		wait "$cpid"
		check_types_pb "$d/wtypes.pb.gz" wtypes
		if [ "$(cat "$d/wtypes.code")" = 200 ] && [ "$CHECK" = 0 ]; then
			gh_pass "$tag: watch types?seconds=4: $(cat "$d/wtypes.check"); /metrics answered during the wait ($mt s)"
		else
			gh_fail "$tag: watch types?seconds=4: HTTP $(cat "$d/wtypes.code"): $(tail -1 "$d/wtypes.check")"
			gh_show "$d/wtypes.raw" 20
		fi
		case $mt in 200\ 0.*) gh_pass "$tag: watch: the wait does not block serving (/metrics $mt s)" ;;
		*) gh_fail "$tag: watch: /metrics during the wait: $mt" ;; esac
		curl -s -o "$d/wret.pb.gz" -w '%{http_code}' "http://127.0.0.1:$port/pprof/$pid/retained?seconds=4" >"$d/wret.code" &
		cpid=$!
		sleep 1.5
		kill -USR1 "$pid"
		wait "$cpid"
		"$root/bin/go" tool pprof -traces -sample_index=inuse_objects "$d/wret.pb.gz" >"$d/wret.traces" 2>&1
		# the traces ending (leaf first) in main.Item, under the root main.leak, summed
		wo=$(python3 - "$d/wret.traces" <<'PY'
import sys
tot = 0
import re
for blk in re.split(r"^-+\+-+$", open(sys.argv[1]).read(), flags=re.M):
    lines = [l for l in blk.splitlines() if l.strip() and not l.startswith(("File:", "Type:", "Time:", "Duration:", "Comment", "Main"))]
    if not lines:
        continue
    head = lines[0].split()
    if len(head) < 2 or not head[0].lstrip("-").isdigit():
        continue
    frames = [" ".join(head[1:])] + [l.strip() for l in lines[1:]]
    if frames[0] == "main.Item" and frames[-1] == "main.leak":
        tot += int(head[0])
print(tot)
PY
)
		if [ "$(cat "$d/wret.code")" = 200 ] && [ "$wo" = "$STEP" ]; then
			gh_pass "$tag: watch retained?seconds=4: the paths main.leak;...;main.Item +$wo objects (go tool pprof -traces)"
		else
			gh_fail "$tag: watch retained?seconds=4: HTTP $(cat "$d/wret.code"), main.leak;...;main.Item +$wo (want +$STEP)"
			gh_show "$d/wret.traces" 30
		fi
	else
		gh_fail "$tag: watch did not serve /metrics"
		gh_show "$d/watch.err" 5
	fi
	gh_stop "$wpid"
	gh_stop "$pid"
done

# ---- watch --on-memory-pressure (the newest toolchain) ----
# pressure_run TAG PRESSURE_PID STEADY_PID ARGS...: watch both with ARGS for 8 s; then the
# pressured one left exactly one set (heap, types, retained) in $d/pout, the steady one none.
pressure_run() {
	local ptag=$1 ppid=$2 spid=$3 wpid n k
	shift 3
	rm -rf "$d/pout"
	"$GH_GOHEAP" watch --listen 127.0.0.1:0 --interval 60s --on-memory-pressure \
		--memory-pressure-period 1h --output-dir "$d/pout" "$@" "$ppid" "$spid" \
		>"$d/pw.out" 2>"$d/pw.err" &
	wpid=$!
	GH_PIDS+=("$wpid")
	gh_wait_for 20 eval "[ \$(ls '$d/pout' 2>/dev/null | grep -c -- -pressure-) -ge 3 ]"
	sleep 4         # a second set would come within the period if the limit were not kept
	gh_stop "$wpid"
	n=$(ls "$d/pout" | grep -c -- "^$ppid-.*-pressure-")
	k=$(ls "$d/pout" | grep -c -- "^$spid-.*-pressure-")
	if [ "$n" = 3 ] && [ "$k" = 0 ]; then
		gh_pass "$ptag: the pressured program left one set (heap, types, retained), the steady one none: $(grep 'memory pressure (' "$d/pw.err" | head -1 | cut -c1-160)"
	else
		gh_fail "$ptag: pressured program left $n files (want 3), steady one $k (want 0)"
		gh_show "$d/pw.err" 5
		ls "$d/pout" | sed 's/^/    | /'
		return
	fi
	pressure_profiles "$ptag" "$ppid"
}

# pressure_profiles TAG PID: PID's set in $d/pout reads in go tool pprof with the program's types
# and root.
pressure_profiles() {
	local ptag=$1 ppid=$2
	"$root/bin/go" tool pprof -top -sample_index=space "$d/pout/$ppid"-*-pressure-types.pb.gz >"$d/pt.top" 2>&1
	"$root/bin/go" tool pprof -traces "$d/pout/$ppid"-*-pressure-retained.pb.gz >"$d/pr.traces" 2>&1
	"$root/bin/go" tool pprof -top "$d/pout/$ppid"-*-pressure-heap.pb.gz >"$d/ph.top" 2>&1
	if grep -q 'main.Blob$' "$d/pt.top" && grep -q '^ *main.blobs$' "$d/pr.traces" && grep -q 'inuse_space' "$d/ph.top"; then
		gh_pass "$ptag: its profiles read in go tool pprof: types' main.Blob, retained's root main.blobs, heap inuse_space"
	else
		gh_fail "$ptag: the profiles lack main.Blob (types), main.blobs (retained) or inuse_space (heap)"
		gh_show "$d/pt.top" 10
	fi
}

# pressure_v1 TAG CG: two cgroup v1 memory cgroups CG.grow (made by the caller) and CG.steady,
# memory.limit_in_bytes 96 MiB each; growprog -pressure growing 1 MiB every 200 ms in the first
# until the kernel kills it, a steady growprog in the second, both watched once a second. The
# first must leave one set before the kill: its working set passes 90% of the limit (86.4 MiB)
# about 2 s, two checks, before the kill at 96 MiB; a check delayed that long on a loaded machine
# misses it (the race doc/watch.md describes: a kill within one check interval). No timing is
# asserted: the kill is waited for (OOM: exit 137, oom_kill in memory.oom_control where the
# kernel counts it), then the files.
pressure_v1() {
	local ptag=$1 cgg=$2.grow cgs=$2.steady gpid spid wpid rc n k ok kills q keep=()
	GH_CGROUPS+=("$cgg")
	if ! mkdir "$cgs" 2>/dev/null; then
		gh_fail "$ptag: cannot make $cgs"
		return
	fi
	GH_CGROUPS+=("$cgs")
	if ! echo $((96 << 20)) >"$cgg/memory.limit_in_bytes" || ! echo $((96 << 20)) >"$cgs/memory.limit_in_bytes"; then
		gh_fail "$ptag: cannot set memory.limit_in_bytes in $cgg, $cgs"
		return
	fi
	rm -rf "$d/pout"
	sh -c "echo \$\$ >'$cgs/cgroup.procs' && exec '$GH_BIN'" >"$d/v1s.out" 2>&1 </dev/null &
	spid=$!
	GH_PIDS+=("$spid")
	sh -c "echo \$\$ >'$cgg/cgroup.procs' && exec '$GH_BIN' -pressure -pressure-mib 1 -pressure-every 200ms" >"$d/v1g.out" 2>&1 </dev/null &
	gpid=$!
	GH_PIDS+=("$gpid")
	if ! gh_wait_for 20 grep -q '^READY' "$d/v1g.out" || ! gh_wait_for 20 grep -q '^READY' "$d/v1s.out"; then
		gh_fail "$ptag: growprog not READY in its cgroup"
		gh_show "$d/v1g.out" 3
		return
	fi
	"$GH_GOHEAP" watch -v --listen 127.0.0.1:0 --interval 60s --on-memory-pressure \
		--memory-pressure-period 1h --output-dir "$d/pout" "$gpid" "$spid" \
		>"$d/pw.out" 2>"$d/pw.err" &
	wpid=$!
	GH_PIDS+=("$wpid")
	# the growing program leaves its cgroup when the kernel kills it (about 19 s on a quiet
	# machine)
	gh_wait_for 60 eval "[ -z \"\$(cat '$cgg/cgroup.procs')\" ]"
	sleep 2         # a second set would come within the period if the limit were not kept
	gh_stop "$wpid"
	kill -0 "$gpid" 2>/dev/null && kill "$gpid" 2>/dev/null   # not ended by the kernel
	wait "$gpid"
	rc=$?
	for q in "${GH_PIDS[@]}"; do
		[ "$q" = "$gpid" ] || keep+=("$q")
	done
	GH_PIDS=("${keep[@]+"${keep[@]}"}")
	kills=$(awk '$1 == "oom_kill" { print $2 }' "$cgg/memory.oom_control")
	if [ "$rc" = 137 ] && [ "${kills:-1}" -ge 1 ]; then
		gh_pass "$ptag: growprog -pressure grew to its 96 MiB limit and the kernel killed it (exit 137, oom_kill ${kills:-not counted}, memory.failcnt $(cat "$cgg/memory.failcnt"))"
	else
		gh_fail "$ptag: growprog -pressure ended with status $rc, oom_kill ${kills:-not counted} (want 137 and an OOM kill)"
	fi
	ok=1
	grep -q "^go-heap watch: $spid: memory pressure: cgroup v1 $cgs\$" "$d/pw.err" || ok=0
	grep -q "^go-heap watch: $gpid: memory pressure: cgroup v1 $cgg\$" "$d/pw.err" || ok=0
	n=$(ls "$d/pout" 2>/dev/null | grep -c -- "^$gpid-.*-pressure-")
	k=$(ls "$d/pout" 2>/dev/null | grep -c -- "^$spid-.*-pressure-")
	if [ "$ok" = 1 ] && [ "$n" = 3 ] && [ "$k" = 0 ] &&
		grep -q "^go-heap watch: $gpid (.*): memory pressure (cgroup v1 $cgg: working set .*): wrote 3 of 3" "$d/pw.err"; then
		gh_pass "$ptag: the growing program left one set (heap, types, retained) before the kill, the steady one (read in $cgs) none: $(grep "^go-heap watch: $gpid (.*): memory pressure (" "$d/pw.err" | cut -c1-300)"
		pressure_profiles "$ptag" "$gpid"
	else
		gh_fail "$ptag: growing program left $n files (want 3), steady one $k (want 0), both read in v1 cgroups: $ok (want 1)"
		gh_show "$d/pw.err" 8
		ls "$d/pout" 2>/dev/null | sed 's/^/    | /'
	fi
	gh_stop "$spid"
	rmdir "$cgg" "$cgs" 2>/dev/null
}

last=$((${#GH_GO_NAMES[@]} - 1))
if [ "$last" -ge 0 ] && gh_build_or_fail "pressure" growprog "${GH_GO_NAMES[$last]}" "${GH_GO_ROOTS[$last]}" default; then
	root=${GH_GO_ROOTS[$last]}
	d="$GH_TMP/pressure"
	mkdir -p "$d"
	tag="pressure ${GH_GO_NAMES[$last]}"
	# cgroup v2: a cgroup the test makes, memory.high 48 MiB
	cg=/sys/fs/cgroup
	# cgroup v1: the memory hierarchy's mount point, when it is mounted whole here
	v1=$(awk '$5 != "" && $4 == "/" { for (i = 7; i <= NF && $i != "-"; i++); if ($(i+1) == "cgroup" && $(i+3) ~ /(^|,)memory(,|$)/) { print $5; exit } }' /proc/self/mountinfo)
	why2=
	if [ ! -f "$cg/cgroup.controllers" ]; then
		why2="no cgroup v2 hierarchy at $cg ($(stat -f -c %T "$cg" 2>/dev/null): v1 or hybrid)"
	elif ! grep -qw memory "$cg/cgroup.controllers" || ! mkdir "$cg/go-heap-growth.$$" 2>/dev/null; then
		why2="$cg has no memory controller or is not writable here"
	else
		cgd="$cg/go-heap-growth.$$"
		GH_CGROUPS+=("$cgd")
		grep -qw memory "$cg/cgroup.subtree_control" || echo +memory >"$cg/cgroup.subtree_control" 2>/dev/null
		if echo $((48 << 20)) >"$cgd/memory.high" 2>/dev/null; then
			sh -c "echo \$\$ >'$cgd/cgroup.procs' && exec '$GH_BIN' -pressure" >"$d/cg.out" 2>&1 &
			cpid=$!
			GH_PIDS+=("$cpid")
			gh_start "$GH_BIN" && spid=$GH_PID
			gh_wait_for 20 grep -q '^READY' "$d/cg.out"
			pressure_run "$tag: cgroup memory.high" "$cpid" "$spid"
			gh_stop "$cpid"
			gh_stop "$spid"
		else
			gh_skip "$tag: cgroup: cannot set memory.high in $cgd"
		fi
		rmdir "$cgd" 2>/dev/null
	fi
	if [ -n "$why2" ] && [ -z "$v1" ]; then
		gh_skip "$tag: cgroup: $why2, and no cgroup v1 memory hierarchy mounted whole; the RSS threshold is tested instead"
	elif [ -n "$why2" ] && ! mkdir "$v1/go-heap-growth.$$.grow" 2>/dev/null; then
		gh_skip "$tag: cgroup: $why2, and the cgroup v1 memory hierarchy at $v1 is not writable here; the RSS threshold is tested instead"
	elif [ -n "$why2" ]; then
		pressure_v1 "$tag: cgroup v1" "$v1/go-heap-growth.$$"
	fi
	# the RSS threshold: 1 MiB resident every 20 ms against a program that stays still
	if gh_start "$GH_BIN" -pressure; then
		ppid=$GH_PID
		if gh_start "$GH_BIN"; then
			spid=$GH_PID
			pressure_run "$tag: --memory-pressure-rss 80M" "$ppid" "$spid" --memory-pressure-rss 80M
			gh_stop "$spid"
		fi
		gh_stop "$ppid"
	fi
	# GOMEMLIMIT (debug.SetMemoryLimit 64 MiB), no cgroup limit and no RSS threshold: 1 MiB every
	# 200 ms against a steady program with the same limit; watch -v prints the limit it read
	# for each, which must be the runtime's own (debug.SetMemoryLimit(-1), the GOMEMLIMIT line)
	if gh_start "$GH_BIN" -pressure -pressure-every 200ms -memlimit $((64 << 20)); then
		ppid=$GH_PID
		pgo=$GH_OUT
		if gh_start "$GH_BIN" -memlimit $((64 << 20)); then
			spid=$GH_PID
			sgo=$GH_OUT
			pressure_run "$tag: GOMEMLIMIT" "$ppid" "$spid" -v
			pl=$(awk '/^GOMEMLIMIT/ { print $2 }' "$pgo")
			sl=$(awk '/^GOMEMLIMIT/ { print $2 }' "$sgo")
			if [ "$pl" = $((64 << 20)) ] && [ "$sl" = "$pl" ] &&
				grep -q "^go-heap watch: $ppid: memory pressure: GOMEMLIMIT $pl " "$d/pw.err" &&
				grep -q "^go-heap watch: $spid: memory pressure: GOMEMLIMIT $sl " "$d/pw.err" &&
				grep -q "^go-heap watch: $ppid (.*): memory pressure (GOMEMLIMIT $pl: the runtime holds [0-9]* (mappedReady) >= 90%" "$d/pw.err"; then
				gh_pass "$tag: GOMEMLIMIT: watch read each program's limit as its runtime reports it ($pl), and the set was written for the runtime's own count: $(grep "^go-heap watch: $ppid (.*): memory pressure (" "$d/pw.err" | cut -c1-220)"
			else
				gh_fail "$tag: GOMEMLIMIT: the programs say $pl and $sl; watch read:"
				grep 'GOMEMLIMIT' "$d/pw.err" | head -4 | sed 's/^/    | /'
			fi
			# what the runtime counts, of the steady program (it allocates nothing after
			# printing it): runtime/metrics' total - heap/released, as watch read it; within
			# 64 KiB (a scavenger chunk: the background scavenger may return one meanwhile)
			sm=$(awk '/^MAPPEDREADY/ { print $2 }' "$sgo")
			wm=$(sed -n "s/^go-heap watch: $spid: memory pressure: GOMEMLIMIT [0-9]* (the runtime holds \([0-9]*\))\$/\1/p" "$d/pw.err")
			if [ -n "$sm" ] && [ -n "$wm" ] && [ $((sm > wm ? sm - wm : wm - sm)) -le 65536 ]; then
				gh_pass "$tag: GOMEMLIMIT: the steady program's mappedReady as watch read it, $wm, is its runtime/metrics total - heap/released, $sm (difference $((wm - sm)))"
			else
				gh_fail "$tag: GOMEMLIMIT: the steady program's mappedReady: watch read '$wm', runtime/metrics says '$sm'"
			fi
			gh_stop "$spid"
		fi
		gh_stop "$ppid"
	fi
fi

# ---- usage: one instant, other kinds ----
"$GH_GOHEAP" -p types --seconds 2 "$GH_TMP/core.1234" >"$GH_TMP/u1.out" 2>"$GH_TMP/u1.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$GH_TMP/u1.err")" = 1 ] && grep -q 'a core is one instant' "$GH_TMP/u1.err"; then
	gh_pass "usage: a core with --seconds: exit 2, one line: $(cat "$GH_TMP/u1.err")"
else
	gh_fail "usage: a core with --seconds: exit $rc"
	gh_show "$GH_TMP/u1.err" 3
fi
"$GH_GOHEAP" -p heap --seconds 2 1 >"$GH_TMP/u2.out" 2>"$GH_TMP/u2.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$GH_TMP/u2.err")" = 1 ]; then
	gh_pass "usage: -p heap --seconds: exit 2, one line"
else
	gh_fail "usage: -p heap --seconds: exit $rc"
	gh_show "$GH_TMP/u2.err" 3
fi
"$GH_GOHEAP" -p types --count 3 1 >"$GH_TMP/u3.out" 2>"$GH_TMP/u3.err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'needs --interval' "$GH_TMP/u3.err"; then
	gh_pass "usage: --count without --interval: exit 2"
else
	gh_fail "usage: --count without --interval: exit $rc"
	gh_show "$GH_TMP/u3.err" 3
fi
gh_summary
