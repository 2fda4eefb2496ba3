# bench/lib.sh - what the benchmarks that time a target's gaps share (gor-bench.sh,
# types-bench.sh, force-bench.sh): waiting for the target's report lines, the gap window,
# the longest gap inside go-heap's stop, and the table's figures (median (min-max), ratio);
# and what the -p retained benchmarks share (retained-bench.sh, retained-stop-bench.sh,
# infer-bench.sh): building and starting bench/retainbench, the median of a column.
# Sourced after tests/lib.sh (GH_TMP).  The targets (bench/gorbench.go, typesbench.go,
# tests/go/forceprog) answer SIGUSR2 with a RESET line (the longest gap is forgotten) and
# SIGUSR1 with a STATUS line (maxgap_us=...), and log each gap as "gap START END" (ns).

# wait_line OUT PREFIX N [SECONDS]: wait (default 60 s) until OUT holds more than N lines
# starting with PREFIX.
wait_line() {
	local end=$((SECONDS + ${4:-60}))
	while [ "$SECONDS" -le "$end" ]; do
		[ "$(grep -c "^$2" "$1")" -gt "$3" ] && return 0
		sleep 0.01
	done
	return 1
}

# window_run CMD...: how a window runs its command; the default: stdout to $GH_TMP/cmd.out,
# stderr to $GH_TMP/cmd.err.  A script may define its own (a timer) after sourcing this.
window_run() {
	"$@" >"$GH_TMP/cmd.out" 2>"$GH_TMP/cmd.err" </dev/null
}

# window PID OUT CMD...: reset the target's gap, run CMD (window_run), ask for the gap;
# prints the longest gap in microseconds.
window() {
	local pid=$1 out=$2 n
	shift 2
	n=$(grep -c '^RESET' "$out")
	kill -USR2 "$pid"
	wait_line "$out" RESET "$n"
	window_run "$@"
	n=$(grep -c '^STATUS' "$out")
	kill -USR1 "$pid"
	wait_line "$out" STATUS "$n"
	grep '^STATUS' "$out" | tail -n 1 | sed -n 's/.*maxgap_us=\([0-9]*\).*/\1/p'
}

# stop_gap GAPFILE ERRFILE: the longest gap (us) overlapping the stop go-heap -v reported.
stop_gap() {
	local iv
	iv=$(sed -n 's/.*the stop ran from \([0-9]*\) to \([0-9]*\) ns.*/\1 \2/p' "$2")
	[ -n "$iv" ] || { echo ""; return; }
	awk -v iv="$iv" 'BEGIN { split(iv, a, " "); m = 0 }
		$1 == "gap" && $3 >= a[1] && $2 <= a[2] && $3 - $2 > m { m = $3 - $2 }
		END { printf "%d\n", m / 1000 }' "$1"
}

# stats V...: "median (min-max)" of the non-empty values, or n/a.
stats() {
	python3 - "$@" <<'PY'
import sys
v = sorted(float(a) for a in sys.argv[1:] if a)
if not v:
    print("n/a")
else:
    print(f"{v[len(v)//2]:.2f} ({v[0]:.2f}-{v[-1]:.2f})")
PY
}

# median V...: the median of the non-empty values.
median() { printf '%s\n' "$@" | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ratio A B [DIGITS]: A / B (default 2 digits), or n/a.
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-2}" \
		'BEGIN { if (b > 0) printf "%.*f", d, a / b; else print "n/a" }'
}

# med: the median of the numbers on stdin, one a line.
med() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# retainbench_build PARENT NAME: build bench/retainbench with the newest toolchain in use (the
# last of GH_GO_NAMES) as PARENT/NAME-GONAME/retainbench; the script exits if the build fails.
# Sets goname and root (that toolchain's name and GOROOT) and dir (PARENT/NAME-GONAME).
retainbench_build() {
	local last=$(( ${#GH_GO_NAMES[@]} - 1 ))
	goname=${GH_GO_NAMES[$last]} root=${GH_GO_ROOTS[$last]}
	dir="$1/$2-$goname"
	mkdir -p "$dir"
	(cd "$top_srcdir/bench/retainbench" && gh_go "$root" build -o "$dir/retainbench" main.go) || exit 1
}

# retainbench_start OUT ARGS...: run $dir/retainbench ARGS... in the background, its output in
# OUT, its pid in $pid (and GH_PIDS, stopped at exit); return when it has printed READY.
retainbench_start() {
	local out=$1
	shift
	"$dir/retainbench" "$@" >"$out" 2>&1 </dev/null &
	pid=$!
	GH_PIDS+=("$pid")
	while ! grep -q READY "$out" 2>/dev/null; do sleep 0.2; done
}
