#!/usr/bin/env bash
# Runs every test (unit, integration on ../shared data, doc tests) with every feature, then, when
# called without arguments, the feature checks (scripts/check-features.sh). Installs missing
# system packages first (see ensure-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
if [ ! -d ../shared/meshes/recastdemo ]; then
  echo "navkit: ../shared (RecastDemo meshes, Moving AI maps) must sit beside the repository" >&2
  exit 1
fi
cargo test --release --all-features "$@"
if [ $# -eq 0 ]; then
  scripts/check-features.sh
fi
