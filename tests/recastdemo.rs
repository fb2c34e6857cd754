//! Builds and queries on RecastDemo's own meshes and test cases (../shared/meshes/recastdemo).

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PathOptions, QueryFilter, RaycastOptions,
    StraightPathOptions,
};
use navkit::tools::testcase::{self, TestCase, TestKind};
use navkit::{BuildSettings, InputGeometry, Partition, PathStatus};

#[test]
fn default_builds_give_the_published_counts() {
    // Published by DotRecast's RecastSoloMeshTest for RecastDemo's default Solo Mesh settings.
    for (name, verts, polys, dverts, dtris) in [
        ("dungeon.obj", 223, 118, 513, 291),
        ("nav_test.obj", 349, 155, 812, 561),
    ] {
        let b = common::build(name);
        let r = b.report();
        assert_eq!(
            (
                r.polymesh_verts,
                r.polymesh_polys,
                r.detail_verts,
                r.detail_tris
            ),
            (verts, polys, dverts, dtris),
            "{name}"
        );
        assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
        assert_eq!(r.navmesh_bytes, b.tile_data().len());
        assert_eq!(b.navmesh().tile_count(), 1);
    }
}

/// Every count DotRecast's `RecastSoloMeshTest` publishes (`TestDungeonWatershed`,
/// `TestDungeonMonotone`, `TestDungeonLayers`, `TestWatershed`, `TestMonotone`, `TestLayers`:
/// RecastDemo's default Solo Mesh settings, all three span filters, dungeon.obj and nav_test.obj,
/// each partition): the compact heightfield's max distance (0 without a distance field) and
/// region count, contours, poly mesh verts and polys, detail meshes, verts and tris.
#[test]
fn every_partition_gives_dotrecasts_published_counts() {
    #[rustfmt::skip]
    let published = [
        // mesh, partition, maxDistance, maxRegions, contours, verts, polys, dmeshes, dverts, dtris
        ("dungeon.obj", Partition::Watershed, 52, 16, 15, 223, 118, 118, 513, 291),
        ("dungeon.obj", Partition::Monotone, 0, 17, 16, 210, 100, 100, 453, 264),
        ("dungeon.obj", Partition::Layers, 0, 5, 5, 203, 97, 97, 446, 266),
        ("nav_test.obj", Partition::Watershed, 60, 48, 47, 349, 155, 155, 812, 561),
        ("nav_test.obj", Partition::Monotone, 0, 50, 49, 341, 186, 186, 878, 567),
        ("nav_test.obj", Partition::Layers, 0, 19, 32, 310, 150, 150, 773, 526),
    ];
    for (name, partition, dist, regions, contours, verts, polys, dmeshes, dverts, dtris) in
        published
    {
        let geom = InputGeometry::load(common::mesh(name)).unwrap();
        let settings = BuildSettings {
            partition,
            ..BuildSettings::default()
        };
        let b = NavMeshBuilder::new(&geom)
            .settings(settings)
            .solo()
            .unwrap();
        let r = b.report();
        assert_eq!(
            (
                r.max_distance,
                r.max_regions,
                r.contours,
                r.polymesh_verts,
                r.polymesh_polys,
                r.detail_meshes,
                r.detail_verts,
                r.detail_tris
            ),
            (
                dist, regions, contours, verts, polys, dmeshes, dverts, dtris
            ),
            "{name} {partition:?}"
        );
    }
}

#[test]
fn grid_sizes_match_recastdemo() {
    // rcCalcGridSize over the mesh bounds with cell size 0.3.
    let b = common::build("dungeon.obj");
    assert_eq!((b.report().grid_width, b.report().grid_height), (248, 330));
    let b = common::build("nav_test.obj");
    assert_eq!((b.report().grid_width, b.report().grid_height), (305, 258));
}

#[test]
fn every_partition_builds_every_mesh() {
    for name in ["dungeon.obj", "nav_test.obj", "undulating.obj"] {
        let geom = InputGeometry::load(common::mesh(name)).unwrap();
        for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
            let settings = BuildSettings {
                partition,
                ..BuildSettings::default()
            };
            let b = NavMeshBuilder::new(&geom)
                .settings(settings.clone())
                .solo()
                .unwrap_or_else(|e| panic!("{name} {partition:?}: {e}"));
            assert!(
                b.report().polymesh_polys > 50,
                "{name} {partition:?}: {} polys",
                b.report().polymesh_polys
            );
            assert!(
                b.report().detail_tris >= b.report().polymesh_polys,
                "{name} {partition:?}"
            );
            // Every stage is reported, in pipeline order.
            let names: Vec<_> = b
                .report()
                .timings_ms
                .iter()
                .map(|(s, _)| s.name())
                .collect();
            assert_eq!(names.len(), 12);
            assert_eq!(names[0], "rasterize");
            assert_eq!(names[11], "detour_data");
        }
    }
}

