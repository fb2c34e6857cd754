#!/usr/bin/env bash
# The main job: builds navkit, then builds the navmesh of the sample level in meshes/ and prints
# a smooth path across it. Installs missing system packages first (see ensure-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
exec cargo run --release --quiet --features cli -- demo "$@"
