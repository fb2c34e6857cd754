#!/usr/bin/env bash
# Runs every test (unit, integration on ../shared data, doc tests) with every feature (64-bit poly
# refs) and again with every feature but `large-refs` (32-bit refs); then, when called without
# arguments, bevy_navkit's tests (scripts/test-bevy.sh), the feature checks
# (scripts/check-features.sh), the upstream tile tests under valgrind, the suite under
# AddressSanitizer (scripts/asan.sh) and a smoke run of every fuzz target (scripts/fuzz.sh ci;
# NAVKIT_FUZZ_SECONDS each, default 12; `scripts/fuzz.sh long` fuzzes for hours). With arguments,
# only `cargo test` with them. Installs missing system packages first (see ensure-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
if [ ! -d ../shared/meshes/recastdemo ]; then
  echo "navkit: ../shared (RecastDemo meshes, Moving AI maps) must sit beside the repository" >&2
  exit 1
fi
# Every feature, so 64-bit poly refs (`large-refs`), then every feature but that one: the default
# 32-bit refs. The second run leaves out the few test files the width cannot change
# (scripts/test-targets.sh); with arguments, both runs take them as they are.
cargo test --release --all-features "$@"
. scripts/test-targets.sh
narrow=$(narrow_features)
echo "navkit: the tests again with 32-bit poly refs (--features $narrow)" >&2
if [ $# -gt 0 ]; then
  cargo test --release --features "$narrow" "$@"
else
  # All but the tests the ref width cannot change (scripts/test-targets.sh says which and why).
  mapfile -t targets < <(second_run_targets)
  cargo test --release --features "$narrow" "${targets[@]}"
  cargo test --release --features "$narrow" --doc
fi
if [ $# -eq 0 ]; then
  # bevy_navkit, on the machine's nightly (Bevy 0.20 needs Rust 1.97.1; see the script).
  scripts/test-bevy.sh
  # navkit-py: the wheel built and installed into its virtual environment, then pytest.
  scripts/test-python.sh
  scripts/check-features.sh
  # The upstream tile-loading crash classes, the multi-storey levels and the tile-cache polygon meshes under valgrind, the whole suite under
  # AddressSanitizer + LeakSanitizer (Rust and C++), and every fuzz target briefly.
  scripts/valgrind.sh
  scripts/asan.sh
  scripts/fuzz.sh ci "${NAVKIT_FUZZ_SECONDS:-12}"
fi
