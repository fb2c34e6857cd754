#!/usr/bin/env bash
# Runs tests/upstream_tiles.rs (upstream's tile-loading crash classes, recastnavigation issues
# #829-#839) under valgrind: no invalid read or write, no use of uninitialised memory and no
# definite leak anywhere in the test binary (navkit, Recast/Detour and the crafted tiles'
# refusals), else exit 1. About 10 s. Skips (exit 0, with a note) where valgrind is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  echo "navkit: valgrind not installed; skipping the upstream tile tests under valgrind" >&2
  exit 0
fi
bin=$(cargo test --release --all-features --test upstream_tiles --no-run --message-format=json 2>/dev/null |
  grep '"name":"upstream_tiles"' | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | tail -1)
if [ -z "$bin" ]; then
  echo "navkit: could not build tests/upstream_tiles.rs" >&2
  exit 1
fi
echo "navkit: valgrind $bin" >&2
valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no -q "$bin" --test-threads=2
