#!/usr/bin/env bash
# Coverage-guided fuzzing of navkit with libFuzzer (the fuzz/ crate, cargo-fuzz's layout).
#
#   scripts/fuzz.sh build              build every target (ASan, coverage) into fuzz/target
#   scripts/fuzz.sh seeds DIR          write seed corpora (fuzz/seeds + ../shared) to DIR/TARGET
#   scripts/fuzz.sh ci [SECONDS]       every target for SECONDS (default 20) each; fails on any
#                                      crash, leak, timeout or out-of-memory
#   scripts/fuzz.sh long HOURS [DIR]   rotates through the targets for HOURS (default DIR
#                                      /work/fuzz-long: corpora, artifacts, logs); one line per
#                                      slice in DIR/fuzz.log (target, seconds, execs, result),
#                                      totals per target in DIR/totals.txt
#   scripts/fuzz.sh run TARGET [ARGS]  one target with libFuzzer's own arguments (a crash file
#                                      to replay, -runs=N, a corpus folder ...)
#   scripts/fuzz.sh totals LOG         executions and findings per target from a long run's log
#
# Needs no cargo-fuzz: libFuzzer comes from the libfuzzer-sys crate and the instrumentation
# flags are cargo-fuzz's, given to rustc here (RUSTC_BOOTSTRAP=1 lets the stable toolchain take
# -Zsanitizer=address). Recast/Detour (cmake) and navkit's glue/ (cc) are compiled with
# clang++-14 with AddressSanitizer and the same coverage as the Rust code (installed by apt-get
# when missing; gcc's libasan cannot be mixed with LLVM's runtime); NAVKIT_FUZZ_CXX=plain
# compiles them uninstrumented with the default compiler instead.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ=$ROOT/fuzz
TRIPLE=x86_64-unknown-linux-gnu
TARGETS=(mset tset obj gset scenario testcase movingai_map movingai_scen navmesh_build query crowd sliced gltf viewer_http optimal)
export CARGO_TARGET_DIR=${NAVKIT_FUZZ_TARGET_DIR:-$FUZZ/target}
BIN=$CARGO_TARGET_DIR/$TRIPLE/release
SHARED=$ROOT/../shared

# Longest input per target (bytes): the seeds from ../shared are cut to this by libFuzzer.
max_len() {
  case $1 in
    mset | tset | query) echo 65536 ;;
    obj | gltf) echo 16384 ;;
    viewer_http) echo 32768 ;;
    movingai_map) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

ensure_tools() {
  if [ "${NAVKIT_FUZZ_CXX:-asan}" != plain ] && ! command -v clang++-14 >/dev/null 2>&1; then
    # One line while apt-get installs it (its output goes to a log), or the command to run.
    scripts/ensure-deps.sh clang-14 || {
      echo "(or NAVKIT_FUZZ_CXX=plain to leave the C++ uninstrumented)" >&2
      exit 1
    }
  else
    scripts/ensure-deps.sh
  fi
}

build() {
  ensure_tools
  export RUSTC_BOOTSTRAP=1
  # cargo-fuzz's flags (`cargo fuzz build` with its defaults: ASan, debug assertions).
  export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
--cfg fuzzing -Zsanitizer=address -Cdebug-assertions -Coverflow-checks -Cforce-frame-pointers=yes"
  if [ "${NAVKIT_FUZZ_CXX:-asan}" != plain ]; then
    # Every C/C++ compile for the target goes through this wrapper: clang-14 with ASan and
    # coverage, except libFuzzer's own sources (libfuzzer-sys), which must stay uninstrumented.
    local wrap=$CARGO_TARGET_DIR/cxx-wrap
    mkdir -p "$wrap"
    for lang in cc c++; do
      local clang=clang-14 plain=cc
      [ $lang = c++ ] && clang=clang++-14 && plain=c++
      cat >"$wrap/$lang" <<WRAP
#!/bin/sh
for a in "\$@"; do
  case "\$a" in *libfuzzer*) exec $plain "\$@" ;; esac
done
exec $clang "\$@" -fsanitize=address -fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp -fno-omit-frame-pointer
WRAP
      chmod +x "$wrap/$lang"
    done
    export CC_x86_64_unknown_linux_gnu=$wrap/cc CXX_x86_64_unknown_linux_gnu=$wrap/c++
  fi
  cargo build --release --locked --manifest-path "$FUZZ/Cargo.toml" --target $TRIPLE --bins
}

