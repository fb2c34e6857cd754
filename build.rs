//! Compiles navkit's own C++ glue (glue/*.cpp) against the Recast headers that
//! `recastnavigation-sys` carries.
//!
//! The headers are found without asking the network or `cargo metadata` (which must resolve
//! dev-dependencies and so fails under `--offline` before they were fetched), in this order:
//! 1. `NAVKIT_RECAST_DIR`: the `recastnavigation` folder of the sources, if set;
//! 2. beside navkit's own sources (navkit used from crates.io, a git checkout or `cargo vendor`:
//!    every package is unpacked side by side);
//! 3. in Cargo's registry cache (`$CARGO_HOME/registry/src/*/`), where `cargo build` has
//!    unpacked `recastnavigation-sys` before any build script runs;
//! 4. last, `cargo metadata` (offline first), for layouts none of the above covers.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Headers the glue includes; a candidate folder must hold all of them.
const NEEDED: [&str; 3] = [
    "Recast/Include/Recast.h",
    "Detour/Include/DetourNavMeshBuilder.h",
    "DetourTileCache/Include/DetourTileCacheBuilder.h",
];

/// The `recastnavigation-sys` version pinned in our Cargo.toml (`version = "=X.Y.Z"`).
fn pinned_sys_version(manifest_dir: &Path) -> String {
    let toml = std::fs::read_to_string(manifest_dir.join("Cargo.toml"))
        .expect("navkit build.rs: cannot read Cargo.toml");
    let line = toml
        .lines()
        .find(|l| l.trim_start().starts_with("recastnavigation-sys"))
        .expect("navkit build.rs: no recastnavigation-sys dependency in Cargo.toml");
    let start = line
        .find("\"=")
        .expect("navkit build.rs: recastnavigation-sys must be pinned as \"=X.Y.Z\"")
        + 2;
    let len = line[start..]
        .find('"')
        .expect("navkit build.rs: unterminated version");
    line[start..start + len].to_string()
}

fn holds_headers(dir: &Path) -> bool {
    NEEDED.iter().all(|h| dir.join(h).is_file())
}

/// `recastnavigation` inside a `recastnavigation-sys` package folder, if it holds the headers.
fn in_package(pkg: &Path) -> Option<PathBuf> {
    let dir = pkg.join("recastnavigation");
    holds_headers(&dir).then_some(dir)
}

fn beside_us(manifest_dir: &Path, version: &str) -> Option<PathBuf> {
    let parent = manifest_dir.parent()?;
    // crates.io and git checkouts name the folder with the version; `cargo vendor` names it
    // without (unless two versions are vendored).
    [
        format!("recastnavigation-sys-{version}"),
        "recastnavigation-sys".to_string(),
    ]
    .iter()
    .find_map(|name| in_package(&parent.join(name)))
}

fn cargo_home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(h));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))
}

fn in_registry(version: &str) -> Option<PathBuf> {
    let src = cargo_home()?.join("registry").join("src");
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&src)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    indexes.sort();
    indexes
        .iter()
        .find_map(|index| in_package(&index.join(format!("recastnavigation-sys-{version}"))))
}

fn from_cargo_metadata(manifest_dir: &Path) -> Option<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let offline_first: &[&[&str]] = &[&["--offline"], &[]];
    for extra in offline_first {
        let out = Command::new(&cargo)
            .args(["metadata", "--format-version", "1"])
            .args(*extra)
            .arg("--manifest-path")
            .arg(manifest_dir.join("Cargo.toml"))
            .output()
            .ok()?;
        if !out.status.success() {
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        // Find `"manifest_path":".../recastnavigation-sys-.../Cargo.toml"` without a JSON parser.
        for part in text.split("\"manifest_path\":\"").skip(1) {
            let path = &part[..part.find('"')?];
            if path.contains("recastnavigation-sys") {
                if let Some(dir) = in_package(Path::new(path).parent()?) {
                    return Some(dir);
                }
            }
        }
    }
    None
}

fn recast_root() -> PathBuf {
    println!("cargo:rerun-if-env-changed=NAVKIT_RECAST_DIR");
    if let Some(dir) = std::env::var_os("NAVKIT_RECAST_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            holds_headers(&dir),
            "navkit build.rs: NAVKIT_RECAST_DIR={} does not hold {}",
            dir.display(),
            NEEDED.join(", ")
        );
        return dir;
    }
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let version = pinned_sys_version(&manifest_dir);
    beside_us(&manifest_dir, &version)
        .or_else(|| in_registry(&version))
        .or_else(|| from_cargo_metadata(&manifest_dir))
        .unwrap_or_else(|| {
            panic!(
                "navkit build.rs: cannot find the sources of recastnavigation-sys {version} \
                 (looked beside navkit, in $CARGO_HOME/registry/src and through cargo metadata); \
                 set NAVKIT_RECAST_DIR to its `recastnavigation` folder"
            )
        })
}

fn main() {
    println!("cargo:rerun-if-changed=glue");
    println!("cargo:rerun-if-changed=build.rs");
    let root = recast_root();
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("glue/navkit_context.cpp")
        .file("glue/navkit_tilecache.cpp")
        .flag_if_supported("-std=c++11")
        .warnings(true);
    for dir in [
        "Recast/Include",
        "Detour/Include",
        "DetourTileCache/Include",
    ] {
        build.include(root.join(dir));
    }
    build.compile("navkit_glue");
}
