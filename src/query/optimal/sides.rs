//! A navmesh polygon as the optimal search sees it: its boundary counter-clockwise on the
//! xz-plane as [`Side`]s, each a wall or a stretch shared with one passable polygon (an edge
//! to a neighbouring tile is split where the polygons across it change), and whether a
//! vertex is a corner (touches a wall), the only places an optimal path bends.

use glam::DVec2;
use rustc_hash::FxHashMap;

use crate::navmesh::NavMesh;
use crate::navmesh::view::{EdgeNeighbour, PolyView};
use crate::query::{PolyRef, QueryFilter};

/// [`Side::a_vertex`] of a point inside an edge (where a tile border's polygons change).
pub(super) const NO_VERTEX: u16 = u16::MAX;

/// A stretch of a polygon's boundary, from `a` to `b` counter-clockwise.
#[derive(Clone, Copy, Debug)]
pub(super) struct Side {
    pub a: DVec2,
    pub b: DVec2,
    /// The passable polygon across it; `None` for a wall (or a polygon the filter excludes).
    pub across: Option<PolyRef>,
    /// `a`'s and `b`'s vertex indices in the polygon's tile, or [`NO_VERTEX`].
    pub a_vertex: u16,
    pub b_vertex: u16,
    /// The polygon across leads nowhere else ([`leads_nowhere`]).
    pub dead_end: bool,
}

/// True if polygon `poly` leads nowhere: its only neighbour is across one edge inside its
/// tile (so a search entering it could only go back the way it came) and no off-mesh
/// connection leaves it. A path never gains by entering it, unless the goal is on it.
pub(super) fn leads_nowhere(poly: PolyView<'_>) -> bool {
    let mut exits = poly.neis().iter().filter(|&&n| n != 0);
    let only_internal = matches!(
        (
            exits.next().map(|&n| EdgeNeighbour::from_neis(n)),
            exits.next()
        ),
        (Some(EdgeNeighbour::Internal(_)), None)
    );
    only_internal && !poly.links().any(|l| l.edge == 0xff)
}

/// True if `filter` lets a search visit a polygon with `flags` (Detour's `passFilter`).
pub(super) fn passes(filter: &QueryFilter, flags: u16) -> bool {
    flags & filter.include_flags() != 0 && flags & filter.exclude_flags() == 0
}

/// One portal stretch of an edge: where it starts and ends along the edge (0..=1), the
/// polygon across, and whether it leads nowhere ([`leads_nowhere`]).
pub(super) type Span = (f64, f64, PolyRef, bool);

/// The grid of cells Detour's vertices lie on, on the xz-plane: from the navmesh's origin, in
/// the tiles' cell size (the inverse of their `bvQuantFactor`). Each tile stores its own
/// copy of a vertex on its border, worked out from its own corner in `f32`, so the copies
/// can differ by a rounding; placed on the grid they are one point again, and the search
/// sees one consistent plane subdivision.
#[derive(Clone, Copy, Debug)]
pub(super) struct VertexGrid {
    origin: DVec2,
    cell: f64,
}

impl VertexGrid {
    /// The grid of a tile of `nav` whose `bvQuantFactor` is `quant`.
    pub(super) fn of(nav: &NavMesh, quant: f32) -> VertexGrid {
        let o = nav.params().origin;
        let cell = f64::from(1.0 / quant);
        VertexGrid {
            origin: DVec2::new(f64::from(o[0]), f64::from(o[2])),
            cell: if cell.is_finite() && cell > 0.0 {
                cell
            } else {
                0.0
            },
        }
    }

    /// Vertex `v` on the xz-plane: on the grid where it lies there within a few roundings,
    /// else as stored (a navmesh not built on such a grid is read as it is).
    pub(super) fn place(self, v: [f32; 3]) -> DVec2 {
        let snap = |x: f32, o: f64| {
            let x = f64::from(x);
            // Rounded by a cast (`f64::round` is a library call on x86-64's baseline).
            let n = (x - o) / self.cell;
            let on = o + ((n + 0.5f64.copysign(n)) as i64 as f64) * self.cell;
            let slack = 4.0 * f64::from(f32::EPSILON) * (x.abs() + o.abs());
            if (on - x).abs() <= slack && slack < 0.01 * self.cell {
                on
            } else {
                x
            }
        };
        DVec2::new(snap(v[0], self.origin.x), snap(v[2], self.origin.y))
    }
}

