//! Tiled navmeshes on RecastDemo's meshes: test-case queries, parallel = sequential byte for
//! byte, incremental rebuilds, MSET round trips.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::build::tiled::{TileChange, TiledNavMesh, TiledOptions};
use navkit::navmesh::NavMesh;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PathOptions, QueryFilter, StraightPathOptions,
};
use navkit::tools::testcase::{self, TestCase};
use navkit::{
    Aabb, BuildSettings, ConvexVolume, InputGeometry, OffMeshConnection, TileCoord, TriMesh, area,
    flags,
};
use rand::SeedableRng;

fn geom(name: &str) -> InputGeometry {
    InputGeometry::load(common::mesh(name)).unwrap()
}

fn tiled(name: &str, tile_size: u32, threads: usize) -> TiledNavMesh {
    let settings = BuildSettings {
        tile_size,
        ..BuildSettings::default()
    };
    NavMeshBuilder::new(&geom(name))
        .settings(settings.clone())
        .threads(threads)
        .tiled()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_nav_mesh_test_query_is_complete_on_tiled_builds() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    for tile_size in [16, 32, 64] {
        let t = tiled("nav_test.obj", tile_size, 0);
        assert!(t.report().tile_count > 4, "{tile_size}: {:?}", t.report());
        let mut q = NavMeshQuery::new(t.navmesh(), 4096).unwrap();
        let results = testcase::run(&case, &mut q).unwrap();
        assert_eq!(results.len(), case.queries.len());
        for r in &results {
            assert!(r.start_ref != 0 && r.end_ref != 0, "line {}", r.query.line);
            assert!(
                r.complete,
                "tile size {tile_size} line {}: partial",
                r.query.line
            );
            let end = *r.straight.last().unwrap();
            assert!(
                end.distance(r.query.end) < 0.5,
                "tile size {tile_size} line {}: ends at {end}, not {}",
                r.query.line,
                r.query.end
            );
        }
    }
}

/// Random start/end pairs connected on the solo navmesh of `name` must be connected, with a
/// complete path, on its tiled navmesh.
#[test]
fn tiled_dungeon_and_undulating_connect_what_solo_connects() {
    for name in ["dungeon.obj", "undulating.obj", "nav_test.obj"] {
        let solo = NavMeshBuilder::new(&geom(name))
            .settings(BuildSettings::default())
            .solo()
            .unwrap();
        let t = tiled(name, 32, 0);
        let f = QueryFilter::default();
        let mut sq = NavMeshQuery::new(solo.navmesh(), 4096).unwrap();
        let mut tq = NavMeshQuery::new(t.navmesh(), 4096).unwrap();
        let mut rng = rand_pcg::Pcg32::seed_from_u64(17);
        let (mut tried, mut ok) = (0, 0);
        while tried < 150 {
            let (_, a) = sq.find_random_point(&f, &mut rng).unwrap();
            let (_, b) = sq.find_random_point(&f, &mut rng).unwrap();
            let sp = sq
                .path(a, b, &f, &PathOptions::corridor_only())
                .unwrap()
                .corridor;
            if !sp.is_complete() {
                continue;
            }
            tried += 1;
            let (Ok(s), Ok(e)) = (
                tq.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f),
                tq.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f),
            ) else {
                continue;
            };
            let p = tq.find_path(s.poly, e.poly, a, b, &f, 4096).unwrap();
            ok += p.is_complete() as usize;
        }
        // Tiles cut some polygons differently near tile edges; a point at the very rim of the
        // solo mesh may have no tiled poly within (2, 4, 2) and a tiny island may be split off.
        assert!(
            ok >= tried * 97 / 100,
            "{name}: {ok} of {tried} solo-connected pairs are connected on the tiled navmesh"
        );
    }
}

