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

/// `(a - o) x (b - o)` in xz.
fn cross_xz(o: Vec3, a: Vec3, b: Vec3) -> f32 {
    (a.x - o.x) * (b.z - o.z) - (a.z - o.z) * (b.x - o.x)
}

/// Where segment `p`..`q` crosses segment `a`..`b` in xz: the fraction along `p`..`q`.
fn crossing_xz(p: Vec3, q: Vec3, a: Vec3, b: Vec3) -> Option<f32> {
    let d = (q.x - p.x) * (b.z - a.z) - (q.z - p.z) * (b.x - a.x);
    if d.abs() < 1e-9 {
        return None;
    }
    let t = ((a.x - p.x) * (b.z - a.z) - (a.z - p.z) * (b.x - a.x)) / d;
    let s = ((a.x - p.x) * (q.z - p.z) - (a.z - p.z) * (q.x - p.x)) / d;
    ((0.0..=1.0).contains(&t) && (-1e-5..=1.0 + 1e-5).contains(&s)).then_some(t)
}

/// The first wall edge (no neighbour) of `polys` that the segment `p`..`q` crosses in xz: its
/// fraction along the segment, polygon and edge index. Plain geometry on the polygons'
/// vertices, independent of Detour's raycast, which walks from portal to portal.
fn first_wall_crossing(
    nav: &navkit::navmesh::NavMesh,
    polys: &[navkit::query::PolyRef],
    p: Vec3,
    q: Vec3,
) -> Option<(f32, navkit::query::PolyRef, usize)> {
    use navkit::navmesh::view::EdgeNeighbour;
    let mut first: Option<(f32, navkit::query::PolyRef, usize)> = None;
    for &poly in polys {
        for e in nav.poly(poly).unwrap().edges() {
            if e.neighbour != EdgeNeighbour::Wall {
                continue;
            }
            if let Some(t) = crossing_xz(p, q, e.start, e.end) {
                if first.is_none_or(|f| t < f.0) {
                    first = Some((t, poly, e.index));
                }
            }
        }
    }
    first
}

