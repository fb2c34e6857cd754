//! glTF 2.0 levels: `.glb` and `.gltf` bytes (JSON with base64 buffers; no files are read),
//! with small vertex and triangle limits. What loads must pass `TriMesh::validate`, write back
//! with `to_glb` and load again to the same arrays, and, if small, build solo.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::geometry::gltf::{GltfOptions, GltfScene};
use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    // The last byte, if it is 0..=3, picks a scene by index (4: by name), else the default.
    let scene = match data.last() {
        Some(&b) if b < 4 => Some(GltfScene::Index(usize::from(b))),
        Some(4) => Some(GltfScene::Name("level".into())),
        _ => None,
    };
    let options = GltfOptions {
        scene,
        max_vertices: 1 << 16,
        max_triangles: 1 << 16,
    };
    let Ok(mesh) = TriMesh::from_gltf_slice(data, None, Path::new("fuzz.glb"), &options) else {
        return;
    };
    mesh.validate().expect("a loaded glTF mesh is valid");
    let back = GltfOptions::default();
    let back = TriMesh::from_gltf_slice(&mesh.to_glb(), None, Path::new("back.glb"), &back)
        .expect("to_glb output loads");
    assert_eq!(back.tris, mesh.tris);
    assert!(
        back.verts
            .iter()
            .zip(&mesh.verts)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    if mesh.tri_count() > 256 {
        return;
    }
    let geom = InputGeometry::from_mesh(mesh);
    if navkit_fuzz::solo_too_slow(&geom, &navkit::BuildSettings::default()) {
        return;
    }
    let solo = NavMeshBuilder::new(&geom).solo();
    navkit_fuzz::assert_build_sound(&solo, |b| b.navmesh(), "solo");
});