/// dungeon.obj with a water volume and a two-way off-mesh link across tiles.
fn dungeon_with_extras() -> InputGeometry {
    let mut g = geom("dungeon.obj");
    g.convex_volumes.push(ConvexVolume {
        verts: vec![
            Vec3::new(10.0, 9.0, -10.0),
            Vec3::new(20.0, 9.0, -10.0),
            Vec3::new(20.0, 9.0, 5.0),
            Vec3::new(10.0, 9.0, 5.0),
        ],
        hmin: -5.0,
        hmax: 20.0,
        area: area::WATER,
    });
    g.off_mesh_connections.push(OffMeshConnection {
        start: Vec3::new(18.0, 9.998, -46.0),
        end: Vec3::new(19.0, 9.998, -20.0),
        radius: 0.6,
        bidirectional: true,
        area: area::JUMP,
        flags: flags::JUMP,
        user_id: 1000,
    });
    g
}

#[test]
fn parallel_builds_equal_sequential_builds_byte_for_byte() {
    let settings = BuildSettings::default();
    for (name, g) in [
        ("dungeon+extras", dungeon_with_extras()),
        ("nav_test", geom("nav_test.obj")),
        ("undulating", geom("undulating.obj")),
    ] {
        let seq = NavMeshBuilder::new(&g)
            .settings(settings.clone())
            .threads(1)
            .tiled()
            .unwrap();
        for threads in [2, 3, 8] {
            let done = std::sync::atomic::AtomicUsize::new(0);
            let par = NavMeshBuilder::new(&g)
                .settings(settings.clone())
                .threads(threads)
                .progress(&|d, total| {
                    assert!(d <= total);
                    done.fetch_max(d, std::sync::atomic::Ordering::Relaxed);
                })
                .tiled()
                .unwrap();
            assert_eq!(
                done.into_inner(),
                seq.grid().tile_count(),
                "progress reaches the total"
            );
            assert_eq!(par.report().threads, threads);
            let (a, b) = (seq.tiles(), par.tiles());
            assert_eq!(a.len(), b.len(), "{name}");
            assert!(a == b, "{name}: tile data differs with {threads} threads");
            assert_eq!(seq.report().data_hash, par.report().data_hash);
            assert_eq!(seq.navmesh().to_mset_bytes(), par.navmesh().to_mset_bytes());
        }
    }
    // The extras made it in: a water poly and an off-mesh connection.
    let t = NavMeshBuilder::new(&dungeon_with_extras())
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let polys = t.navmesh().polys();
    assert!(polys.iter().any(|p| p.area == area::WATER && !p.off_mesh));
    assert_eq!(polys.iter().filter(|p| p.off_mesh).count(), 1);
}

fn path_between(nav: &NavMesh, a: Vec3, b: Vec3) -> (bool, Vec<Vec3>) {
    let mut q = NavMeshQuery::new(nav, 4096).unwrap();
    let f = QueryFilter::default();
    let s = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f).unwrap();
    let e = q.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f).unwrap();
    let p = q.find_path(s.poly, e.poly, a, b, &f, 4096).unwrap();
    let st = q
        .find_straight_path(a, b, &p.polys, &StraightPathOptions::default())
        .unwrap();
    (p.is_complete(), st.positions())
}

/// A box (closed, 12 triangles) appended to a mesh.
fn with_box(g: &InputGeometry, bmin: Vec3, bmax: Vec3) -> InputGeometry {
    let mut verts = g.mesh.verts.clone();
    let mut tris = g.mesh.tris.clone();
    let base = (verts.len() / 3) as i32;
    for i in 0..8 {
        let p = Vec3::new(
            if i & 1 == 0 { bmin.x } else { bmax.x },
            if i & 2 == 0 { bmin.y } else { bmax.y },
            if i & 4 == 0 { bmin.z } else { bmax.z },
        );
        verts.extend_from_slice(&p.to_array());
    }
    for f in [
        [0, 2, 1, 1, 2, 3],
        [4, 5, 6, 5, 7, 6],
        [0, 1, 4, 1, 5, 4],
        [2, 6, 3, 3, 6, 7],
        [0, 4, 2, 2, 4, 6],
        [1, 3, 5, 3, 7, 5],
    ] {
        tris.extend(f.iter().map(|&k| base + k));
    }
    let mut out = g.clone();
    out.mesh = TriMesh::new(verts, tris).unwrap();
    out
}

