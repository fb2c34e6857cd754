//! `PathQueue`: searches sharing a per-frame iteration budget give `find_path`'s results
//! whatever the budget, never run more than the budget in a frame (and use all of it while
//! work is queued), finish in submission order, each within the frames the work before it
//! needs, and can be cancelled at any point.

mod common;
#[path = "../benches/common/pairs.rs"]
#[allow(dead_code)]
mod pairs;

use navkit::Error;
use navkit::query::{Corridor, NavMeshQuery, QueryFilter, SlicedOptions};
use navkit::service::{PathHandle, PathQueue, PathRequest, RequestState};

const MAX_NODES: usize = 2048;
const MAX_POLYS: usize = 256;

struct Case {
    request: PathRequest,
    want: Corridor,
    /// Iterations the search takes (counted by a sliced search run alone).
    iterations: usize,
}

fn cases(nav: &navkit::navmesh::NavMesh, mesh: &str, n: usize) -> Vec<Case> {
    let filter = QueryFilter::default();
    let mut q = NavMeshQuery::new(nav, MAX_NODES).unwrap();
    pairs::bench_pairs(mesh, &mut q, &filter, n)
        .into_iter()
        .map(|p| {
            let want = q
                .find_path(p.start_ref, p.end_ref, p.start, p.end, &filter, MAX_POLYS)
                .unwrap();
            let mut s = q
                .begin_sliced_path(
                    p.start_ref,
                    p.end_ref,
                    p.start,
                    p.end,
                    &filter,
                    SlicedOptions::default(),
                )
                .unwrap();
            let iterations = s.run().unwrap().total_iterations;
            Case {
                request: PathRequest::new(p.start_ref, p.end_ref, p.start, p.end, filter.clone()),
                want,
                iterations,
            }
        })
        .collect()
}

#[test]
fn queued_searches_equal_find_path_whatever_the_budget_and_never_exceed_it() {
    for mesh in ["dungeon", "nav_test"] {
        let build = common::build(&format!("{mesh}.obj"));
        let cases = cases(build.navmesh(), mesh, 200);
        let total: usize = cases.iter().map(|c| c.iterations).sum();
        for budget in [1, 13, 100, 5000] {
            let mut queue = PathQueue::new(build.navmesh(), MAX_NODES, MAX_POLYS).unwrap();
            let handles: Vec<PathHandle> = cases
                .iter()
                .map(|c| queue.submit(c.request.clone()).unwrap())
                .collect();
            let mut frames: Vec<usize> = Vec::new();
            // Frame (1-based) in which each request finished, in finishing order.
            let mut finished: Vec<(PathHandle, usize)> = Vec::new();
            while !queue.is_idle() {
                let f = queue.update(budget).unwrap();
                assert!(f.iterations <= budget);
                frames.push(f.iterations);
                finished.extend(f.finished.iter().map(|&h| (h, frames.len())));
                assert!(
                    frames.len() <= total + cases.len(),
                    "{mesh}: the queue does not end"
                );
            }
            // Every frame but the last spends the whole budget: nothing idles while work waits.
            for (i, &it) in frames[..frames.len() - 1].iter().enumerate() {
                assert_eq!(it, budget, "{mesh}, budget {budget}, frame {i}");
            }
            assert_eq!(
                frames.iter().sum::<usize>(),
                total,
                "{mesh}, budget {budget}"
            );
            assert_eq!(queue.stats().iterations as usize, total);
            // In submission order, each within the frames the work up to it needs (+1 for a
            // search of no iterations right at a frame's end).
            let order: Vec<PathHandle> = finished.iter().map(|f| f.0).collect();
            assert_eq!(order, handles, "{mesh}, budget {budget}");
            let mut work = 0;
            for (c, &(h, frame)) in cases.iter().zip(&finished) {
                work += c.iterations;
                assert!(
                    frame <= work.div_ceil(budget) + 1,
                    "{mesh}, budget {budget}, {h:?}"
                );
                assert_eq!(queue.state(h), RequestState::Done);
                let got = queue.take(h).unwrap().unwrap();
                assert_eq!(got, c.want, "{mesh}, budget {budget}, {h:?}");
                assert_eq!(queue.state(h), RequestState::Unknown);
            }
            let s = queue.stats();
            assert_eq!(
                (s.submitted, s.found, s.failed, s.cancelled),
                (200, 200, 0, 0)
            );
            assert_eq!(
                s.partial as usize,
                cases.iter().filter(|c| !c.want.is_complete()).count()
            );
        }
    }
}

