#!/bin/sh
# Regenerate the expected values pasted into tests/test_pb.c.
# Needs a Go toolchain (GO, default "go") and qemu-aarch64-static for arm64.
# Columns: generic (386), amd64 SSE (cpu.fma=off), amd64 FMA, arm64.
set -e
GO=${GO:-go}
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GOARCH=386 "$GO" build -o "$tmp/s386" .
GOARCH=amd64 "$GO" build -o "$tmp/samd64" .
GOARCH=arm64 "$GO" build -o "$tmp/sarm64" .
"$tmp/s386" > "$tmp/generic"
GODEBUG=cpu.fma=off "$tmp/samd64" > "$tmp/sse"
"$tmp/samd64" > "$tmp/fma"
qemu-aarch64-static "$tmp/sarm64" > "$tmp/arm64"
paste -d' ' "$tmp/generic" "$tmp/sse" "$tmp/fma" "$tmp/arm64" | awk '
$1 == "s" {
	if ($5 != $11 || $11 != $17 || $17 != $23 || $6 != $12 || $12 != $18 || $18 != $24) {
		print "implementations disagree: " $0 > "/dev/stderr"; bad = 1
	}
	printf "\t{ %s, %s, %s, %s, %s },\n", $2, $3, $4, $5, $6
}
$1 == "e" {
	# Keep every x on which the implementations differ, and a sample.
	if ($3 != $6 || $6 != $9 || $9 != $12 || ne2++ % 25 == 0)
		e[ne++] = sprintf("\t{ 0x%s, { 0x%s, 0x%s, 0x%s, 0x%s } },", $2, $3, $6, $9, $12)
}
END { print "/* exp */"; for (i = 0; i < ne; i++) print e[i]; exit bad }'
