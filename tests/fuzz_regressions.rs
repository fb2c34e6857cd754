//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found crashing, each now refused with a
//! typed error or handled; the inputs are written out in code.

use glam::Vec3;
use navkit::query::{MIN_MAX_NODES, NavMeshQuery, PathOptions, QueryFilter};
use navkit::{BuildSettings, Error, InputGeometry, NavMeshBuilder, TriMesh};

/// A 20 x 20 floor at y = 0 around the origin, as one quad.
fn floor() -> InputGeometry {
    let verts = vec![
        -10.0, 0.0, -10.0, 10.0, 0.0, -10.0, 10.0, 0.0, 10.0, -10.0, 0.0, 10.0,
    ];
    InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 2, 1, 0, 3, 2]).unwrap())
}

/// Found by `query`: a query made with `max_nodes` 1, then a corridor search (then
/// `find_path_between`) on the fixture level, crashed in `dtNodePool::getNode` (the node pool's hash table had no buckets).
#[test]
fn query_with_fewer_than_four_nodes_is_refused() {
    let nav = NavMeshBuilder::new(&floor()).solo().unwrap().into_navmesh();
    for n in [0, 1, 2, 3] {
        let Err(e) = NavMeshQuery::new(&nav, n) else {
            panic!("max_nodes {n} accepted")
        };
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert!(e.to_string().contains("4..=65535"), "{e}");
    }
    assert_eq!(MIN_MAX_NODES, 4);
    let mut q = NavMeshQuery::new(&nav, MIN_MAX_NODES).unwrap();
    let p = q
        .path(
            Vec3::ZERO,
            Vec3::new(0.0625, 0.0, 5.0),
            &QueryFilter::default(),
            &PathOptions::corridor_only(),
        )
        .unwrap()
        .corridor;
    // One polygon holds both ends: the corridor is that polygon, complete.
    assert!(p.is_complete(), "{p:?}");
    assert!(!p.polys.is_empty());
}

/// The `navmesh_build` input: a few triangles, cell size 0.375, 3 vertices per polygon and a
/// detail sample distance of -0 (below 0.9: no sampling). Recast's detail mesh read its polygon
/// outline uninitialised and out of bounds (a stack-buffer-overflow under ASan).
fn fuzz_build_input() -> (InputGeometry, BuildSettings) {
    let verts = vec![
        -13.75, -0.5, -0.25, -0.25, -0.25, -13.75, -13.75, -13.75, -10.75, 13.5, -13.75, -0.25,
        -0.25, -0.25, 0.0,
    ];
    let tris = vec![1, 1, 1, 1, 0, 0, 2, 4, 2, 0, 3, 1, 1, 1, 1];
    let mesh = TriMesh {
        verts,
        tris,
        source: None,
        warnings: Vec::new(),
    };
    let settings = BuildSettings {
        cell_size: 0.375,
        verts_per_poly: 3,
        detail_sample_dist: -0.0,
        tile_size: 201,
        ..BuildSettings::default()
    };
    (InputGeometry::from_mesh(mesh), settings)
}

#[test]
fn fuzz_build_input_without_detail_sampling_builds() {
    let (geom, settings) = fuzz_build_input();
    let b = NavMeshBuilder::new(&geom).settings(settings.clone());
    // Whether anything is walkable is beside the point: no crash, and a result either way.
    let solo = b.solo();
    let tiled = b.tiled();
    assert_eq!(solo.is_ok(), tiled.is_ok(), "{solo:?} / {tiled:?}");
}

/// Without detail sampling there is no Recast detail mesh: Detour triangulates each polygon
/// from its own vertices, heights on the floor stay exact and paths are found, solo and tiled.
#[test]
fn no_detail_sampling_gives_polygon_triangulation() {
    for d in [0.0, 0.5, 0.89] {
        let settings = BuildSettings {
            detail_sample_dist: d,
            ..BuildSettings::default()
        };
        let geom = floor();
        let b = NavMeshBuilder::new(&geom).settings(settings);
        let solo = b.solo().unwrap();
        assert_eq!(solo.report().detail_verts, 0, "{d}");
        assert_eq!(solo.report().detail_tris, 0, "{d}");
        let sampled = NavMeshBuilder::new(&geom).solo().unwrap();
        assert!(sampled.report().detail_tris > 0);
        // The same polygons either way: only the height detail differs.
        assert_eq!(
            solo.navmesh().polys().len(),
            sampled.navmesh().polys().len(),
            "{d}"
        );
        let mut q = solo.navmesh().query().unwrap();
        let start = Vec3::new(-8.0, 0.0, -8.0);
        let goal = Vec3::new(8.0, 0.0, 8.0);
        let p = q
            .path(
                start,
                goal,
                &QueryFilter::default(),
                &PathOptions::default(),
            )
            .unwrap();
        assert!(p.is_complete(), "{d}");
        let near = q
            .find_nearest_poly(goal, Vec3::new(1.0, 2.0, 1.0), &QueryFilter::default())
            .unwrap();
        assert!((near.point.y - 0.0).abs() < 0.25, "{d}: {near:?}");
        let h = q.poly_height(near.poly, goal).unwrap();
        assert!(h.abs() < 0.25, "{d}: {h}");
        let tiled = b.tiled().unwrap();
        let mut tq = tiled.navmesh().query().unwrap();
        assert!(
            tq.path(
                start,
                goal,
                &QueryFilter::default(),
                &PathOptions::default()
            )
            .unwrap()
            .is_complete()
        );
    }
}