/// Fills `out` with `poly`'s sides, counter-clockwise, starting at its first vertex.
pub(super) fn sides_of(
    nav: &NavMesh,
    poly: PolyView<'_>,
    filter: &QueryFilter,
    out: &mut Vec<Side>,
    spans: &mut Vec<Span>,
) {
    out.clear();
    let tile = poly.tile();
    let verts = tile.vertices();
    let idx = poly.vertex_indices();
    let neis = poly.neis();
    let n = idx.len().min(neis.len());
    if n < 3 {
        return;
    }
    let grid = VertexGrid::of(nav, tile.header().bv_quant_factor);
    let at = |k: usize| grid.place(verts[usize::from(idx[k])]);
    let area2: f64 = (0..n).map(|k| at(k).perp_dot(at((k + 1) % n))).sum();
    for step in 0..n {
        // Detour's edge j runs from vertex j to j + 1; walked backwards when the polygon is
        // clockwise on the xz-plane.
        let (j, ka, kb) = if area2 >= 0.0 {
            (step, step, (step + 1) % n)
        } else {
            let j = n - 1 - step;
            (j, (j + 1) % n, j)
        };
        let (a, b, va, vb) = (at(ka), at(kb), idx[ka], idx[kb]);
        let wall = Side {
            a,
            b,
            across: None,
            a_vertex: va,
            b_vertex: vb,
            dead_end: false,
        };
        match EdgeNeighbour::from_neis(neis[j]) {
            EdgeNeighbour::Wall => out.push(wall),
            EdgeNeighbour::Internal(i) => {
                let across = tile.poly(i).filter(|p| passes(filter, p.flags()));
                out.push(Side {
                    across: across.map(|p| p.poly_ref()),
                    dead_end: across.is_some_and(leads_nowhere),
                    ..wall
                });
            }
            EdgeNeighbour::Portal { side } => {
                portal_spans(nav, poly, j, side, (a, b), filter, spans);
                push_spans(out, wall, spans);
            }
        }
    }
}

/// The stretches of edge `j` (from `a` to `b` as walked) that `poly` shares with passable
/// polygons of the tile on `side`, sorted along the edge. Computed from both polygons' own
/// edges on the tile border (an axis-aligned line), so that both sides find the same points.
fn portal_spans(
    nav: &NavMesh,
    poly: PolyView<'_>,
    j: usize,
    side: u8,
    (a, b): (DVec2, DVec2),
    filter: &QueryFilter,
    spans: &mut Vec<Span>,
) {
    spans.clear();
    // Sides 0 and 4 are the tile's x borders (edges along z); 2 and 6 its z borders.
    let along = |p: DVec2| if side & 2 == 0 { p.y } else { p.x };
    let (ca, cb) = (along(a), along(b));
    if ca == cb {
        return;
    }
    let opposite = EdgeNeighbour::Portal {
        side: (side + 4) & 7,
    };
    for link in poly.edge_links(j) {
        let Some(other) = nav.poly(link.target).filter(|p| passes(filter, p.flags())) else {
            continue;
        };
        let (oi, on) = (other.vertex_indices(), other.neis());
        let overs = other.tile().vertices();
        let grid = VertexGrid::of(nav, other.tile().header().bv_quant_factor);
        let at = |k: usize| {
            overs
                .get(usize::from(oi[k % oi.len()]))
                .map(|v| grid.place(*v))
        };
        let overlap = (0..on.len().min(oi.len()))
            .filter(|&k| EdgeNeighbour::from_neis(on[k]) == opposite)
            .filter_map(|k| {
                let (c, d) = (along(at(k)?), along(at(k + 1)?));
                Some((ca.min(cb).max(c.min(d)), ca.max(cb).min(c.max(d))))
            })
            .max_by(|x, y| (x.1 - x.0).total_cmp(&(y.1 - y.0)));
        let Some((lo, hi)) = overlap.filter(|(lo, hi)| hi > lo) else {
            continue;
        };
        let (t0, t1) = ((lo - ca) / (cb - ca), (hi - ca) / (cb - ca));
        spans.push((t0.min(t1), t0.max(t1), link.target, leads_nowhere(other)));
    }
    spans.sort_by(|x, y| x.0.total_cmp(&y.0));
}

