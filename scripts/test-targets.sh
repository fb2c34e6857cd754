# Sourced by scripts/test.sh, scripts/asan.sh and scripts/test-python.sh: the feature list of
# the 32-bit run (narrow_features), and which integration tests the second and third
# runs of the suite (32-bit poly refs; AddressSanitizer) leave out, and why. The first run
# (scripts/test.sh: every feature, 64-bit refs) runs all of them. They are left out where they
# cannot fail differently, to keep CI under its hour:
# - movingai, jps_plus: 2D grid searches on Moving AI maps (src/grid/ without grid/mesh.rs). No
#   poly ref, no unsafe code, no FFI: neither the ref width nor ASan changes what they run.
# - view_browser, view_dynamic_browser, view_tile_stages_browser: the viewer's pages driven in
#   chromium. Their browser half is out of ASan's reach (chromium is not instrumented); their
#   server half runs in every build through view_server, view_dynamic and view_abuse.
NAVKIT_SECOND_RUN_SKIPS=(movingai jps_plus view_browser view_dynamic_browser view_tile_stages_browser)

# `--lib --bins --test NAME ...` for every tests/*.rs but the skipped ones (doc tests need their
# own `cargo test --doc`: Cargo does not mix them with other targets).
second_run_targets() {
  local f name skip keep
  printf '%s\n' --lib --bins
  for f in tests/*.rs; do
    name=$(basename "$f" .rs)
    keep=1
    for skip in "${NAVKIT_SECOND_RUN_SKIPS[@]}"; do
      [ "$name" = "$skip" ] && keep=0
    done
    [ "$keep" = 1 ] && printf '%s\n' --test "$name"
  done
}

# Every cargo feature of navkit but `default` and `large-refs`, comma-separated: the second run's
# features (32-bit poly refs), whose `navkit` program the Python tests compare with.
narrow_features() {
  awk '/^\[features\]/ { f = 1; next } /^\[/ { f = 0 } f && /^[a-z0-9_-]+ *=/ { print $1 }' Cargo.toml |
    grep -vx -e default -e large-refs | paste -sd, -
}