/// Found by `query`: a path with smooth options (then `path_with`) with `max_polys` =
/// `usize::MAX` reserved that many corridor entries (a capacity-overflow panic); both limits
/// are now checked like the other buffers.
#[test]
fn smooth_path_limits_are_checked() {
    use navkit::query::{MAX_BUFFER, SmoothPathOptions};
    let nav = NavMeshBuilder::new(&floor()).solo().unwrap().into_navmesh();
    let mut q = nav.query().unwrap();
    let (a, b) = (Vec3::new(-8.0, 0.0, -8.0), Vec3::new(8.0, 0.0, 8.0));
    let tiny = f32::MIN_POSITIVE;
    for (max_points, max_polys) in [
        (203, usize::MAX),
        (usize::MAX, 256),
        (0, 256),
        (2048, 0),
        (MAX_BUFFER + 1, 256),
    ] {
        let opts = SmoothPathOptions {
            step_size: tiny,
            slop: tiny,
            max_points,
            max_polys,
        };
        let with = PathOptions {
            smooth: Some(opts),
            ..PathOptions::default()
        };
        let Err(e) = q.path(a, b, &QueryFilter::default(), &with) else {
            panic!("{opts:?} accepted")
        };
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert!(e.to_string().contains("max_polys"), "{e}");
    }
    let opts = SmoothPathOptions {
        max_polys: MAX_BUFFER,
        ..SmoothPathOptions::default()
    };
    let with = PathOptions {
        smooth: Some(opts),
        ..PathOptions::default()
    };
    let p = q.path(a, b, &QueryFilter::default(), &with).unwrap();
    assert!(p.smooth.reached_end, "{:?}", p.smooth);
}

/// Found by `crowd` in the long run: avoidance parameters with 32 adaptive divisions and 4 rings
/// made `dtObstacleAvoidanceQuery::sampleVelocityAdaptive` write past its pattern buffer on the
/// stack (AddressSanitizer), and any even division count left one sample of the pattern unset.
/// Such parameters are refused; odd counts (RecastDemo's presets) work as before.
#[test]
fn avoidance_with_even_or_too_many_divisions_is_refused() {
    use navkit::agents::crowd::{AvoidanceParams, AvoidanceQuality, Crowd};
    let nav = NavMeshBuilder::new(&floor()).solo().unwrap().into_navmesh();
    let mut crowd = Crowd::new(&nav, 8, 0.6).unwrap();
    let good = AvoidanceParams::preset(AvoidanceQuality::High);
    for (divs, rings, depth) in [
        (32, 4, 3),
        (8, 2, 3),
        (0, 2, 3),
        (33, 2, 3),
        (7, 5, 3),
        (7, 0, 3),
        (7, 2, 0),
        (7, 2, 11),
    ] {
        let p = AvoidanceParams {
            adaptive_divs: divs,
            adaptive_rings: rings,
            adaptive_depth: depth,
            ..good
        };
        let e = crowd.set_avoidance_params(0, p).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument(_)),
            "{divs} {rings} {depth}: {e:?}"
        );
    }
    for (divs, rings, depth) in [(1, 1, 1), (7, 3, 3), (31, 4, 10)] {
        let p = AvoidanceParams {
            adaptive_divs: divs,
            adaptive_rings: rings,
            adaptive_depth: depth,
            ..good
        };
        crowd.set_avoidance_params(0, p).unwrap();
    }
    // The largest accepted pattern runs: an agent walks across the floor.
    let a = crowd
        .add_agent(Vec3::new(-5.0, 0.0, 0.0), Default::default())
        .unwrap();
    crowd
        .request_move_target(a, Vec3::new(5.0, 0.0, 0.0))
        .unwrap();
    for _ in 0..100 {
        crowd.update(0.1).unwrap();
    }
    assert!(crowd.agent(a).unwrap().position.x > 0.0);
}
