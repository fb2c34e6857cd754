//! Crowds that keep walking while obstacles are added and removed under them.

mod common;

use std::time::Duration;

use glam::Vec3;
use navkit::crowd::{AgentParams, Crowd};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::simulation::{
    simulate_dynamic, AgentBehaviour, AgentSpec, ObstacleEvent, Scenario, SimSettings,
};
use navkit::testcase::TestCase;
use navkit::tilecache::{ObstacleShape, TileCache, TileCacheSettings};
use navkit::{BuildSettings, InputGeometry};

fn setup() -> (InputGeometry, Vec3, Vec3) {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    (geom, case.queries[0].start, case.queries[0].end)
}

/// The middle of the longest leg of the straight path from `a` to `b`.
fn longest_leg_middle(cache: &TileCache, a: Vec3, b: Vec3) -> Vec3 {
    let mut q = NavMeshQuery::new(cache.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let p = q.find_path_between(a, b, &f).unwrap();
    let st = q
        .find_straight_path(a, b, &p.polys, 256, Default::default())
        .unwrap()
        .positions();
    let leg = st
        .windows(2)
        .max_by(|x, y| x[0].distance(x[1]).total_cmp(&y[0].distance(y[1])))
        .unwrap();
    (leg[0] + leg[1]) * 0.5
}

fn xz_distance(p: Vec3, c: Vec3) -> f32 {
    Vec3::new(p.x - c.x, 0.0, p.z - c.z).length()
}

#[test]
fn an_obstacle_added_ahead_of_a_walking_agent_is_walked_around() {
    let (geom, a, b) = setup();
    let settings = BuildSettings::default();
    let cache = TileCache::build(&geom, &settings, &TileCacheSettings::default()).unwrap();
    let centre = longest_leg_middle(&cache, a, b);
    let radius = 1.0 + 0.6;
    let cylinder = ObstacleShape::Cylinder {
        pos: centre - Vec3::Y,
        radius,
        height: 3.0,
    };

    // Through the Crowd API: the crowd owns the cache and keeps walking while the obstacle is
    // added and carved in.
    let mut crowd = Crowd::with_tile_cache(cache, 4, 0.6).unwrap();
    let agent = crowd.add_agent(a, AgentParams::default()).unwrap();
    crowd.request_move_target(agent, b).unwrap();
    let dt = 1.0 / 30.0;
    let mut added_at = None;
    let mut trajectory = Vec::new();
    let mut rebuilt = 0;
    for frame in 0..(40.0 / dt) as usize {
        let t = frame as f32 * dt;
        if t >= 2.0 && added_at.is_none() {
            let pos = crowd.agent(agent).unwrap().position;
            assert!(
                xz_distance(pos, centre) > 8.0,
                "the agent must still be far from the obstacle when it appears"
            );
            crowd.add_obstacle(&cylinder).unwrap();
            added_at = Some(t);
        }
        rebuilt += crowd
            .update_obstacles(Duration::from_millis(2))
            .unwrap()
            .tiles_rebuilt;
        crowd.update(dt).unwrap();
        trajectory.push(crowd.agent(agent).unwrap().position);
    }
    eprintln!(
        "obstacle at {centre} (r {radius}) added at {added_at:?} s; {rebuilt} tiles rebuilt; \
         closest approach {:.2}; ends {:.2} from the goal",
        trajectory
            .iter()
            .map(|&p| xz_distance(p, centre))
            .fold(f32::INFINITY, f32::min),
        xz_distance(*trajectory.last().unwrap(), b)
    );
    assert!(rebuilt >= 1);
    assert_eq!(crowd.obstacles().len(), 1);
    let end = *trajectory.last().unwrap();
    assert!(
        xz_distance(end, b) < 1.0,
        "the agent arrives: ends at {end}"
    );
    let closest = trajectory
        .iter()
        .map(|&p| xz_distance(p, centre))
        .fold(f32::INFINITY, f32::min);
    assert!(
        closest > radius - 0.35,
        "the agent came within {closest} of the cylinder's axis (radius {radius})"
    );
    // A borrowed-navmesh crowd has no obstacles to change: an error, not a panic.
    let cache = crowd.into_tile_cache().unwrap();
    let mut fixed = Crowd::new(cache.navmesh(), 1, 0.6).unwrap();
    assert!(fixed.add_obstacle(&cylinder).is_err());
    assert!(fixed.update_obstacles(Duration::from_millis(1)).is_err());
}

#[test]
fn scenario_events_add_and_remove_obstacles_during_a_simulation() {
    let (geom, a, b) = setup();
    let settings = BuildSettings::default();
    let cache = TileCache::build(&geom, &settings, &TileCacheSettings::default()).unwrap();
    let centre = longest_leg_middle(&cache, a, b);
    let radius = 1.6;
    let agent = AgentSpec {
        start: a,
        goal: b,
        behaviour: AgentBehaviour::Direct,
        seed: 0,
    };
    let event = |at: f32, add: bool| ObstacleEvent {
        at,
        add: add.then_some(ObstacleShape::Cylinder {
            pos: centre - Vec3::Y,
            radius,
            height: 3.0,
        }),
        remove: (!add).then(|| "pillar".to_string()),
        name: add.then(|| "pillar".to_string()),
    };
    let sim = SimSettings {
        seconds: 40.0,
        record_every: 1,
        ..SimSettings::default()
    };
    let closest = |r: &navkit::simulation::SimReport| {
        r.agents_detail[0]
            .trajectory
            .iter()
            .map(|&p| xz_distance(p, centre))
            .fold(f32::INFINITY, f32::min)
    };

    // Added at 2 s and kept: walked around.
    let kept = Scenario {
        agents: vec![agent.clone()],
        events: vec![event(2.0, true)],
        ..Scenario::default()
    };
    let r = simulate_dynamic(&geom, &settings, &kept, &sim).unwrap();
    eprintln!(
        "kept: arrived at {:?} s, closest {:.2}, tiles rebuilt {}",
        r.agents_detail[0].arrived_at,
        closest(&r),
        r.tiles_rebuilt
    );
    assert_eq!((r.arrived, r.obstacle_events), (1, 1));
    assert!(r.tiles_rebuilt >= 1);
    assert!(closest(&r) > radius - 0.35, "{}", closest(&r));

    // Added at 1 s, removed at 2 s (before the agent gets there): walked straight through.
    let gone = Scenario {
        agents: vec![agent],
        events: vec![event(2.0, false), event(1.0, true)],
        ..Scenario::default()
    };
    let r = simulate_dynamic(&geom, &settings, &gone, &sim).unwrap();
    eprintln!(
        "added and removed: arrived at {:?} s, closest {:.2}",
        r.agents_detail[0].arrived_at,
        closest(&r)
    );
    assert_eq!((r.arrived, r.obstacle_events), (1, 2));
    assert!(closest(&r) < 0.5, "{}", closest(&r));

    // Bad events are errors.
    for bad in [
        vec![event(1.0, false)],
        vec![event(f32::NAN, true)],
        vec![ObstacleEvent {
            at: 1.0,
            add: None,
            remove: None,
            name: None,
        }],
        vec![event(1.0, true), event(2.0, true)],
    ] {
        let s = Scenario {
            events: bad.clone(),
            ..Scenario::default()
        };
        assert!(s.check_events().is_err(), "{bad:?}");
    }
}
