#!/bin/bash
# tests/run-goroutineleak.sh: go-heap -p goroutineleak PID|CORE EXE, the leaked goroutines found
# from outside by the runtime's own algorithm (src/lib/retained/retleak.c, doc/goroutineleak.md).
#
# tests/go/leakgorprog leaks a goroutine of each kind (a channel receive and send on a channel
# nothing else holds, a select, sync.Mutex, RWMutex.RLock and Lock, WaitGroup, Cond) and parks
# ten that only look leaked (on a global's channel, a locked global mutex, a channel held by a
# goroutine itself waiting on a global, one held by a goroutine in a read(2) system call, one
# held by a goroutine in time.Sleep, Conds a global holds through a pointer and in place); it prints the goroutine ids of each.  For each toolchain
# (GOHEAP_LEAK_VERSIONS, default "1.19 1.22 1.26 1.27", within GOHEAP_GO_VERSIONS), the default
# and the stripped (-s -w) build, and on 1.26 a GOEXPERIMENT=goroutineleakprofile build too:
#   - go-heap reads it live (-f text, -f traceback), then from a gcore core;
#   - then the program writes its own pprof.Lookup("goroutineleak") at debug=1 and debug=2
#     (Go 1.27, 1.26 with the experiment; its leak GC turns the leaked to _Gleaked, so go-heap
#     reads first);
#   - where the program has the profile: go-heap's text, live and from the core, equals the
#     program's record for record (go-heap's own "# go-heap:" lines aside), and the goroutines
#     -f traceback marks "(leaked)" are the ones the program's debug=2 marks;
#   - everywhere: the goroutines go-heap reports leaked are leaks the program made (no
#     look-alike), and every leak is there, on every release (before 1.26 a Cond waiter's
#     sudog is on the Cond's notifyList only: its holder found backwards; Mutex, RWMutex and
#     WaitGroup waiters are found in runtime.semtable, in a stripped build through
#     semacquire1's code);
#   - the record of the receive leak says its goroutine alone keeps its 4096-byte buffer alive;
#   - the bytes and objects each leak site keeps alive, and the total, equal what the program's
#     own debug.WriteHeapDump gives (written at its quiet point, -dump): tests/heapdump.py
#     --leakheld, an independent graph from the dump's objects, pointer fields and roots, with
#     the leaked goroutines' frames no roots and their sudogs' pointers to what they wait on
#     (the addresses the program printed) hidden, as the runtime's leak GC does;
#   - the core's text equals the live text;
#   - -p retained (live) names the leaked goroutines' frames roots of their own kind: its header
#     counts as many leaked goroutines as -p goroutineleak found, and the receive leak's frame is
#     the row "root leaked goroutine N [chan receive]: main.leakRecv.func1" holding its buffer;
#   - on 1.27, the default build run with -select too: main waits in select {}, which the runtime
#     counts in the total and writes as an empty record "1 @", as go-heap does;
#   - on 1.27 (default build): go-heap watch's /pprof/PID/goroutineleak?debug=1 equals it too
#     (?debug=2 marks the same goroutines leaked, no debug is gzip'd pprof, ?seconds=2 a 400),
#     and its /metrics' go_goroutines_leaked for the process (--goroutineleak-interval 1s: polled
#     until it appears, no timing asserted) is the number of goroutines -p goroutineleak found.
set -u
. "$(dirname "$0")/lib.sh"
gh_init
gh_sample "${GOHEAP_LEAK_VERSIONS:-1.19 1.22 1.26 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }

. "$(dirname "$0")/leak-lib.sh"

