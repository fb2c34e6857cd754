//! Wavefront OBJ meshes: parse and validate; a small mesh that passes is also built solo with
//! the default settings (the hostile OBJ reproducers are small meshes that used to hang or read
//! out of bounds there), unless it is merely slow ([`navkit_fuzz::solo_too_slow`]).
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(mesh) = TriMesh::from_obj_str(&text, Path::new("fuzz.obj")) else {
        return;
    };
    if mesh.validate().is_err() || mesh.tri_count() > 256 {
        return;
    }
    let geom = InputGeometry::from_mesh(mesh);
    if navkit_fuzz::solo_too_slow(&geom, &navkit::BuildSettings::default()) {
        return;
    }
    if let Ok(b) = NavMeshBuilder::new(&geom).solo() {
        let _ = b.navmesh.query().map(|mut q| {
            let c = geom.mesh.bounds().center();
            q.find_nearest_poly(c, glam::Vec3::splat(4.0), &Default::default())
        });
    }
});
