//! Navmesh introspection and build counts (issue 12, part 3): the tile, poly, link, off-mesh
//! and detail views of built navmeshes checked against the navmesh's other answers, and the
//! per-stage counts of solo and tiled build reports on a floor whose counts are known and, as
//! invariants, on RecastDemo's meshes.

mod common;

use std::collections::HashSet;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::build::StageCounts;
use navkit::build::tiled::TiledNavMesh;
use navkit::navmesh::NavMesh;
use navkit::navmesh::view::{EdgeNeighbour, PolyType};
use navkit::{BuildSettings, InputGeometry, OffMeshConnection};

use common::two_floors;

fn tiled(geom: InputGeometry, tile_size: u32) -> TiledNavMesh {
    let settings = BuildSettings {
        tile_size,
        ..BuildSettings::default()
    };
    NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .threads(1)
        .tiled()
        .unwrap()
}

/// Every view of `nav` against what the navmesh says otherwise.
fn check_views(nav: &NavMesh) {
    let infos = nav.polys();
    let mut seen = 0;
    for tile in nav.tiles() {
        let h = tile.header();
        assert_eq!(nav.tile_at(tile.coord()).unwrap().index(), tile.index());
        assert_eq!(
            nav.tile_by_ref(tile.tile_ref()).unwrap().index(),
            tile.index()
        );
        assert_eq!(h.poly_count, tile.poly_count());
        assert_eq!(h.off_mesh_base + h.off_mesh_con_count, h.poly_count);
        assert_eq!(h.detail_mesh_count, h.off_mesh_base);
        let mut detail_tris = 0;
        for p in tile.polys() {
            let info = &infos[seen];
            seen += 1;
            assert_eq!(info.poly, p.poly_ref());
            assert_eq!(info.verts, p.vertices().collect::<Vec<_>>());
            assert_eq!((info.area, info.flags), (p.area(), p.flags()));
            assert_eq!(info.off_mesh, p.poly_type() == PolyType::OffMeshConnection);
            assert_eq!(
                p.poly_type() == PolyType::Ground,
                p.index() < h.off_mesh_base
            );
            let r = p.poly_ref();
            let d = nav.decode_poly_ref(r);
            assert_eq!(
                (d.tile as usize, d.poly as usize),
                (tile.index(), p.index())
            );
            assert_eq!(nav.encode_poly_ref(d.salt, d.tile, d.poly), Some(r));
            assert_eq!(nav.poly(r).unwrap().index(), p.index());
            // The link chain is `neighbours`, in order.
            let targets: Vec<_> = p.links().map(|l| l.target).collect();
            assert_eq!(targets, nav.neighbours(r));
            let targets: HashSet<_> = targets.into_iter().collect();
            if p.poly_type() == PolyType::OffMeshConnection {
                assert_eq!(p.vertex_count(), 2);
                let c = p.off_mesh_connection().unwrap();
                assert_eq!((c.poly, c.poly_ref), (p.index(), r));
                // Detour snaps the end points onto the polys they land on: same x and z.
                let v: Vec<_> = p.vertices().collect();
                for (v, e) in v.iter().zip([c.start, c.end]) {
                    assert_eq!((v.x, v.z), (e.x, e.z));
                    assert!((v.y - e.y).abs() <= h.walkable_climb);
                }
                continue;
            }
            assert!((3..=6).contains(&p.vertex_count()));
            for e in p.edges() {
                match e.neighbour {
                    // An internal neighbour is linked, and links back across the same edge.
                    EdgeNeighbour::Internal(n) => {
                        let q = tile.poly(n).unwrap();
                        assert!(targets.contains(&q.poly_ref()));
                        let back = q
                            .edges()
                            .find(|b| b.neighbour == EdgeNeighbour::Internal(p.index()))
                            .unwrap();
                        assert_eq!((back.start, back.end), (e.end, e.start));
                        assert!(q.edge_links(back.index).any(|l| l.target == r));
                    }
                    EdgeNeighbour::Portal { side } => {
                        for l in p.edge_links(e.index) {
                            assert_eq!(l.side, side);
                            assert!(l.bmin <= l.bmax);
                        }
                    }
                    EdgeNeighbour::Wall => assert_eq!(p.edge_links(e.index).count(), 0),
                }
            }
            // Every link from a ground poly to a ground poly has its way back.
            for l in p.links() {
                let q = nav.poly(l.target).unwrap();
                if q.poly_type() == PolyType::Ground {
                    assert!(q.links().any(|b| b.target == r), "{r:?} -> {l:?}");
                    assert_eq!(l.crosses_tiles(), q.tile().index() != tile.index());
                }
            }
            let dm = p.detail().unwrap();
            detail_tris += dm.triangle_count();
            for t in dm.triangles() {
                assert!(t.verts.iter().all(|v| v.is_finite()));
                assert!(t.verts.iter().all(|v| v.cmpge(h.bmin - 1.0).all()));
            }
        }
        assert_eq!(detail_tris, h.detail_tri_count);
        for n in tile.bv_nodes() {
            if let Some(p) = n.leaf_poly() {
                assert!(p < h.off_mesh_base);
            }
        }
    }
    assert_eq!(seen, infos.len());
}

