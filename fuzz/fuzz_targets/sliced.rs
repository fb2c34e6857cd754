//! Sliced pathfinding and the path queue, on the fixture level or a navmesh loaded from the
//! input: searches begun with fuzzed refs, points, filters and options, advanced by fuzzed
//! slice sizes, finalized (whole, or partial against a fuzzed corridor) or dropped at any
//! point, with `find_path` calls and path-queue frames interleaved. Checks: no update runs more
//! than it was given, iteration counts add up, a search run to its end gives a corridor of
//! adjacent polygons from its start, and every queue frame stays within its budget.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use navkit::navmesh::NavMesh;
use navkit::query::{PolyRef, QueryFilter, SliceState, SlicedOptions, SlicedSearch};
use navkit::service::{PathHandle, PathQueue, PathRequest};
use navkit_fuzz::{Count, F, P};

#[derive(Debug, Arbitrary)]
enum Ref {
    /// The `i`-th polygon (modulo the count).
    Poly(u16),
    Raw(u32),
}

#[derive(Debug, Arbitrary)]
enum Op {
    /// Begins a search (dropping the one in progress).
    Begin(Ref, Ref, P, P, bool),
    Update(Count),
    /// Runs the search to its end.
    Run,
    Finalize(Count),
    FinalizePartial(Vec<Ref>, Count),
    Drop,
    /// find_path on the same query (the search in progress is dropped first).
    FindPath(Ref, Ref, P, P, Count),
    Filter(u16, u16, u8, F),
    Submit(Ref, Ref, P, P, bool),
    Frame(Count),
    Cancel(u8),
    Take(u8),
}

#[derive(Debug)]
struct Input {
    mset: Option<Vec<u8>>,
    max_path: u16,
    ops: Vec<Op>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        // One in four inputs brings its own navmesh: a length, then that many bytes.
        let mset = if u.arbitrary::<u8>()? % 4 == 0 {
            let n = u.arbitrary::<u16>()? as usize;
            Some(u.bytes(n.min(u.len()))?.to_vec())
        } else {
            None
        };
        let max_path = u.arbitrary()?;
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < 48 {
            ops.push(u.arbitrary()?);
        }
        Ok(Input {
            mset,
            max_path,
            ops,
        })
    }
}

fuzz_target!(|input: Input| {
    let owned = match &input.mset {
        Some(bytes) => match NavMesh::from_mset_bytes(bytes) {
            Ok(n) => Some(n),
            Err(_) => return,
        },
        None => None,
    };
    let nav: &NavMesh = owned
        .as_ref()
        .unwrap_or_else(|| navkit_fuzz::level_navmesh());
    let polys: Vec<PolyRef> = nav.polys().iter().map(|p| p.poly).collect();
    let r = |x: &Ref| match *x {
        Ref::Poly(i) if !polys.is_empty() => polys[i as usize % polys.len()],
        Ref::Poly(i) => PolyRef(i.into()),
        Ref::Raw(v) => PolyRef(v),
    };
    let max_path = (input.max_path as usize).max(1);
    let Ok(mut q) = nav.query() else { return };
    let Ok(mut queue) = PathQueue::new(nav, 2048, max_path) else {
        return;
    };
    let mut handles: Vec<PathHandle> = Vec::new();
    let mut filter = QueryFilter::default();
    let mut i = 0;
    while i < input.ops.len() {
        let op = &input.ops[i];
        i += 1;
        match op {
            Op::Begin(a, b, sp, ep, any) => {
                let (a, b, sp, ep) = (r(a), r(b), sp.0, ep.0);
                let options = SlicedOptions { any_angle: *any };
                let Ok(search) = q.begin_sliced_path(a, b, sp, ep, &filter, options) else {
                    continue;
                };
                // The search's own ops follow; any other op ends it (dropped) first.
                i = drive(search, &input.ops, i, &r, max_path, |s| {
                    // Run to its end: a corridor from the start, of adjacent polygons (without
                    // any-angle), ending at the goal if complete. (Not compared with find_path:
                    // Detour's sliced search does not re-parent a polygon through a sibling,
                    // so with unequal area costs, or float ties, it can give another corridor.)
                    let Ok(s) = s else { return };
                    assert_eq!(s.polys.first(), Some(&a));
                    if !*any {
                        for w in s.polys.windows(2) {
                            assert!(nav.neighbours(w[0]).contains(&w[1]), "{w:?}");
                        }
                    }
                    if s.is_complete() {
                        assert_eq!(s.polys.last(), Some(&b));
                    }
                });
            }
            Op::FindPath(a, b, sp, ep, n) => {
                let _ = q.find_path(r(a), r(b), sp.0, ep.0, &filter, n.0);
            }
            Op::Filter(inc, exc, area, cost) => {
                filter = QueryFilter::with_flags(*inc, *exc);
                filter.set_area_cost(*area, cost.0);
            }
            Op::Submit(a, b, sp, ep, any) => {
                let mut req = PathRequest::new(r(a), r(b), sp.0, ep.0, filter.clone());
                req.options.any_angle = *any;
                if let Ok(h) = queue.submit(req) {
                    handles.push(h);
                }
            }
            Op::Frame(n) => {
                let before = queue.stats().iterations;
                if let Ok(f) = queue.update(n.0) {
                    assert!(f.iterations <= n.0);
                    assert_eq!(queue.stats().iterations - before, f.iterations as u64);
                }
            }
            Op::Cancel(k) => {
                if let Some(&h) = handles.get(*k as usize % handles.len().max(1)) {
                    queue.cancel(h);
                }
            }
            Op::Take(k) => {
                if let Some(&h) = handles.get(*k as usize % handles.len().max(1)) {
                    let _ = queue.take(h);
                }
            }
            // Search ops without a search.
            Op::Update(_) | Op::Run | Op::Finalize(_) | Op::FinalizePartial(..) | Op::Drop => {}
        }
    }
});

/// Applies the search ops from `ops[i..]` to `search` until another op (or the end): returns
/// the index of that op. `check` gets the result of a search finalized after running to its
/// end.
fn drive(
    mut search: SlicedSearch<'_, '_>,
    ops: &[Op],
    mut i: usize,
    r: &dyn Fn(&Ref) -> PolyRef,
    max_path: usize,
    check: impl FnOnce(navkit::Result<navkit::query::Corridor>),
) -> usize {
    let mut total = search.iterations();
    let mut ran_to_end = false;
    while let Some(op) = ops.get(i) {
        match op {
            Op::Update(n) => {
                if let Ok(p) = search.update(n.0) {
                    assert!(p.iterations <= n.0);
                    total += p.iterations;
                    assert_eq!(p.total_iterations, total);
                    assert_eq!(search.iterations(), total);
                }
            }
            Op::Run => {
                let p = search.run().expect("a running search ends");
                total += p.iterations;
                assert_eq!(p.total_iterations, total);
                assert!(matches!(p.state, SliceState::Finished { .. }));
                ran_to_end = true;
            }
            Op::Finalize(n) => {
                let res = search.finalize(n.0);
                if ran_to_end && n.0 == max_path {
                    check(res);
                }
                return i + 1;
            }
            Op::FinalizePartial(c, n) => {
                let c: Vec<PolyRef> = c.iter().map(r).collect();
                let _ = search.finalize_partial(&c, n.0);
                return i + 1;
            }
            Op::Drop => return i + 1,
            _ => return i,
        }
        i += 1;
    }
    i
}
