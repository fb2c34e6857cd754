//! Agents: navkit's crowd stepped in `FixedUpdate` on the scene's navmesh. They arrive (through a
//! doorway; up a ramp to an upper floor), stop when their target is removed, leave the
//! `Transform` alone when a controller moves them, free their slot when despawned, and keep
//! their pace while the navmesh is rebuilt under them every frame.

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_navkit::navkit::agents::follower::FollowerSettings;
use bevy_navkit::{AgentMover, AgentStatus, AgentTarget, CrowdSettings, NavAgent};
use common::{doorway_level, quad, quads, spawn_source, until_navmesh};

/// Steps of 1/64 s (Bevy's fixed step): one fixed update per frame.
const STEP: Duration = Duration::from_micros(15_625);

fn app() -> App {
    let mut app = common::app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    app
}

/// Runs `frames` frames (of one fixed step each), calling `each` after every frame.
fn run(app: &mut App, frames: usize, mut each: impl FnMut(&mut App)) {
    for _ in 0..frames {
        app.update();
        each(app);
    }
}

fn status(app: &App, e: Entity) -> AgentStatus {
    app.world().get::<AgentStatus>(e).unwrap().clone()
}

fn position(app: &App, e: Entity) -> Vec3 {
    app.world().get::<Transform>(e).unwrap().translation
}

#[test]
fn agents_go_through_the_doorway_and_arrive() {
    let mut app = app();
    doorway_level(&mut app);
    until_navmesh(&mut app);
    let starts = [3.0, 8.0, 22.0, 27.0].map(|x| Vec3::new(x, 0.0, 5.0));
    let agents: Vec<Entity> = starts
        .iter()
        .map(|&s| {
            let target = AgentTarget(Vec3::new(30.0 - s.x, 0.0, 25.0));
            app.world_mut()
                .spawn((NavAgent::default(), Transform::from_translation(s), target))
                .id()
        })
        .collect();
    let mut crossed_at = vec![None; agents.len()];
    let mut frames = 0;
    while frames < 64 * 60 && !agents.iter().all(|&a| status(&app, a).arrived()) {
        let before: Vec<Vec3> = agents.iter().map(|&a| position(&app, a)).collect();
        run(&mut app, 1, |_| {});
        frames += 1;
        for (i, &a) in agents.iter().enumerate() {
            let (p, q) = (before[i], position(&app, a));
            if p.z < 15.0 && q.z >= 15.0 {
                crossed_at[i] = Some(p.x + (q.x - p.x) * (15.0 - p.z) / (q.z - p.z));
            }
        }
    }
    for (i, &a) in agents.iter().enumerate() {
        let s = status(&app, a);
        let target = Vec3::new(30.0 - starts[i].x, 0.0, 25.0);
        assert!(
            s.arrived(),
            "agent {i} at {} after {frames} steps: {s:?}",
            position(&app, a)
        );
        // navkit's arrival: within max(radius 0.6, arrive_distance 0.5) on the xz-plane.
        let d = position(&app, a) - target;
        assert!(d.x.hypot(d.z) <= 0.6 + 1e-3, "agent {i} {d}");
        // Through the doorway, clear of its jambs by about the agent's radius (0.6 m).
        let x = crossed_at[i].expect("crossed the wall's line");
        assert!(
            (13.5..=16.5).contains(&x),
            "agent {i} crossed z = 15 at x = {x}"
        );
    }
    // Walking 3.5 m/s at most, the farthest (about 26 m, through the door) takes over 7 s.
    assert!(frames > 7 * 64, "{frames}");
}

#[test]
fn an_agent_walks_up_the_ramp_to_the_upper_floor() {
    let mut app = app();
    // Ground 20 x 20 at y 0; an upper floor over its far half (z 10..20) at y 3; a ramp 3 m wide
    // (x 0..3) from z 2 (y 0) up to its edge at z 10 (y 3): 20.6 degrees.
    let level = quads(&[
        quad(0.0, 0.0, 20.0, 20.0, 0.0),
        quad(0.0, 10.0, 20.0, 20.0, 3.0),
        [
            [0.0, 0.0, 2.0],
            [0.0, 3.0, 10.0],
            [3.0, 3.0, 10.0],
            [3.0, 0.0, 2.0],
        ],
    ]);
    spawn_source(&mut app, level, Vec3::ZERO);
    until_navmesh(&mut app);
    let goal = Vec3::new(15.0, 3.0, 15.0);
    let a = app
        .world_mut()
        .spawn((
            NavAgent::default(),
            Transform::from_xyz(15.0, 0.0, 5.0),
            AgentTarget(goal),
        ))
        .id();
    let mut min_x = f32::MAX;
    let mut frames = 0;
    while frames < 64 * 60 && !status(&app, a).arrived() {
        run(&mut app, 1, |_| {});
        frames += 1;
        let p = position(&app, a);
        if p.y > 1.0 && p.y < 2.0 {
            min_x = min_x.min(p.x);
        }
    }
    let p = position(&app, a);
    assert!(status(&app, a).arrived(), "at {p} after {frames} steps");
    assert!((p.y - 3.0).abs() < 0.3, "on the upper floor: {p}");
    // Halfway up (y 1..2) it was on the ramp: x < 3.
    assert!(min_x < 3.0, "{min_x}");
    // The way (about 12 m to the ramp's foot, 8.5 m up it, 13 m to the goal) takes over 9 s.
    assert!(frames > 9 * 64, "{frames}");
}

