//! One tile's part of the hierarchy: its polygons as a graph (each link with the point where
//! Detour's search would cross it, and each polygon's area cost under the filter), the links
//! that leave the tile ("exits"), and, once every tile's exits are known, the links that enter
//! it ("entries") with the cheapest cost from each entry to each exit inside the tile.

use glam::Vec3;

use crate::navmesh::NavMesh;
use crate::navmesh::view::{PolyType, PolyView, TileView};
use crate::query::{PolyRef, QueryFilter};

/// A polygon anywhere: its tile's index and its index in the tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Pid {
    pub tile: u32,
    pub poly: u32,
}

/// A link of the graph: to polygon `to`, crossed at `at`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub to: Pid,
    pub at: Vec3,
}

/// A link leaving the tile: from polygon `from` (of this tile) to `to` (of another), crossed at
/// `at`; `entry` is its index among the entries of `to`'s tile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exit {
    pub from: u32,
    pub to: Pid,
    pub at: Vec3,
    pub entry: u32,
}

/// A link entering the tile: into polygon `poly` at `at`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub poly: u32,
    pub at: Vec3,
}

/// One tile's graph.
#[derive(Clone, Debug, Default)]
pub(crate) struct TileGraph {
    /// The tile's ref when read (a tile replaced since has another).
    pub tile_ref: u64,
    /// Polygon `p`'s links are `edges[first[p]..first[p + 1]]`.
    pub first: Vec<u32>,
    pub edges: Vec<Edge>,
    /// Each polygon's area cost under the filter; infinite where the filter excludes it.
    pub cost: Vec<f32>,
    /// Each polygon's centre (the mean of its vertices).
    pub centre: Vec<Vec3>,
    pub exits: Vec<Exit>,
    pub entries: Vec<Entry>,
    /// From entry `k`, the cost to leave by each exit it reaches: `intra[k]`, (exit, cost).
    pub intra: Vec<Vec<(u32, f32)>>,
}

impl TileGraph {
    /// Polygon `p`'s links.
    pub fn links(&self, p: u32) -> &[Edge] {
        let p = p as usize;
        &self.edges[self.first[p] as usize..self.first[p + 1] as usize]
    }

    /// The graph of `tile` under `filter` (entries and costs between them come later:
    /// [`super::Hierarchy`]).
    pub fn read(nav: &NavMesh, tile: TileView<'_>, filter: &QueryFilter) -> TileGraph {
        let layout = nav.params().ref_layout();
        let me = tile.index() as u32;
        let mut g = TileGraph {
            tile_ref: tile.tile_ref(),
            ..TileGraph::default()
        };
        for poly in tile.polys() {
            g.first.push(g.edges.len() as u32);
            let passes = filter_passes(filter, poly.flags());
            let n = poly.vertex_count().max(1) as f32;
            g.centre
                .push(poly.vertices().fold(Vec3::ZERO, |a, v| a + v) / n);
            g.cost.push(if passes {
                filter.area_cost(poly.area())
            } else {
                f32::INFINITY
            });
            for link in poly.links() {
                let (_, t, p) = layout.decode(link.target.to_u64());
                let Some(target) = nav.poly(link.target) else {
                    continue;
                };
                if !filter_passes(filter, target.flags()) {
                    continue;
                }
                let at = crossing(&poly, &target, &link);
                let to = Pid { tile: t, poly: p };
                g.edges.push(Edge { to, at });
                if t != me {
                    g.exits.push(Exit {
                        from: poly.index() as u32,
                        to,
                        at,
                        entry: u32::MAX,
                    });
                }
            }
        }
        g.first.push(g.edges.len() as u32);
        g
    }
}

/// Whether a polygon with `flags` passes `filter` (Detour's `passFilter`).
pub(crate) fn filter_passes(filter: &QueryFilter, flags: u16) -> bool {
    (flags & filter.include_flags()) != 0 && (flags & filter.exclude_flags()) == 0
}

/// Where Detour's search crosses `link` from `from` to `to`: the middle of their portal
/// (`dtNavMeshQuery::getEdgeMidPoint`).
fn crossing(from: &PolyView<'_>, to: &PolyView<'_>, link: &crate::navmesh::view::Link) -> Vec3 {
    let verts: Vec<Vec3> = from.vertices().collect();
    if from.poly_type() == PolyType::OffMeshConnection {
        return verts[usize::from(link.edge).min(verts.len() - 1)];
    }
    if to.poly_type() == PolyType::OffMeshConnection {
        let back = to.links().find(|l| l.target == from.poly_ref());
        let tv: Vec<Vec3> = to.vertices().collect();
        return back.map_or(tv[0], |l| tv[usize::from(l.edge).min(tv.len() - 1)]);
    }
    let j = usize::from(link.edge) % verts.len();
    let (mut a, mut b) = (verts[j], verts[(j + 1) % verts.len()]);
    if link.side != 0xff && (link.bmin != 0 || link.bmax != 255) {
        let (tmin, tmax) = (f32::from(link.bmin) / 255.0, f32::from(link.bmax) / 255.0);
        let (v0, v1) = (a, b);
        a = v0.lerp(v1, tmin);
        b = v0.lerp(v1, tmax);
    }
    (a + b) * 0.5
}

/// A polygon's ref from its [`Pid`] and its tile's salt.
pub(crate) fn poly_ref(nav: &NavMesh, tile_ref: u64, pid: Pid) -> PolyRef {
    let layout = nav.params().ref_layout();
    let (salt, _, _) = layout.decode(tile_ref);
    layout
        .encode(salt, pid.tile, pid.poly)
        .and_then(PolyRef::from_u64)
        .unwrap_or(PolyRef(0))
}
