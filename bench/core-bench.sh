#!/bin/bash
# bench/core-bench.sh: profiling a large core with go-heap against the time gdb needs
# just to load it (`gdb -batch EXE CORE -ex "print 'runtime.mbuckets'"`), in the same run.
#
#   bench/core-bench.sh [MIB ...]     default: 256 2048 (MiB of heap in the target)
#
# The target (bench/bigheap) holds MIB MiB of mostly untouched heap, so the kernel core is
# large but sparse.  Medians of RUNS (default 5) runs; prints a markdown table.  Not a test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib.sh"
gh_init
gh_real_goheap
RUNS=${RUNS:-5}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(256 2048)
gh_toolchains >/dev/null
last=$((${#GH_GO_NAMES[@]} - 1))
goname=${GH_GO_NAMES[$last]}
work=$(mktemp -d /tmp/go-heap-corebench.XXXXXX)
trap 'rm -rf "$work"' EXIT
GOCACHE="$GH_CACHE/gocache-$goname" GO111MODULE=off \
	"${GH_GO_ROOTS[$last]}/bin/go" build -o "$work/bigheap" "$top_srcdir/bench/bigheap/main.go" || exit 1

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { python3 -c 'import sys,time,subprocess
t=time.monotonic(); r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); d=(time.monotonic()-t)*1e3
print("%.2f" % d if r.returncode==0 else "fail")' "$@"; }

echo "| heap MiB | core file size (apparent / on disk) | go-heap CORE EXE ms | gdb load ms | gdb / go-heap |"
echo "|---:|---|---:|---:|---:|"
for mib in "${SIZES[@]}"; do
	d="$work/$mib"
	mkdir -p "$d"
	(cd "$d" && ulimit -c unlimited && GOTRACEBACK=crash exec "$work/bigheap" -mib "$mib" >out 2>&1) &
	pid=$!
	for _ in $(seq 1 600); do grep -q READY "$d/out" 2>/dev/null && break; sleep 0.1; done
	kill -ABRT "$pid"
	wait "$pid" 2>/dev/null
	core=$(ls "$d"/core* 2>/dev/null | head -n 1)
	if [ -z "$core" ]; then
		echo "| $mib | no core produced (core_pattern: $(cat /proc/sys/kernel/core_pattern)) | | | |"
		continue
	fi
	app=$(du -h --apparent-size "$core" | cut -f1)
	disk=$(du -h "$core" | cut -f1)
	g=$(for _ in $(seq "$RUNS"); do ms "$GH_GOHEAP" -o "$d/x.pb.gz" "$core" "$work/bigheap"; done | median)
	b=$(for _ in $(seq "$RUNS"); do ms gdb -nx -batch "$work/bigheap" "$core" -ex "print 'runtime.mbuckets'"; done | median)
	ratio=$(python3 -c "print('%.1f' % ($b/$g))" 2>/dev/null || echo "?")
	echo "| $mib | $app / $disk | $g | $b | $ratio |"
	rm -f "$core"
done