#[test]
fn removing_the_target_stops_the_agent_and_despawning_frees_its_slot() {
    let mut app = app();
    app.insert_resource(CrowdSettings {
        max_agents: 2,
        ..CrowdSettings::default()
    });
    spawn_source(
        &mut app,
        quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]),
        Vec3::ZERO,
    );
    until_navmesh(&mut app);
    let spawn = |app: &mut App, x: f32| {
        app.world_mut()
            .spawn((
                NavAgent::default(),
                Transform::from_xyz(x, 0.0, 3.0),
                AgentTarget(Vec3::new(x, 0.0, 27.0)),
            ))
            .id()
    };
    let (a, b, c) = (
        spawn(&mut app, 5.0),
        spawn(&mut app, 15.0),
        spawn(&mut app, 25.0),
    );
    run(&mut app, 64, |_| {});
    assert!(status(&app, a).on_navmesh && status(&app, b).on_navmesh);
    assert!(
        !status(&app, c).on_navmesh,
        "a crowd of two has no room for a third"
    );
    assert_eq!(position(&app, c), Vec3::new(25.0, 0.0, 3.0));
    // a stops where it is.
    app.world_mut().entity_mut(a).remove::<AgentTarget>();
    run(&mut app, 64, |_| {});
    let stopped = position(&app, a);
    run(&mut app, 64, |_| {});
    assert!(
        position(&app, a).distance(stopped) < 0.05,
        "{stopped} {}",
        position(&app, a)
    );
    assert!(status(&app, a).velocity.length() < 0.05);
    assert!(stopped.z > 3.5 && stopped.z < 20.0, "{stopped}");
    // b's slot goes to c.
    app.world_mut().entity_mut(b).despawn();
    run(&mut app, 64, |_| {});
    assert!(status(&app, c).on_navmesh);
    assert!(position(&app, c).z > 3.5, "c walks: {}", position(&app, c));
}

#[test]
fn a_velocity_mover_gets_a_desired_velocity_and_keeps_its_transform() {
    let mut app = app();
    spawn_source(
        &mut app,
        quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]),
        Vec3::ZERO,
    );
    until_navmesh(&mut app);
    let start = Vec3::new(5.0, 0.0, 5.0);
    let a = app
        .world_mut()
        .spawn((
            NavAgent::default().with_mover(AgentMover::Velocity),
            Transform::from_translation(start),
            AgentTarget(Vec3::new(25.0, 0.0, 5.0)),
        ))
        .id();
    run(&mut app, 32, |_| {});
    assert_eq!(
        position(&app, a),
        start,
        "the crowd leaves the Transform to the controller"
    );
    let v = status(&app, a).desired_velocity;
    // Towards +x at up to 3.5 m/s.
    assert!(v.x > 1.0 && v.x <= 3.5 + 1e-3 && v.z.abs() < 0.2, "{v}");
}

