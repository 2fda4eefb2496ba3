#!/usr/bin/env bash
# Installs everything go-heap needs to build and test on a fresh Debian 12 machine:
# build tools and libraries from bookworm, Go 1.21-1.23 from bookworm-backports, and
# Go 1.24-1.27 unpacked from trixie's and trixie-backports' .debs into a private cache folder
# (trixie is never added to the system's sources). Idempotent: a second run only checks.
set -euo pipefail
CACHE=${GOHEAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-heap}
mkdir -p "$CACHE"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

pkgs="build-essential autoconf automake libtool pkg-config libelf-dev libdw-dev libcapstone-dev zlib1g-dev
 libisal-dev libdeflate-dev libunwind-dev libcmocka-dev gdb gdbserver valgrind clang libclang-rt-14-dev python3 golang-1.19-go
 golang-1.21-go golang-1.22-go golang-1.23-go qemu-user-static file prometheus libc6-dev-arm64-cross
 libssl-dev libyaml-dev libcrypt-dev openssl"
# tests/run-package.sh builds the Debian packages (scripts/package.sh) and checks them with lintian.
pkgs="$pkgs debhelper lintian"
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

# Go releases Debian ships only in trixie (1.24) and trixie-backports (1.25-1.27), fetched under a
# private apt configuration and unpacked with dpkg -x into $CACHE/go-1.NN (the package's
# /usr/lib/go-1.NN layout is kept, so the go binary finds its GOROOT from its own path).  Nothing
# is added to the system's sources.  One line extends it: GOHEAP_TRIXIE_GO lists the releases
# (a release that later appears in sid or experimental needs only its suite added to the list
# below).  A release that cannot be fetched is a failure that says how to retry.
TRIXIE_GO=${GOHEAP_TRIXIE_GO:-1.24 1.25 1.26 1.27}
need=
for v in $TRIXIE_GO; do
  [ -x "$CACHE/go-$v/usr/lib/go-$v/bin/go" ] || need="$need $v"
done
if [ -n "$need" ]; then
  A="$CACHE/apt-trixie"
  mkdir -p "$A/lists/partial" "$A/etc/sources.list.d" "$A/etc/preferences.d" "$A/cache/archives/partial"
  : > "$A/status"
  cat > "$A/etc/sources.list" <<'SRC'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
SRC
  opts=(-o Dir::Etc::sourcelist="$A/etc/sources.list" -o Dir::Etc::sourceparts="$A/etc/sources.list.d"
        -o Dir::Etc::preferencesparts="$A/etc/preferences.d" -o Dir::State::Lists="$A/lists"
        -o Dir::State::status="$A/status" -o Dir::Cache="$A/cache" -o APT::Architecture=amd64)
  apt-get "${opts[@]}" update -qq
  for v in $need; do
    rm -f "$A"/golang-"$v"-*.deb
    if ! (cd "$A" && apt-get "${opts[@]}" download -qq "golang-$v-go" "golang-$v-src"); then
      echo "install-deps: cannot fetch golang-$v-go/golang-$v-src from trixie or trixie-backports;" \
           "check the network to deb.debian.org and rerun scripts/install-deps.sh" >&2
      exit 1
    fi
    rm -rf "$CACHE/go-$v.tmp"
    mkdir -p "$CACHE/go-$v.tmp"
    for d in "$A"/golang-"$v"-*.deb; do dpkg -x "$d" "$CACHE/go-$v.tmp"; done
    rm -f "$A"/golang-"$v"-*.deb
    if [ ! -x "$CACHE/go-$v.tmp/usr/lib/go-$v/bin/go" ]; then
      echo "install-deps: golang-$v-go unpacked without usr/lib/go-$v/bin/go" >&2
      exit 1
    fi
    rm -rf "$CACHE/go-$v"
    mv "$CACHE/go-$v.tmp" "$CACHE/go-$v"
  done
fi
# The unpacked go binary finds GOROOT from its own path (/usr/lib/go-1.24 layout is kept).
echo "install-deps: ok (cache $CACHE)"
