#!/usr/bin/env bash
# Runs the test suite (unit, integration on ../shared data, doc tests; every feature) built with
# AddressSanitizer and LeakSanitizer: navkit's Rust code, the Recast/Detour/DetourCrowd/
# DetourTileCache libraries that recastnavigation-sys builds with cmake, its inline shim, and
# navkit's own C++ glue (glue/). Any report (overflow, use after free, leak, ...) fails the run.
#
#   scripts/asan.sh                  # build, check the instrumentation, run every test but the
#                                    # few ASan cannot judge (scripts/test-targets.sh: the 2D
#                                    # grid searches, the browser tests)
#   scripts/asan.sh --test tilecache # extra arguments go to the `cargo test` that runs the tests
#                                    # (every test is built and checked first; --test movingai
#                                    # runs a skipped one)
#
# Environment:
#   NAVKIT_MOVINGAI_SAMPLE  stride of the Moving AI test (tests/movingai.rs): every Nth problem
#                           of each scenario file; 10 unless set (1 runs them all, ~5x longer).
#   ASAN_OPTIONS            appended to ours (a later option overrides an earlier one).
#
# How: rustc instruments Rust code with -Zsanitizer=address (a nightly flag, enabled on the
# stable toolchain with RUSTC_BOOTSTRAP=1) and links its own ASan runtime into every test
# binary; clang compiles the C++ with -fsanitize=address through CC/CXX/CFLAGS/CXXFLAGS, which
# the `cc` crate (navkit's build.rs, recastnavigation-sys's inline shim) and the `cmake` crate
# (Recast/Detour) both read. clang, not gcc: gcc's -fsanitize=address expects gcc's libasan,
# which clashes with the LLVM runtime rustc links. The explicit --target keeps build scripts and
# proc macros uninstrumented (Cargo then builds them without RUSTFLAGS), and target/asan keeps
# these objects apart from the normal build's.
#
# On a fresh machine it installs what is missing (cmake, libclang, clang: scripts/ensure-deps.sh,
# with apt-get when run as root, one line per package); otherwise it prints the command to run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh

target=x86_64-unknown-linux-gnu
host=$(rustc -vV | sed -n 's/^host: //p')
if [ "$host" != "$target" ]; then
  echo "navkit: scripts/asan.sh supports $target hosts only (this one is $host)" >&2
  exit 1
fi
sysroot=$(rustc --print sysroot)
if ! compgen -G "$sysroot/lib/rustlib/$target/lib/librustc-*_rt.asan.a" >/dev/null; then
  echo "navkit: the Rust toolchain has no AddressSanitizer runtime" \
    "($sysroot/lib/rustlib/$target/lib/librustc-*_rt.asan.a); install the standard library" \
    "for $target, e.g.: rustup target add $target" >&2
  exit 1
fi
if [ ! -d ../shared/meshes/recastdemo ]; then
  echo "navkit: ../shared (RecastDemo meshes, Moving AI maps) must sit beside the repository" >&2
  exit 1
fi

# clang and clang++: unversioned if present, else the newest clang-NN on PATH.
find_clang() {
  local name=$1 c
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  for c in $(compgen -c "$name-" | grep -E "^$name-[0-9]+$" | sort -t- -k2 -n -r | uniq); do
    command -v "$c"
    return 0
  done
  return 1
}
if ! find_clang clang++ >/dev/null || ! find_clang clang >/dev/null; then
  # One line while apt-get installs it (its output goes to a log), or the command to run.
  scripts/ensure-deps.sh clang
fi
cc_bin=$(find_clang clang)
cxx_bin=$(find_clang clang++)

# llvm-symbolizer turns the addresses of a report into functions, files and lines (without it a
# report still names the functions it can find in the symbol table).
symbolizer=$(command -v llvm-symbolizer 2>/dev/null ||
  compgen -G "/usr/lib/llvm-*/bin/llvm-symbolizer" | sort -V | tail -n 1 || true)

export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="-Zsanitizer=address -Cforce-frame-pointers=yes ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=address -Cforce-frame-pointers=yes ${RUSTDOCFLAGS:-}"
unset CARGO_ENCODED_RUSTFLAGS CARGO_ENCODED_RUSTDOCFLAGS
export CC="$cc_bin" CXX="$cxx_bin"
export CFLAGS="-fsanitize=address -fno-omit-frame-pointer ${CFLAGS:-}"
export CXXFLAGS="-fsanitize=address -fno-omit-frame-pointer ${CXXFLAGS:-}"
export CARGO_TARGET_DIR="$PWD/target/asan"
# Line tables in the release build (Rust, and cmake's RelWithDebInfo for Recast/Detour), so
# that reports name files and lines.
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1:print_summary=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
if [ -n "$symbolizer" ]; then
  export ASAN_SYMBOLIZER_PATH="$symbolizer"
