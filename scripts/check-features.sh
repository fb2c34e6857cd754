#!/usr/bin/env bash
# Feature checks, as cargo hack --each-feature would do them (scripts/test.sh runs this after the
# tests, which build everything with --all-features):
# - the default features with every target that needs no more (each test, bench and example
#   whose `required-features` are not met is skipped, so this also checks those lists);
# - --no-default-features (the same build: the default is the core, which is not optional);
# - each feature alone on top of that (= --no-default-features --features X);
# - tests/parallel_parity.rs without `parallel`: the same bytes as the --all-features run.
# A warning from navkit in any of these fails the check. tests/dependencies.rs checks, in every
# test run, that the default features pull no clap, indicatif, tiny-skia, font8x8, rayon or serde,
# and that rust-version covers every dependency's.
set -euo pipefail
cd "$(dirname "$0")/.."

features=$(awk '/^\[features\]/ { f = 1; next } /^\[/ { f = 0 } f && /^[a-z0-9_-]+ *=/ { print $1 }' Cargo.toml | grep -vx default)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

check() {
  echo "navkit: cargo $*" >&2
  if ! cargo "$@" 2>"$log"; then
    cat "$log" >&2
    exit 1
  fi
  if grep -q '^warning: `navkit`' "$log"; then
    cat "$log" >&2
    echo "navkit: warnings with: cargo $*" >&2
    exit 1
  fi
}

check check --release --all-targets
check check --release --no-default-features --lib
for f in $features; do
  check check --release --lib --bins --features "$f"
done
check test --release --test parallel_parity
echo "navkit: feature checks passed (default, --no-default-features, each of:" $features")" >&2
