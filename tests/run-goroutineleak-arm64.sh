#!/bin/bash
# tests/run-goroutineleak-arm64.sh: go-heap -p goroutineleak on arm64 cores (src/lib/retained/retleak.c,
# doc/goroutineleak.md), as tests/run-goroutineleak.sh does on amd64.
#
# tests/go/leakgorprog built GOARCH=arm64 (default and stripped) on the oldest and the newest
# toolchain (GOHEAP_LEAK_ARM64_VERSIONS, default "1.19 1.27", within GOHEAP_GO_VERSIONS), run
# under qemu-aarch64-static with -dump (its debug.WriteHeapDump once every goroutine is parked)
# and -hold until READY, then SIGABRT with GOTRACEBACK=crash: qemu writes qemu_*.core
# (tests/run-retained-arm64.sh's way).  From the core and the executable:
#   - the goroutines -f traceback marks "(leaked)" are leaks the program made (no look-alike:
#     a global's channel or mutex, channels held by goroutines waiting on a global, in read(2),
#     in time.Sleep, Conds a global holds), and every leak is there (before 1.26 the Cond's
#     holder found backwards from its waiter's sudog; Mutex, RWMutex and WaitGroup waiters
#     found in runtime.semtable, in a stripped build through semacquire1's arm64 code);
#   - the bytes and objects each leak site keeps alive, and the total, equal the program's heap
#     dump's graph (tests/heapdump.py --leakheld);
#   - -p retained names the leaked goroutines' frames roots of their own kind: as many as
#     -p goroutineleak found, the receive leak's row "root leaked goroutine N [chan receive]:
#     main.leakRecv.func1" holding its 4096-byte buffer.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/retained-lib.sh"
gh_init
gh_need_python
gh_sample "${GOHEAP_LEAK_ARM64_VERSIONS:-1.19 1.27}"
gh_need_toolchains
gh_have_goheap || { gh_fail "all: $GH_GOHEAP not built"; gh_summary; }
gh_qemu_probe
if [ "$have_qemu" = 0 ]; then
	gh_skip "all: $why_qemu"
	gh_summary
fi

. "$(dirname "$0")/leak-lib.sh"

check() {
	local goname=$1 root=$2 variant=$3 bin core got made waits expect
	minor=${goname#go1.}
	tag="$goname/arm64-$variant/qemu"
	d="$GH_TMP/$goname-$variant"
	mkdir -p "$d/run"
	if ! bin=$(gh_build_arm64 leakgorprog "$goname" "$root" "$variant" 2>"$d/build.err"); then
		gh_fail "$tag: build leakgorprog for GOARCH=arm64"
		gh_show "$d/build.err" 10
		return
	fi
	gh_qemu_core "$bin" -hold -dump "$d/heap.dump" || return
	core=$GH_QCORE
	if ! "$GH_GOHEAP" -p goroutineleak -f traceback "$core" "$bin" >"$d/gh2.txt" 2>"$d/gh.err" ||
		! "$GH_GOHEAP" -p goroutineleak -f text "$core" "$bin" >"$d/gh.txt" 2>>"$d/gh.err" ||
		! "$GH_GOHEAP" -p retained -n 400 "$core" "$bin" >"$d/ret.txt" 2>>"$d/gh.err"; then
		gh_fail "$tag: go-heap -p goroutineleak or -p retained on the core failed"
		gh_show "$d/gh.err" 5
		rm -f "$core"
		return
	fi
	got=$(leaked "$d/gh2.txt")
	made=$(ids "$d/run.out" LEAK)
	waits=$(ids "$d/run.out" WAIT)
	# every leak, on every release (before 1.26 the Cond's holder found backwards from its
	# waiter's sudog: retleak.c cond_waits)
	expect=$made
	if [ -n "$made" ] && subset "$got" "$made" && subset "$expect" "$got"; then
		gh_pass "$tag: core: leaked goroutines $got(the program made $made; look-alikes $waits not reported)"
	else
		gh_fail "$tag: core: go-heap says leaked: $got; the program made $made (findable here: $expect); look-alikes: $waits"
		gh_show "$d/gh2.txt" 40
	fi
	# what the leaks keep alive, against the program's own heap dump
	local args want have
	args=$(awk -v g=" $got" '$1 == "LEAK" && index(g " ", " " $2 " ") { printf "%s=%s ", $2, $4 }' "$d/run.out")
	# shellcheck disable=SC2086
	if [ -s "$d/heap.dump" ] && python3 "$GH_TESTS/heapdump.py" --leakheld "$d/heap.dump" "$minor" \
		"$([ "$minor" -ge 26 ] && echo 1 || echo 0)" $args >"$d/dump.held" 2>"$d/dump.err"; then
		want=$(awk '$1 == "HELD" { b[$3] += $4; o[$3] += $5 }
			$1 == "LEAKTOTAL" { t = $2 " " $3 }
			END { for (s in b) print s, b[s], o[s]; print "total", t }' "$d/dump.held" | sort)
		have=$(sed -n -e 's/^# go-heap: record [0-9]*, \([^ ]*\) ([0-9]* goroutines): \([0-9]*\) bytes in \([0-9]*\) objects.*/\1 \2 \3/p' \
			-e 's/^# go-heap: [0-9]* leaked goroutines keep \([0-9]*\) bytes in \([0-9]*\) objects.*/total \1 \2/p' "$d/gh.txt" | sort)
		if [ -n "$want" ] && [ "$want" = "$have" ]; then
			gh_pass "$tag: core: the bytes each leak site keeps alive equal the program's heap dump's graph ($(echo "$want" | grep -c .) lines: $(echo "$want" | grep '^total'))"
		else
			gh_fail "$tag: core: the leaks' held bytes differ from the program's heap dump's graph"
			diff <(echo "$want") <(echo "$have") | head -20
		fi
	else
		gh_fail "$tag: the heap dump's graph (heapdump.py --leakheld)"
		gh_show "$d/dump.err" 5
	fi
	# -p retained: the leaked goroutines' roots of their own kind
	local nret rrow recv
	nret=$(sed -n 's/^leaked goroutines (-p goroutineleak[^)]*): \([0-9]*\), .*/\1/p' "$d/ret.txt")
	recv=$(ids "$d/run.out" LEAK chanrecv)
	rrow=$(awk -v g="${recv% }" '$0 ~ "root leaked goroutine " g " \\[chan receive\\]: main\\.leakRecv\\.func1$" { print $2 }' "$d/ret.txt")
	if [ "$nret" = "$(echo $got | wc -w)" ] && [ -n "$rrow" ] && [ "$rrow" -ge 4096 ]; then
		gh_pass "$tag: core: -p retained counts $nret leaked goroutines, their frames roots of their own kind (the receive leak's row retains $rrow bytes)"
	else
		gh_fail "$tag: core: -p retained: leaked goroutines '$nret' (want $(echo $got | wc -w)), the receive leak's root row retains '$rrow'"
		grep -n 'leaked' "$d/ret.txt" | head -5
	fi
	rm -f "$core" "$d/heap.dump"
}

rl_each check
gh_summary