one() {
	local tag=$1 bin=$2 minor=$3 stripped=$4 d pid i own expect
	shift 4
	d="$GH_TMP/${tag//\//-}"
	mkdir -p "$d"
	mkfifo "$d/in"
	# the program's heap dump at its quiet point (but with -select)
	[ $# -eq 0 ] && set -- -dump "$d/heap.dump"
	"$bin" "$@" <"$d/in" >"$d/out" 2>"$d/err" &
	pid=$!
	exec 7>"$d/in"
	for i in $(seq 100); do
		grep -q '^READY' "$d/out" && break
		sleep 0.1
	done
	if ! grep -q '^READY' "$d/out"; then
		gh_fail "$tag: the program did not get ready"
		gh_show "$d/err" 5
		exec 7>&-
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	"$GH_GOHEAP" -p goroutineleak -f text "$pid" >"$d/gh.txt" 2>"$d/gh.err" &&
		"$GH_GOHEAP" -p goroutineleak -f traceback "$pid" >"$d/gh2.txt" 2>>"$d/gh.err"
	local rc=$? core= wa=
	"$GH_GOHEAP" -p retained -n 400 "$pid" >"$d/ret.txt" 2>>"$d/gh.err" || rc=$?
	# watch's /pprof/PID/goroutineleak (net/http/pprof's debug=1), on the newest release
	if [ "$minor" -ge 27 ] && [ "$stripped" = 0 ] && ! command -v curl >/dev/null 2>&1; then
		gh_skip "$tag: watch: curl not installed"
	elif [ "$minor" -ge 27 ] && [ "$stripped" = 0 ]; then
		"$GH_GOHEAP" watch --interval 1s --goroutineleak-interval 1s --listen 127.0.0.1:0 "$pid" \
			>"$d/watch.out" 2>"$d/watch.err" </dev/null &
		wa=$!
		GH_PIDS+=("$wa")
		for i in $(seq 100); do
			grep -q 'listening on' "$d/watch.err" && break
			sleep 0.1
		done
		local addr
		addr=$(sed -n 's/.*listening on //p' "$d/watch.err" | head -n 1)
		curl -s --max-time 60 "http://$addr/pprof/$pid/goroutineleak?debug=1" >"$d/watch.txt"
		# net/http/pprof's other arguments: debug=2 (tracebacks), debug=0 (pprof), seconds (refused)
		curl -s --max-time 60 "http://$addr/pprof/$pid/goroutineleak?debug=2" >"$d/watch2.txt"
		curl -s --max-time 60 "http://$addr/pprof/$pid/goroutineleak" >"$d/watch.pb.gz"
		curl -s --max-time 60 -o /dev/null -w '%{http_code}' \
			"http://$addr/pprof/$pid/goroutineleak?seconds=2" >"$d/watch.sec"
		# go_goroutines_leaked: after the round that checks it (polled, not timed)
		for i in $(seq 600); do
			curl -s --max-time 60 "http://$addr/metrics" >"$d/watch.metrics"
			grep -q "^go_goroutines_leaked{pid=\"$pid\"" "$d/watch.metrics" && break
			kill -0 "$wa" 2>/dev/null || break
			sleep 0.2
		done
		kill "$wa" 2>/dev/null
		wait "$wa" 2>/dev/null
	fi
	if gh_gcore "$tag" "$pid" "$d"; then
		core="$d/core.$pid"
	fi
	echo "profile $d/own.txt" >&7
	echo "traceback $d/own2.txt" >&7
	for i in $(seq 100); do
		[ "$(grep -c '^DONE' "$d/out")" -ge 2 ] && break
		sleep 0.1
	done
	# after the program's own leak GC: its leaked goroutines are _Gleaked (10)
	if [ -s "$d/own.txt" ] && ! grep -q NOPROFILE "$d/own.txt"; then
		"$GH_GOHEAP" -p goroutineleak -f text "$pid" >"$d/after.txt" 2>>"$d/gh.err"
		"$GH_GOHEAP" -p goroutine -f traceback "$pid" >"$d/after2.txt" 2>>"$d/gh.err"
	fi
	echo quit >&7
	exec 7>&-
	wait "$pid" 2>/dev/null
	if [ $rc -ne 0 ]; then
		gh_fail "$tag: go-heap -p goroutineleak failed"
		gh_show "$d/gh.err" 5
		return
	fi
	local got made waits
	got=$(leaked "$d/gh2.txt")
	made=$(ids "$d/out" LEAK)
	waits=$(ids "$d/out" WAIT)
	# what this release and build allow finding
	# every leak, on every release (before 1.26 the Cond's holder found backwards from its
	# waiter's sudog: retleak.c cond_waits)
	expect=$made
	if subset "$got" "$made" && subset "$expect" "$got"; then
		gh_pass "$tag: live: leaked goroutines $got(the program made $made; look-alikes $waits not reported)"
	else
		gh_fail "$tag: live: go-heap says leaked: $got; the program made $made (findable here: $expect); look-alikes: $waits"
		gh_show "$d/gh2.txt" 40
	fi
	grep -v '^# go-heap:' "$d/gh.txt" >"$d/gh.go.txt"
	# -p retained: the leaked goroutines' roots of their own kind
	local nret rrow recv
	nret=$(sed -n 's/^leaked goroutines (-p goroutineleak[^)]*): \([0-9]*\), .*/\1/p' "$d/ret.txt")
	recv=$(ids "$d/out" LEAK chanrecv)
	rrow=$(awk -v g="${recv% }" '$0 ~ "root leaked goroutine " g " \\[chan receive\\]: main\\.leakRecv\\.func1$" { print $2 }' "$d/ret.txt")
	if [ "$nret" = "$(echo $got | wc -w)" ] && [ -n "$rrow" ] && [ "$rrow" -ge 4096 ]; then
		gh_pass "$tag: live: -p retained counts $nret leaked goroutines, their frames roots of their own kind (\"root leaked goroutine ${recv% } [chan receive]: main.leakRecv.func1\" retains $rrow bytes)"
	else
		gh_fail "$tag: live: -p retained: leaked goroutines '$nret' (want $(echo $got | wc -w)), the receive leak's root row retains '$rrow'"
		grep -n 'leaked' "$d/ret.txt" | head -5
	fi
	# what the leaks keep alive: leakRecv's goroutine alone holds the 4096-byte buffer it made
	local held
	held=$(sed -n 's/^# go-heap: record [0-9]*, main\.leakRecv\.func1 ([0-9]* goroutines): \([0-9]*\) bytes.*/\1/p' "$d/gh.txt")
	if [ -n "$held" ] && [ "$held" -ge 4096 ] && [ "$held" -lt 8192 ]; then
		gh_pass "$tag: live: main.leakRecv.func1's goroutine alone keeps $held bytes alive (its 4096-byte buffer and its channel)"
	else
		gh_fail "$tag: live: main.leakRecv.func1's held bytes: '${held}' (want its 4096-byte buffer, less than 8192)"
		grep '^# go-heap' "$d/gh.txt" | head -12
	fi
	# the same from the program's own heap dump (the leaks go-heap found)
	if [ -s "$d/heap.dump" ]; then
		local args
		args=$(awk -v g=" $got" '$1 == "LEAK" && index(g " ", " " $2 " ") { printf "%s=%s ", $2, $4 }' "$d/out")
		# shellcheck disable=SC2086
		if python3 "$GH_TESTS/heapdump.py" --leakheld "$d/heap.dump" "$minor" \
			"$([ "$minor" -ge 26 ] && echo 1 || echo 0)" $args >"$d/dump.held" 2>"$d/dump.err"; then
			local want have
			want=$(awk '$1 == "HELD" { b[$3] += $4; o[$3] += $5 }
				$1 == "LEAKTOTAL" { t = $2 " " $3 }
				END { for (s in b) print s, b[s], o[s]; print "total", t }' "$d/dump.held" | sort)
			have=$(sed -n -e 's/^# go-heap: record [0-9]*, \([^ ]*\) ([0-9]* goroutines): \([0-9]*\) bytes in \([0-9]*\) objects.*/\1 \2 \3/p' \
				-e 's/^# go-heap: [0-9]* leaked goroutines keep \([0-9]*\) bytes in \([0-9]*\) objects.*/total \1 \2/p' "$d/gh.txt" | sort)
			if [ -n "$want" ] && [ "$want" = "$have" ]; then
				gh_pass "$tag: live: the bytes each leak site keeps alive equal the program's heap dump's graph ($(echo "$want" | grep -c .) lines: $(echo "$want" | grep '^total'))"
			else
				gh_fail "$tag: live: the leaks' held bytes differ from the program's heap dump's graph"
				diff <(echo "$want") <(echo "$have") | head -20
			fi
		else
			gh_fail "$tag: the heap dump's graph (heapdump.py --leakheld)"
			gh_show "$d/dump.err" 5
		fi
	elif [ $# -gt 0 ] && [ "$1" = -dump ]; then
		gh_fail "$tag: the program wrote no heap dump"
	fi
	own=0
	if [ -s "$d/own.txt" ] && ! grep -q NOPROFILE "$d/own.txt"; then
		own=1
		if cmp -s "$d/gh.go.txt" "$d/own.txt"; then
			gh_pass "$tag: live: -f text equals the program's goroutineleak debug=1 ($(grep -c '^[0-9]* @' "$d/own.txt") records)"
		else
			gh_fail "$tag: live: -f text differs from the program's goroutineleak debug=1"
			diff "$d/gh.go.txt" "$d/own.txt" | head -20
		fi
		if grep -v '^# go-heap:' "$d/after.txt" | cmp -s - "$d/own.txt" &&
			[ "$(leaked "$d/after2.txt")" = "$got" ]; then
			gh_pass "$tag: after the program's leak GC (_Gleaked): -p goroutineleak -f text is the same, -p goroutine -f traceback prints the $(echo $got | wc -w) as (leaked)"
		else
			gh_fail "$tag: after the program's leak GC (_Gleaked): -p goroutineleak -f text or -p goroutine -f traceback's (leaked) $(leaked "$d/after2.txt") differ"
			diff <(grep -v '^# go-heap:' "$d/after.txt") "$d/own.txt" | head -10
		fi
		if [ -n "$wa" ]; then
			if grep -v '^# go-heap:' "$d/watch.txt" | cmp -s - "$d/own.txt"; then
				gh_pass "$tag: watch: /pprof/PID/goroutineleak?debug=1 equals the program's debug=1"
			else
				gh_fail "$tag: watch: /pprof/PID/goroutineleak?debug=1 differs from the program's"
				gh_show "$d/watch.txt" 5
			fi
			if [ "$(leaked "$d/watch2.txt")" = "$got" ] &&
				[ "$(head -c 2 "$d/watch.pb.gz" | od -An -tx1 | tr -d ' \n')" = 1f8b ] &&
				[ "$(cat "$d/watch.sec")" = 400 ]; then
				gh_pass "$tag: watch: ?debug=2 marks the same goroutines (leaked), no debug is a gzip'd pprof, ?seconds=2 is refused (400)"
			else
				gh_fail "$tag: watch: ?debug=2's (leaked) '$(leaked "$d/watch2.txt")' (want $got), ?debug=0 not gzip, or ?seconds=2 answered $(cat "$d/watch.sec")"
			fi
			local wn
			wn=$(sed -n "s/^go_goroutines_leaked{pid=\"$pid\".*} \([0-9]*\)\$/\1/p" "$d/watch.metrics")
			if [ -n "$wn" ] && [ "$wn" = "$(echo $got | wc -w)" ]; then
				gh_pass "$tag: watch: /metrics go_goroutines_leaked{pid=\"$pid\",...} $wn, the goroutines -p goroutineleak found"
			else
				gh_fail "$tag: watch: /metrics go_goroutines_leaked '$wn', want $(echo $got | wc -w)"
				grep -i 'leak' "$d/watch.metrics" "$d/watch.err" | head -5
			fi
		fi
		if [ "$(leaked "$d/own2.txt")" = "$got" ]; then
			gh_pass "$tag: live: -f traceback's (leaked) goroutines are debug=2's: $got"
		else
			gh_fail "$tag: live: -f traceback's (leaked) $got, the program's debug=2: $(leaked "$d/own2.txt")"
		fi
	fi
	if [ -n "$core" ]; then
		if "$GH_GOHEAP" -p goroutineleak -f text "$core" "$bin" >"$d/core.txt" 2>"$d/core.err"; then
			grep -v '^# go-heap:' "$d/core.txt" >"$d/core.go.txt"
			if [ "$own" = 1 ] && cmp -s "$d/core.go.txt" "$d/own.txt"; then
				gh_pass "$tag: core: -f text equals the program's goroutineleak debug=1"
			elif [ "$own" = 0 ] && cmp -s "$d/core.go.txt" "$d/gh.go.txt"; then
				gh_pass "$tag: core: -f text equals the live read's"
			else
				gh_fail "$tag: core: -f text differs"
				diff "$d/core.go.txt" "$d/gh.go.txt" | head -20
			fi
		else
			gh_fail "$tag: core: go-heap -p goroutineleak failed"
			gh_show "$d/core.err" 5
		fi
		rm -f "$core"
	fi
}

for k in "${!GH_GO_NAMES[@]}"; do
	goname=${GH_GO_NAMES[$k]}
	root=${GH_GO_ROOTS[$k]}
	minor=${goname#go1.}
	for variant in default stripped; do
		tag="$goname/$variant"
		gh_build_or_fail "$tag" leakgorprog "$goname" "$root" "$variant" || continue
		one "$tag" "$GH_BIN" "$minor" $([ "$variant" = stripped ] && echo 1 || echo 0)
		# main in select {}: the runtime's empty record for goroutine 1 (1.26+)
		[ "$variant" = default ] && [ "$minor" -ge 27 ] &&
			one "$goname/select" "$GH_BIN" "$minor" 0 -select
	done
	if [ "$minor" = 26 ]; then
		# Go 1.26's profile is an experiment
		tag="$goname/goroutineleakprofile"
		x="$GH_TMP/leakgorprog-126x"
		if (cd "$GH_TESTS/go/leakgorprog" && GOEXPERIMENT=goroutineleakprofile gh_go "$root" build -o "$x" main.go) >"$GH_TMP/126x.log" 2>&1; then
			one "$tag" "$x" 26 0
		else
			gh_fail "$tag: build failed"
			gh_show "$GH_TMP/126x.log" 5
		fi
	fi
done
gh_summary
