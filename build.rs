//! Compiles navkit's own C++ glue (glue/*.cpp) against the Recast headers that
//! `recastnavigation-sys` carries. The headers' location is asked of `cargo metadata`.

use std::path::PathBuf;
use std::process::Command;

fn recast_include_dirs() -> Vec<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
        ])
        .arg(std::env::var("TARGET").unwrap())
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("navkit build.rs: could not run `cargo metadata`");
    assert!(
        out.status.success(),
        "navkit build.rs: `cargo metadata` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("navkit build.rs: bad `cargo metadata` output");
    let pkg = meta["packages"]
        .as_array()
        .and_then(|pkgs| pkgs.iter().find(|p| p["name"] == "recastnavigation-sys"))
        .expect("navkit build.rs: recastnavigation-sys not found in `cargo metadata`");
    let root = PathBuf::from(pkg["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .join("recastnavigation");
    vec![
        root.join("Recast/Include"),
        root.join("Detour/Include"),
        root.join("DetourTileCache/Include"),
    ]
}

fn main() {
    println!("cargo:rerun-if-changed=glue");
    println!("cargo:rerun-if-changed=build.rs");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("glue/navkit_context.cpp")
        .file("glue/navkit_tilecache.cpp")
        .flag_if_supported("-std=c++11")
        .warnings(true);
    for dir in recast_include_dirs() {
        build.include(dir);
    }
    build.compile("navkit_glue");
}
