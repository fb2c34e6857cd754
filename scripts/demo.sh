#!/usr/bin/env bash
# The main job: builds navkit, then builds the navmesh of the sample level in meshes/, prints
# a smooth path across it and draws it (navkit-demo.png in the temporary directory, or -o FILE).
# Installs missing system packages first (see ensure-deps.sh). Once built, `navkit demo` works
# from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
exec cargo run --release --quiet --features cli -- demo "$@"