#[test]
fn a_follower_agent_follows_its_path_through_the_doorway_outside_the_crowd() {
    let mut app = app();
    app.insert_resource(CrowdSettings {
        max_agents: 1,
        ..CrowdSettings::default()
    });
    doorway_level(&mut app);
    until_navmesh(&mut app);
    let settings = FollowerSettings::default();
    let follower = app
        .world_mut()
        .spawn((
            NavAgent::default().with_mover(AgentMover::Follower(settings)),
            Transform::from_xyz(5.0, 0.0, 5.0),
            AgentTarget(Vec3::new(5.0, 0.0, 25.0)),
        ))
        .id();
    // The crowd's one slot stays free for a crowd agent.
    let walker = app
        .world_mut()
        .spawn((
            NavAgent::default(),
            Transform::from_xyz(25.0, 0.0, 5.0),
            AgentTarget(Vec3::new(25.0, 0.0, 10.0)),
        ))
        .id();
    let mut crossed_at = None;
    let mut frames = 0;
    while frames < 64 * 60 && !status(&app, follower).arrived() {
        let p = position(&app, follower);
        run(&mut app, 1, |_| {});
        frames += 1;
        let q = position(&app, follower);
        if p.z < 15.0 && q.z >= 15.0 {
            crossed_at = Some(p.x + (q.x - p.x) * (15.0 - p.z) / (q.z - p.z));
        }
    }
    let p = position(&app, follower);
    assert!(
        status(&app, follower).arrived(),
        "at {p} after {frames} steps"
    );
    // The follower stops at its finish line through the goal, within a step of it (xz), on
    // the navmesh's surface (its polygons lie up to a cell height, 0.2 m, above the floor).
    assert!(
        (p - Vec3::new(5.0, 0.0, 25.0)).with_y(0.0).length() < 0.1,
        "{p}"
    );
    assert!((0.0..=0.25).contains(&p.y), "{p}");
    let x = crossed_at.expect("crossed the wall's line");
    assert!((13.5..=16.5).contains(&x), "crossed z = 15 at x = {x}");
    // About 27.5 m at 3.5 m/s, slowing over the last 2 m: at least 7.8 s.
    assert!(frames as f32 / 64.0 > 7.8, "{frames}");
    assert!(
        status(&app, walker).on_navmesh,
        "the crowd agent had the slot"
    );
}

/// Fixed steps until `agent` arrives (at most 60 s of simulated time), with `each` after every
/// frame and 2 ms of wall time for the builds on other threads.
fn steps_to_arrive(app: &mut App, agent: Entity, mut each: impl FnMut(&mut App, usize)) -> usize {
    for step in 0..64 * 60 {
        if status(app, agent).arrived() {
            return step;
        }
        app.update();
        each(app, step);
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("not arrived: {:?}", status(app, agent));
}

/// A tile-cache app: a 30 x 30 m floor, a 1 m post far from the way (x 25) that `moving` moves
/// every frame (new builds one after another), and an agent walking 20 m from (5, 0, 5) to
/// (5, 0, 25). The steps it took and the navmesh generations it saw.
fn walk_beside_a_post(moving: bool) -> (usize, u64) {
    use bevy_navkit::navkit::tilecache::TileCacheSettings;
    use bevy_navkit::{NavMeshBackend, NavMeshSettings, NavObstacle, SceneNavMesh};
    let mut app = app();
    app.insert_resource(NavMeshSettings {
        backend: NavMeshBackend::TileCache(TileCacheSettings::default()),
        ..NavMeshSettings::default()
    });
    spawn_source(
        &mut app,
        quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]),
        Vec3::ZERO,
    );
    let post = app
        .world_mut()
        .spawn((
            NavObstacle::Cylinder {
                radius: 0.5,
                height: 2.0,
            },
            Transform::from_xyz(25.0, 0.0, 10.0),
        ))
        .id();
    until_navmesh(&mut app);
    let first = app.world().resource::<SceneNavMesh>().generation();
    let agent = app
        .world_mut()
        .spawn((
            NavAgent::default(),
            Transform::from_xyz(5.0, 0.0, 5.0),
            AgentTarget(Vec3::new(5.0, 0.0, 25.0)),
        ))
        .id();
    let steps = steps_to_arrive(&mut app, agent, |app, step| {
        if moving {
            let z = 10.0 + (step % 20) as f32 * 0.5;
            app.world_mut()
                .entity_mut(post)
                .insert(Transform::from_xyz(25.0, 0.0, z));
        }
    });
    let seen = app.world().resource::<SceneNavMesh>().generation() - first;
    (steps, seen)
}

#[test]
fn agents_keep_their_pace_while_obstacles_elsewhere_rebuild_the_navmesh() {
    let (calm, calm_builds) = walk_beside_a_post(false);
    let (busy, busy_builds) = walk_beside_a_post(true);
    assert_eq!(calm_builds, 0);
    assert!(
        busy_builds >= 10,
        "only {busy_builds} rebuilds while the agent walked"
    );
    // 20 m at 3.5 m/s, accelerating at 8 m/s^2: about 5.9 s (376 steps), less the arrival
    // distance (measured: 372 steps both ways, with a rebuild about every frame; without the
    // velocity carried into each new crowd the agent had not arrived after 3,840 steps).
    assert!((360..=420).contains(&calm), "{calm} steps");
    assert!(
        busy as f32 <= calm as f32 * 1.05,
        "{busy} steps with {busy_builds} rebuilds, {calm} without"
    );
}
