//! Shared helpers for the integration tests: locating ../shared and building its meshes.
#![allow(dead_code)]

use std::path::PathBuf;

use navkit::NavMeshBuilder;
use navkit::build::SoloBuild;
use navkit::{BuildSettings, InputGeometry};

/// `../shared` relative to the repository root.
pub fn shared() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(
        p.join("meshes/recastdemo").is_dir(),
        "../shared/meshes/recastdemo not found beside the repository ({})",
        p.display()
    );
    p
}

/// A RecastDemo mesh by file name.
pub fn mesh(name: &str) -> PathBuf {
    shared().join("meshes/recastdemo").join(name)
}

/// Builds a RecastDemo mesh with default settings.
pub fn build(name: &str) -> SoloBuild {
    let geom = InputGeometry::load(mesh(name)).expect("load mesh");
    NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .expect("build")
}

/// A unique temporary path.
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navkit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// How far (in xz) `p` is from the navmesh: 0 over a polygon, the xz distance to the nearest
/// polygon point within (5, 4, 5) otherwise, infinity with none that near.
pub fn off_mesh(
    q: &mut navkit::query::NavMeshQuery<'_>,
    f: &navkit::query::QueryFilter,
    p: glam::Vec3,
) -> f32 {
    match q.find_nearest_poly(p, glam::Vec3::new(5.0, 4.0, 5.0), f) {
        Ok(n) if n.over_poly => 0.0,
        Ok(n) => glam::Vec3::new(n.point.x - p.x, 0.0, n.point.z - p.z).length(),
        Err(_) => f32::INFINITY,
    }
}

/// Two 20 m square floors 10 m apart along x, at y = 0: x in [0, 20] and [30, 50], z in [0, 20].
pub fn two_floors() -> InputGeometry {
    let square = |x0: f32| {
        [
            x0,
            0.0,
            0.0,
            x0 + 20.0,
            0.0,
            0.0,
            x0 + 20.0,
            0.0,
            20.0,
            x0,
            0.0,
            20.0,
        ]
    };
    let mut verts = square(0.0).to_vec();
    verts.extend(square(30.0));
    let tris = vec![0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6];
    InputGeometry::from_mesh(navkit::TriMesh::new(verts, tris).unwrap())
}

/// Every `.obj` file in `../shared/meshes`, `../shared/hostile` and the repository's `meshes/`,
/// recursively.
pub fn shared_and_repository_objs() -> Vec<PathBuf> {
    fn objs(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                objs(&p, out);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj")) {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    objs(&shared().join("meshes"), &mut files);
    objs(&shared().join("hostile"), &mut files);
    objs(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("meshes"),
        &mut files,
    );
    files
}
