#!/usr/bin/env bash
# Makes sure the build's system dependencies are present: a Rust toolchain, a C++ compiler,
# cmake and libclang, and chromium for the viewer's browser tests (recastnavigation-sys builds Recast/Detour with cmake and generates its
# bindings with bindgen, which loads libclang). Installs what is missing with apt-get when run
# as root; otherwise prints the exact command to run and fails.
set -euo pipefail

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

command -v cmake >/dev/null 2>&1 || missing_pkgs+=(cmake)
have_libclang || missing_pkgs+=(libclang-dev)
command -v c++ >/dev/null 2>&1 || missing_pkgs+=(g++)
# The viewer's browser tests (tests/view_browser.rs) drive Debian's chromium headless.
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing_pkgs+=(chromium)

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "navkit: installing ${missing_pkgs[*]} with apt-get ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq "${missing_pkgs[@]}" >&2
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
