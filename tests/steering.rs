//! Steering kept on the navmesh: agents seeking targets across nav_test.obj slide along walls
//! and never leave the navmesh; Arrive stops them at reachable targets.

mod common;

use glam::Vec3;
use navkit::agents::steering::{Agent, Arrive, Behaviour, Leave, NavAgent};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::tools::testcase::TestCase;

use common::off_mesh;

#[test]
fn steered_agents_stay_on_the_navmesh_and_arrive() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let dt = 1.0 / 30.0;
    let mut worst: f32 = 0.0;
    let mut arrived = 0;
    for t in &case.queries {
        // Seek straight at the goal (through walls, if there are any in between) blended with
        // fleeing the start: the navmesh keeps the agent on the surface.
        let mut a = NavAgent::new(&mut q, &f, Agent::new(t.start, 3.5, 8.0)).unwrap();
        let b = Behaviour::Blend(vec![
            (1.0, Behaviour::Seek(t.end)),
            (0.3, Behaviour::Leave(Leave::new(t.start, 1.0, 3.0))),
        ]);
        for _ in 0..300 {
            let s = b.steer(&a.agent);
            a.step(&mut q, &f, s, dt).unwrap();
            worst = worst.max(off_mesh(&mut q, &f, a.agent.position));
            assert!(a.agent.velocity.length() <= 3.5 + 1e-3);
        }
        // Arrive at a point 2 units from where the agent stands, on the surface.
        let here = a.agent.position;
        let m = q
            .move_along_surface(a.poly, here, here + Vec3::new(2.0, 0.0, 0.0), &f, 16)
            .unwrap();
        let goal = q
            .find_nearest_poly(m.position, Vec3::new(2.0, 4.0, 2.0), &f)
            .unwrap()
            .point;
        let arrive = Behaviour::Arrive(Arrive::new(goal, 0.2, 1.5));
        for _ in 0..600 {
            let s = arrive.steer(&a.agent);
            a.step(&mut q, &f, s, dt).unwrap();
            worst = worst.max(off_mesh(&mut q, &f, a.agent.position));
        }
        let gap = a.agent.position - goal;
        if Vec3::new(gap.x, 0.0, gap.z).length() <= 0.2 {
            arrived += 1;
        }
    }
    println!(
        "worst distance off the navmesh {worst:.4}; arrived {arrived}/{}",
        case.queries.len()
    );
    assert!(worst < 1e-3, "{worst}");
    assert_eq!(arrived, case.queries.len());
    // Bad input: a NaN time step is an error, not a move.
    let mut a = NavAgent::new(&mut q, &f, Agent::new(case.queries[0].start, 3.5, 8.0)).unwrap();
    let before = a.clone();
    assert!(
        a.step(
            &mut q,
            &f,
            Behaviour::Seek(Vec3::NAN).steer(&a.agent),
            f32::NAN
        )
        .is_err()
    );
    assert_eq!(a, before);
    assert!(NavAgent::new(&mut q, &f, Agent::new(Vec3::splat(1e5), 1.0, 1.0)).is_err());
}
