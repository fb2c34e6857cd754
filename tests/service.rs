//! The path request service: many agents, worker threads, superseding and cancelling.

mod common;

use std::sync::Arc;
use std::sync::mpsc::channel;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{PathOptions, QueryFilter};
use navkit::service::{AgentId, PathOutcome, PathService};
use navkit::tools::testcase::TestCase;

#[test]
fn many_agents_get_the_same_paths_as_a_direct_query() {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let b = common::build("nav_test.obj");
    let nav = Arc::new(b.into_navmesh());
    let service = PathService::new(nav.clone(), 2, PathOptions::default());
    let tickets: Vec<_> = case
        .queries
        .iter()
        .enumerate()
        .map(|(i, t)| service.request(AgentId(i as u64), t.start, t.end, QueryFilter::default()))
        .collect();
    let mut q = navkit::query::NavMeshQuery::new(&nav, 2048).unwrap();
    for (t, ticket) in case.queries.iter().zip(tickets) {
        let direct = q
            .path(
                t.start,
                t.end,
                &QueryFilter::default(),
                &PathOptions::default(),
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
    let service = PathService::new(Arc::new(b.into_navmesh()), 1, PathOptions::default());
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
    assert!(matches!(second.wait(), PathOutcome::Done(Ok(p)) if p.is_complete()));
    assert!(matches!(doomed.wait(), PathOutcome::Cancelled));
    // A start off the mesh: an error, delivered like any answer.
    assert!(matches!(
        off.wait(),
        PathOutcome::Done(Err(navkit::Error::PointOffMesh { .. }))
    ));
}

#[test]
fn grid_path_service_answers_like_a_direct_search() {
    use navkit::grid::{SearchContext, SearchOptions};
    use navkit::service::GridPathService;
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let geom = navkit::InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = Arc::new(
        NavMeshBuilder::new(&geom)
            .settings(navkit::BuildSettings::default())
            .grid()
            .unwrap(),
    );
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
                assert!(p.is_complete(), "line {}", t.line);
                assert_eq!(p.spans, direct.spans, "line {}", t.line);
            }
            other => panic!("line {}: {other:?}", t.line),
        }
    }
    assert!(matches!(off.wait(), PathOutcome::Done(Err(_))));
}

/// A planner for the service's own behaviour: echoes a number, panics on a negative one, and
/// counts the worker states it made.
struct Echo {
    setups: std::sync::atomic::AtomicUsize,
}

impl navkit::service::Planner for Echo {
    type Worker<'a> = usize;
    type Request = i64;
    type Output = i64;
    fn worker(&self) -> usize {
        self.setups
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }
    fn plan(&self, _: &mut usize, n: i64) -> i64 {
        assert!(n >= 0, "negative: {n}");
        n
    }
}

fn echo(threads: usize) -> navkit::service::Service<Echo> {
    navkit::service::Service::start(
        Echo {
            setups: Default::default(),
        },
        threads,
    )
}

/// Holds the service's only worker inside a callback until the returned sender is used (or
/// dropped).
fn hold(service: &navkit::service::Service<Echo>) -> std::sync::mpsc::Sender<()> {
    let (release_tx, release_rx) = channel::<()>();
    let (held_tx, held_rx) = channel::<()>();
    service.submit_with(AgentId(u64::MAX), 0, move |_| {
        held_tx.send(()).unwrap();
        let _ = release_rx.recv();
    });
    held_rx.recv().unwrap();
    release_tx
}

