//! DetourCrowd through navkit: 100 agents crossing nav_test.obj and dungeon.obj to random
//! goals, and bad input.

mod common;

use glam::Vec3;
use navkit::agents::crowd::{AgentParams, Crowd, TargetState};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::tools::compare::{CompareSettings, Comparer};

use common::off_mesh;

/// Runs 100 agents between random connected pairs for 60 s; returns (arrived share, worst
/// distance off the navmesh).
fn cross(mesh: &str) -> (f32, f32) {
    let b = common::build(mesh);
    let pairs = Comparer::new(b.navmesh(), None, CompareSettings::default())
        .unwrap()
        .random_pairs(100, 11)
        .unwrap();
    assert_eq!(pairs.len(), 100);
    let mut crowd = Crowd::new(b.navmesh(), 100, 0.6).unwrap();
    let mut agents = Vec::new();
    for &(start, goal) in &pairs {
        let h = crowd.add_agent(start, AgentParams::default()).unwrap();
        crowd.request_move_target(h, goal).unwrap();
        agents.push((h, goal));
    }
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let mut worst: f32 = 0.0;
    for step in 0..(90 * 30) {
        crowd.update(1.0 / 30.0).unwrap();
        if step % 10 == 0 {
            for &(h, _) in &agents {
                worst = worst.max(off_mesh(&mut q, &f, crowd.agent(h).unwrap().position));
            }
        }
    }
    let arrived = agents
        .iter()
        .filter(|&&(h, goal)| {
            let a = crowd.agent(h).unwrap();
            let d = a.position - a.target;
            assert!(
                a.target.distance(goal) < 4.5,
                "the target is the snapped goal"
            );
            a.target_state == TargetState::Valid && Vec3::new(d.x, 0.0, d.z).length() < 1.5
        })
        .count();
    (arrived as f32 / agents.len() as f32, worst)
}

#[test]
fn a_hundred_agents_cross_nav_test_and_dungeon() {
    // Measured (deterministic: seeded pairs, fixed dt): 90 of 100 on nav_test, 93 of 100 on
    // dungeon; the other agents have not arrived after 90 s (not yet analysed why). The bounds
    // are those counts: one agent fewer fails.
    for (mesh, min_share) in [("nav_test.obj", 0.90), ("dungeon.obj", 0.93)] {
        let (share, worst) = cross(mesh);
        println!(
            "{mesh}: {:.0}% arrived within 1.5 of their goals in 90 s; worst off-mesh {worst:.4}",
            share * 100.0
        );
        assert!(share >= min_share, "{mesh}: {share}");
        assert!(worst < 0.01, "{mesh}: {worst}");
    }
}

#[test]
fn bad_input_is_an_error_and_stale_handles_are_rejected() {
    let b = common::build("dungeon.obj");
    let mut crowd = Crowd::new(b.navmesh(), 2, 0.6).unwrap();
    let pairs = Comparer::new(b.navmesh(), None, CompareSettings::default())
        .unwrap()
        .random_pairs(3, 1)
        .unwrap();
    let a = crowd.add_agent(pairs[0].0, AgentParams::default()).unwrap();
    let b2 = crowd.add_agent(pairs[1].0, AgentParams::default()).unwrap();
    assert!(
        matches!(
            crowd.add_agent(pairs[2].0, AgentParams::default()),
            Err(navkit::Error::PoolFull {
                what: "crowd agent",
                capacity: 2
            })
        ),
        "beyond capacity"
    );
    assert!(crowd.request_move_target(a, Vec3::NAN).is_err());
    assert!(
        matches!(
            crowd.request_move_target(a, Vec3::splat(1e5)),
            Err(navkit::Error::PointOffMesh { .. })
        ),
        "target off the mesh"
    );
    assert!(
        crowd
            .request_move_velocity(a, Vec3::new(f32::INFINITY, 0.0, 0.0))
            .is_err()
    );
    assert!(
        crowd
            .add_agent(Vec3::splat(1e5), AgentParams::default())
            .is_err()
    );
    for bad in [
        AgentParams {
            radius: f32::NAN,
            ..Default::default()
        },
        AgentParams {
            radius: 5.0,
            ..Default::default()
        },
        AgentParams {
            max_speed: -1.0,
            ..Default::default()
        },
        AgentParams {
            obstacle_avoidance_type: 9,
            ..Default::default()
        },
    ] {
        assert!(crowd.set_agent_params(a, bad).is_err(), "{bad:?}");
    }
    assert!(
        crowd.update(f32::NAN).is_err() && crowd.update(0.0).is_err() && crowd.update(5.0).is_err()
    );
    crowd.remove_agent(a).unwrap();
    assert!(
        matches!(
            crowd.remove_agent(a),
            Err(navkit::Error::StaleHandle { .. })
        ),
        "removed twice"
    );
    assert!(
        matches!(crowd.agent(a), Err(navkit::Error::StaleHandle { .. })),
        "stale handle"
    );
    // The slot is reused by a new agent; the old handle still does not reach it.
    let c = crowd.add_agent(pairs[2].0, AgentParams::default()).unwrap();
    assert_eq!(c.index(), a.index());
    assert!(crowd.agent(a).is_err() && crowd.request_move_target(a, pairs[0].1).is_err());
    assert!(crowd.agent(c).is_ok() && crowd.agent(b2).is_ok());
    assert_eq!(crowd.len(), 2);
    assert!(Crowd::new(b.navmesh(), 0, 0.6).is_err());
    assert!(Crowd::new(b.navmesh(), 10, f32::NAN).is_err());
    // Velocity requests and resets.
    crowd
        .request_move_velocity(c, Vec3::new(1.0, 0.0, 0.0))
        .unwrap();
    crowd.update(0.1).unwrap();
    assert_eq!(crowd.agent(c).unwrap().target_state, TargetState::Velocity);
    crowd.reset_move_target(c).unwrap();
    assert_eq!(crowd.agent(c).unwrap().target_state, TargetState::None);
}

