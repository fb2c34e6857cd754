//! The path request service: many agents, worker threads, superseding and cancelling.

mod common;

use std::sync::Arc;
use std::sync::mpsc::channel;

use glam::Vec3;
use navkit::query::QueryFilter;
use navkit::service::{AgentId, PathOutcome, PathService};
use navkit::tools::testcase::TestCase;

#[test]
fn many_agents_get_the_same_paths_as_a_direct_query() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let nav = Arc::new(b.navmesh);
    let service = PathService::new(nav.clone(), 2);
    let tickets: Vec<_> = case
        .queries
        .iter()
        .enumerate()
        .map(|(i, t)| service.request(AgentId(i as u64), t.start, t.end, QueryFilter::default()))
        .collect();
    let mut q = navkit::query::NavMeshQuery::new(&nav, 2048).unwrap();
    for (t, ticket) in case.queries.iter().zip(tickets) {
        let direct = navkit::query::smooth::full_path(
            &mut q,
            t.start,
            t.end,
            &QueryFilter::default(),
            &Default::default(),
        )
        .unwrap();
        match ticket.wait() {
            PathOutcome::Done(Ok(p)) => assert_eq!(p, direct, "line {}", t.line),
            other => panic!("line {}: {other:?}", t.line),
        }
    }
}

#[test]
fn newer_requests_supersede_older_ones_and_cancel_drops_them() {
    let b = common::build("nav_test.obj");
    let service = PathService::new(Arc::new(b.navmesh), 1);
    // Hold the only worker inside a callback until the queue is set up.
    let (release_tx, release_rx) = channel::<()>();
    let (held_tx, held_rx) = channel::<()>();
    let a = Vec3::new(18.13855, -2.370003, -21.319118);
    let z = Vec3::new(-19.20618, -2.369133, 24.802742);
    service.request_with(AgentId(99), a, z, QueryFilter::default(), move |_| {
        held_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    });
    held_rx.recv().unwrap();
    let first = service.request(AgentId(1), a, z, QueryFilter::default());
    let second = service.request(AgentId(1), a, z, QueryFilter::default());
    let doomed = service.request(AgentId(2), a, z, QueryFilter::default());
    service.cancel(AgentId(2));
    let off = service.request(
        AgentId(3),
        Vec3::new(1000.0, 0.0, 1000.0),
        z,
        QueryFilter::default(),
    );
    release_tx.send(()).unwrap();
    assert!(matches!(first.wait(), PathOutcome::Superseded));
    assert!(matches!(second.wait(), PathOutcome::Done(Ok(p)) if p.path.is_complete()));
    assert!(matches!(doomed.wait(), PathOutcome::Cancelled));
    // A start off the mesh: an error, delivered like any answer.
    assert!(matches!(
        off.wait(),
        PathOutcome::Done(Err(navkit::Error::NoPolygonNear { .. }))
    ));
}

#[test]
fn grid_path_service_answers_like_a_direct_search() {
    use navkit::grid::{SearchContext, SearchOptions, mesh::MeshGrid};
    use navkit::service::GridPathService;
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let geom = navkit::InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = Arc::new(MeshGrid::build(&geom, &navkit::BuildSettings::default()).unwrap());
    let service = GridPathService::grid(grid.clone(), 2);
    let tickets: Vec<_> = case
        .queries
        .iter()
        .enumerate()
        .map(|(i, t)| service.request(AgentId(i as u64), t.start, t.end))
        .collect();
    let off = service.request(AgentId(1000), Vec3::new(1e5, 0.0, 0.0), Vec3::ZERO);
    let mut ctx = SearchContext::new();
    for (t, ticket) in case.queries.iter().zip(tickets) {
        let direct = grid
            .find_path(&mut ctx, t.start, t.end, &SearchOptions::default())
            .unwrap();
        match ticket.wait() {
            PathOutcome::Done(Ok(p)) => {
                assert!(p.found(), "line {}", t.line);
                assert_eq!(p.spans, direct.spans, "line {}", t.line);
            }
            other => panic!("line {}: {other:?}", t.line),
        }
    }
    assert!(matches!(off.wait(), PathOutcome::Done(Err(_))));
}