#[test]
fn a_planner_panic_answers_its_request_and_the_worker_carries_on() {
    let service = echo(1);
    let (tx, rx) = channel();
    let tickets: Vec<_> = (0..6)
        .map(|i| {
            let n = if i % 3 == 1 { -i } else { i };
            if i % 2 == 0 {
                let tx = tx.clone();
                service.submit_with(AgentId(i as u64), n, move |r| tx.send(r).unwrap());
                None
            } else {
                Some(service.submit(AgentId(i as u64), n))
            }
        })
        .collect();
    let mut outcomes: Vec<(u64, PathOutcome<i64>)> =
        rx.iter().take(3).map(|r| (r.agent.0, r.outcome)).collect();
    for (i, t) in tickets.into_iter().enumerate() {
        if let Some(t) = t {
            outcomes.push((i as u64, t.wait()));
        }
    }
    outcomes.sort_by_key(|(i, _)| *i);
    for (i, o) in outcomes {
        let i = i as i64;
        match o {
            PathOutcome::Done(n) => assert_eq!((i % 3, n), (i % 3, i)),
            PathOutcome::Panicked(navkit::Error::Panicked { what, message }) => {
                assert_eq!(i % 3, 1, "{what}: {message}");
                assert_eq!(message, format!("negative: {}", -i));
                assert_eq!(what, "the path planner");
            }
            other => panic!("request {i}: {other:?}"),
        }
    }
    let stats = service.stats();
    assert_eq!((stats.submitted, stats.done, stats.panicked), (6, 4, 2));
    assert_eq!(stats.pending(), 0);
    // A fresh worker state after each panic: the first, then one per panic that came before
    // another request.
    let setups = service
        .planner()
        .setups
        .load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(setups, 3);
}

#[test]
fn a_callback_panic_is_caught_and_counted() {
    let service = echo(1);
    service.submit_with(AgentId(1), 1, |_| panic!("a callback's bug"));
    assert!(matches!(
        service.submit(AgentId(2), 2).wait(),
        PathOutcome::Done(2)
    ));
    let stats = service.stats();
    assert_eq!((stats.done, stats.callback_panics), (2, 1));
}

#[test]
fn a_cancelled_request_stays_cancelled_when_its_agent_asks_again() {
    let service = echo(1);
    let release = hold(&service);
    let first = service.submit(AgentId(1), 1);
    service.cancel(AgentId(1));
    let second = service.submit(AgentId(1), 2);
    let third = service.submit(AgentId(1), 3);
    service.cancel(AgentId(7)); // no requests: nothing happens
    release.send(()).unwrap();
    assert!(matches!(first.wait(), PathOutcome::Cancelled));
    assert!(matches!(second.wait(), PathOutcome::Superseded));
    assert!(matches!(third.wait(), PathOutcome::Done(3)));
    let stats = service.stats();
    assert_eq!(
        (
            stats.done,
            stats.cancelled,
            stats.superseded,
            stats.agents_waiting
        ),
        (2, 1, 1, 0)
    );
}

#[test]
fn a_dropped_ticket_is_still_answered() {
    let service = echo(1);
    drop(service.submit(AgentId(1), 1));
    assert!(matches!(
        service.submit(AgentId(2), 2).wait(),
        PathOutcome::Done(2)
    ));
    assert_eq!(service.stats().done, 2);
}

#[test]
fn dropping_the_service_cancels_what_has_not_started() {
    // Dropped from its own worker's callback, with requests queued behind it: the drop does not
    // wait for that worker (it would wait for itself), and the queued requests are cancelled.
    let service = Arc::new(std::sync::Mutex::new(Some(echo(1))));
    let (release_tx, release_rx) = channel::<()>();
    let (held_tx, held_rx) = channel::<()>();
    let (done_tx, done_rx) = channel::<()>();
    let s = service.clone();
    service
        .lock()
        .unwrap()
        .as_ref()
        .unwrap()
        .submit_with(AgentId(0), 0, move |r| {
            assert!(matches!(r.outcome, PathOutcome::Done(0)));
            held_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            drop(s.lock().unwrap().take());
            done_tx.send(()).unwrap();
        });
    held_rx.recv().unwrap();
    let (tx, rx) = channel();
    let tickets: Vec<_> = {
        let guard = service.lock().unwrap();
        let service = guard.as_ref().unwrap();
        for i in 1..=3 {
            let tx = tx.clone();
            service.submit_with(AgentId(i), i as i64, move |r| tx.send(r).unwrap());
        }
        (4..=6)
            .map(|i| service.submit(AgentId(i), i as i64))
            .collect()
    };
    drop(tx);
    release_tx.send(()).unwrap();
    done_rx.recv().unwrap();
    for t in tickets {
        assert!(matches!(t.wait(), PathOutcome::Cancelled));
    }
    let answers: Vec<_> = rx.iter().collect();
    assert_eq!(answers.len(), 3);
    assert!(
        answers
            .iter()
            .all(|r| matches!(r.outcome, PathOutcome::Cancelled))
    );
}
