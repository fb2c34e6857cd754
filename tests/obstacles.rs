//! Obstacles from scenario files: paths and crowds go around them.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter, StraightPathOptions};
use navkit::tilecache::ObstacleShape;
use navkit::tools::simulation::{
    AgentBehaviour, AgentSpec, Scenario, SimSettings, simulate_scenario,
};
use navkit::tools::testcase::TestCase;
use navkit::{BuildSettings, InputGeometry};

fn straight(nav: &navkit::navmesh::NavMesh, a: Vec3, b: Vec3) -> (bool, Vec<Vec3>) {
    let mut q = NavMeshQuery::new(nav, 4096).unwrap();
    let f = QueryFilter::default();
    let p = q
        .path(a, b, &f, &PathOptions::corridor_only())
        .unwrap()
        .corridor;
    let st = q
        .find_straight_path(a, b, &p.polys, &StraightPathOptions::default())
        .unwrap();
    (p.is_complete(), st.positions())
}

fn length(p: &[Vec3]) -> f32 {
    p.windows(2).map(|w| w[0].distance(w[1])).sum()
}

#[test]
fn scenario_files_parse_every_shape_and_reject_bad_ones() {
    let path = common::temp("scenario-obstacles.json");
    std::fs::write(
        &path,
        r#"{"obstacles": [
            {"kind": "cylinder", "pos": [1, 0, 2], "radius": 1.0, "height": 2.0},
            {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 2, 1]},
            {"kind": "oriented_box", "center": [3, 1, 3], "half_extents": [2, 1, 0.3], "y_angle": 0.6}
        ]}"#,
    )
    .unwrap();
    let s = Scenario::load(&path).unwrap();
    assert!(s.agents.is_empty());
    assert_eq!(s.obstacles.len(), 3);
    assert!(matches!(s.obstacles[2], ObstacleShape::OrientedBox { y_angle, .. } if y_angle == 0.6));

    for bad in [
        r#"{"obstacles": [{"kind": "sphere", "pos": [0, 0, 0]}]}"#,
        r#"{"obstacles": [{"kind": "cylinder", "pos": [0, 0, 0], "radius": 1}]}"#,
        r#"{"obstacles": [{"kind": "box", "bmin": [0, 0], "bmax": [1, 1, 1]}]}"#,
        r#"{"obstacle": []}"#,
    ] {
        std::fs::write(&path, bad).unwrap();
        assert!(Scenario::load(&path).is_err(), "{bad}");
    }
    // Parses, but the tile cache refuses it: a typed error naming the obstacle.
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let s = Scenario {
        obstacles: vec![ObstacleShape::Cylinder {
            pos: Vec3::ZERO,
            radius: -1.0,
            height: 2.0,
        }],
        ..Scenario::default()
    };
    let e = s
        .tile_cache(&geom, &BuildSettings::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("scenario obstacle 0"), "{e}");
}

