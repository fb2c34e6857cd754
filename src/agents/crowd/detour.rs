//! A way around agents that block a passage: our own search over the navmesh's polygon graph
//! (polygons joined by their links, costs the distance between polygon centres), with the
//! polygons under the blocking agents left out. If the target can be reached that way, the
//! stuck agent is given a waypoint on it (the centre of the polygon halfway along) as an
//! intermediate target; from there DetourCrowd plans to the target again.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use glam::Vec3;

use crate::navmesh::NavMesh;
use crate::query::PolyRef;

/// The waypoint of a way from `start` to `goal` avoiding `blocked` (neither end is ever
/// blocked), or `None` if there is no such way or it is a single polygon.
pub(super) fn waypoint(
    nav: &NavMesh,
    start: PolyRef,
    goal: PolyRef,
    blocked: &BTreeSet<PolyRef>,
) -> Option<Vec3> {
    let centres: BTreeMap<PolyRef, Vec3> = nav
        .polys()
        .into_iter()
        .filter(|p| !p.off_mesh && !p.verts.is_empty())
        .map(|p| {
            let c = p.verts.iter().copied().sum::<Vec3>() / p.verts.len() as f32;
            (p.poly, c)
        })
        .collect();
    let path = search(nav, &centres, start, goal, blocked)?;
    (path.len() >= 3).then(|| centres[&path[path.len() / 2]])
}

/// Dijkstra from `start` to `goal` (costs in millimetres between centres, ties by poly ref:
/// deterministic); the polygons of the way, `start` first.
fn search(
    nav: &NavMesh,
    centres: &BTreeMap<PolyRef, Vec3>,
    start: PolyRef,
    goal: PolyRef,
    blocked: &BTreeSet<PolyRef>,
) -> Option<Vec<PolyRef>> {
    let mut best: BTreeMap<PolyRef, (u64, PolyRef)> = BTreeMap::new();
    let mut open = BinaryHeap::new();
    best.insert(start, (0, start));
    open.push(Reverse((0u64, start.0)));
    let mut next = Vec::new();
    while let Some(Reverse((cost, raw))) = open.pop() {
        let here = PolyRef(raw);
        if here == goal {
            let (mut path, mut at) = (vec![goal], goal);
            while at != start {
                at = best.get(&at)?.1;
                path.push(at);
            }
            path.reverse();
            return Some(path);
        }
        if best.get(&here).is_some_and(|&(c, _)| c < cost) {
            continue;
        }
        next.clear();
        if !nav.neighbours_into(here, &mut next) {
            continue;
        }
        for &n in &next {
            if blocked.contains(&n) && n != goal {
                continue;
            }
            let (Some(a), Some(b)) = (centres.get(&here), centres.get(&n)) else {
                continue;
            };
            let c = cost + (a.distance(*b) * 1000.0) as u64;
            if best.get(&n).is_none_or(|&(old, _)| c < old) {
                best.insert(n, (c, here));
                open.push(Reverse((c, n.0)));
            }
        }
    }
    None
}