#[test]
fn every_nav_mesh_test_query_is_complete_and_smooth_reaches_the_goal() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    assert!(case.mesh.ends_with("nav_test.obj"));
    let pf: Vec<_> = case
        .queries
        .iter()
        .filter(|q| q.kind == TestKind::Pathfind)
        .collect();
    assert_eq!(pf.len(), case.queries.len());
    assert!(pf.len() >= 18, "{} queries", pf.len());

    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();

    // As RecastDemo's TestCase runs them.
    let results = testcase::run(&case, &mut q).unwrap();
    for r in &results {
        assert!(r.start_ref != 0 && r.end_ref != 0, "line {}", r.query.line);
        assert!(r.complete, "line {}: partial path", r.query.line);
        assert!(r.straight.len() >= 2);
        assert!(
            r.straight.len() <= r.polys.len() + 1,
            "line {}: {} corners for {} polys",
            r.query.line,
            r.straight.len(),
            r.polys.len()
        );
    }

    // And through the tester tool's path: straight and smooth paths.
    for t in &pf {
        let filter = QueryFilter::default().with_include_exclude(t.include, t.exclude);
        let fp = q
            .path(t.start, t.end, &filter, &PathOptions::default())
            .unwrap();
        assert!(fp.corridor.is_complete(), "line {}", t.line);
        // Corners: start, one per turn (at most one per poly boundary), end.
        assert!(
            fp.straight.points.len() <= fp.corridor.polys.len() + 1,
            "line {}: {} corners for {} polys",
            t.line,
            fp.straight.points.len(),
            fp.corridor.polys.len()
        );
        let straight_turns = fp.straight.points.len() - 2;
        assert!(straight_turns < fp.corridor.polys.len(), "line {}", t.line);
        assert!(fp.smooth.reached_end && !fp.smooth.stuck, "line {}", t.line);
        let last = *fp.smooth.points.last().unwrap();
        let goal = q
            .closest_point_on_poly(*fp.corridor.polys.last().unwrap(), t.end)
            .unwrap()
            .0;
        assert_eq!(
            last, goal,
            "line {}: smooth path ends at {last}, goal {goal}",
            t.line
        );
        assert!(Vec3::new(last.x - t.end.x, 0.0, last.z - t.end.z).length() < 1e-3);
        // Steps are at most step_size long in xz (no off-mesh connections here).
        for w in fp.smooth.points.windows(2) {
            let d = Vec3::new(w[1].x - w[0].x, 0.0, w[1].z - w[0].z).length();
            assert!(d <= 0.5 + 1e-3, "line {}: step {d}", t.line);
        }
        // The smooth path is no shorter than the straight path.
        assert!(fp.smooth.length() + 1e-3 >= fp.straight.length() * 0.99);
    }
}

#[test]
fn raycast_test_cases_run() {
    let case = TestCase::load(common::shared().join("meshes/recastdemo/raycast_test.txt")).unwrap();
    let geom = InputGeometry::load(&case.mesh).unwrap();
    let b = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let results = testcase::run(&case, &mut q).unwrap();
    assert_eq!(results.len(), case.queries.len());
    let with_polys = results.iter().filter(|r| r.start_ref != 0).count();
    assert!(
        with_polys >= results.len() / 2,
        "{with_polys} of {}",
        results.len()
    );
    for r in results.iter().filter(|r| r.start_ref != 0) {
        assert_eq!(r.query.kind, TestKind::Raycast);
        assert!(!r.polys.is_empty());
        assert_eq!(r.straight.len(), 2);
    }
}

