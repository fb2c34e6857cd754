//! Queries from systems (`NavQueries`: paths with the optimal one, nearest points, raycasts)
//! and paths off the frame's thread (`PathRequests`, answered as `PathFound`), on a floor with
//! a wall and a doorway whose shortest path is derived by hand.

mod common;

use std::time::Duration;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_navkit::navkit::query::{DEFAULT_HALF_EXTENTS, OptimalOptions};
use bevy_navkit::navkit::service::PathOutcome;
use bevy_navkit::navkit::{NavPath, PathOptions, PathStatus};
use bevy_navkit::{NavQueries, PathFound, PathRequests, QueryError};
use common::{app, until_navmesh};

/// The doorway level, built.
fn doorway_level(app: &mut App) {
    common::doorway_level(app);
    until_navmesh(app);
}

const START: Vec3 = Vec3::new(5.0, 0.0, 5.0);
const GOAL: Vec3 = Vec3::new(5.0, 0.0, 25.0);

/// The shortest way by hand. The agent's centre keeps its radius (0.6 m) from the wall, so
/// round each jamb corner ((13.5, 14.7) and (13.5, 15.3)) it follows a circle of 0.6 m: tangents
/// of sqrt(12.897^2 - 0.6^2) = 12.883 m from each end, two arcs of 0.6 x 0.72 rad and 0.6 m
/// between them: 27.23 m, the least a navmesh of this level can give. Recast's cells (0.3 m)
/// square the eroded corners and move each eroded edge out by up to a cell (a face on a cell
/// boundary blocks the cell it touches): at most round (14.4, 13.8) and (14.4, 16.2),
/// 2 x |(9.4, 8.8)| + 2.4 = 28.15 m.
const SHORTEST: std::ops::RangeInclusive<f32> = 27.2..=28.2;

fn optimal() -> PathOptions {
    PathOptions {
        optimal: Some(OptimalOptions::default()),
        ..PathOptions::default()
    }
}

#[test]
fn nav_queries_give_paths_nearest_points_and_raycasts() {
    let mut app = app();
    let before = app
        .world_mut()
        .run_system_once(|nav: NavQueries| nav.path(START, GOAL, &PathOptions::default()).err())
        .unwrap();
    assert!(matches!(before, Some(QueryError::NoNavMesh)), "{before:?}");
    doorway_level(&mut app);
    let path: NavPath = app
        .world_mut()
        .run_system_once(|nav: NavQueries| nav.path(START, GOAL, &optimal()).unwrap())
        .unwrap();
    assert_eq!(path.status(), PathStatus::Complete);
    let opt = path.optimal.as_ref().unwrap();
    assert!(SHORTEST.contains(&opt.length_xz), "{}", opt.length_xz);
    assert!(opt.length_xz <= path.straight.length() + 1e-3);
    // It turns only at the jambs: every point where it bends lies in the doorway's x range.
    let xz = |v: Vec3| Vec2::new(v.x, v.z);
    let mut bends = 0;
    for w in opt.points.windows(3) {
        let (a, b, c) = (xz(w[0].pos), xz(w[1].pos), xz(w[2].pos));
        if (b - a).perp_dot(c - b).abs() > 1e-3 * (b - a).length() * (c - b).length() {
            bends += 1;
            assert!((13.5..=16.5).contains(&b.x), "bends at {b}");
        }
    }
    assert_eq!(bends, 2);
    let near = app
        .world_mut()
        .run_system_once(|nav: NavQueries| {
            nav.nearest(Vec3::new(5.0, 1.0, 5.0), DEFAULT_HALF_EXTENTS)
        })
        .unwrap()
        .unwrap();
    assert!(near.point.y.abs() < 0.3 && near.over_poly, "{}", near.point);
    // Straight up x = 5 the ray stops at the wall's eroded edge: its face (z 14.7) less the
    // radius (0.6 m), less one more cell (0.3 m) where the face lies on a cell boundary and
    // Recast counts the cell it touches as blocked.
    let (hit_at, hit) = app
        .world_mut()
        .run_system_once(|nav: NavQueries| nav.raycast(START, GOAL).unwrap())
        .unwrap();
    assert!(hit.hit());
    assert!((13.75..=14.15).contains(&hit_at.z), "{hit_at}");
}

/// The answers that arrived, by entity.
#[derive(Resource, Default)]
struct Answers(Vec<(Entity, Option<NavPath>)>);

fn collect(mut found: MessageReader<PathFound>, mut answers: ResMut<Answers>) {
    for f in found.read() {
        let path = match &f.outcome {
            PathOutcome::Done(Ok(p)) => Some(p.clone()),
            _ => None,
        };
        answers.0.push((f.entity, path));
    }
}

#[test]
fn path_requests_are_answered_by_messages() {
    let mut app = app();
    app.init_resource::<Answers>();
    app.add_systems(Last, collect);
    doorway_level(&mut app);
    let (a, b) = (
        app.world_mut().spawn_empty().id(),
        app.world_mut().spawn_empty().id(),
    );
    {
        let mut requests = app.world_mut().resource_mut::<PathRequests>();
        requests.request(a, START, GOAL, optimal());
        requests.request(b, GOAL, Vec3::new(25.0, 0.0, 25.0), PathOptions::default());
    }
    for _ in 0..2000 {
        app.update();
        if app.world().resource::<Answers>().0.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let answers = &app.world().resource::<Answers>().0;
    assert_eq!(answers.len(), 2, "both answered");
    let path_a = answers
        .iter()
        .find(|(e, _)| *e == a)
        .unwrap()
        .1
        .clone()
        .unwrap();
    let opt = path_a.optimal.unwrap();
    assert!(SHORTEST.contains(&opt.length_xz), "{}", opt.length_xz);
    let path_b = answers
        .iter()
        .find(|(e, _)| *e == b)
        .unwrap()
        .1
        .clone()
        .unwrap();
    // Same side of the wall: a straight line, 20 m.
    assert!(
        (path_b.straight.length() - 20.0).abs() < 0.05,
        "{}",
        path_b.straight.length()
    );
    assert_eq!(app.world().resource::<PathRequests>().pending(), 0);
}
