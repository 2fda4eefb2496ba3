#!/usr/bin/env bash
# Installs everything go-heap needs to build and test on a fresh Debian 12 machine:
# build tools and libraries from bookworm, Go 1.21-1.23 from bookworm-backports, and
# Go 1.24 unpacked from trixie's .debs into a private cache folder (trixie is never added to
# the system's sources). Idempotent: a second run only checks.
set -euo pipefail
CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
mkdir -p "$CACHE"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

pkgs="build-essential autoconf automake libtool pkg-config libelf-dev libdw-dev libcapstone-dev zlib1g-dev
 libunwind-dev libcmocka-dev gdb gdbserver valgrind clang libclang-rt-14-dev python3 golang-1.19-go
 golang-1.21-go golang-1.22-go golang-1.23-go qemu-user-static file prometheus libc6-dev-arm64-cross"
missing=
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  bp=/etc/apt/sources.list.d/bookworm-backports.sources
  if [ ! -e "$bp" ]; then
    $SUDO tee "$bp" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# Go 1.24 from trixie, under a private apt configuration.
G124="$CACHE/go-1.24"
if [ ! -x "$G124/usr/lib/go-1.24/bin/go" ]; then
  A="$CACHE/apt-trixie"
  mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/etc/sources.list.d" "$A/etc/preferences.d" "$A/status.d"
  : > "$A/status"
  cat > "$A/etc/sources.list" <<'SRC'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
SRC
  opts=(-o Dir::Etc::sourcelist="$A/etc/sources.list" -o Dir::Etc::sourceparts="$A/etc/sources.list.d"
        -o Dir::Etc::preferencesparts="$A/etc/preferences.d" -o Dir::State::Lists="$A/lists"
        -o Dir::State::status="$A/status" -o Dir::Cache="$A/cache" -o APT::Architecture=amd64)
  mkdir -p "$A/cache/archives/partial"
  apt-get "${opts[@]}" update -qq
  (cd "$A" && apt-get "${opts[@]}" download golang-1.24-go golang-1.24-src)
  mkdir -p "$G124"
  for d in "$A"/golang-1.24-*.deb; do dpkg -x "$d" "$G124"; done
  rm -f "$A"/golang-1.24-*.deb
fi
# The unpacked go binary finds GOROOT from its own path (/usr/lib/go-1.24 layout is kept).
echo "install-deps: ok (cache $CACHE)"