/// Pushes the sides of one portal edge (`wall` spans all of it): the `spans`, and walls in
/// the gaps between them.
fn push_spans(out: &mut Vec<Side>, wall: Side, spans: &[Span]) {
    let point = |t: f64| {
        if t <= 0.0 {
            (wall.a, wall.a_vertex)
        } else if t >= 1.0 {
            (wall.b, wall.b_vertex)
        } else {
            (wall.a + (wall.b - wall.a) * t, NO_VERTEX)
        }
    };
    let mut push = |t0: f64, t1: f64, across: Option<PolyRef>, dead_end: bool| {
        let ((a, a_vertex), (b, b_vertex)) = (point(t0), point(t1));
        out.push(Side {
            a,
            b,
            across,
            a_vertex,
            b_vertex,
            dead_end,
        });
    };
    let mut done = 0.0;
    for &(t0, t1, across, dead_end) in spans {
        let t0 = t0.max(done);
        if t1 <= t0 {
            continue;
        }
        if t0 > done {
            push(done, t0, None, false);
        }
        push(t0, t1, Some(across), dead_end);
        done = t1;
    }
    if done < 1.0 {
        push(done, 1.0, None, false);
    }
}

/// Whether vertices are corners: per tile (for filters that pass every polygon), and
/// remembered for one search (for the others).
#[derive(Default)]
pub(super) struct Corners {
    /// By tile index: each vertex touches a wall or a tile border, and for a border vertex
    /// once walked round (the filter passing every polygon), whether it is a corner. Kept
    /// while the query lives (its navmesh cannot change meanwhile).
    tiles: Vec<Option<Vec<u8>>>,
    /// This search's answers, by tile and vertex (or point and polygon), when its filter
    /// turns some polygons away.
    known: FxHashMap<u64, bool>,
    /// The answers for points inside edges when the filter passes every polygon, which hold
    /// for every such filter: kept while the query lives (up to [`MAX_LASTING`] of them).
    lasting: FxHashMap<u64, bool>,
    fan: Vec<Side>,
    spans: Vec<Span>,
}

/// The most answers [`Corners`] keeps between searches (about 16 bytes each); past that it
/// starts again empty.
const MAX_LASTING: usize = 1 << 20;

/// How near (relative to the coordinates' size) a point is taken to be a polygon's corner
/// when walking round it. [`VertexGrid`] makes each tile's copy of a border vertex one point
/// on navmeshes built on a cell grid; on others the copies may still differ by a rounding,
/// and this match keeps the walk from taking such a vertex for a corner. Far above `f32`
/// rounding (about 6e-8 of a coordinate), far below the cell size that separates distinct
/// vertices.
const SAME_POINT: f64 = 1e-6;

/// A vertex no wall touches and no tile border holds ([`tile_corners`]).
const INSIDE: u8 = 0;
/// A vertex on a tile border and no wall of its own tile: the tiles across decide.
const BORDER: u8 = 1;
/// A vertex on a wall.
const WALL: u8 = 2;
/// A [`BORDER`] vertex found, walking round it, to touch a wall in a tile across.
const BORDER_CORNER: u8 = 3;
/// A [`BORDER`] vertex found, walking round it, to touch no wall.
const BORDER_FREE: u8 = 4;

/// Each vertex of `tile`: [`WALL`] if an edge from it is a wall, else [`BORDER`] if one lies
/// on the tile's border, else [`INSIDE`].
fn tile_corners(tile: crate::navmesh::view::TileView<'_>) -> Vec<u8> {
    let mut corner = vec![INSIDE; tile.vertices().len()];
    for poly in tile.polys() {
        let idx = poly.vertex_indices();
        for (j, &nei) in poly.neis().iter().enumerate() {
            let kind = match EdgeNeighbour::from_neis(nei) {
                EdgeNeighbour::Internal(_) => continue,
                EdgeNeighbour::Wall => WALL,
                EdgeNeighbour::Portal { .. } => BORDER,
            };
            for v in [idx[j], idx[(j + 1) % idx.len()]] {
                if let Some(c) = corner.get_mut(usize::from(v)) {
                    *c = (*c).max(kind);
                }
            }
        }
    }
    corner
}