# Seed corpora: the small hand-made seeds in fuzz/seeds, and the shared data read in place
# (copied into DIR, never into the repository). Large files are cut to what a seed needs.
seeds() {
  local out=$1
  for t in "${TARGETS[@]}"; do
    mkdir -p "$out/$t"
    if [ -d "$FUZZ/seeds/$t" ]; then
      cp -f "$FUZZ/seeds/$t"/* "$out/$t/" 2>/dev/null || true
    fi
  done
  if [ ! -d "$SHARED" ]; then
    echo "navkit fuzz: no ../shared; hand-made seeds only" >&2
    return 0
  fi
  local f b
  cp -f "$SHARED"/meshes/recastdemo-files/*navmesh*.bin "$out/mset/" 2>/dev/null || true
  cp -f "$SHARED"/meshes/recastdemo-files/*tilecache*.bin "$out/tset/" 2>/dev/null || true
  # tset, for its FastLZ decoder: the output bound (u16, little-endian: 9216 = 4 x 48 x 48)
  # and the FastLZ stream of the first layer of RecastDemo's tile cache (file bytes 156..1126).
  # (head before tail: a reader that stops early would kill the writer with SIGPIPE, which
  # pipefail turns into the script's exit status 141.)
  f="$SHARED"/meshes/recastdemo-files/dungeon_all_tiles_tilecache.bin
  if [ -f "$f" ]; then
    { printf '\000\044'; head -c 1126 "$f" | tail -c 970; } >"$out/tset/shared-fastlz-layer0"
  fi
  # query: a byte whose value is 0 mod 4 (bring a navmesh), its length (u16, little-endian),
  # the MSET bytes, then bytes for the queries.
  for f in "$SHARED"/meshes/recastdemo-files/*navmesh*.bin; do
    [ -f "$f" ] || continue
    local n
    n=$(wc -c <"$f")
    [ "$n" -lt 65536 ] || continue
    {
      printf '\000'
      printf "\\$(printf %03o $((n % 256)))\\$(printf %03o $((n / 256)))"
      cat "$f"
      head -c 512 "$f" | tail -c 256
    } >"$out/query/shared-$(basename "$f")"
  done
  for f in "$SHARED"/hostile/*.obj "$SHARED"/meshes/recastdemo/*.obj; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .obj)
    # The first 300 lines of a big OBJ are vertices and a few faces: a valid small mesh.
    head -n 300 "$f" >"$out/obj/shared-$b.obj"
  done
  # Multi-storey: the first four storeys of stacked.obj (its first 320 vertices and the 80
  # quads on them), whole (small enough for the obj target's builds).
  f="$SHARED"/hostile/layers-overflow/stacked.obj
  if [ -f "$f" ]; then
    awk '/^v /{ if (++nv <= 320) print; next } /^f /{ if (++nf <= 80) print }' "$f" \
      >"$out/obj/shared-stacked-4-storeys.obj"
  fi
  for f in "$SHARED"/meshes/recastdemo/*.txt; do
    [ -f "$f" ] && cp -f "$f" "$out/testcase/shared-$(basename "$f")"
  done
  for f in "$SHARED"/movingai/maps/*/*.map; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .map)
    # The map's header with a 48 x 48 corner of its cells, and its first 24 rows whole.
    awk 'NR==1{print;next} /^height/{print "height 48";next} /^width/{print "width 48";next}
         /^map/{print;m=1;next} m&&n<48{print substr($0,1,48);n++}' "$f" >"$out/movingai_map/shared-$b-48.map"
    head -n 28 "$f" | awk 'NR<=4{ if ($1=="height") print "height 24"; else print; next} {print}' \
      >"$out/movingai_map/shared-$b-rows.map"
  done
  for f in "$SHARED"/movingai/scenarios/*/*.scen; do
    [ -f "$f" ] || continue
    head -n 40 "$f" >"$out/movingai_scen/shared-$(basename "$f")"
  done
}

# Runs TARGET on CORPUS with ARTIFACTS for SECONDS; prints libFuzzer's output to LOGFILE.
run_slice() {
  local t=$1 corpus=$2 artifacts=$3 seconds=$4 logfile=$5
  mkdir -p "$corpus" "$artifacts"
  local rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
    "$BIN/$t" "$corpus" -artifact_prefix="$artifacts/" -max_total_time="$seconds" \
    -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -print_final_stats=1 >"$logfile" 2>&1 || rc=$?
  return $rc
}

execs_of() { sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1; }

cmd=${1:-}
case $cmd in
  build)
    build
    ;;
  seeds)
    seeds "${2:?usage: scripts/fuzz.sh seeds DIR}"
    ;;
  run)
    t=${2:?usage: scripts/fuzz.sh run TARGET [libFuzzer args]}
    shift 2
    build >&2
    exec "$BIN/$t" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 "$@"
    ;;
  ci)
    seconds=${2:-20}
    build
    work=${NAVKIT_FUZZ_WORK:-$FUZZ/work}
    rm -rf "$work/ci"
    seeds "$work/ci/corpus"
    failed=()
    for t in "${TARGETS[@]}"; do
      log=$work/ci/$t.log
      if run_slice "$t" "$work/ci/corpus/$t" "$work/ci/artifacts/$t" "$seconds" "$log"; then
        echo "fuzz $t: ok, $(execs_of "$log") executions in ${seconds} s"
      else
        echo "fuzz $t: FAILED (log: $log, artifacts: $work/ci/artifacts/$t)"
        grep -E "ERROR|panicked|SUMMARY|Test unit written" "$log" | head -n 20 || true
        failed+=("$t")
      fi
    done
    if [ ${#failed[@]} -gt 0 ]; then
      echo "fuzz: ${#failed[@]} of ${#TARGETS[@]} targets failed: ${failed[*]}"
      echo "fuzz: $((${#TARGETS[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
      exit 1
    fi
    echo "fuzz: all ${#TARGETS[@]} targets ran ${seconds} s each without a finding"
    echo "fuzz: ${#TARGETS[@]} passed, 0 failed"
    ;;
  long)
    hours=${2:?usage: scripts/fuzz.sh long HOURS [DIR]}
    dir=${3:-/work/fuzz-long}
    # Slices of 120 s in the first round (every target soon), 300 s in the second, then
    # NAVKIT_FUZZ_SLICE (900 s).
    slice_max=${NAVKIT_FUZZ_SLICE:-900}
    build
    mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/logs"
    seeds "$dir/corpus"
    end=$(($(date +%s) + $(awk "BEGIN{print int($hours*3600)}")))
    biglog=$dir/fuzz.log
    echo "# $(date -u +%FT%TZ) start: ${#TARGETS[@]} targets, slices of 120 s, 300 s, then ${slice_max} s, until $(date -u -d @$end +%FT%TZ)" >>"$biglog"
    n=0 round=0
    while [ "$(date +%s)" -lt "$end" ]; do
      round=$((round + 1))
      slice=$slice_max
      [ $round -eq 1 ] && slice=$((slice_max < 120 ? slice_max : 120))
      [ $round -eq 2 ] && slice=$((slice_max < 300 ? slice_max : 300))
      for t in "${TARGETS[@]}"; do
        left=$((end - $(date +%s)))
        [ $left -le 0 ] && break
        s=$((left < slice ? left : slice))
        n=$((n + 1))
        log=$dir/logs/$n-$t.log
        if run_slice "$t" "$dir/corpus/$t" "$dir/artifacts/$t" "$s" "$log"; then
          result=ok
        else
          result="FINDING $(grep -m1 -oE 'Test unit written to [^ ]+' "$log" | sed 's/Test unit written to //')"
          result="$result $(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+|deadly signal|panicked at [^ ]+' "$log" | tr ' ' '_')"
        fi
        echo "$(date -u +%FT%TZ) target=$t seconds=$s execs=$(execs_of "$log") corpus=$(ls "$dir/corpus/$t" | wc -l) result=$result log=$log" >>"$biglog"
        "$0" totals "$biglog" >"$dir/totals.txt"
      done
    done
    echo "# $(date -u +%FT%TZ) done" >>"$biglog"
    ;;
  totals)
    log=${2:?usage: scripts/fuzz.sh totals LOG}
    awk '/ target=/{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           t = v["target"]; ex[t] += v["execs"]; sec[t] += v["seconds"]; sl[t]++
           if (v["result"] != "ok") fin[t]++ }
         END { printf "%-14s %8s %10s %14s %8s\n", "target", "slices", "seconds", "executions", "findings"
               for (t in ex) printf "%-14s %8d %10d %14d %8d\n", t, sl[t], sec[t], ex[t], fin[t] }' "$log"
    ;;
  *)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
