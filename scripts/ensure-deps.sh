#!/usr/bin/env bash
# Makes sure the build's system dependencies are present: a Rust toolchain, a C++ compiler,
# cmake and libclang (recastnavigation-sys builds Recast/Detour with cmake and generates its
# bindings with bindgen, which loads libclang). Installs what is missing with apt-get when run
# as root; otherwise prints the exact command to run and fails.
set -euo pipefail

missing_pkgs=()
have_libclang() {
  if [ -n "${LIBCLANG_PATH:-}" ] && ls "$LIBCLANG_PATH"/libclang*.so* >/dev/null 2>&1; then return 0; fi
  ldconfig -p 2>/dev/null | grep -q 'libclang\(-[0-9.]*\)\?\.so' && return 0
  ls /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1
}

command -v cmake >/dev/null 2>&1 || missing_pkgs+=(cmake)
have_libclang || missing_pkgs+=(libclang-dev)
command -v c++ >/dev/null 2>&1 || missing_pkgs+=(g++)

if ! command -v cargo >/dev/null 2>&1; then
  echo "navkit: cargo is not installed. Install Rust from https://rustup.rs and try again." >&2
  exit 1
fi

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
