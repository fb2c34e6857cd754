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

/// The `recastnavigation-sys` version pinned in our Cargo.toml (`version = "=X.Y.Z"`), in the
/// inline form we write (`recastnavigation-sys = { version = "=X.Y.Z", ... }`) or the table form
/// `cargo package` normalizes it to (`[dependencies.recastnavigation-sys]` then
/// `version = "=X.Y.Z"`). `None` if neither is found (then any unpacked version is accepted).
fn pinned_sys_version(manifest_dir: &Path) -> Option<String> {
    let toml = std::fs::read_to_string(manifest_dir.join("Cargo.toml")).ok()?;
    let pinned = |line: &str| -> Option<String> {
        let start = line.find("version")?;
        let rest = &line[start..];
        let q = rest.find("\"=")? + 2;
        let len = rest[q..].find('"')?;
        Some(rest[q..q + len].to_string())
    };
    let mut in_table = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == "[dependencies.recastnavigation-sys]";
            continue;
        }
        if in_table && line.starts_with("version") {
            return pinned(line);
        }
        if line.starts_with("recastnavigation-sys") {
            if let Some(v) = pinned(line) {
                return Some(v);
            }
        }
    }
    None
}

fn holds_headers(dir: &Path) -> bool {
    NEEDED.iter().all(|h| dir.join(h).is_file())
}

/// `recastnavigation` inside a `recastnavigation-sys` package folder, if it holds the headers.
fn in_package(pkg: &Path) -> Option<PathBuf> {
    let dir = pkg.join("recastnavigation");
    holds_headers(&dir).then_some(dir)
}

/// `recastnavigation-sys-<version>` folders in `dir` (any version if `None`), newest name
/// first, and a plain `recastnavigation-sys` (as `cargo vendor` names a single version).
fn sys_folders(dir: &Path, version: Option<&str>) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = match version {
        Some(v) => vec![dir.join(format!("recastnavigation-sys-{v}"))],
        None => std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("recastnavigation-sys-"))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    found.sort();
    found.reverse();
    found.push(dir.join("recastnavigation-sys"));
    found
}

fn beside_us(manifest_dir: &Path, version: Option<&str>) -> Option<PathBuf> {
    // crates.io and git checkouts name the folder with the version; `cargo vendor` names it
    // without (unless two versions are vendored).
    sys_folders(manifest_dir.parent()?, version)
        .iter()
        .find_map(|p| in_package(p))
}

fn cargo_home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(h));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))
}

fn in_registry(version: Option<&str>) -> Option<PathBuf> {
    let src = cargo_home()?.join("registry").join("src");
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&src)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    indexes.sort();
    indexes.iter().find_map(|index| {
        sys_folders(index, version)
            .iter()
            .find_map(|p| in_package(p))
    })
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
    let version = version.as_deref();
    beside_us(&manifest_dir, version)
        .or_else(|| in_registry(version))
        .or_else(|| from_cargo_metadata(&manifest_dir))
        .unwrap_or_else(|| {
            panic!(
                "navkit build.rs: cannot find the sources of recastnavigation-sys {} \
                 (looked beside navkit, in $CARGO_HOME/registry/src and through cargo metadata); \
                 set NAVKIT_RECAST_DIR to its `recastnavigation` folder",
                version.unwrap_or("(any version)")
            )
        })
}

fn main() {
    // The sources' version goes into tile-store keys (src/build/tiled/tile_key.rs).
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!(
        "cargo:rustc-env=NAVKIT_RECAST_SYS_VERSION={}",
        pinned_sys_version(&manifest_dir)
            .as_deref()
            .unwrap_or("unpinned")
    );
    println!("cargo:rerun-if-changed=glue");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let root = recast_root();
    // Where the upstream sources are, for benchmarks that compile RecastDemo code in place
    // (benches/obj_loader.rs builds RecastDemo's OBJ loader from there).
    println!("cargo:rustc-env=NAVKIT_RECAST_DIR_FOUND={}", root.display());
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("glue/navkit_context.cpp")
        .file("glue/navkit_tilecache.cpp")
        .file("glue/navkit_raycast.cpp")
        .file("glue/navkit_poly_query.cpp")
        .file("glue/navkit_nodes.cpp")
        .file("glue/navkit_tc_layer.cpp")
        .flag_if_supported("-std=c++11")
        .warnings(true);
    // The glue must see Detour's poly-ref width as recastnavigation-sys compiled it: 64-bit with
    // its `detour_large_nav_meshes` feature (navkit's `large-refs`). src/ffi checks the width the
    // glue reports (`navkit_poly_ref_size`) against `dtPolyRef`.
    if std::env::var_os("CARGO_FEATURE_LARGE_REFS").is_some() {
        build.define("DT_POLYREF64", None);
    }
    for dir in [
        "Recast/Include",
        "Detour/Include",
        "DetourTileCache/Include",
    ] {
        build.include(root.join(dir));
    }
    build.compile("navkit_glue");
    compile_fastlz(&root);
}

/// RecastDemo's FastLZ (`RecastDemo/Contrib/fastlz/fastlz.c`, which recastnavigation-sys
/// carries), compiled in place as C: the compressor of RecastDemo's tile cache layers, which
/// navkit uses so that `TSET` files move between navkit and RecastDemo. Only
/// `fastlz_compress` and `fastlz_compress_level` are called on data; `fastlz_decompress`
/// reads past its input on corrupt streams, so navkit decodes with its own bounds-checked
/// decoder and calls fastlz.c's only on streams that decoder accepted (`src/ffi/fastlz.rs`).
fn compile_fastlz(root: &Path) {
    let fastlz = root.join("RecastDemo/Contrib/fastlz/fastlz.c");
    assert!(
        fastlz.is_file(),
        "navkit build.rs: {} is missing (RecastDemo's FastLZ, for TSET files); the \
         recastnavigation-sys sources at {} are incomplete",
        fastlz.display(),
        root.display()
    );
    println!("cargo:rerun-if-changed={}", fastlz.display());
    cc::Build::new()
        .file(&fastlz)
        // Upstream's code: its warnings are not ours to fix.
        .warnings(false)
        .compile("navkit_fastlz");
}