#[test]
fn incremental_rebuild_add_and_remove() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let q0 = &case.queries[0];
    let (a, b) = (q0.start, q0.end);
    let original = geom("nav_test.obj");
    let mut t = NavMeshBuilder::new(&original)
        .settings(BuildSettings::default())
        .tiled()
        .unwrap();
    let hash0 = t.data_hash();
    assert_eq!(hash0, t.report().data_hash);
    let (complete0, path0) = path_between(t.navmesh(), a, b);
    assert!(complete0);

    // Rebuilding a tile from unchanged geometry gives the same bytes.
    let mid_tile = t.grid().tile_at(path0[path0.len() / 2]).unwrap();
    assert_eq!(t.rebuild_tile(mid_tile).unwrap(), TileChange::Replaced);
    assert_eq!(t.data_hash(), hash0);
    assert!(t.rebuild_tile(TileCoord::new(-1, 0)).is_err());

    // Remove the tile at the start: the start has no polygon any more.
    let start_tile = t.grid().tile_at(a).unwrap();
    assert!(t.remove_tile(start_tile).unwrap());
    assert!(!t.remove_tile(start_tile).unwrap());
    {
        let mut q = NavMeshQuery::new(t.navmesh(), 256).unwrap();
        let f = QueryFilter::default();
        let n = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f);
        assert!(n.is_err() || !n.unwrap().over_poly);
    }
    // Add it back: identical navmesh data and path.
    assert_eq!(t.rebuild_tile(start_tile).unwrap(), TileChange::Added);
    assert_eq!(t.data_hash(), hash0);
    assert_eq!(path_between(t.navmesh(), a, b), (true, path0.clone()));

    // A level edit: a wall 3 m high across every corner of the path's middle, rebuilt in a box.
    let mid = path0[path0.len() / 2];
    let (wmin, wmax) = (
        mid - Vec3::new(2.0, 1.0, 2.0),
        mid + Vec3::new(2.0, 3.0, 2.0),
    );
    t.set_geometry(with_box(&original, wmin, wmax)).unwrap();
    let changes = t
        .rebuild_box(Aabb::new(wmin, wmax), &TiledOptions::default())
        .unwrap();
    assert!(!changes.is_empty());
    assert!(
        changes
            .iter()
            .all(|(_, c)| matches!(c, TileChange::Replaced | TileChange::Removed))
    );
    assert_ne!(t.data_hash(), hash0);
    let (complete1, path1) = path_between(t.navmesh(), a, b);
    assert!(path1 != path0, "the box changes the path");
    let len = |p: &[Vec3]| p.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>();
    assert!(!complete1 || len(&path1) > len(&path0));

    // Undo the edit: the navmesh is as built.
    t.set_geometry(original).unwrap();
    t.rebuild_box(Aabb::new(wmin, wmax), &TiledOptions { threads: 1 })
        .unwrap();
    assert_eq!(t.data_hash(), hash0);
    assert_eq!(path_between(t.navmesh(), a, b), (true, path0));

    // Remove a box of tiles.
    let n = t.remove_box(Aabb::new(wmin, wmax)).unwrap();
    assert!(n >= 1);
    assert_eq!(t.navmesh().tile_count(), t.report().tile_count - n);
}