#[test]
fn straight_path_options_add_crossings() {
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let (a, z) = (
        Vec3::new(18.13855, -2.370003, -21.319118),
        Vec3::new(-19.20618, -2.369133, 24.802742),
    );
    let path = q
        .path(a, z, &f, &PathOptions::corridor_only())
        .unwrap()
        .corridor;
    let plain = q
        .find_straight_path(a, z, &path.polys, &StraightPathOptions::default())
        .unwrap();
    let all = q
        .find_straight_path(
            a,
            z,
            &path.polys,
            &StraightPathOptions {
                all_crossings: true,
                max_points: 256,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(all.points.len() > plain.points.len());
    // A buffer too small for the corners is reported as partial.
    let three = StraightPathOptions {
        max_points: 3,
        ..StraightPathOptions::default()
    };
    let short = q.find_straight_path(a, z, &path.polys, &three).unwrap();
    assert_eq!(short.points.len(), 3);
    assert!(!short.is_complete());
    assert_eq!(short.status, PathStatus::Partial);
}

#[test]
fn other_queries_give_sensible_answers() {
    use rand::SeedableRng;
    let b = common::build("dungeon.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();

    // Seeded random points are reproducible and on the mesh.
    let mut r1 = rand_pcg::Pcg32::seed_from_u64(7);
    let mut r2 = rand_pcg::Pcg32::seed_from_u64(7);
    let pts1: Vec<_> = (0..20)
        .map(|_| q.find_random_point(&f, &mut r1).unwrap())
        .collect();
    let pts2: Vec<_> = (0..20)
        .map(|_| q.find_random_point(&f, &mut r2).unwrap())
        .collect();
    assert_eq!(pts1, pts2);
    assert!(pts1.windows(2).any(|w| w[0] != w[1]));
    for &(poly, p) in &pts1 {
        let h = q.poly_height(poly, p).unwrap();
        assert!((h - p.y).abs() < 0.5, "height {h} vs {}", p.y);
        let n = q.find_nearest_poly(p, DEFAULT_HALF_EXTENTS, &f).unwrap();
        assert!(n.over_poly);
    }

    // Distance to wall is within the search radius and the hit point is that far away.
    let (poly, p) = pts1[0];
    let wall = q.find_distance_to_wall(poly, p, 50.0, &f).unwrap();
    assert!(wall.distance > 0.0 && wall.distance <= 50.0);
    assert!(
        (Vec3::new(wall.position.x - p.x, 0.0, wall.position.z - p.z).length() - wall.distance)
            .abs()
            < 1e-3
    );

    // Polys around a circle include the start poly first.
    let around = q.find_polys_around_circle(poly, p, 5.0, &f, 64).unwrap();
    assert_eq!(around[0].poly, poly);
    assert!(around.len() > 1);

    // A raycast toward the nearest wall hits it; a zero-length ray does not.
    let dir = (wall.position - p).normalize_or_zero();
    let ray = RaycastOptions {
        max_path: 64,
        ..RaycastOptions::default()
    };
    let hit = q
        .raycast(poly, p, p + dir * (wall.distance + 5.0), &f, &ray)
        .unwrap();
    assert!(hit.hit() && hit.t < 1.0);
    assert!(!q.raycast(poly, p, p, &f, &ray).unwrap().hit());

    // moveAlongSurface stays on the mesh and reports the polys it crossed.
    let m = q
        .move_along_surface(poly, p, p + Vec3::new(100.0, 0.0, 0.0), &f, 16)
        .unwrap();
    assert_eq!(m.visited[0], poly);
    assert!(m.position.x > p.x - 1e-3);
    let (closest, _) = q
        .closest_point_on_poly(*m.visited.last().unwrap(), m.position)
        .unwrap();
    assert!(Vec3::new(closest.x - m.position.x, 0.0, closest.z - m.position.z).length() < 1e-3);
}

/// A pair on which RecastDemo's smooth-path loop oscillates between two points until its cap of
/// 2048 (checked against a raw transcription of the loop in the benchmark): navkit stops, reports
/// `stuck`, and keeps the oscillation's points once.
#[test]
fn a_stuck_smooth_path_stops_and_says_so() {
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let (a, z) = (
        Vec3::new(8.914809, -2.2695167, -0.036701746),
        Vec3::new(6.359668, 9.613342, 18.188297),
    );
    let fp = q
        .path(a, z, &QueryFilter::default(), &PathOptions::default())
        .unwrap();
    assert!(!fp.corridor.is_complete());
    assert!(fp.smooth.stuck && !fp.smooth.reached_end && !fp.smooth.truncated);
    let pts = &fp.smooth.points;
    assert!(pts.len() < 100, "{} points", pts.len());
    // The two points RecastDemo alternates between appear once each, at the end.
    let (p, r) = (pts[pts.len() - 2], pts[pts.len() - 1]);
    assert_ne!(p, r);
    assert_eq!(pts.iter().filter(|&&x| x == p).count(), 1);
    assert_eq!(pts.iter().filter(|&&x| x == r).count(), 1);
    assert!((p.distance(r) - 0.5).abs() < 1e-3, "one step apart");
}
