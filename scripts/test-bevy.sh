#!/usr/bin/env bash
# bevy_navkit's tests (unit, integration, doc). Bevy 0.20 declares rust-version 1.97.1, newer than
# this machine's stable Rust (1.95), the only stable there is; the machine's nightly (1.97.0)
# builds it, with --ignore-rust-version. navkit itself stays on stable (the workspace's
# default-members: plain `cargo` commands never build bevy_navkit). A game on stable Rust 1.97.1
# or newer builds bevy_navkit with no nightly. Arguments go to `cargo test`; without any, the
# headless example is run too.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "navkit: bevy_navkit needs Rust 1.97.1 (Bevy 0.20's rust-version); this machine's stable" \
    "is older, and the nightly toolchain that builds it here is missing (rustup toolchain list)." >&2
  exit 1
fi
echo "navkit: bevy_navkit's tests, on $(rustup run nightly rustc --version) (Bevy 0.20 needs 1.97.1)" >&2
# Bevy from empty is most of this script's time (14 minutes of a fresh CI run on 2 cores): no
# debug info and no incremental caches (a fresh build gains nothing from them); set either
# variable to keep them when debugging.
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-0}
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
# Every feature but the windowed example's (its rendering stack is built only where asked for).
cargo +nightly test -p bevy_navkit --features gizmos --ignore-rust-version "$@"
if [ $# -eq 0 ]; then
  # The headless example runs to its end: every agent arrives (exit 1 otherwise).
  cargo +nightly run -q -p bevy_navkit --example headless --ignore-rust-version >/dev/null
  echo "navkit: bevy_navkit's headless example: every agent arrived" >&2
fi
