//! [`Link`]: an edge of Detour's live link graph, and [`LinkIter`] along a poly's chain.

use recastnavigation_sys::{DT_NULL_LINK, dtLink};

use crate::ffi::PolyRef;
use crate::ffi::tile_view::RawLinks;

/// A link (`dtLink`) from a poly to a neighbour, as `dtNavMesh::addTile` made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Link {
    /// The link's slot in its tile's link array.
    pub index: usize,
    /// The poly linked to.
    pub target: PolyRef,
    /// The edge of the owning poly the link crosses; for an off-mesh connection poly 0 (to the
    /// poly under its start) or 1 (under its end); 0xff for a ground poly's link to an off-mesh
    /// connection landing on it.
    pub edge: u8,
    /// The side of the tile a link to another tile leaves by (0..=7, as `dtOppositeTile`
    /// numbers them); 0xff for a link within the tile.
    pub side: u8,
    /// For a link through a portal to another tile: where the shared part of the edge starts
    /// along it, in 1/255ths of the edge (0 for other links).
    pub bmin: u8,
    /// ... and where it ends.
    pub bmax: u8,
    /// The next link slot in the poly's chain, `None` at its end.
    pub next: Option<usize>,
}

impl Link {
    pub(super) fn from_raw(index: usize, l: &dtLink) -> Self {
        Link {
            index,
            target: PolyRef(l.ref_),
            edge: l.edge,
            side: l.side,
            bmin: l.bmin,
            bmax: l.bmax,
            next: (l.next != DT_NULL_LINK).then_some(l.next as usize),
        }
    }

    /// True for a link to a poly in another tile (`side != 0xff`).
    pub fn crosses_tiles(&self) -> bool {
        self.side != 0xff
    }
}

/// The links of one poly, following `firstLink` and `next` through the tile's link array.
///
/// Stops at the end of the chain, at a slot outside the array, or after as many steps as the
/// array has slots (which a chain Detour built never reaches).
#[derive(Clone)]
pub struct LinkIter<'a> {
    links: RawLinks<'a>,
    next: Option<usize>,
    steps: usize,
}

impl<'a> LinkIter<'a> {
    pub(super) fn new(links: RawLinks<'a>, first: u32) -> Self {
        LinkIter {
            links,
            next: (first != DT_NULL_LINK).then_some(first as usize),
            steps: 0,
        }
    }
}

impl std::fmt::Debug for LinkIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkIter")
            .field("next", &self.next)
            .field("steps", &self.steps)
            .finish()
    }
}

impl Iterator for LinkIter<'_> {
    type Item = Link;

    fn next(&mut self) -> Option<Link> {
        let i = self.next.take()?;
        if self.steps >= self.links.len() {
            return None;
        }
        self.steps += 1;
        let link = Link::from_raw(i, &self.links.get(i)?);
        self.next = link.next;
        Some(link)
    }
}
