//! [`BvNode`]: a node of a tile's bounding-volume tree.

use recastnavigation_sys::dtBVNode;

/// A node of a tile's BV tree (`dtBVNode`), in quantised tile-local units
/// (`(world - tile bmin) * bvQuantFactor`; y likewise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BvNode {
    /// Minimum corner.
    pub bmin: [u16; 3],
    /// Maximum corner.
    pub bmax: [u16; 3],
    /// As stored: `>= 0`, a leaf holding that poly; `< 0`, an inner node whose subtree spans
    /// `-i` nodes (the escape offset).
    pub i: i32,
}

impl BvNode {
    pub(super) fn from_raw(n: &dtBVNode) -> Self {
        BvNode {
            bmin: n.bmin,
            bmax: n.bmax,
            i: n.i,
        }
    }

    /// The poly index of a leaf; `None` for an inner node.
    pub fn leaf_poly(&self) -> Option<usize> {
        usize::try_from(self.i).ok()
    }

    /// The number of nodes an inner node's subtree spans (skip that many to pass it); `None`
    /// for a leaf.
    pub fn escape(&self) -> Option<usize> {
        (self.i < 0).then(|| self.i.unsigned_abs() as usize)
    }
}
