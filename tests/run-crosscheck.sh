#!/bin/bash
# tests/run-crosscheck.sh: every library and CLI source compiles for arm64 without a warning.
#
# Force mode's arm64 path (src/lib/mem/ptrace.c: registers from NT_PRSTATUS as glibc's aarch64
# user_regs_struct, LR as the innermost caller) cannot run here: under qemu-user, ptrace
# reaches the emulator, not the program.  This at least keeps it compiling: clang
# -fsyntax-only --target=aarch64-linux-gnu -Wall -Wextra -Werror against Debian's
# libc6-dev-arm64-cross headers, with the build's config.h.  (It once found that code using
# the kernel's struct user_pt_regs, which glibc's <sys/user.h> does not declare.)
# Output: PASS:/FAIL:/SKIP: lines, then "N passed, N failed, N skipped".  Exit 0, 1, or 77.
set -u
. "$(dirname "$0")/lib.sh"
gh_init

sysinc=/usr/aarch64-linux-gnu/include
if ! command -v clang >/dev/null 2>&1; then
	gh_skip "arm64 compile check: clang not installed"
	gh_summary
fi
if [ ! -f "$sysinc/sys/user.h" ]; then
	gh_skip "arm64 compile check: no arm64 C library headers ($sysinc; package libc6-dev-arm64-cross)"
	gh_summary
fi
n=0
# the library's folders (scripts/tree-move.sh), each a -I as in Makefile.am's lib_includes
lib_includes=$(find "$top_srcdir/src/lib" -type d | sort | sed 's/^/-I/' | tr '\n' ' ')
for f in "$top_srcdir"/src/*/*.c "$top_srcdir"/src/lib/*/*.c; do
	n=$((n + 1))
	# OpenSSL's generated configuration header (watch's TLS module) is per architecture and
	# Debian's arm64 one is not installed: the host's, searched last, is the same for every
	# LP64 little-endian target.
	if clang --target=aarch64-linux-gnu -isystem "$sysinc" -idirafter /usr/include \
		-idirafter /usr/include/x86_64-linux-gnu \
		-I"$top_builddir" -I"$top_srcdir/include" -I"$top_srcdir/src/util" \
		$lib_includes -I"$top_srcdir/src/watch" \
		-std=c11 -D_GNU_SOURCE -fsyntax-only -Wall -Wextra -Werror "$f" >"$GH_TMP/cc.err" 2>&1; then
		:
	else
		gh_fail "arm64: $(basename "$f") does not compile cleanly"
		gh_show "$GH_TMP/cc.err" 10
	fi
done
[ "$GH_FAILED" -eq 0 ] && gh_pass "arm64: all $n sources compile without a warning (clang --target=aarch64-linux-gnu)"
gh_summary
