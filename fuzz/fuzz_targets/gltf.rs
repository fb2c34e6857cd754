//! glTF 2.0 levels: `.glb` and `.gltf` bytes (JSON with base64 buffers; no files are read),
//! with small vertex and triangle limits. What loads must pass `TriMesh::validate`, write back
//! with `to_glb` and load again to the same arrays, and, if small, build with each partition,
//! solo and tiled, and as a tile cache: every build either succeeds with tiles that pass
//! navkit's own validator or is refused with an error other than a validator one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::geometry::gltf::{GltfOptions, GltfScene};
use navkit::{InputGeometry, TriMesh};
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
    navkit_fuzz::build_every_way(&geom, &navkit::BuildSettings::default());
});
