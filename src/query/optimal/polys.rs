//! The polygons the optimal search has looked at, remembered with their [`Side`]s: a long
//! search enters each polygon from many roots (tens of times on a cluttered level), and a
//! query asks again about the polygons of the last one, so each polygon's sides are read
//! from its tile once, while the query and its filter stay the same. A polygon is found by its
//! number in the navmesh (its tile's first number plus its index), not by hashing its ref.

use glam::DVec2;

use super::sides::{Side, Span, sides_of};
use crate::navmesh::NavMesh;
use crate::poly_ref::RefLayout;
use crate::query::{PolyRef, PolyRefBits, QueryFilter};

/// How many polygons are remembered at most (about 200 bytes each with their sides: 13 MB); past
/// that the memory starts again empty.
const MAX_POLYS: usize = 1 << 16;

/// A [`Side`] as remembered, half its size: where it starts (it ends where the polygon's next
/// side starts) and the raw ref of the polygon across (0 for a wall: Detour never gives a
/// polygon ref 0).
#[derive(Clone, Copy, Debug)]
struct Start {
    a: DVec2,
    across: PolyRefBits,
    a_vertex: u16,
    dead_end: bool,
}

impl Start {
    fn of(side: &Side) -> Start {
        Start {
            a: side.a,
            across: side.across.map_or(0, |p| p.0),
            a_vertex: side.a_vertex,
            dead_end: side.dead_end,
        }
    }
}

/// A polygon as the search saw it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    /// Its sides: [`Polys::sides`]`[first..first + len]`.
    pub first: u32,
    pub len: u32,
    /// Its tile's index.
    pub tile: u32,
    /// Off-mesh connections touch it.
    pub offmesh: bool,
}

/// A tile's place in the dense numbering of the navmesh's polygons.
#[derive(Clone, Copy, Debug, Default)]
struct TileSlots {
    /// The number of its first polygon.
    first: u32,
    /// Its polygon count and salt (a ref with another salt is not one of its polygons).
    count: u32,
    salt: u32,
}

/// The polygons seen under one filter (its include and exclude flags decide the sides).
/// Valid while the query lives: its navmesh cannot change meanwhile.
#[derive(Default)]
pub(super) struct Polys {
    flags: Option<(u16, u16)>,
    /// The ref layout and, by tile index, the tiles' numbering (made at the first search).
    layout: Option<RefLayout>,
    tiles: Vec<TileSlots>,
    /// By polygon number: the polygon as seen (`len` 0: not seen yet).
    seen: Vec<Seen>,
    /// The numbers of the polygons seen, to forget them.
    numbers: Vec<u32>,
    /// Every remembered polygon's sides, one after another, each as its start (a side ends
    /// where the next begins).
    sides: Vec<Start>,
    scratch: Vec<Side>,
    spans: Vec<Span>,
}

impl Polys {
    /// Forgets everything if `filter` decides sides differently from the last one, or if the
    /// memory is full; numbers `nav`'s polygons at the first call.
    pub(super) fn prepare(&mut self, nav: &NavMesh, filter: &QueryFilter) {
        if self.layout.is_none() {
            self.number(nav);
        }
        let flags = Some((filter.include_flags(), filter.exclude_flags()));
        if self.flags != flags || self.numbers.len() > MAX_POLYS {
            self.flags = flags;
            for &k in &self.numbers {
                self.seen[k as usize].len = 0;
            }
            self.numbers.clear();
            self.sides.clear();
        }
    }

    fn number(&mut self, nav: &NavMesh) {
        self.layout = Some(nav.ref_layout());
        self.tiles = vec![TileSlots::default(); nav.max_tiles()];
        let mut next = 0u32;
        for tile in nav.tiles() {
            let count = tile.poly_count() as u32;
            if let Some(t) = self.tiles.get_mut(tile.index()) {
                *t = TileSlots {
                    first: next,
                    count,
                    salt: tile.salt(),
                };
                next = next.saturating_add(count);
            }
        }
        self.seen = vec![Seen::default(); next as usize];
    }

    /// The number of `poly`, if it is one of the navmesh's polygons.
    fn number_of(&self, poly: PolyRef) -> Option<usize> {
        let (salt, tile, index) = self.layout?.decode(poly.to_u64());
        let t = self.tiles.get(tile as usize)?;
        (t.salt == salt && index < t.count).then(|| (t.first + index) as usize)
    }

    /// Polygon `poly` (its sides under the filter given to [`Polys::prepare`]), or `None` if
    /// it is not on the navmesh.
    pub(super) fn get(
        &mut self,
        nav: &NavMesh,
        filter: &QueryFilter,
        poly: PolyRef,
    ) -> Option<Seen> {
        let number = self.number_of(poly)?;
        let seen = self.seen[number];
        if seen.len != 0 {
            return Some(seen);
        }
        let view = nav.poly(poly)?;
        sides_of(nav, view, filter, &mut self.scratch, &mut self.spans);
        let seen = Seen {
            first: u32::try_from(self.sides.len()).ok()?,
            len: self.scratch.len() as u32,
            tile: view.tile().index() as u32,
            offmesh: view.first_link().is_some() && view.links().any(|l| l.edge == 0xff),
        };
        self.sides.extend(self.scratch.iter().map(Start::of));
        if seen.len != 0 {
            self.seen[number] = seen;
            self.numbers.push(number as u32);
        }
        Some(seen)
    }

    /// Side `k` (counted from its first, modulo their number) of a polygon seen.
    pub(super) fn side(&self, seen: Seen, k: usize) -> Side {
        let len = seen.len as usize;
        let k = if k < len {
            k
        } else if k < 2 * len {
            k - len
        } else {
            k % len
        };
        let next = if k + 1 < len { k + 1 } else { 0 };
        let (s, e) = (
            self.sides[seen.first as usize + k],
            self.sides[seen.first as usize + next],
        );
        Side {
            a: s.a,
            b: e.a,
            across: (s.across != 0).then_some(PolyRef(s.across)),
            a_vertex: s.a_vertex,
            b_vertex: e.a_vertex,
            dead_end: s.dead_end,
        }
    }
}
