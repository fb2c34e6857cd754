//! The heights of a path's points on the detail mesh. Every point of an optimal path but
//! its ends lies on a polygon's boundary (a corner, or where it crosses a side), so its
//! height is read along the detail mesh's boundary edge nearest it. Each polygon's boundary
//! edges are gathered once, by the polygon side they lie along, so that a point looks only
//! at the edges of the sides it is near (one side, or two at a vertex), not at every edge of
//! every detail triangle.

use glam::DVec2;
use rustc_hash::FxHashMap;

use crate::navmesh::NavMesh;
use crate::navmesh::view::PolyView;
use crate::query::PolyRef;

/// How many detail edges are remembered at most (56 bytes each: 15 MB; a polygon of a
/// hilly level has tens); past that the memory starts again empty.
const MAX_EDGES: usize = 1 << 18;

/// A polygon side (Detour's edge `j`, from vertex `j` to `j + 1`) and its detail edges.
#[derive(Clone, Copy, Debug)]
struct Side {
    a: DVec2,
    /// The unit direction from `a` to its other end, and its length.
    dir: DVec2,
    len: f64,
    /// How far from it a point may lie and still be within a millimetre of one of its
    /// detail edges: a millimetre more than the farthest an end of one lies from it.
    reach: f64,
    /// Its detail edges, by where they start along it: [`Heights::edges`]`[first..first + count]`.
    first: u32,
    count: u32,
}

/// A detail-mesh boundary edge, from `u` to `w`.
#[derive(Clone, Copy, Debug)]
struct Edge {
    /// Where its ends lie along its side (from the side's `a`, projected): the nearer and
    /// the farther, and the farthest of the side's edges up to this one.
    lo: f64,
    hi: f64,
    hi_so_far: f64,
    u: [f32; 3],
    w: [f32; 3],
    /// Its place among the polygon's detail edges (triangle by triangle), which breaks ties
    /// between equally near edges as a scan of the triangles would.
    order: u32,
}

/// The detail-mesh boundary edges of the polygons whose points were asked about, by side.
/// Valid while the query lives: its navmesh cannot change meanwhile.
#[derive(Default)]
pub(super) struct Heights {
    /// Each polygon's sides: `sides[first..first + len]` (none without a detail mesh).
    index: FxHashMap<PolyRef, (u32, u32)>,
    sides: Vec<Side>,
    edges: Vec<Edge>,
    scratch: Vec<(usize, Edge)>,
}

/// The squared distance on the xz-plane from `p` to the segment `a b`.
fn dist2_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let along = b - a;
    let s = ((p - a).dot(along) / along.length_squared().max(1e-300)).clamp(0.0, 1.0);
    (a + along * s).distance_squared(p)
}

fn flat(v: [f32; 3]) -> DVec2 {
    DVec2::new(f64::from(v[0]), f64::from(v[2]))
}

impl Heights {
    /// The height at `p` (on the xz-plane), a point on `poly`'s boundary (a side or a
    /// vertex), read along the detail mesh's boundary edge nearest it (the first in triangle
    /// order among equally near ones). `None` if the nearest lies more than a millimetre
    /// away, or `poly` has no detail mesh.
    ///
    /// Only edges that may lie within a millimetre of `p` are looked at (the others could
    /// not be the answer): those of the sides `p` lies near, and of those only the ones
    /// whose stretch along the side comes within a millimetre of `p`'s.
    pub(super) fn at(&mut self, nav: &NavMesh, poly: PolyRef, p: DVec2) -> Option<f32> {
        let (first, len) = match self.index.get(&poly) {
            Some(&range) => range,
            None => self.gather(nav.poly(poly)?),
        };
        let mm = 1e-3 + 1e-9 * p.abs().max_element();
        let mut best: Option<(f64, u32, f64)> = None;
        for side in &self.sides[first as usize..(first + len) as usize] {
            let q = p - side.a;
            let (t, off) = (q.dot(side.dir), q.perp_dot(side.dir).abs());
            let reach = side.reach + mm;
            if off > reach || t < -reach || t > side.len + reach {
                continue;
            }
            let edges = &self.edges[side.first as usize..(side.first + side.count) as usize];
            let end = edges.partition_point(|e| e.lo <= t + mm);
            let start = edges[..end].partition_point(|e| e.hi_so_far < t - mm);
            for e in edges[start..end].iter().filter(|e| e.hi >= t - mm) {
                let (du, dw) = (flat(e.u), flat(e.w));
                let along = dw - du;
                let s = ((p - du).dot(along) / along.length_squared().max(1e-300)).clamp(0.0, 1.0);
                let d = (du + along * s).distance_squared(p);
                if best.is_none_or(|(bd, bo, _)| d < bd || (d == bd && e.order < bo)) {
                    let (hu, hw) = (f64::from(e.u[1]), f64::from(e.w[1]));
                    best = Some((d, e.order, hu + (hw - hu) * s));
                }
            }
        }
        best.filter(|&(d, _, _)| d <= 1e-6)
            .map(|(_, _, h)| h as f32)
    }