/// Ground polys, vertices and detail triangles over every tile's header.
fn header_sums(nav: &NavMesh) -> (usize, usize, usize) {
    nav.tiles().fold((0, 0, 0), |(p, v, t), tile| {
        let h = tile.header();
        (
            p + h.off_mesh_base,
            v + h.vert_count - 2 * h.off_mesh_con_count,
            t + h.detail_tri_count,
        )
    })
}

fn sum_and_max(counts: impl Iterator<Item = StageCounts>) -> (StageCounts, StageCounts) {
    let (mut sum, mut max) = (StageCounts::default(), StageCounts::default());
    for c in counts {
        let (a, b) = (c.named(), sum.named());
        // By hand, not with `accumulate`: sums, except the two maxima.
        sum = StageCounts {
            rasterized_tris: (a[0].1 + b[0].1) as usize,
            spans: (a[1].1 + b[1].1) as usize,
            compact_spans: (a[2].1 + b[2].1) as usize,
            max_distance: a[3].1.max(b[3].1) as u16,
            max_regions: a[4].1.max(b[4].1) as u16,
            contours: (a[5].1 + b[5].1) as usize,
            polymesh_verts: (a[6].1 + b[6].1) as usize,
            polymesh_polys: (a[7].1 + b[7].1) as usize,
            detail_meshes: (a[8].1 + b[8].1) as usize,
            detail_verts: (a[9].1 + b[9].1) as usize,
            detail_tris: (a[10].1 + b[10].1) as usize,
            navmesh_bytes: (a[11].1 + b[11].1) as usize,
        };
        max.max_with(&c);
    }
    (sum, max)
}

#[test]
fn solo_counts_on_two_floors() {
    let b = NavMeshBuilder::new(&two_floors())
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let r = b.report();
    let c = r.counts();
    // A solo build rasterizes every triangle.
    assert_eq!((c.rasterized_tris, r.input_tris), (4, 4));
    // As in tests/api.rs: 65 x 65 walkable cells per floor, centre 30 steps from the border,
    // two regions, two contours.
    assert_eq!((c.spans, c.compact_spans), (2 * 65 * 65, 2 * 65 * 65));
    assert_eq!((c.max_distance, c.max_regions, c.contours), (60, 3, 2));
    // Each floor's contour is its 61-cell square, whose sides are longer than the 40-cell
    // `edge_max_len` (12 m at 0.3 m cells) and so split once each: 4 corners and 4 midpoints.
    // Eight vertices need at least two polys of at most six.
    assert_eq!(c.polymesh_verts, 16);
    assert!(c.polymesh_polys >= 4);
    assert_eq!(c.detail_meshes, c.polymesh_polys);
    assert_eq!(c.navmesh_bytes, b.navmesh().data_size());
    assert_eq!(
        header_sums(b.navmesh()),
        (c.polymesh_polys, c.polymesh_verts, c.detail_tris)
    );
    check_views(b.navmesh());
}

