//! The points of a found optimal path: the start, each corner it bends round, each polygon
//! side it crosses (optionally), the ends of each off-mesh connection, and the goal, with
//! heights on the detail mesh.

use glam::{DVec2, Vec3};

use super::geometry::orient;
use super::heights::Heights;
use super::search::{Kind, NONE, Node, RootKind, Search};
use crate::Result;
use crate::query::{NavMeshQuery, PolyRef, StraightPoint, straight_flags};

/// The nodes from the first to `last`, and the roots the path passes, in order.
pub(super) fn chains(search: &Search, last: u32) -> (Vec<Node>, Vec<u32>) {
    // Room for most paths, so that they are not grown on the way.
    let (mut nodes, mut roots) = (Vec::with_capacity(64), Vec::with_capacity(16));
    let mut at = last;
    while at != NONE {
        let n = search.nodes[at as usize];
        nodes.push(n);
        at = n.parent;
    }
    nodes.reverse();
    let mut r = nodes.last().map_or(NONE, |n| n.root);
    while r != NONE {
        roots.push(r);
        r = search.roots[r as usize].parent;
    }
    roots.reverse();
    (nodes, roots)
}

/// The polygons the path through `nodes` (its [`chains`]) crosses, from the start's on
/// (off-mesh connections' own polygons between the polygons they join), as a corridor.
pub(super) fn corridor(search: &Search, nodes: &[Node]) -> Vec<PolyRef> {
    let mut polys = Vec::with_capacity(nodes.len() + 1);
    if let Some(first) = nodes.first() {
        polys.push(first.from);
    }
    for n in nodes {
        match n.kind {
            Kind::OffMesh { hop } => {
                let h = search.hops[hop as usize];
                polys.extend([n.poly, h.conn, h.landing]);
            }
            _ => polys.push(n.poly),
        }
    }
    polys.dedup();
    polys
}

/// Where the straight segment from `r` to `t` crosses the interval `a b`. When the segment
/// runs along the interval (a path along a line of polygon sides, such as a tile border),
/// the first point of the segment on it, so that the crossings along the line stay on the
/// segment and follow one another forwards.
fn cross_at(r: DVec2, t: DVec2, a: DVec2, b: DVec2) -> DVec2 {
    let (oa, ob) = (orient(r, t, a), orient(r, t, b));
    if oa == ob {
        let d = t - r;
        let along = |q: DVec2| (q - r).dot(d) / d.length_squared().max(f64::MIN_POSITIVE);
        let (sa, sb) = (along(a), along(b));
        let s = sa.min(sb).max(0.0).min(sa.max(sb)).clamp(0.0, 1.0);
        return r + d * s;
    }
    let s = (oa / (oa - ob)).clamp(0.0, 1.0);
    a + (b - a) * s
}

impl NavMeshQuery<'_> {
    /// The points of the path `search` found through `nodes` and `roots` (its [`chains`]),
    /// from `start` to `goal` (each a polygon and a point on it); with `crossings`, also
    /// where it crosses sides.
    pub(super) fn optimal_points(
        &mut self,
        search: &mut Search,
        (nodes, roots): (&[Node], &[u32]),
        start: (PolyRef, Vec3),
        goal: Vec3,
        crossings: bool,
    ) -> Result<Vec<StraightPoint>> {
        let point = |pos, flags, poly| StraightPoint { pos, flags, poly };
        let mut out = Vec::with_capacity(nodes.len() + roots.len() + 1);
        out.push(point(start.1, straight_flags::START, start.0));
        let goal2 = DVec2::new(f64::from(goal.x), f64::from(goal.z));
        let next_turn = |r: u32| {
            let i = roots.partition_point(|&x| x <= r);
            roots
                .get(i)
                .map_or(goal2, |&x| search.roots[x as usize].pos)
        };
        let mut done = 0usize;
        for (i, n) in nodes.iter().enumerate() {
            // The roots reached since the last node: corners, off-mesh ends.
            let upto = roots.partition_point(|&x| x <= n.root);
            for &r in &roots[done.max(1)..upto] {
                let root = search.roots[r as usize];
                let (flags, poly) = match root.kind {
                    RootKind::OffMeshEntry(conn) => (straight_flags::OFFMESH_CONNECTION, conn),
                    _ => (0, root.poly),
                };
                let pos = self.on_surface(&mut search.heights, root.poly, root.pos, root.y)?;
                out.push(point(pos, flags, poly));
            }
            done = done.max(upto);
            match n.kind {
                Kind::Interval { .. } if crossings => {
                    let bends = nodes.get(i + 1).is_some_and(|m| m.root != n.root);
                    if !bends {
                        let r = search.roots[n.root as usize].pos;
                        let x = cross_at(r, next_turn(n.root), n.ia, n.ib);
                        let pos = self.on_surface(&mut search.heights, n.poly, x, f32::NAN)?;
                        out.push(point(pos, straight_flags::CROSSING, n.poly));
                    }
                }
                Kind::Goal => out.push(point(goal, straight_flags::END, PolyRef(0))),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The point at `p` on `poly`'s detail surface (`y` where it is known already): the
    /// height along the detail mesh's boundary edge under it ([`Heights::at`]), or where rounding puts it
    /// outside them all, Detour's closest point on the polygon's detail mesh.
    fn on_surface(
        &mut self,
        heights: &mut Heights,
        poly: PolyRef,
        p: DVec2,
        y: f32,
    ) -> Result<Vec3> {
        let at = Vec3::new(p.x as f32, y, p.y as f32);
        if y.is_finite() {
            return Ok(at);
        }
        if let Some(h) = heights.at(self.nav, poly, p) {
            return Ok(Vec3::new(at.x, h, at.z));
        }
        let h = self
            .closest_point_on_poly(poly, Vec3::new(at.x, 0.0, at.z))?
            .0
            .y;
        Ok(Vec3::new(at.x, h, at.z))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path from `r` to `t` along the x axis: sides on that line (a tile border) are met
    /// where the path first touches them, never behind its root nor past its next turn;
    /// a side across the path is crossed where the lines meet.
    #[test]
    fn crossings_along_a_line_stay_on_the_path_in_order() {
        let (r, t) = (DVec2::new(24.0, 5.0), DVec2::new(19.0, 5.0));
        let at = |a: f64, b: f64| cross_at(r, t, DVec2::new(a, 5.0), DVec2::new(b, 5.0));
        // Behind the root and reaching it: the root itself (not the far end, 4.8 m back).
        assert_eq!(at(28.8, 24.0), r);
        // Ahead, either way round: its nearer end.
        assert_eq!(at(20.0, 23.0), DVec2::new(23.0, 5.0));
        assert_eq!(at(23.0, 20.0), DVec2::new(23.0, 5.0));
        // Round the root: the root; past the turn: the turn.
        assert_eq!(at(25.0, 22.0), r);
        assert_eq!(at(15.0, 17.0), t);
        // Across the path.
        let x = cross_at(r, t, DVec2::new(21.0, 3.0), DVec2::new(21.0, 7.0));
        assert_eq!(x, DVec2::new(21.0, 5.0));
    }
}
