//! The turn-boundary follower on navmesh smooth and straight paths and on grid paths (A* on the
//! mesh-derived grid, simplified): every nav_mesh_test.txt query on nav_test.obj, fixed dt.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::agents::follower::{Follower, FollowerSettings, navmesh_ground};
use navkit::grid::{SearchContext, SearchOptions};
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::tools::testcase::TestCase;

use common::off_mesh;

/// Follows `waypoints` from `start` with a fixed dt; returns (reached, worst distance off the mesh,
/// distance travelled).
fn follow(
    q: &mut NavMeshQuery<'_>,
    f: &QueryFilter,
    start: Vec3,
    waypoints: &[Vec3],
    goal: Vec3,
) -> (bool, f32, f32) {
    let settings = FollowerSettings {
        turn_dist: 1.0,
        ..FollowerSettings::default()
    };
    let mut agent = Follower::new(start, waypoints, settings);
    let mut worst: f32 = 0.0;
    for _ in 0..20_000 {
        let running = {
            let mut ground = navmesh_ground(q, f);
            agent.step(1.0 / 60.0, &mut ground)
        };
        worst = worst.max(off_mesh(q, f, agent.position()));
        if !running {
            break;
        }
    }
    let p = agent.position();
    let reached = agent.finished() && Vec3::new(p.x - goal.x, 0.0, p.z - goal.z).length() < 0.5;
    (reached, worst, agent.travelled())
}

#[test]
fn the_follower_reaches_every_goal_and_stays_on_the_navmesh() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let radius = 0.6;
    let geom = navkit::InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = NavMeshBuilder::new(&geom)
        .settings(navkit::BuildSettings::default())
        .grid()
        .unwrap();
    let mut ctx = SearchContext::new();
    let (mut worst_smooth, mut worst_straight, mut worst_grid): (f32, f32, f32) = (0.0, 0.0, 0.0);
    for t in &case.queries {
        let fp = q.path(t.start, t.end, &f, &PathOptions::default()).unwrap();
        let goal = fp.smooth.points.last().copied().unwrap();
        let start = fp.smooth.points[0];

        let (ok, off, _) = follow(&mut q, &f, start, &fp.smooth.points[1..], goal);
        assert!(ok, "line {}: smooth path not followed to the goal", t.line);
        worst_smooth = worst_smooth.max(off);

        let straight: Vec<Vec3> = fp.straight.positions();
        let (ok, off, travelled) = follow(&mut q, &f, start, &straight[1..], goal);
        assert!(
            ok,
            "line {}: straight path not followed to the goal",
            t.line
        );
        assert!(travelled <= fp.straight.length() + 0.5, "line {}", t.line);
        worst_straight = worst_straight.max(off);

        // The grid path between the same points, simplified to its corner cells; the agent
        // starts on the start cell and must reach the goal cell.
        let gp = grid
            .find_path(&mut ctx, t.start, t.end, &SearchOptions::default())
            .unwrap();
        assert!(gp.is_complete(), "line {}: no grid path", t.line);
        let gstart = gp.waypoints[0];
        let ggoal = *gp.waypoints.last().unwrap();
        let (ok, off, travelled) = follow(&mut q, &f, gstart, &gp.waypoints[1..], ggoal);
        assert!(ok, "line {}: grid path not followed to the goal", t.line);
        assert!(travelled <= gp.length + 0.5, "line {}", t.line);
        worst_grid = worst_grid.max(off);
    }
    println!(
        "worst distance off the navmesh: smooth {worst_smooth:.3}, straight {worst_straight:.3}, grid {worst_grid:.3}"
    );
    assert!(worst_grid < radius, "grid: {worst_grid}");
    assert!(worst_smooth < radius, "smooth: {worst_smooth}");
    assert!(worst_straight < radius, "straight: {worst_straight}");
}

/// Re-pathing: the agent chases a target walking along another query's smooth path, asking for
/// a new path when the target has moved more than 1 unit and at most every 0.25 s, and
/// continuing from where it is. It catches the target, stays on the navmesh, and the policy
/// keeps the number of requests bounded.
#[test]
fn the_follower_chases_a_moving_target_by_repathing() {
    use navkit::agents::follower::RepathPolicy;
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let (walk, chaser) = (&case.queries[0], &case.queries[1]);
    let route = q
        .path(walk.start, walk.end, &f, &PathOptions::default())
        .unwrap()
        .smooth
        .points;
    // The target's position after walking `d` along its route.
    let target_at = |mut d: f32| {
        for w in route.windows(2) {
            let len = w[0].distance(w[1]);
            if d <= len {
                return w[0].lerp(w[1], d / len.max(1e-6));
            }
            d -= len;
        }
        *route.last().unwrap()
    };
    let dt = 1.0 / 30.0;
    let settings = FollowerSettings {
        turn_dist: 1.0,
        ..FollowerSettings::default()
    };
    let mut agent = Follower::new(chaser.start, &[], settings);
    let mut policy = RepathPolicy::new(1.0, 0.25);
    let (mut requests, mut worst_off, mut caught) = (0, 0.0f32, None);
    for step in 0..(120.0 / dt) as usize {
        let time = step as f32 * dt;
        let target = target_at(1.5 * time);
        if policy.should_repath(time, target) {
            requests += 1;
            let p = q
                .path(agent.position(), target, &f, &PathOptions::default())
                .unwrap();
            agent.set_path(&p.straight.positions()[1..]);
        }
        {
            let mut ground = navmesh_ground(&mut q, &f);
            agent.step(dt, &mut ground);
        }
        worst_off = worst_off.max(off_mesh(&mut q, &f, agent.position()));
        let gap = agent.position() - target;
        if Vec3::new(gap.x, 0.0, gap.z).length() < 1.0 && target == *route.last().unwrap() {
            caught = Some(time);
            break;
        }
    }
    let caught = caught.expect("the agent never caught the target");
    println!(
        "caught after {caught:.1} s with {requests} path requests; worst off-mesh {worst_off:.3}"
    );
    assert!(requests >= 3, "{requests}");
    assert!(
        requests as f32 <= caught / 0.25 + 1.0,
        "{requests} requests in {caught} s"
    );
    assert!(worst_off < 0.6, "{worst_off}");
}
