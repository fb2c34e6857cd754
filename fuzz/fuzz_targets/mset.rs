//! RecastDemo `MSET` navmesh files: parse and validate; whatever loads is also queried a little
//! (nearest polygon and a path between two of its polygons) and written back, and the bytes
//! written must load again.
#![no_main]

use glam::Vec3;
use libfuzzer_sys::fuzz_target;
use navkit::navmesh::NavMesh;
use navkit::query::QueryFilter;

fuzz_target!(|data: &[u8]| {
    let Ok(nav) = NavMesh::from_mset_bytes(data) else {
        return;
    };
    let again = nav.to_mset_bytes();
    let reloaded = NavMesh::from_mset_bytes(&again).expect("navkit's own MSET output loads");
    assert_eq!(reloaded.tile_count(), nav.tile_count());
    let polys = nav.polys();
    let Ok(mut q) = nav.query() else { return };
    let filter = QueryFilter::default();
    for p in polys.iter().take(4) {
        let Some(&v) = p.verts.first() else { continue };
        let _ = q.find_nearest_poly(v, Vec3::new(2.0, 4.0, 2.0), &filter);
        let _ = q.poly_height(p.poly, v);
        let _ = q.closest_point_on_poly(p.poly, v);
        let _ = nav.neighbours(p.poly);
    }
    let first_vertex =
        |p: Option<&navkit::navmesh::PolyInfo>| p.and_then(|p| p.verts.first().copied());
    if let (Some(va), Some(vb)) = (first_vertex(polys.first()), first_vertex(polys.last())) {
        let _ = q.path(va, vb, &filter);
    }
});