/// Where an agent is after one 0.1 s update on a 20 x 20 m floor, walking from (2, 0, 10) to
/// (18, 0, 10), having been given `velocity` first (or not).
fn one_step_from(velocity: Option<Vec3>) -> (f32, Vec3) {
    let mesh = navkit::TriMesh::new(
        vec![
            0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0,
        ],
        vec![0, 1, 2, 0, 2, 3],
    )
    .unwrap();
    let geom = navkit::InputGeometry::from_mesh(mesh);
    let nav = navkit::NavMeshBuilder::new(&geom)
        .solo()
        .unwrap()
        .into_navmesh();
    let mut crowd = Crowd::new(&nav, 4, 0.6).unwrap();
    let a = crowd
        .add_agent(Vec3::new(2.0, 0.0, 10.0), AgentParams::default())
        .unwrap();
    crowd
        .request_move_target(a, Vec3::new(18.0, 0.0, 10.0))
        .unwrap();
    if let Some(v) = velocity {
        crowd.set_agent_velocity(a, v).unwrap();
        assert_eq!(crowd.agent(a).unwrap().velocity, v);
    }
    crowd.update(0.1).unwrap();
    let s = crowd.agent(a).unwrap();
    (s.position.x - 2.0, s.velocity)
}

#[test]
fn an_agent_given_a_velocity_moves_on_from_it() {
    // From rest: 0.1 s at 8 m/s^2 (RecastDemo's max acceleration) gives 0.8 m/s, 0.08 m.
    let (moved, v) = one_step_from(None);
    assert!((moved - 0.08).abs() < 0.005, "{moved}");
    assert!((v.x - 0.8).abs() < 0.01, "{v}");
    // At its pace (3.5 m/s) already: 0.35 m in the step.
    let (moved, v) = one_step_from(Some(Vec3::new(3.5, 0.0, 0.0)));
    assert!((moved - 0.35).abs() < 0.005, "{moved}");
    assert!((v.x - 3.5).abs() < 0.01, "{v}");
    // Going the other way at 3.5 m/s: it brakes by 0.8 m/s, so it still moves back 0.27 m.
    let (moved, v) = one_step_from(Some(Vec3::new(-3.5, 0.0, 0.0)));
    assert!((moved + 0.27).abs() < 0.005, "{moved}");
    assert!((v.x + 2.7).abs() < 0.01, "{v}");
}

#[test]
fn a_bad_velocity_or_a_stale_handle_is_refused() {
    let b = common::build("dungeon.obj");
    let mut crowd = Crowd::new(b.navmesh(), 2, 0.6).unwrap();
    let start = Comparer::new(b.navmesh(), None, CompareSettings::default())
        .unwrap()
        .random_pairs(1, 1)
        .unwrap()[0]
        .0;
    let a = crowd.add_agent(start, AgentParams::default()).unwrap();
    assert!(matches!(
        crowd.set_agent_velocity(a, Vec3::new(f32::NAN, 0.0, 0.0)),
        Err(navkit::Error::NonFinite { .. })
    ));
    crowd.remove_agent(a).unwrap();
    assert!(
        crowd.set_agent_velocity(a, Vec3::X).is_err(),
        "stale handle"
    );
}