#[test]
fn tiled_counts_on_two_floors() {
    let t = tiled(two_floors(), 32);
    let r = t.report();
    let g = r.grid;
    // 50 m x 20 m at 0.3 m cells: 167 x 67 cells, 6 x 3 tiles of 32.
    assert_eq!((g.tiles_x, g.tiles_z), (6, 3));
    assert_eq!(r.tile_counts.len(), 18);
    assert_eq!(
        r.tile_counts.iter().map(|t| t.tile).collect::<Vec<_>>(),
        g.all_tiles()
    );
    // A tile rasterizes the triangles whose bounds overlap it with its border (5 cells, 1.5
    // m): tile x covers 9.6 x - 1.5 to 9.6 (x + 1) + 1.5 m, so the floor at 0..20 m reaches
    // tiles 0 to 2 and the floor at 30..50 m tiles 2 to 5, two triangles each. (RecastDemo
    // counts every triangle of the index chunks it visits: here all four, everywhere.)
    let per_row = [2, 2, 4, 2, 2, 2];
    for t in &r.tile_counts {
        assert_eq!(
            t.counts.rasterized_tris, per_row[t.tile.x as usize],
            "{:?}",
            t.tile
        );
    }
    let (sum, max) = sum_and_max(r.tile_counts.iter().map(|t| t.counts));
    assert_eq!(r.totals, sum);
    assert_eq!(r.max, max);
    assert_eq!(r.totals.rasterized_tris, 3 * 14);
    assert_eq!(r.totals.polymesh_polys, r.tiles.polys);
    assert_eq!(r.max.polymesh_polys, r.tiles.max_polys_per_tile);
    assert_eq!(r.totals.detail_meshes, r.totals.polymesh_polys);
    assert_eq!(r.totals.navmesh_bytes, t.navmesh().data_size());
    assert_eq!(
        r.tile_counts
            .iter()
            .filter(|t| t.counts.navmesh_bytes > 0)
            .count(),
        r.tile_count
    );
    // Tiles are 9.6 m. The walkable area ends 0.9 m inside each floor's edge (one ledge cell
    // and the 0.6 m agent radius): at x 19.1 and 49.1, z 19.1, and starts at x 30.9. So column
    // 2 (x 19.2..28.8) and row 2 (z 19.2..28.8) have no polygons: 5 x 2 tiles do.
    let with_polys: Vec<_> = r
        .tile_counts
        .iter()
        .filter(|t| t.counts.polymesh_polys > 0)
        .map(|t| (t.tile.x, t.tile.z))
        .collect();
    assert_eq!(
        with_polys,
        [
            (0, 0),
            (1, 0),
            (3, 0),
            (4, 0),
            (5, 0),
            (0, 1),
            (1, 1),
            (3, 1),
            (4, 1),
            (5, 1)
        ]
    );
    assert_eq!(r.tile_count, 10);
    assert_eq!(
        header_sums(t.navmesh()),
        (
            r.totals.polymesh_polys,
            r.totals.polymesh_verts,
            r.totals.detail_tris
        )
    );
    // A tile's heightfield includes its border: the spans of all tiles exceed the floors'.
    assert!(r.totals.spans > 2 * 65 * 65);
    check_views(t.navmesh());
}

#[test]
fn counts_and_views_on_recastdemo_meshes() {
    for name in ["dungeon.obj", "nav_test.obj"] {
        let geom = InputGeometry::load(common::mesh(name)).unwrap();
        let solo = NavMeshBuilder::new(&geom)
            .settings(BuildSettings::default())
            .solo()
            .unwrap();
        let c = solo.report().counts();
        assert_eq!(c.rasterized_tris, geom.mesh.tri_count(), "{name}");
        assert!(c.spans >= c.compact_spans && c.compact_spans > 0);
        assert!(c.max_regions as usize > c.contours.min(1));
        assert_eq!(c.detail_meshes, c.polymesh_polys);
        assert_eq!(
            header_sums(solo.navmesh()),
            (c.polymesh_polys, c.polymesh_verts, c.detail_tris),
            "{name}"
        );
        check_views(solo.navmesh());

        let t = tiled(geom, 32);
        let r = t.report();
        let (sum, max) = sum_and_max(r.tile_counts.iter().map(|t| t.counts));
        assert_eq!((r.totals, r.max), (sum, max), "{name}");
        assert_eq!(r.totals.navmesh_bytes, t.navmesh().data_size());
        assert_eq!(r.totals.polymesh_polys, r.tiles.polys);
        assert_eq!(
            header_sums(t.navmesh()),
            (
                r.totals.polymesh_polys,
                r.totals.polymesh_verts,
                r.totals.detail_tris
            ),
            "{name}"
        );
        // Tiles overlap by their borders, so they rasterize at least every triangle once.
        assert!(r.totals.rasterized_tris >= r.input_tris);
        check_views(t.navmesh());
    }
}

