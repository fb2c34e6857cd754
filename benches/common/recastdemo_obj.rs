//! RecastDemo's own OBJ loader (`rcMeshLoaderObj`) as a program, and what it and navkit's
//! reader (`TriMesh::from_obj`) read, shared by the OBJ benchmark (`benches/obj_loader.rs`,
//! which times both) and the test that checks in CI that both read the same arrays
//! (`tests/reference_parity.rs`); both include this file with `#[path]`.
//!
//! [`build_driver`] compiles, with `c++ -O2` (or `$CXX`), RecastDemo's `MeshLoaderObj.cpp` from
//! the recastnavigation-sys sources in place (the folder navkit's build script found) together
//! with our driver `benches/obj_loader_driver.cpp`. Nothing of RecastDemo is copied. The driver
//! loads one file and prints, on one line, the load's wall time, its resident memory before the
//! load and its peak, the vertex and triangle counts and an FNV-1a hash of the vertex floats and
//! triangle indices; [`mesh_hash`] is the same hash of navkit's arrays.

use std::path::{Path, PathBuf};
use std::process::Command;

use navkit::TriMesh;

/// FNV-1a over `bytes`, continuing from `h`.
pub fn fnv1a(mut h: u64, bytes: impl Iterator<Item = u8>) -> u64 {
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The driver's hash of a mesh: FNV-1a over the vertex floats, then the triangle indices
/// (little-endian, as the driver hashes its arrays' bytes on x86-64), as 16 hex digits.
pub fn mesh_hash(mesh: &TriMesh) -> String {
    let h = fnv1a(
        0xcbf29ce484222325,
        mesh.verts.iter().flat_map(|v| v.to_le_bytes()),
    );
    let h = fnv1a(h, mesh.tris.iter().flat_map(|t| t.to_le_bytes()));
    format!("{h:016x}")
}

/// What one load printed (the driver, or the benchmark's navkit child). (The test reads only
/// the counts and the hash.)
#[allow(dead_code)]
#[derive(Clone, Debug)]
pub struct Run {
    pub secs: f64,
    pub before_kib: u64,
    pub hwm_kib: u64,
    pub verts: u64,
    pub tris: u64,
    pub hash: String,
}

/// Runs `cmd` (a driver or child loading one file) and reads what it printed.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("starting a child");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{cmd:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |k: &str| -> &str {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(k).and_then(|w| w.strip_prefix('=')))
            .unwrap_or_else(|| panic!("{cmd:?} printed no {k}: {text}"))
    };
    Run {
        secs: field("time_s").parse().unwrap(),
        before_kib: field("rss_before_kib").parse().unwrap(),
        hwm_kib: field("hwm_kib").parse().unwrap(),
        verts: field("verts").parse().unwrap(),
        tris: field("tris").parse().unwrap(),
        hash: field("hash").to_string(),
    }
}

/// Compiles RecastDemo's loader and our driver into `dir`; the program's path. (Compiled to a
/// name of this process's own, then renamed, so that concurrent runs do not clash.)
pub fn build_driver(dir: &Path) -> PathBuf {
    let recast = PathBuf::from(env!("NAVKIT_RECAST_DIR_FOUND"));
    let demo = recast.join("RecastDemo");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("recastdemo_obj_loader");
    let tmp = dir.join(format!("recastdemo_obj_loader-{}", std::process::id()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let status = Command::new(&cxx)
        .args(["-O2", "-std=c++11", "-o"])
        .arg(&tmp)
        .arg("-I")
        .arg(demo.join("Include"))
        .arg(demo.join("Source/MeshLoaderObj.cpp"))
        .arg(root.join("benches/obj_loader_driver.cpp"))
        .status()
        .expect("running the C++ compiler");
    assert!(status.success(), "compiling the C++ driver failed");
    std::fs::rename(&tmp, &exe).unwrap();
    exe
}