#[test]
fn tiled_mset_files_load_back_to_the_same_results_and_corrupt_ones_are_errors() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let t = tiled("nav_test.obj", 32, 0);
    let path = common::temp("tiled.mset");
    t.navmesh().save(&path).unwrap();
    let loaded = NavMesh::load(&path).unwrap();
    assert_eq!(loaded.tile_count(), t.navmesh().tile_count());
    assert_eq!(loaded.params(), t.navmesh().params());
    let mut q1 = NavMeshQuery::new(t.navmesh(), 4096).unwrap();
    let mut q2 = NavMeshQuery::new(&loaded, 4096).unwrap();
    let r1 = testcase::run(&case, &mut q1).unwrap();
    let r2 = testcase::run(&case, &mut q2).unwrap();
    for (a, b) in r1.iter().zip(&r2) {
        assert_eq!(
            (&a.polys, &a.straight, a.complete),
            (&b.polys, &b.straight, b.complete)
        );
    }

    // Truncated at every 97th byte, and single bytes flipped in the header and the first tiles.
    let bytes = t.navmesh().to_mset_bytes();
    for cut in (0..bytes.len()).step_by(97) {
        assert!(
            NavMesh::from_mset_bytes(&bytes[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
    let mut flipped_errors = 0;
    for pos in (0..bytes.len().min(4000)).step_by(7) {
        let mut b = bytes.clone();
        b[pos] ^= 0xa5;
        // Either an error, or (for a byte Detour does not depend on, e.g. a flag) a navmesh
        // that still answers queries without crashing.
        match NavMesh::from_mset_bytes(&b) {
            Err(_) => flipped_errors += 1,
            Ok(nav) => {
                let mut q = NavMeshQuery::new(&nav, 4096).unwrap();
                let _ = testcase::run(&case, &mut q);
            }
        }
    }
    assert!(flipped_errors > 100, "{flipped_errors} flips were errors");
}

/// A generated world (terrain, buildings, bridges, platforms, water, jump links) of 60k
/// triangles, too big for one Detour tile: built tiled on 1 and 2 threads with the same bytes,
/// and every feature point reached from its approach point with a complete path; long paths
/// cross many tiles.
#[test]
fn generated_world_builds_tiled_and_its_features_are_reachable() {
    use navkit::tools::worldgen::{FeatureKind, WorldSpec, generate};
    let (geom, stats) = generate(&WorldSpec::new(60_000, 3)).unwrap();
    let settings = geom.settings.clone().unwrap();
    let seq = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .threads(1)
        .tiled()
        .unwrap();
    let par = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .threads(2)
        .tiled()
        .unwrap();
    assert_eq!(seq.report().data_hash, par.report().data_hash);
    assert!(seq.tiles() == par.tiles());
    let r = par.report();
    assert!(r.tile_count > 100, "{} tiles", r.tile_count);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let nav = par.navmesh();
    let polys = nav.polys();
    assert_eq!(
        polys.iter().filter(|p| p.off_mesh).count(),
        stats.jump_links,
        "every jump link is in the navmesh"
    );
    assert!(polys.iter().any(|p| p.area == area::WATER));

    let mut q = NavMeshQuery::new(nav, 65535).unwrap();
    let f = QueryFilter::default();
    let mut checked = 0;
    for feat in &stats.features {
        if matches!(feat.kind, FeatureKind::Water | FeatureKind::SteepSlope) {
            continue;
        }
        let s = q
            .find_nearest_poly(feat.approach, DEFAULT_HALF_EXTENTS, &f)
            .unwrap();
        let e = q
            .find_nearest_poly(feat.point, Vec3::new(0.5, 1.0, 0.5), &f)
            .unwrap();
        assert!(
            e.over_poly,
            "{:?} at {} is not on the navmesh",
            feat.kind, feat.point
        );
        let p = q
            .find_path(s.poly, e.poly, feat.approach, feat.point, &f, 65535)
            .unwrap();
        assert!(
            p.is_complete(),
            "{:?} at {}: partial",
            feat.kind,
            feat.point
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked} features");

    // Long paths: random pairs more than half the world apart, crossing many tiles.
    let layout = nav.params().ref_layout();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(5);
    let (mut long, mut complete, mut max_tiles) = (0, 0, 0);
    while long < 20 {
        let (_, a) = q.find_random_point(&f, &mut rng).unwrap();
        let (_, b) = q.find_random_point(&f, &mut rng).unwrap();
        if Vec3::new(a.x - b.x, 0.0, a.z - b.z).length() < stats.side * 0.5 {
            continue;
        }
        long += 1;
        let p = q
            .path(a, b, &f, &PathOptions::corridor_only())
            .unwrap()
            .corridor;
        let p = if p.polys.len() >= 256 {
            let s = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f).unwrap();
            let e = q.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f).unwrap();
            q.find_path(s.poly, e.poly, a, b, &f, 65535).unwrap()
        } else {
            p
        };
        assert!(!p.detour_status.has(navkit::status::Status::OUT_OF_NODES));
        complete += p.is_complete() as usize;
        let mut tiles: Vec<u32> = p
            .polys
            .iter()
            .map(|r| layout.decode(r.to_u64()).1)
            .collect();
        tiles.sort_unstable();
        tiles.dedup();
        max_tiles = max_tiles.max(tiles.len());
    }
    assert!(complete >= 17, "{complete} of 20 long paths complete");
    assert!(
        max_tiles >= 20,
        "the longest path crosses {max_tiles} tiles"
    );
}

#[test]
fn absurd_tiled_settings_and_empty_input_are_errors() {
    let g = geom("dungeon.obj");
    for tile_size in [0, 4, 5000, u32::MAX] {
        let s = BuildSettings {
            tile_size,
            ..BuildSettings::default()
        };
        let e = NavMeshBuilder::new(&g)
            .settings(s.clone())
            .tiled()
            .unwrap_err()
            .to_string();
        assert!(e.contains("tile_size"), "{tile_size}: {e}");
    }
    // 2 km square of two triangles with 8-cell tiles: more tiles than a navmesh holds, refused
    // before any tile is built.
    let big = InputGeometry::from_mesh(
        TriMesh::new(
            vec![
                0.0, 0.0, 0.0, 4000.0, 0.0, 0.0, 4000.0, 0.0, 4000.0, 0.0, 0.0, 4000.0,
            ],
            vec![0, 2, 1, 0, 3, 2],
        )
        .unwrap(),
    );
    let s = BuildSettings {
        tile_size: 8,
        cell_size: 0.4,
        ..BuildSettings::default()
    };
    // Before any tile: no tile finishes, and with its cancellation token already tripped (which
    // stops a build at its first tile's first stage, tests/budget.rs) the build still gives the
    // refusal, not `Cancelled`.
    let tiles_done = std::sync::atomic::AtomicUsize::new(0);
    let progress = |_: usize, _: usize| {
        tiles_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let token = navkit::build::CancelToken::new();
    token.cancel();
    let build = |budget: navkit::build::Budget| {
        NavMeshBuilder::new(&big)
            .settings(s.clone())
            .progress(&progress)
            .budget(budget)
            .tiled()
            .unwrap_err()
            .to_string()
    };
    let early = build(navkit::build::Budget::new().cancel_token(token));
    assert!(early.contains("tiles"), "{early}");
    let e = build(navkit::build::Budget::new());
    assert_eq!(e, early);
    assert_eq!(tiles_done.into_inner(), 0);
    // A mesh with nothing walkable: no tiles, not a crash.
    let wall = InputGeometry::from_mesh(
        TriMesh::new(
            vec![0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 10.0, 10.0, 0.0],
            vec![0, 1, 2],
        )
        .unwrap(),
    );
    match NavMeshBuilder::new(&wall)
        .settings(BuildSettings::default())
        .tiled()
    {
        Ok(t) => assert_eq!(t.navmesh().tile_count(), 0),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Per-tile counts of dungeon.obj at RecastDemo's Tile Mesh defaults (tile size 32), as published
/// by recast4j/DotRecast's `RecastTileMeshTest` (poly mesh polys and verts of six tiles).
#[test]
fn dungeon_tiles_give_the_published_counts() {
    let t = tiled("dungeon.obj", 32, 0);
    for ((x, z), polys, verts) in [
        ((7, 8), 1, 5),
        ((6, 9), 2, 7),
        ((2, 9), 2, 9),
        ((4, 3), 3, 6),
        ((2, 8), 5, 17),
        ((0, 8), 6, 15),
    ] {
        let data = t
            .navmesh()
            .tile_data_at(TileCoord::new(x, z))
            .unwrap_or_else(|| panic!("no tile ({x}, {z})"));
        let info = navkit::navmesh::mset::validate_tile_data(data).unwrap();
        assert_eq!(
            (info.poly_count, info.vert_count),
            (polys, verts),
            "tile ({x}, {z})"
        );
    }
}
