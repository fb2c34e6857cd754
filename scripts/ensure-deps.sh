#!/usr/bin/env bash
# Makes sure the build's system dependencies are present: a Rust toolchain, a C++ compiler,
# cmake and libclang, and chromium for the viewer's browser tests (recastnavigation-sys builds Recast/Detour with cmake and generates its
# bindings with bindgen, which loads libclang), and any Debian packages named as arguments
# (scripts/asan.sh asks for clang, scripts/fuzz.sh for clang-14; dpkg says whether they are
# installed).
#
# Installs what is missing with apt-get when run as root, saying so in one line per package
# ("navkit: installing cmake (apt-get) ... done"); apt-get's own output goes to a log file,
# $NAVKIT_DEPS_LOG (default: target/navkit-apt.log in the repository, or
# /tmp/navkit-apt.log if that cannot be written), which a failure names (with its last lines)
# before exiting 1. Not root, or no apt-get: prints the exact command to run and fails.
# Prints nothing when everything is there.
#
#   scripts/ensure-deps.sh           # the build's dependencies
#   scripts/ensure-deps.sh clang     # and clang
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

missing_pkgs=()
have_libclang() {
  # libclang.so or libclang-NN.so (not libclang-cpp, which bindgen cannot use).
  local d
  for d in ${LIBCLANG_PATH:-} /usr/lib/llvm-*/lib /usr/lib/*-linux-gnu /usr/lib /usr/local/lib; do
    compgen -G "$d/libclang.so*" >/dev/null && return 0
    compgen -G "$d/libclang-[0-9]*.so*" >/dev/null && return 0
  done
  return 1
}
deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

command -v cmake >/dev/null 2>&1 || missing_pkgs+=(cmake)
have_libclang || missing_pkgs+=(libclang-dev)
command -v c++ >/dev/null 2>&1 || missing_pkgs+=(g++)
# The viewer's browser tests (tests/view_browser.rs) drive Debian's chromium headless.
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing_pkgs+=(chromium)
for pkg in "$@"; do
  deb_installed "$pkg" || missing_pkgs+=("$pkg")
done

# The log apt-get writes to: $NAVKIT_DEPS_LOG, else target/ (made if need be), else /tmp.
apt_log() {
  local log=${NAVKIT_DEPS_LOG:-$root/target/navkit-apt.log}
  if mkdir -p "$(dirname "$log")" 2>/dev/null && : >"$log" 2>/dev/null; then
    echo "$log"
  else
    log=/tmp/navkit-apt.log
    : >"$log"
    echo "$log"
  fi
}

# Ends the line "installing PKG ..." with "failed", names the log with its last lines, exits 1.
apt_failed() {
  local what=$1 log=$2
  echo "failed" >&2
  echo "navkit: $what failed; apt-get's output is in $log, which ends:" >&2
  tail -n 5 "$log" | sed 's/^/    /' >&2
  exit 1
}

# apt-get update once, then apt-get install each package, one line each; output to the log.
install_quietly() {
  local log pkg updated=0
  log=$(apt_log)
  export DEBIAN_FRONTEND=noninteractive
  # Wait for another apt-get or dpkg (up to 10 minutes) instead of failing on its lock.
  local apt=(apt-get -q -y -o DPkg::Lock::Timeout=600)
  for pkg in "$@"; do
    printf 'navkit: installing %s (apt-get) ... ' "$pkg" >&2
    if [ "$updated" = 0 ]; then
      echo "=== apt-get update" >>"$log"
      "${apt[@]}" update >>"$log" 2>&1 || apt_failed "apt-get update" "$log"
      updated=1
    fi
    echo "=== apt-get install $pkg" >>"$log"
    "${apt[@]}" install "$pkg" >>"$log" 2>&1 || apt_failed "installing $pkg" "$log"
    echo "done" >&2
  done
}

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    install_quietly "${missing_pkgs[@]}"
  else
    echo "navkit: missing system packages: ${missing_pkgs[*]}" >&2
    echo "Run this, then try again:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y ${missing_pkgs[*]}" >&2
    exit 1
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "navkit: cargo is not installed. Install Rust from https://rustup.rs and try again." >&2
  exit 1
fi
