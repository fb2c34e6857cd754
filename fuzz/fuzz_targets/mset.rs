//! RecastDemo `MSET` navmesh files: parse and validate; whatever loads is also queried a little
//! (nearest polygon and a path between two of its polygons) and written back, and the bytes
//! written must load again. Every view of the loaded navmesh (tiles, polys, edges, links,
//! off-mesh connections, detail meshes, BV nodes, refs) is walked and checked against the
//! navmesh's other answers.
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
    walk_views(&nav);
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
        let _ = q.path(va, vb, &filter, &navkit::PathOptions::default());
    }
});

/// Reads every view of `nav` and checks what must hold on any loaded navmesh.
fn walk_views(nav: &NavMesh) {
    use navkit::navmesh::view::PolyType;
    let mut polys = 0;
    for tile in nav.tiles() {
        let h = tile.header();
        assert!(tile.index() < nav.max_tiles());
        assert_eq!(
            nav.tile_at(tile.coord()).map(|t| t.index()),
            Some(tile.index())
        );
        assert_eq!(
            nav.tile_by_ref(tile.tile_ref()).map(|t| t.index()),
            Some(tile.index())
        );
        assert!(
            nav.tiles_at(h.x, h.y)
                .iter()
                .any(|t| t.index() == tile.index())
        );
        let _ = nav.calc_tile_loc(h.bmin);
        let _ = nav.tile_containing((h.bmin + h.bmax) * 0.5);
        assert_eq!(tile.poly_count(), h.poly_count);
        assert_eq!(tile.vertices().len(), h.vert_count);
        let _ = tile.bv_nodes().map(|n| (n.leaf_poly(), n.escape())).count();
        assert_eq!(tile.off_mesh_connections().len(), h.off_mesh_con_count);
        let mut links = 0;
        let mut detail_tris = 0;
        for p in tile.polys() {
            polys += 1;
            let r = p.poly_ref();
            assert!(nav.is_valid(r));
            let d = nav.decode_poly_ref(r);
            assert_eq!(
                (d.tile as usize, d.poly as usize),
                (tile.index(), p.index())
            );
            assert_eq!(nav.encode_poly_ref(d.salt, d.tile, d.poly), Some(r));
            assert_eq!(nav.poly(r).map(|q| q.index()), Some(p.index()));
            assert!(p.vertices().all(|v| v.is_finite()));
            let _ = (p.area(), p.flags(), p.first_link(), p.neis());
            let _ = p.edges().map(|e| e.neighbour).count();
            let targets: Vec<_> = p.links().map(|l| l.target).collect();
            assert_eq!(targets, nav.neighbours(r));
            assert!(targets.len() <= tile.link_slot_count());
            for l in p.links() {
                assert!(nav.poly(l.target).is_some());
                assert_eq!(tile.link_slot(l.index), Some(l));
                links += 1;
            }
            match p.poly_type() {
                PolyType::Ground => {
                    let dm = p.detail().expect("a ground poly has a detail mesh");
                    detail_tris += dm.triangle_count();
                    for t in dm.triangles() {
                        assert!(t.verts.iter().all(|v| v.is_finite()));
                        let _ = (0..3).map(|k| t.is_boundary_edge(k)).count();
                    }
                }
                PolyType::OffMeshConnection => {
                    let c = p.off_mesh_connection().expect("its connection");
                    assert_eq!(c.poly_ref, r);
                }
            }
        }
        assert_eq!(tile.links().count(), links);
        // Validation bounds each detail mesh's range, not their sum: no equality here.
        assert!(detail_tris <= h.detail_tri_count * h.poly_count.max(1));
    }
    assert_eq!(polys, nav.polys().len());
}