impl Corners {
    pub(super) fn clear(&mut self) {
        self.known.clear();
    }

    /// The flag of vertex `vertex` of tile `tile` ([`tile_corners`]).
    fn tile_flag(&mut self, nav: &NavMesh, tile: usize, vertex: u16) -> u8 {
        if self.tiles.len() <= tile {
            self.tiles.resize(tile + 1, None);
        }
        let flags = match &mut self.tiles[tile] {
            Some(flags) => flags,
            slot => match nav.tile(tile) {
                Some(view) => slot.insert(tile_corners(view)),
                None => return BORDER,
            },
        };
        flags.get(usize::from(vertex)).copied().unwrap_or(BORDER)
    }

    /// True if the point `p`, vertex `vertex` of tile `tile` (or [`NO_VERTEX`] for a point
    /// inside an edge, where a tile border's polygons change) on polygon `poly`, touches a
    /// wall or a polygon `filter` excludes. When the filter passes every polygon
    /// (`passes_all`) a vertex inside a tile is read from the tile's flags; the others are
    /// walked round through the polygons that share them. A fan that cannot be walked counts
    /// as a corner (an optimal path never bends where it need not, so a spare corner costs
    /// time, never length).
    pub(super) fn is_corner(
        &mut self,
        nav: &NavMesh,
        (filter, passes_all): (&QueryFilter, bool),
        (tile, poly): (usize, PolyRef),
        vertex: u16,
        p: DVec2,
    ) -> bool {
        if vertex != NO_VERTEX && passes_all {
            match self.tile_flag(nav, tile, vertex) {
                INSIDE | BORDER_FREE => return false,
                WALL | BORDER_CORNER => return true,
                _ => {
                    let c = self.walk_round(nav, filter, poly, p);
                    let flags = self.tiles.get_mut(tile).and_then(Option::as_mut);
                    if let Some(f) = flags.and_then(|f| f.get_mut(usize::from(vertex))) {
                        *f = if c { BORDER_CORNER } else { BORDER_FREE };
                    }
                    return c;
                }
            }
        }
        let key = if vertex == NO_VERTEX {
            let mut h = rustc_hash::FxHasher::default();
            std::hash::Hash::hash(&(p.x.to_bits(), p.y.to_bits(), poly), &mut h);
            std::hash::Hasher::finish(&h) | 1 << 63
        } else {
            (tile as u64) << 16 | u64::from(vertex)
        };
        let memo = if passes_all {
            &self.lasting
        } else {
            &self.known
        };
        if let Some(&c) = memo.get(&key) {
            return c;
        }
        let c = self.walk_round(nav, filter, poly, p);
        let memo = if passes_all {
            if self.lasting.len() >= MAX_LASTING {
                self.lasting.clear();
            }
            &mut self.lasting
        } else {
            &mut self.known
        };
        memo.insert(key, c);
        c
    }

    /// True if walking round point `p` from polygon `poly` meets a wall (or cannot be done).
    fn walk_round(&mut self, nav: &NavMesh, filter: &QueryFilter, poly: PolyRef, p: DVec2) -> bool {
        nav.poly(poly)
            .is_none_or(|view| self.walk(nav, filter, view, p))
    }

