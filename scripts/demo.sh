#!/usr/bin/env bash
# Quick start: install what is missing, build go-heap, start the bundled demo
# Go service, and profile it from outside: a top table on the terminal and
# demo-heap.pb.gz for `go tool pprof`.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
bash scripts/install-deps.sh >/dev/null
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
mkdir -p build && cd build
[ -f Makefile ] || ../configure >/dev/null
make -j"$(nproc)" >/dev/null
cd "$top"
cache=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
# The newest toolchain: Debian's /usr/lib/go-1.N, or the ones install-deps.sh unpacked.
go=$(for g in /usr/lib/go-1.*/bin/go "$cache"/go-1.*/usr/lib/go-1.*/bin/go; do
	[ -x "$g" ] && echo "$(basename "$(dirname "$(dirname "$g")")") $g"
done | sort -V | tail -n 1 | cut -d' ' -f2)
mkdir -p "$cache/demo"
GOCACHE="$cache/gocache-demo" GO111MODULE=off "$go" build -o "$cache/demo/demo" tests/go/demo/main.go
"$cache/demo/demo" >"$cache/demo/demo.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do grep -q READY "$cache/demo/demo.log" 2>/dev/null && break; sleep 0.1; done
sleep 2
echo "== go-heap $pid   (the demo service, profiled from outside)"
build/src/go-heap "$pid"
build/src/go-heap -o demo-heap.pb.gz "$pid"
echo
echo "wrote demo-heap.pb.gz; open it with:  $go tool pprof -http=: demo-heap.pb.gz"
