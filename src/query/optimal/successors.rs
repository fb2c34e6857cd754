//! The successors of one expanded node: the far sides of the polygon it enters, split into
//! the stretch seen through its interval (the same root) and the stretches beside it (roots
//! at the interval's ends, where those are corners); and the targets on the polygon (the
//! goal, off-mesh connections' entry points).

use glam::DVec2;

use super::geometry::{crossing, flat, lerp, orient};
use super::polys::Seen;
use super::search::{Cone, Hop, Kind, Node, Problem, Root, RootKind, Search};
use super::sides::passes;
use crate::navmesh::view::PolyType;
use crate::query::PolyRef;

/// Where a far side `u w` lies as seen through the interval: before `tb` (along it) beside
/// the interval's `b` end, after `ta` beside its `a` end, between them in sight of the root.
/// Along the far boundary the three come in that order; an end of the side exactly on a ray
/// through the interval takes the side of the rest of it.
fn split(cone: &Cone, u: DVec2, w: DVec2) -> (f64, f64) {
    if cone.all {
        return (0.0, 1.0);
    }
    let (bu, bw) = (orient(cone.r, cone.ib, u), orient(cone.r, cone.ib, w));
    let tb = match (bu < 0.0, bw < 0.0) {
        (true, true) => 1.0,
        (true, false) => crossing(bu, bw),
        (false, true) if bu == 0.0 => 1.0,
        _ => 0.0,
    };
    let (au, aw) = (orient(cone.r, cone.ia, u), orient(cone.r, cone.ia, w));
    let ta = match (au > 0.0, aw > 0.0) {
        (true, true) => 0.0,
        (false, true) => crossing(au, aw),
        (true, false) if aw == 0.0 => 0.0,
        _ => 1.0,
    };
    (tb, ta)
}

impl Search {
    /// Pushes the successors of node `node` (which entered its polygon by side `k`), with
    /// `bends` the roots at the interval's `a` and `b` ends where it may bend there.
    pub(super) fn successors(
        &mut self,
        p: &Problem<'_, '_>,
        node: u32,
        (seen, k): (Seen, usize),
        cone: Cone,
        (a_root, b_root): (Option<u32>, Option<u32>),
    ) {
        let n = self.nodes[node as usize];
        for step in 1..seen.len as usize {
            let s = self.polys.side(seen, k + step);
            // A polygon that leads nowhere is worth entering only for the goal on it.
            let Some(next) = s.across.filter(|&q| !s.dead_end || q == p.goal.0) else {
                continue;
            };
            let (tb, ta) = split(&cone, s.a, s.b);
            let push = |me: &mut Self, root: u32, t0: f64, t1: f64| {
                let succ = Node {
                    // The next polygon walks this side from `b` to `a`.
                    ia: lerp(s.a, s.b, t1),
                    ib: lerp(s.a, s.b, t0),
                    root,
                    poly: next,
                    from: n.poly,
                    parent: node,
                    kind: Kind::Interval {
                        a_end: t1 >= 1.0,
                        b_end: t0 <= 0.0,
                    },
                };
                me.push(succ);
            };
            // A single point in sight is not a way on: the stretches round it are.
            if tb < ta {
                push(self, cone.root, tb, ta);
            }
            if let Some(r) = b_root.filter(|_| tb > 0.0) {
                push(self, r, 0.0, tb.min(1.0));
            }
            if let Some(r) = a_root.filter(|_| ta < 1.0) {
                push(self, r, ta.max(0.0), 1.0);
            }
        }
    }

    /// Pushes a node for each target on polygon `poly` (the goal if it is the goal's
    /// polygon, the entry points of the off-mesh connections leaving it) that node `node`
    /// reaches: in sight of its root, or round an end of its interval that is a root in
    /// `bends`.
    pub(super) fn push_targets(
        &mut self,
        p: &Problem<'_, '_>,
        (poly, seen): (PolyRef, Seen),
        cone: Cone,
        node: u32,
        bends: (Option<u32>, Option<u32>),
    ) {
        let goal = flat(p.goal.1);
        if poly == p.goal.0 {
            self.push_target(cone, node, bends, poly, goal, Kind::Goal);
        }
        let Some(view) = seen.offmesh.then(|| p.nav.poly(poly)).flatten() else {
            return;
        };
        for link in view.links().filter(|l| l.edge == 0xff) {
            let Some(hop) = hop(p, poly, link.target) else {
                continue;
            };
            self.hops.push(hop);
            let kind = Kind::OffMesh {
                hop: (self.hops.len() - 1) as u32,
            };
            self.push_target(cone, node, bends, poly, flat(hop.entry), kind);
        }
    }

