//! The polygons the optimal search has looked at, remembered with their [`Side`]s: a long
//! search enters each polygon from many roots (tens of times on a cluttered level), and a
//! query asks again about the polygons of the last one, so each polygon's sides are read
//! from its tile once, while the query and its filter stay the same.

use rustc_hash::FxHashMap;

use super::sides::{Side, Span, sides_of};
use crate::navmesh::NavMesh;
use crate::query::{PolyRef, QueryFilter};

/// How many polygons are remembered at most (about 400 bytes each with their sides: 25 MB); past
/// that the memory starts again empty.
const MAX_POLYS: usize = 1 << 16;

/// A polygon as the search saw it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seen {
    /// Its sides: [`Polys::sides`]`[first..first + len]`.
    pub first: u32,
    pub len: u32,
    /// Its tile's index.
    pub tile: u32,
    /// Off-mesh connections touch it.
    pub offmesh: bool,
}

/// The polygons seen under one filter (its include and exclude flags decide the sides).
/// Valid while the query lives: its navmesh cannot change meanwhile.
#[derive(Default)]
pub(super) struct Polys {
    flags: Option<(u16, u16)>,
    index: FxHashMap<PolyRef, Seen>,
    /// Every remembered polygon's sides, one after another.
    pub sides: Vec<Side>,
    scratch: Vec<Side>,
    spans: Vec<Span>,
}

impl Polys {
    /// Forgets everything if `filter` decides sides differently from the last one, or if the
    /// memory is full.
    pub(super) fn prepare(&mut self, filter: &QueryFilter) {
        let flags = Some((filter.include_flags(), filter.exclude_flags()));
        if self.flags != flags || self.index.len() > MAX_POLYS {
            self.flags = flags;
            self.index.clear();
            self.sides.clear();
        }
    }

    /// Polygon `poly` (its sides under the filter given to [`Polys::prepare`]), or `None` if
    /// it is not on the navmesh.
    pub(super) fn get(
        &mut self,
        nav: &NavMesh,
        filter: &QueryFilter,
        poly: PolyRef,
    ) -> Option<Seen> {
        if let Some(&seen) = self.index.get(&poly) {
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
        self.sides.extend_from_slice(&self.scratch);
        self.index.insert(poly, seen);
        Some(seen)
    }

    /// Side `k` (counted from its first, modulo their number) of a polygon seen.
    pub(super) fn side(&self, seen: Seen, k: usize) -> Side {
        self.sides[seen.first as usize + k % seen.len as usize]
    }
}
