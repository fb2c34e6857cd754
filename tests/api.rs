//! The one-call API: `NavMeshBuilder` for every kind of navmesh, `NavMesh::query`,
//! `NavMeshQuery::path` and its options, and `Aabb` bounds; each checked against the long-hand calls.

mod common;

use glam::Vec3;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, DEFAULT_MAX_PATH, NavMeshQuery, NavPath, PathOptions, QueryFilter,
    SmoothPathOptions, StraightPathOptions,
};
use navkit::tools::testcase::TestCase;
use navkit::{Aabb, BuildSettings, InputGeometry, NavMeshBuilder, PathStatus};

#[test]
fn builder_gives_the_same_navmeshes_as_the_long_hand_builds() {
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    // Solo: RecastDemo's published counts.
    let solo = NavMeshBuilder::new(&geom).solo().unwrap();
    let r = solo.report();
    assert_eq!(
        (
            r.polymesh_verts,
            r.polymesh_polys,
            r.detail_verts,
            r.detail_tris
        ),
        (223, 118, 513, 291)
    );
    assert_eq!(solo.tile_data(), common::build("dungeon.obj").tile_data());

    // Tiled: the same bytes as TiledNavMesh::build for 1 and 2 threads, with progress.
    let settings = BuildSettings {
        tile_size: 48,
        ..BuildSettings::default()
    };
    let reference = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let progress = |done: usize, total: usize| {
        assert!(done <= total);
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    for threads in [1, 2] {
        let t = NavMeshBuilder::new(&geom)
            .tile_size(48)
            .threads(threads)
            .progress(&progress)
            .tiled()
            .unwrap();
        assert_eq!(t.report().data_hash, reference.report().data_hash);
        assert_eq!(t.report().tile_count, reference.report().tile_count);
    }
    assert!(calls.load(std::sync::atomic::Ordering::Relaxed) >= 2 * reference.report().tile_count);

    // Tile cache: the builder's tile size is the cache's.
    let cache = NavMeshBuilder::new(&geom)
        .tile_size(32)
        .tile_cache()
        .unwrap();
    assert_eq!((cache.params().width, cache.params().height), (32, 32));
    assert!(
        NavMeshBuilder::new(&geom)
            .tile_size(4)
            .tile_cache()
            .is_err()
    );
    assert!(NavMeshBuilder::new(&geom).tile_size(4).tiled().is_err());
}

#[test]
fn query_path_is_the_long_hand_path_and_corridor_options_cut_it() {
    let case = TestCase::load(common::mesh("nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let mut long_hand = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let mut q = b.navmesh().query().unwrap();
    for t in &case.queries {
        let filter = QueryFilter::default().with_include_exclude(t.include, t.exclude);
        let p = q
            .path(t.start, t.end, &filter, &PathOptions::default())
            .unwrap();
        // The long hand: RecastDemo's tester tool, call by call.
        let s = long_hand
            .find_nearest_poly(t.start, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let g = long_hand
            .find_nearest_poly(t.end, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let corridor = long_hand
            .find_path(s.poly, g.poly, t.start, t.end, &filter, DEFAULT_MAX_PATH)
            .unwrap();
        let last = *corridor.polys.last().unwrap();
        let straight_end = if last == g.poly {
            t.end
        } else {
            long_hand.closest_point_on_poly(last, t.end).unwrap().0
        };
        let straight = long_hand
            .find_straight_path(
                t.start,
                straight_end,
                &corridor.polys,
                &StraightPathOptions::default(),
            )
            .unwrap();
        let smooth = long_hand
            .smooth_path(
                &corridor.polys,
                t.start,
                t.end,
                &filter,
                &SmoothPathOptions::default(),
            )
            .unwrap();
        let expected = NavPath {
            start: s,
            goal: g,
            corridor,
            straight,
            smooth,
            optimal: None,
        };
        assert_eq!(p, expected, "line {}", t.line);
        assert_eq!(p.status(), PathStatus::Complete, "line {}", t.line);
        // Without the smooth path: the same corridor and straight path, no smooth points.
        let corners = PathOptions {
            smooth: None,
            ..PathOptions::default()
        };
        let c = q.path(t.start, t.end, &filter, &corners).unwrap();
        assert!(c.smooth.points.is_empty());
        assert_eq!((&c.start, &c.goal), (&p.start, &p.goal));
        assert_eq!((c.corridor, c.straight), (p.corridor.clone(), p.straight));
        // The corridor alone: the same corridor.
        let only = q
            .path(t.start, t.end, &filter, &PathOptions::corridor_only())
            .unwrap();
        assert!(only.straight.points.is_empty() && only.smooth.points.is_empty());
        assert_eq!(only.corridor, p.corridor);
    }
    // Off the mesh: the typed error, with the point.
    let far = Vec3::new(1e4, 0.0, 1e4);
    match q.path(
        far,
        case.queries[0].end,
        &QueryFilter::default(),
        &PathOptions::default(),
    ) {
        Err(navkit::Error::PointOffMesh { point, .. }) => assert_eq!(point, far),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bounds_are_aabbs() {
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let b = geom.mesh.bounds();
    assert!(b.is_valid());
    for v in geom.mesh.verts.chunks_exact(3) {
        assert!(b.contains(Vec3::from_slice(v)));
    }
    assert_eq!(geom.nav_bounds(), b);
    let s = BuildSettings {
        bounds: Some(Aabb::new(b.max, b.min)),
        ..BuildSettings::default()
    };
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("bounds"), "{e}");
}

#[test]
fn errors_are_typed_and_name_the_file() {
    // A corrupt navmesh file: the byte offset and the file.
    let b = common::build("dungeon.obj");
    let mut bytes = b.navmesh().to_mset_bytes();
    bytes[40] ^= 0xff;
    bytes.truncate(bytes.len() - 7);
    let path = common::temp("corrupt.navmesh");
    std::fs::write(&path, &bytes).unwrap();
    match navkit::navmesh::NavMesh::load(&path) {
        Err(e @ navkit::Error::NavMeshData { .. }) => {
            let navkit::Error::NavMeshData {
                path: Some(p),
                offset,
                ..
            } = &e
            else {
                panic!("{e:?}")
            };
            assert_eq!(p, &path);
            assert!(*offset < bytes.len());
            assert!(
                e.to_string().starts_with(&path.display().to_string()),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A missing file: Io with the path and the io::Error as source().
    let missing = common::temp("missing.navmesh");
    let e = navkit::navmesh::NavMesh::load(&missing).unwrap_err();
    assert!(matches!(&e, navkit::Error::Io { path, .. } if path == &missing));
    assert!(std::error::Error::source(&e).is_some());
    // A build stage is the Stage enum.
    let e = navkit::Error::Build {
        stage: navkit::build::Stage::Contours,
        message: "x".into(),
    };
    assert_eq!(e.to_string(), "build stage `contours` failed: x");
}

#[test]
fn random_points_from_any_random_source() {
    use rand::SeedableRng;
    let b = common::build("dungeon.obj");
    let mut q = b.navmesh().query().unwrap();
    let f = QueryFilter::default();
    // Any rand::Rng, also as a trait object; the same seed gives the same points.
    let mut a = rand_pcg::Pcg32::seed_from_u64(9);
    let mut c = rand_pcg::Pcg32::seed_from_u64(9);
    let dyn_rng: &mut dyn rand::RngCore = &mut c;
    for _ in 0..20 {
        let p = q.find_random_point(&f, &mut a).unwrap();
        assert_eq!(p, q.find_random_point(&f, dyn_rng).unwrap());
        assert!(b.navmesh().is_valid(p.0));
    }
    let mut std_rng = rand_pcg::Pcg64::seed_from_u64(1);
    q.find_random_point(&f, &mut std_rng).unwrap();
    // Any closure; out-of-range values are kept in range.
    let mut n = 0u32;
    let p = q
        .find_random_point_with(&f, || {
            n += 1;
            (n % 7) as f32 / 7.0
        })
        .unwrap();
    assert!(n > 0 && b.navmesh().is_valid(p.0));
    for bad in [f32::NAN, -1.0, 1.0, f32::INFINITY] {
        let p = q.find_random_point_with(&f, || bad).unwrap();
        assert!(b.navmesh().is_valid(p.0), "{bad}");
    }
    // A panic in the source reaches the caller after Detour returns; the query still works.
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = q.find_random_point_with(&f, || panic!("source failed"));
    }));
    assert!(r.is_err());
    q.find_random_point(&f, &mut a).unwrap();
}

/// The build report's distance field and region counts, on shapes whose answers are known: a
/// 20 m square floor is 65 walkable cells across after the ledge filter, 61 after eroding the
/// agent radius (2 cells each side), so its centre lies 30 straight steps (60 distance units)
/// from the border; two such floors apart are two regions (ids 1 and 2, so maxRegions 3).
#[test]
fn build_report_counts_the_distance_field_and_regions() {
    let geom = common::two_floors();
    let r = navkit::NavMeshBuilder::new(&geom)
        .solo()
        .unwrap()
        .report()
        .clone();
    assert_eq!(r.spans, 2 * 65 * 65);
    assert_eq!(r.compact_spans, r.spans);
    assert_eq!(r.max_distance, 60);
    assert_eq!(r.max_regions, 3);
    assert_eq!(r.contours, 2);
    // Monotone partitioning builds no distance field.
    let s = navkit::BuildSettings {
        partition: navkit::Partition::Monotone,
        ..Default::default()
    };
    let r = navkit::NavMeshBuilder::new(&geom)
        .settings(s)
        .solo()
        .unwrap()
        .report()
        .clone();
    assert_eq!((r.max_distance, r.max_regions, r.contours), (0, 3, 2));
}