    /// Pushes the target node at `t` on `poly`, if `cone` (of node `node`) reaches it.
    #[allow(clippy::too_many_arguments)]
    fn push_target(
        &mut self,
        cone: Cone,
        node: u32,
        (a_root, b_root): (Option<u32>, Option<u32>),
        poly: PolyRef,
        t: DVec2,
        kind: Kind,
    ) {
        let root = if cone.all {
            Some(cone.root)
        } else if orient(cone.r, cone.ib, t) < 0.0 {
            b_root
        } else if orient(cone.r, cone.ia, t) > 0.0 {
            a_root
        } else {
            Some(cone.root)
        };
        let Some(root) = root else {
            return;
        };
        let target = Node {
            ia: t,
            ib: t,
            root,
            poly,
            from: poly,
            parent: node,
            kind,
        };
        self.push(target);
    }

    /// Takes off-mesh hop `hop`, reached by node `node`: its entry and its exit become roots,
    /// and the search leaves the exit as it leaves the start.
    pub(super) fn take_hop(&mut self, p: &Problem<'_, '_>, node: u32, hop: u32) {
        let n = self.nodes[node as usize];
        let h = self.hops[hop as usize];
        let from = self.roots[n.root as usize];
        let g = from.g + from.pos.distance(flat(h.entry));
        let entry = Root {
            pos: flat(h.entry),
            y: h.entry.y,
            g,
            parent: n.root,
            poly: n.poly,
            kind: RootKind::OffMeshEntry(h.conn),
            slot: super::search::NONE,
        };
        let Some(slot) = self.reach(exit_key(h.conn, h.landing), g + h.length) else {
            return;
        };
        let exit = Root {
            pos: flat(h.exit),
            y: h.exit.y,
            g: g + h.length,
            parent: self.roots.len() as u32,
            poly: h.landing,
            kind: RootKind::OffMeshExit,
            slot,
        };
        self.roots.push(entry);
        self.roots.push(exit);
        let root = (self.roots.len() - 1) as u32;
        self.leave_point(p, root, h.landing, node);
    }
}

/// The pruning key of the landing of off-mesh connection `conn` on `landing`.
fn exit_key(conn: PolyRef, landing: PolyRef) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    std::hash::Hash::hash(&(conn, landing, 0xff_u8), &mut h);
    std::hash::Hasher::finish(&h) | 1 << 63
}

/// The hop over off-mesh connection `conn` from the ground polygon `poly`, if the filter
/// lets the search take it and it leads away from `poly` (from its start, or from its end
/// when it goes both ways).
fn hop(p: &Problem<'_, '_>, poly: PolyRef, conn: PolyRef) -> Option<Hop> {
    let view = p.nav.poly(conn)?;
    if view.poly_type() != PolyType::OffMeshConnection || !passes(p.filter, view.flags()) {
        return None;
    }
    let c = view.off_mesh_connection()?;
    let mut verts = view.vertices();
    let (v0, v1) = (verts.next()?, verts.next()?);
    // The connection's links: edge 0 to the polygon under its start, 1 under its end.
    let under = |edge: u8| view.links().find(|l| l.edge == edge).map(|l| l.target);
    let (start, end) = (under(0), under(1));
    let (entry, exit, landing) = if start == Some(poly) {
        (v0, v1, end?)
    } else if c.bidirectional && end == Some(poly) {
        (v1, v0, start?)
    } else {
        return None;
    };
    let lands = p.nav.poly(landing)?;
    passes(p.filter, lands.flags()).then_some(Hop {
        conn,
        entry,
        exit,
        landing,
        length: f64::from(entry.distance(exit)),
    })
}
