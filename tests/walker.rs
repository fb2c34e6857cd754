//! The wander-to-target walker on nav_test.obj: every nav_mesh_test.txt query is walked to its
//! goal along navmesh legs, reproducibly from the seed.

mod common;

use navkit::agents::walker::{WanderSettings, WanderWalker};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::tools::testcase::{TestCase, TestKind};

#[test]
fn the_walker_reaches_every_test_goal_on_the_navmesh() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let (mut total_points, mut most) = (0, 0);
    for t in case.queries.iter().filter(|t| t.kind == TestKind::Pathfind) {
        let run = |q: &mut NavMeshQuery<'_>, seed| {
            WanderWalker::new(WanderSettings::default(), seed)
                .walk_on_navmesh(q, &f, t.start, t.end, 1000)
                .unwrap()
        };
        let w = run(&mut q, 5);
        let goal = q
            .find_nearest_poly(t.end, glam::Vec3::new(2.0, 4.0, 2.0), &f)
            .unwrap()
            .point;
        let end = *w.points.last().unwrap();
        assert!(
            end.distance(goal) < 0.05,
            "line {}: ended at {end}, goal {goal}",
            t.line
        );
        assert_eq!(w.legs.len() + 1, w.points.len());
        for (leg, pts) in w.legs.iter().zip(w.points.windows(2)) {
            assert_eq!(leg.first(), Some(&pts[0]), "line {}", t.line);
            assert_eq!(leg.last(), Some(&pts[1]), "line {}", t.line);
        }
        assert_eq!(run(&mut q, 5), w, "line {}: same seed, same walk", t.line);
        total_points += w.points.len();
        most = most.max(w.points.len());
    }
    println!("{total_points} points over the walks, at most {most} in one");
    assert!(most < 60, "{most}");
}