#[test]
fn off_mesh_connection_views_match_the_input() {
    let mut geom = two_floors();
    // A jump across the gap between the floors, one way, and a bidirectional one.
    geom.off_mesh_connections = vec![
        OffMeshConnection {
            start: Vec3::new(18.0, 0.0, 10.0),
            end: Vec3::new(32.0, 0.0, 10.0),
            radius: 0.6,
            bidirectional: false,
            area: navkit::area::JUMP,
            flags: navkit::flags::JUMP,
            user_id: 41,
        },
        OffMeshConnection {
            start: Vec3::new(18.0, 0.0, 5.0),
            end: Vec3::new(32.0, 0.0, 5.0),
            radius: 0.5,
            bidirectional: true,
            area: navkit::area::JUMP,
            flags: navkit::flags::JUMP,
            user_id: 42,
        },
    ];
    let b = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let tile = b.navmesh().tiles().next().unwrap();
    let cons: Vec<_> = tile.off_mesh_connections().collect();
    assert_eq!(cons.len(), 2);
    for (c, input) in cons.iter().zip(&geom.off_mesh_connections) {
        assert_eq!(
            (c.start, c.end, c.radius),
            (input.start, input.end, input.radius)
        );
        assert_eq!(c.bidirectional, input.bidirectional);
        assert_eq!(c.user_id, input.user_id);
        assert_eq!(c.side, 0xff);
        assert_eq!(c.poly, tile.off_mesh_base() + c.index);
        let p = tile.poly(c.poly).unwrap();
        assert_eq!((p.area(), p.flags()), (input.area, input.flags));
        // Start linked to the left floor and end to the right one; a one-way connection is
        // not entered from its end.
        let land: Vec<_> = p
            .links()
            .map(|l| {
                (
                    l.edge,
                    b.navmesh()
                        .poly(l.target)
                        .unwrap()
                        .vertices()
                        .next()
                        .unwrap()
                        .x
                        < 25.0,
                )
            })
            .collect();
        assert_eq!(land.len(), 2);
        assert!(land.contains(&(0, true)) && land.contains(&(1, false)));
        let entered_from_end = tile
            .polys()
            .filter(|q| q.poly_type() == PolyType::Ground)
            .filter(|q| q.vertices().next().unwrap().x > 25.0)
            .any(|q| q.links().any(|l| l.target == c.poly_ref));
        assert_eq!(entered_from_end, input.bidirectional);
    }
    check_views(b.navmesh());
}

#[test]
fn tile_cache_counts_on_two_floors() {
    let geom = two_floors();
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let cache = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .cache_settings(navkit::tilecache::TileCacheSettings {
            tile_size: 32,
            ..Default::default()
        })
        .tile_cache()
        .unwrap();
    let c = cache.counts();
    let t = tiled(geom, 32).report().totals;
    // The same tiles rasterized the same way as the tiled build (the triangles near each
    // tile: 14 per row of 6 tiles), and the same spans.
    assert_eq!(c.rasterized_tris, 3 * 14);
    assert_eq!((c.spans, c.compact_spans), (t.spans, t.compact_spans));
    // Detour's tile cache does not report its own partition and contours.
    assert_eq!((c.contours, c.max_distance, c.max_regions), (0, 0, 0));
    assert_eq!(
        header_sums(cache.navmesh()),
        (c.polymesh_polys, c.polymesh_verts, c.detail_tris)
    );
    assert_eq!(c.navmesh_bytes, cache.navmesh().data_size());
    // Floors that the tiled build covers with polys in 10 tiles: the cache's too.
    assert_eq!(cache.navmesh().tile_count(), 10);
    check_views(cache.navmesh());
}