/// RecastDemo's raycast test cases (`raycast_test.txt`: its "Tile Mesh" sample on nav_test.obj),
/// run as RecastDemo's TestCase runs them on the Tile Mesh sample's default build (32-cell
/// tiles), then each ray again at twice its length. RecastDemo's file holds no results, so the
/// expectations come from nav_test.obj's geometry (below) and from plain geometry on the
/// navmesh's polygons.
#[test]
fn raycast_test_cases_run() {
    use navkit::navmesh::view::EdgeNeighbour;
    let case = TestCase::load(common::shared().join("meshes/recastdemo/raycast_test.txt")).unwrap();
    assert_eq!(case.sample, "Tile Mesh");
    let geom = InputGeometry::load(&case.mesh).unwrap();
    let b = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .tile_size(32) // Sample_TileMesh's m_tileSize
        .tiled()
        .unwrap();
    let nav = b.navmesh();
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let results = testcase::run(&case, &mut q).unwrap();
    assert_eq!(results.len(), 4);

    // Every ray misses. Rays 3, 5 and 6 start at the foot of the ramp (nav_test.obj's slab from
    // (47.30, -0.73, -3.91)/(35.35, -0.73, -2.72) up to (48.97, 7.75, 12.95)/(37.03, 7.75,
    // 14.14)) and end on the platform it leads to (y 7.80, corners (48.22, 12.97), (49.42,
    // 25.01), (38.27, 26.12), (37.07, 14.07)), at least 2.0 m from the ramp's east edge, 2.3 m
    // from the pillar standing on it (x 40.6..44.2, z 4.0..14.4) and 1.2 m from the platform's
    // east edge; ray 4 crosses the open ground east of the ramp, 1.6 m or more from it. The
    // walkable area stops 0.6 m (the agent radius) to 0.9 m (plus one ledge cell) short of
    // those edges: no wall in the way.
    for r in &results {
        let t = &r.query;
        assert_eq!(t.kind, TestKind::Raycast);
        assert!(r.start_ref != 0 && r.end_ref != 0, "line {}", t.line);
        let f = QueryFilter::with_flags(t.include, t.exclude);
        let s = q
            .find_nearest_poly(t.start, DEFAULT_HALF_EXTENTS, &f)
            .unwrap();
        let hit = q
            .raycast(s.poly, t.start, t.end, &f, &RaycastOptions::default())
            .unwrap();
        assert!(!hit.hit() && r.complete, "line {}: t {}", t.line, hit.t);
        assert_eq!(
            (hit.t, hit.hit_edge, hit.normal),
            (f32::MAX, None, Vec3::ZERO)
        );
        assert_eq!(r.polys, hit.polys.iter().map(|p| p.0).collect::<Vec<_>>());
        // The polygons crossed: a chain of neighbours, up the ramp (more than one), no wall
        // edge of theirs crossed, and the end over the last one.
        assert!(hit.polys.len() >= 4, "line {}: {:?}", t.line, hit.polys);
        assert_eq!(first_wall_crossing(nav, &hit.polys, t.start, t.end), None);
        for w in hit.polys.windows(2) {
            let shared = nav.poly(w[0]).unwrap().links().any(|l| l.target == w[1]);
            assert!(shared, "line {}: {:?} -> {:?}", t.line, w[0], w[1]);
        }
        let last = *hit.polys.last().unwrap();
        let verts: Vec<Vec3> = nav.poly(last).unwrap().vertices().collect();
        let n = verts.len();
        assert!(
            (0..n).all(|i| cross_xz(verts[i], verts[(i + 1) % n], t.end) <= 1e-4),
            "line {}: the end is not over the last polygon",
            t.line
        );
        // RecastDemo's result: the start and the end, at the last polygon's height.
        let end = Vec3::new(t.end.x, q.poly_height(last, t.end).unwrap(), t.end.z);
        assert_eq!(r.straight, vec![t.start, end], "line {}", t.line);
    }

    // Twice as long, each ray leaves the walkable area: rays 3, 5 and 6 across the platform's
    // north edge, ray 4 across the ground's north edge (its top face's edge from (50.34, -2.20,
    // 22.72) to (47.30, -2.44, 23.09)). Recast keeps the walkable area 0.6 m (erosion by the
    // agent radius, 2 cells) to 0.9 m (plus the one ledge cell the span filter removes) inside
    // such an edge, so the hit lies that far inside it (to within 5 cm of rounding).
    let platform = (
        Vec3::new(49.417778, 7.797606, 25.014093),
        Vec3::new(38.26514, 7.797606, 26.120773),
    );
    let ground = (
        Vec3::new(50.339966, -2.195984, 22.722874),
        Vec3::new(47.30126, -2.438035, 23.093075),
    );
    for (t, (ea, eb)) in case
        .queries
        .iter()
        .zip([platform, ground, platform, platform])
    {
        let end = t.start + (t.end - t.start) * 2.0;
        let f = QueryFilter::with_flags(t.include, t.exclude);
        let s = q
            .find_nearest_poly(t.start, DEFAULT_HALF_EXTENTS, &f)
            .unwrap();
        let hit = q
            .raycast(s.poly, t.start, end, &f, &RaycastOptions::default())
            .unwrap();
        assert!(hit.hit(), "line {}: no hit", t.line);
        let p = hit.point(t.start, end);
        // Inside the level's edge by 0.6 to 0.9 m (the edge runs east to west: inside is south).
        let inside = cross_xz(ea, eb, p) / (eb - ea).with_y(0.0).length();
        assert!(
            (0.55..=0.95).contains(&inside),
            "line {}: hit {p}, {inside} m inside the edge",
            t.line
        );
        // The hit is the first wall edge the segment crosses among the polygons it crossed,
        // on the last of them; `t` is where it crosses it, the normal faces back along the ray.
        let (wall_t, poly, edge) = first_wall_crossing(nav, &hit.polys, t.start, end)
            .unwrap_or_else(|| panic!("line {}: no wall crossed", t.line));
        assert!(
            (hit.t - wall_t).abs() < 1e-4,
            "line {}: t {} vs {wall_t}",
            t.line,
            hit.t
        );
        assert_eq!(
            (Some(poly), hit.hit_edge),
            (hit.polys.last().copied(), Some(edge))
        );
        let e = nav.poly(poly).unwrap().edges().nth(edge).unwrap();
        assert_eq!(e.neighbour, EdgeNeighbour::Wall);
        let along = (e.end - e.start).with_y(0.0).normalize();
        assert!(hit.normal.dot(along).abs() < 1e-4, "line {}", t.line);
        assert!(hit.normal.dot(end - t.start) < 0.0, "line {}", t.line);
        assert!(cross_xz(e.start, e.end, p).abs() / (e.end - e.start).with_y(0.0).length() < 1e-3);
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
