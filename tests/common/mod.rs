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

/// A 20 m square room at y = 0 (x and z in [0, 20]) with a square pillar's hole in the middle
/// (x in [8, 12], z in [6, 14]): the ring of floor around it as 8 triangles, wound upward.
/// The shortest way from (10, 0, 2) to (10, 0, 18) goes round the hole's two corners on one
/// side: 2 * sqrt(2^2 + 4^2) + 8 = 16.944 on the xz-plane, less the agent's erosion.
pub fn pillar_room_mesh() -> (Vec<f32>, Vec<i32>) {
    let pts = [
        (0.0, 0.0),
        (20.0, 0.0),
        (20.0, 20.0),
        (0.0, 20.0),
        (8.0, 6.0),
        (12.0, 6.0),
        (12.0, 14.0),
        (8.0, 14.0),
    ];
    let verts: Vec<f32> = pts.iter().flat_map(|&(x, z)| [x, 0.0, z]).collect();
    let mut tris = Vec::new();
    for i in 0..4 {
        let (o0, o1, i0, i1) = (i, (i + 1) % 4, 4 + i, 4 + (i + 1) % 4);
        for t in [[o0, o1, i1], [o0, i1, i0]] {
            let (a, b, c) = (pts[t[0]], pts[t[1]], pts[t[2]]);
            // Recast's up: (b - a) x (c - a) has y > 0, i.e. (c-a).x (b-a).z > (b-a).x (c-a).z.
            let up = (c.0 - a.0) * (b.1 - a.1) - (b.0 - a.0) * (c.1 - a.1) > 0.0;
            let t = if up { t } else { [t[0], t[2], t[1]] };
            tris.extend(t.iter().map(|&v| v as i32));
        }
    }
    (verts, tris)
}

/// [`pillar_room_mesh`] as geometry.
pub fn pillar_room() -> InputGeometry {
    let (verts, tris) = pillar_room_mesh();
    InputGeometry::from_mesh(navkit::TriMesh::new(verts, tris).unwrap())
}

/// [`pillar_room_mesh`] written as an `.obj` file at `path`.
pub fn write_pillar_room_obj(path: &std::path::Path) {
    let (verts, tris) = pillar_room_mesh();
    let mut text = String::new();
    for v in verts.chunks(3) {
        text.push_str(&format!("v {} {} {}\n", v[0], v[1], v[2]));
    }
    for t in tris.chunks(3) {
        text.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(path, text).unwrap();
}