    /// Reads `poly`'s detail boundary edges and files each under the side it lies along
    /// (the side from which its farther end lies nearest), sorted along it: the range of its
    /// sides.
    fn gather(&mut self, poly: PolyView<'_>) -> (u32, u32) {
        if self.edges.len() >= MAX_EDGES {
            self.index.clear();
            self.sides.clear();
            self.edges.clear();
        }
        let first = self.sides.len() as u32;
        let range = match boundary_edges(poly, &mut self.scratch) {
            Some(sides) => {
                for (k, (a, b)) in sides.into_iter().enumerate() {
                    let dir = (b - a).try_normalize().unwrap_or(DVec2::X);
                    let start = self.edges.len();
                    let mut spread = 0.0f64;
                    for &(_, e) in self.scratch.iter().filter(|(j, _)| *j == k) {
                        let far = dist2_to_segment(flat(e.u), a, b);
                        spread = spread.max(far).max(dist2_to_segment(flat(e.w), a, b));
                        let (tu, tw) = ((flat(e.u) - a).dot(dir), (flat(e.w) - a).dot(dir));
                        let (lo, hi) = (tu.min(tw), tu.max(tw));
                        self.edges.push(Edge { lo, hi, ..e });
                    }
                    let mine = &mut self.edges[start..];
                    mine.sort_by(|x, y| x.lo.total_cmp(&y.lo));
                    let mut so_far = f64::NEG_INFINITY;
                    for e in mine.iter_mut() {
                        so_far = so_far.max(e.hi);
                        e.hi_so_far = so_far;
                    }
                    self.sides.push(Side {
                        a,
                        dir,
                        len: (b - a).length(),
                        reach: spread.sqrt(),
                        first: start as u32,
                        count: (self.edges.len() - start) as u32,
                    });
                }
                (first, self.sides.len() as u32 - first)
            }
            None => (first, 0),
        };
        self.index.insert(poly.poly_ref(), range);
        range
    }
}

/// `poly`'s sides (ends on the xz-plane, Detour's edge order), and into `out` its detail
/// mesh's boundary edges, each with the index of the side it lies along; `None` without a
/// detail mesh.
fn boundary_edges(poly: PolyView<'_>, out: &mut Vec<(usize, Edge)>) -> Option<Vec<(DVec2, DVec2)>> {
    out.clear();
    let detail = poly.detail()?;
    let tile = poly.tile();
    let (own, extra) = (poly.vertex_indices(), detail.extra_vertices());
    let vertex = |i: u8| -> Option<[f32; 3]> {
        match own.get(usize::from(i)) {
            Some(&v) => tile.vertices().get(usize::from(v)).copied(),
            None => extra.get(usize::from(i) - own.len()).copied(),
        }
    };
    let corners: Vec<DVec2> = own
        .iter()
        .map(|&v| {
            tile.vertices()
                .get(usize::from(v))
                .map_or(DVec2::ZERO, |&c| flat(c))
        })
        .collect();
    let n = corners.len();
    let sides: Vec<(DVec2, DVec2)> = (0..n).map(|j| (corners[j], corners[(j + 1) % n])).collect();
    let tris = tile
        .detail_triangles()
        .get(detail.tri_base()..detail.tri_base() + detail.triangle_count())?;
    let mut order = 0u32;
    for t in tris.iter().filter(|t| t[3] != 0) {
        for k in 0..3 {
            // Two bits of flags per edge; the boundary flag is the first.
            if (t[3] >> (2 * k)) & 1 == 0 {
                continue;
            }
            let (Some(u), Some(w)) = (vertex(t[k]), vertex(t[(k + 1) % 3])) else {
                continue;
            };
            let off = |&(a, b): &(DVec2, DVec2)| {
                dist2_to_segment(flat(u), a, b).max(dist2_to_segment(flat(w), a, b))
            };
            let side = (0..n).min_by(|&i, &j| off(&sides[i]).total_cmp(&off(&sides[j])));
            if let Some(side) = side {
                let far = f64::NAN;
                let edge = Edge {
                    lo: far,
                    hi: far,
                    hi_so_far: far,
                    u,
                    w,
                    order,
                };
                out.push((side, edge));
                order += 1;
            }
        }
    }
    Some(sides)
}