#[test]
fn paths_and_crowd_agents_go_around_a_cylinder() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let (a, b) = (case.queries[0].start, case.queries[0].end);
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let settings = BuildSettings::default();

    let free = Scenario::default().tile_cache(&geom, &settings).unwrap();
    let (complete0, path0) = straight(free.navmesh(), a, b);
    assert!(complete0);
    // A cylinder of radius 1 (plus the agent radius 0.6 of clearance) on the middle of the
    // longest leg of the path.
    let leg = path0
        .windows(2)
        .max_by(|x, y| x[0].distance(x[1]).total_cmp(&y[0].distance(y[1])))
        .unwrap();
    let centre = (leg[0] + leg[1]) * 0.5;
    let radius = 1.0 + 0.6;
    let scenario = Scenario {
        agents: vec![AgentSpec {
            start: a,
            goal: b,
            behaviour: AgentBehaviour::Direct,
            seed: 0,
        }],
        obstacles: vec![ObstacleShape::Cylinder {
            pos: centre - Vec3::new(0.0, 1.0, 0.0),
            radius,
            height: 3.0,
        }],
        ..Scenario::default()
    };
    let tc = scenario.tile_cache(&geom, &settings).unwrap();
    assert_eq!(tc.obstacles().len(), 1);
    let (complete1, path1) = straight(tc.navmesh(), a, b);
    assert!(complete1, "there is a way around");
    assert_ne!(path0, path1);
    assert!(length(&path1) > length(&path0));
    let xz = |p: Vec3| Vec3::new(p.x - centre.x, 0.0, p.z - centre.z).length();
    for w in path1.windows(2) {
        for k in 0..=20 {
            let p = w[0].lerp(w[1], k as f32 / 20.0);
            assert!(xz(p) > radius - 0.35, "path point {p} inside the cylinder");
        }
    }

    // A crowd agent on the same trip arrives without entering the cylinder.
    let sim = SimSettings {
        seconds: 40.0,
        record_every: 1,
        ..SimSettings::default()
    };
    let r = simulate_scenario(tc.navmesh(), &scenario.agents, &sim).unwrap();
    assert_eq!(r.arrived, 1, "{:?}", r.agents_detail[0].arrived_at);
    let closest = r.agents_detail[0]
        .trajectory
        .iter()
        .map(|&p| xz(p))
        .fold(f32::INFINITY, f32::min);
    assert!(
        closest > radius - 0.35,
        "the agent came within {closest} of the centre"
    );
    // Without the obstacle it walks straight through where the cylinder stands.
    let r0 = simulate_scenario(free.navmesh(), &scenario.agents, &sim).unwrap();
    let closest0 = r0.agents_detail[0]
        .trajectory
        .iter()
        .map(|&p| xz(p))
        .fold(f32::INFINITY, f32::min);
    assert!(closest0 < 0.5, "{closest0}");
}

#[test]
fn layers_touched_counts_what_an_obstacle_would_carve_and_never_walks_a_huge_box() {
    use navkit::tilecache::{ObstacleState, TileCacheSettings};
    // A flat 20 x 20 floor at y = 0, 48-cell tiles of 0.3 m (14.4 m): 2 x 2 tiles, 1 layer each.
    let floor = navkit::TriMesh::new(
        vec![
            0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0,
        ],
        vec![0, 1, 2, 0, 2, 3],
    )
    .unwrap();
    let geom = InputGeometry::from_mesh(floor);
    let mut tc = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let cyl = |x: f32, y: f32, z: f32, r: f32| ObstacleShape::Cylinder {
        pos: Vec3::new(x, y, z),
        radius: r,
        height: 2.0,
    };
    assert_eq!(
        tc.layers_touched(&cyl(5.0, -0.5, 5.0, 1.0)),
        1,
        "inside one tile"
    );
    assert_eq!(
        tc.layers_touched(&cyl(14.4, -0.5, 14.4, 1.0)),
        4,
        "on the corner of four"
    );
    assert_eq!(
        tc.layers_touched(&cyl(5.0, 50.0, 5.0, 1.0)),
        0,
        "above the floor's layer"
    );
    assert_eq!(
        tc.layers_touched(&cyl(500.0, -0.5, 5.0, 1.0)),
        0,
        "beside the level"
    );
    // Boxes an obstacle may not have are not looked at: the answer is the cap at once.
    assert_eq!(tc.layers_touched(&cyl(5.0, 0.0, 5.0, 1.0e6)), 65);
    assert_eq!(tc.layers_touched(&cyl(f32::NAN, 0.0, 5.0, 1.0)), 65);
    // Upstream's behaviour this guards against: an obstacle touching no layer never finishes.
    let lost = tc.add(&cyl(5.0, 50.0, 5.0, 1.0)).unwrap();
    tc.update_until_done().unwrap();
    assert_eq!(tc.obstacle(lost).unwrap().state, ObstacleState::Processing);
    let carved = tc.add(&cyl(5.0, -0.5, 5.0, 1.0)).unwrap();
    tc.update_until_done().unwrap();
    assert_eq!(tc.obstacle(carved).unwrap().state, ObstacleState::Processed);
}