#[test]
fn requests_can_be_cancelled_waiting_in_progress_or_done() {
    let build = common::build("dungeon.obj");
    let mut cases = cases(build.navmesh(), "dungeon", 40);
    // Long searches first, so that the first is still running after a small frame.
    cases.sort_by_key(|c| std::cmp::Reverse(c.iterations));
    assert!(cases[0].iterations > 20);
    let mut queue = PathQueue::new(build.navmesh(), MAX_NODES, MAX_POLYS).unwrap();
    let h: Vec<PathHandle> = cases
        .iter()
        .map(|c| queue.submit(c.request.clone()).unwrap())
        .collect();
    assert_eq!(queue.state(h[3]), RequestState::Waiting { ahead: 3 });
    let f = queue.update(10).unwrap();
    assert_eq!((f.iterations, f.finished.len()), (10, 0));
    assert_eq!(
        queue.state(h[0]),
        RequestState::InProgress { iterations: 10 }
    );
    assert_eq!(queue.state(h[3]), RequestState::Waiting { ahead: 3 });
    // In progress and waiting.
    assert!(queue.cancel(h[0]));
    assert!(queue.cancel(h[3]));
    assert!(!queue.cancel(h[3]), "already cancelled");
    assert_eq!(queue.state(h[0]), RequestState::Unknown);
    assert_eq!(queue.state(h[3]), RequestState::Unknown);
    assert_eq!(queue.state(h[2]), RequestState::Waiting { ahead: 1 });
    assert_eq!(queue.pending(), cases.len() - 2);
    // The next frame starts on request 1 afresh.
    let f = queue.update(cases[1].iterations).unwrap();
    assert_eq!(f.finished, vec![h[1]]);
    assert_eq!(f.iterations, cases[1].iterations);
    // Done: its result is thrown away.
    assert!(queue.cancel(h[1]));
    assert_eq!(queue.take(h[1]).map(|_| ()), None);
    while !queue.is_idle() {
        queue.update(50).unwrap();
    }
    for (i, c) in cases.iter().enumerate() {
        let got = queue.take(h[i]);
        if [0, 1, 3].contains(&i) {
            assert!(got.is_none(), "request {i} was cancelled");
        } else {
            assert_eq!(got.unwrap().unwrap(), c.want, "request {i}");
        }
    }
    // Counted as cancelled: the two that had not ended (request 1's was found).
    assert_eq!(queue.stats().cancelled, 2);
    assert_eq!(queue.stats().found as usize, cases.len() - 2);
    assert!(!queue.cancel(PathHandle(12345)));
}

#[test]
fn bad_requests_and_budgets_are_typed_errors() {
    let build = common::build("dungeon.obj");
    let cases = cases(build.navmesh(), "dungeon", 2);
    let invalid = |r: navkit::Result<_>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(
        PathQueue::new(build.navmesh(), MAX_NODES, 0).map(|_| ())
    ));
    assert!(invalid(PathQueue::new(build.navmesh(), 2, 16).map(|_| ())));
    let mut queue = PathQueue::new(build.navmesh(), MAX_NODES, MAX_POLYS).unwrap();
    let mut r = cases[0].request.clone();
    r.start_pos.x = f32::NAN;
    assert!(matches!(
        queue.submit(r),
        Err(Error::NonFinite {
            argument: "start_pos",
            ..
        })
    ));
    let mut r = cases[0].request.clone();
    r.end = navkit::query::PolyRef(0);
    assert!(matches!(
        queue.submit(r),
        Err(Error::InvalidPolyRef {
            argument: "end",
            poly: navkit::query::PolyRef(0)
        })
    ));
    assert_eq!(queue.stats().submitted, 0);
    assert!(queue.is_idle());
    assert!(invalid(queue.update(0).map(|_| ())));
    let h = queue.submit(cases[1].request.clone()).unwrap();
    while !queue.is_idle() {
        queue.update(1).unwrap();
    }
    assert_eq!(queue.take(h).unwrap().unwrap(), cases[1].want);
}