    fn walk(&mut self, nav: &NavMesh, filter: &QueryFilter, poly: PolyView<'_>, p: DVec2) -> bool {
        let first = poly.poly_ref();
        let mut cur = poly;
        for _ in 0..64 {
            sides_of(nav, cur, filter, &mut self.fan, &mut self.spans);
            let tolerance = SAME_POINT * (1.0 + p.x.abs().max(p.y.abs()));
            let at_p = |s: &&Side| s.b.distance_squared(p) <= tolerance * tolerance;
            let Some(next) = self.fan.iter().find(at_p).map(|s| s.across) else {
                return true;
            };
            let Some(next) = next else {
                return true;
            };
            if next == first {
                return false;
            }
            let Some(view) = nav.poly(next) else {
                return true;
            };
            cur = view;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildSettings, InputGeometry, NavMeshBuilder, TriMesh};

    /// A flat floor 40 m square far from the origin, in 16-cell tiles.
    fn far_floor_tiles() -> crate::NavMesh {
        let (x0, z0, size) = (1234.567_f32, -987.654_f32, 40.0_f32);
        let verts = vec![
            x0,
            0.0,
            z0,
            x0 + size,
            0.0,
            z0,
            x0 + size,
            0.0,
            z0 + size,
            x0,
            0.0,
            z0 + size,
        ];
        let geom = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 2, 1, 0, 3, 2]).unwrap());
        let settings = BuildSettings {
            tile_size: 16,
            ..BuildSettings::default()
        };
        NavMeshBuilder::new(&geom)
            .settings(settings)
            .tiled()
            .unwrap()
            .into_navmesh()
    }

    /// Each tile's copy of a vertex on its border, placed on the vertex grid, is the same
    /// point, though the stored copies differ by a rounding (they do on this floor).
    #[test]
    fn border_vertex_copies_are_one_point_on_the_grid() {
        let nav = far_floor_tiles();
        let mut placed: Vec<(usize, [f32; 3], DVec2)> = Vec::new();
        for tile in nav.tiles() {
            let grid = VertexGrid::of(&nav, tile.header().bv_quant_factor);
            for v in tile.vertices() {
                placed.push((tile.index(), *v, grid.place(*v)));
            }
        }
        let (mut copies, mut differ) = (0, 0);
        for (i, a) in placed.iter().enumerate() {
            for b in placed[i + 1..].iter().filter(|b| b.0 != a.0) {
                let raw = |k: usize| (a.1[k] - b.1[k]).abs();
                if raw(0) < 1e-3 && raw(2) < 1e-3 {
                    copies += 1;
                    differ += usize::from(raw(0) > 0.0 || raw(2) > 0.0);
                    assert_eq!(a.2, b.2, "copies {:?} and {:?}", a.1, b.1);
                }
            }
        }
        assert!(
            copies > 100 && differ > 10,
            "{copies} copies, {differ} differ"
        );
    }

    /// A flat floor far from the origin (where the tiles' copies of a border vertex can
    /// differ by a rounding), built in small tiles: an optimal path bends only round the
    /// floor's outline, so no vertex inside it may count as a corner, whichever tile asks.
    #[test]
    fn tile_border_vertices_inside_a_floor_are_not_corners() {
        let nav = far_floor_tiles();
        let grid = VertexGrid::of(&nav, nav.tiles().next().unwrap().header().bv_quant_factor);
        let (lo, hi) = nav.tiles().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), t| {
                t.vertices().iter().fold((lo, hi), |(lo, hi), v| {
                    let p = grid.place(*v);
                    (lo.min(p), hi.max(p))
                })
            },
        );
        let filter = QueryFilter::default();
        let mut corners = Corners::default();
        let (mut inside, mut border) = (0, 0);
        for tile in nav.tiles() {
            for poly in tile.polys() {
                for &v in poly.vertex_indices() {
                    let p = grid.place(tile.vertices()[usize::from(v)]);
                    if p.cmpeq(lo).any() || p.cmpeq(hi).any() {
                        continue;
                    }
                    inside += 1;
                    let flag = corners.tile_flag(&nav, tile.index(), v);
                    border += usize::from(matches!(flag, BORDER | BORDER_CORNER | BORDER_FREE));
                    let at = (tile.index(), poly.poly_ref());
                    assert!(
                        !corners.is_corner(&nav, (&filter, true), at, v, p),
                        "vertex {v} of tile {} at {p} counted as a corner",
                        tile.index()
                    );
                }
            }
        }
        assert!(
            inside > 100 && border > 100,
            "{inside} inner vertices, {border} on borders"
        );
    }
}
