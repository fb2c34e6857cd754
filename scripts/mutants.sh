#!/usr/bin/env bash
# A sampled mutation test of navkit with cargo-mutants (cargo install cargo-mutants).
#
#   scripts/mutants.sh SHARD OUT FILE...
#
# mutates every SHARD-th mutant (e.g. 0/8: round-robin, the first of each 8) of the named source
# files and runs the unit tests and every test file against each, but the slow ones (browser,
# Moving AI, CLI, soak, pictures, the generator) and those that read the repository's layout
# rather than run navkit (dependencies, layers). Results in OUT/mutants.out (caught.txt, missed.txt: the survivors,
# timeout.txt, unviable.txt). It mutates the files of this checkout in place (restored after
# each mutant), so run it in a clone of its own, e.g.
#   git clone -q . /tmp/mut && /tmp/mut/scripts/mutants.sh 0/8 /tmp/mut-out src/query/raycast.rs
# The same SHARD and FILES at two commits where the files are equal test the same mutants.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n 2,12p "$0"; exit 2; }
shard=$1 out=$2
shift 2
tests=()
for f in tests/*.rs; do
  t=$(basename "$f" .rs)
  case $t in
    movingai | gen | cli | service_soak | render | debug_draw | view_* | dependencies | layers) ;;
    *) tests+=(--test "$t") ;;
  esac
done
files=()
for f in "$@"; do files+=(-f "$f"); done
exec cargo mutants --in-place --baseline skip --timeout 600 --build-timeout 1200 \
  --shard "$shard" --sharding round-robin "${files[@]}" -o "$out" -C --all-features \
  -- --lib "${tests[@]}"