fi
export NAVKIT_MOVINGAI_SAMPLE="${NAVKIT_MOVINGAI_SAMPLE:-10}"
# Tests that judge resident memory (tests/service_soak.rs) skip that judgement under ASan,
# whose quarantine holds freed memory; LeakSanitizer checks for leaks instead.
export NAVKIT_SANITIZER=address

echo "navkit asan: CC=$CC CXX=$CXX, target dir $CARGO_TARGET_DIR," \
  "NAVKIT_MOVINGAI_SAMPLE=$NAVKIT_MOVINGAI_SAMPLE" >&2
echo "navkit asan: ASAN_OPTIONS=$ASAN_OPTIONS" >&2

cargo_args=(--release --all-features --target "$target")

# 1. Build every test binary, keeping Cargo's JSON messages to find the build scripts' output
#    folders and the navkit library.
messages=$(mktemp)
trap 'rm -f "$messages"' EXIT
# Without arguments: every test but those ASan cannot judge (scripts/test-targets.sh).
if [ $# -eq 0 ]; then
  . scripts/test-targets.sh
  mapfile -t targets < <(second_run_targets)
else
  targets=()
fi
cargo test "${cargo_args[@]}" "${targets[@]}" --no-run --message-format=json-render-diagnostics >"$messages"

# 2. Check that the C++ really is instrumented: every object file of Recast, Detour,
#    DetourCrowd, DetourTileCache, recastnavigation-sys's inline shim and navkit's glue, and of
#    the navkit library itself, refers to the ASan runtime (__asan_init, called by the module
#    constructor that instrumentation adds), and every test binary holds that runtime.
out_dir_of() { # the package's build script output folder: <target dir>/.../build/<package>-<hash>/out
  grep '"reason":"build-script-executed"' "$messages" |
    sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | grep -E "/build/$1-[0-9a-f]+/out$" | tail -n 1 || true
}
sys_out=$(out_dir_of recastnavigation-sys)
glue_out=$(out_dir_of navkit)
if [ -z "$sys_out" ] || [ -z "$glue_out" ]; then
  echo "navkit asan: cannot find the build script output of recastnavigation-sys or navkit" >&2
  exit 1
fi
navkit_rlib=$(grep '"reason":"compiler-artifact"' "$messages" | grep '"name":"navkit"' |
  grep -o '"[^"]*/libnavkit-[^"]*\.rlib"' | tr -d '"' | tail -n 1 || true)
archives=(
  "$sys_out/lib/libRecast.a"
  "$sys_out/lib/libDetour.a"
  "$sys_out/lib/libDetourCrowd.a"
  "$sys_out/lib/libDetourTileCache.a"
  "$sys_out/librecast_inline.a"
  "$glue_out/libnavkit_glue.a"
  "$glue_out/libnavkit_fastlz.a"
  "$navkit_rlib"
)
bad=0
for a in "${archives[@]}"; do
  if [ ! -f "$a" ]; then
    echo "navkit asan: missing $a" >&2
    bad=1
    continue
  fi
  objects=$(ar t "$a" | grep -c '\.o$' || true)
  instrumented=$(nm -A "$a" 2>/dev/null | grep -c ' U __asan_init$' || true)
  if [ "$objects" -eq 0 ] || [ "$objects" != "$instrumented" ]; then
    echo "navkit asan: $a: $instrumented of $objects object files instrumented" >&2
    bad=1
  else
    echo "navkit asan: instrumented: $(basename "$a") ($objects object files)" >&2
  fi
done
executables=$(grep '"reason":"compiler-artifact"' "$messages" |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' || true)
count=0
for exe in $executables; do
  count=$((count + 1))
  # (grep -c, not grep -q: with pipefail, nm would die of SIGPIPE when grep -q stops reading)
  if [ "$(nm "$exe" 2>/dev/null | grep -c ' T __asan_init$' || true)" = 0 ]; then
    echo "navkit asan: $exe does not contain the ASan runtime" >&2
    bad=1
  fi
done
if [ "$count" -eq 0 ]; then
  echo "navkit asan: no test executables were built" >&2
  bad=1
fi
if [ "$bad" -ne 0 ]; then
  echo "navkit asan: the build is not (fully) instrumented; remove $CARGO_TARGET_DIR and rerun" >&2
  exit 1
fi
echo "navkit asan: $count executables hold the ASan runtime" >&2

# 3. Run the tests (doc tests included: RUSTDOCFLAGS instruments them too).
if [ $# -eq 0 ]; then
  cargo test "${cargo_args[@]}" --no-fail-fast "${targets[@]}"
  cargo test "${cargo_args[@]}" --no-fail-fast --doc
else
  cargo test "${cargo_args[@]}" --no-fail-fast "$@"
fi
echo "navkit asan: clean" >&2
