//! Per-node search state in three arrays: a 16-bit stamp, the cost so far and the parent.
//!
//! The only state a search reads for every neighbour it looks at is the stamp (2 bytes a node:
//! a 512 x 512 map's stamps fit a core's L2 cache, where 16-byte states did not and loading
//! them was half of A*'s time on a maze, waiting on memory). The cost so far is read only for
//! a node that is open this search, and written with the parent when a node is opened or
//! improved. A stamp older than the search's generation means unvisited, so a new search costs
//! nothing; every 32,766 searches the stamps are zeroed once.

use super::{Cost, NodeId};
use crate::Result;

/// Per-node stamps, costs and parents (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct CompactStates {
    stamps: Vec<u16>,
    g: Vec<Cost>,
    parents: Vec<NodeId>,
    /// The stamp of open nodes this search (closed ones have `generation + 1`).
    generation: u16,
}

impl CompactStates {
    /// Bytes of state per node: stamp, cost so far and parent.
    pub(crate) const BYTES_PER_NODE: usize = 2 + 8 + 4;

    /// Starts a search on `node_count` nodes ([`crate::Error::OutOfMemory`] if the states
    /// cannot be allocated).
    #[inline]
    pub(crate) fn begin(&mut self, node_count: usize) -> Result<()> {
        if self.stamps.len() < node_count {
            // One error for the three arrays, naming the bytes of all of them.
            let extra = node_count - self.stamps.len();
            let refused = |_| {
                let bytes = node_count as u128 * Self::BYTES_PER_NODE as u128;
                crate::Error::OutOfMemory(format!(
                    "search nodes: {bytes} bytes could not be allocated"
                ))
            };
            self.stamps.try_reserve_exact(extra).map_err(refused)?;
            self.g.try_reserve_exact(extra).map_err(refused)?;
            self.parents.try_reserve_exact(extra).map_err(refused)?;
            self.stamps.resize(node_count, 0);
            self.g.resize(node_count, 0);
            self.parents.resize(node_count, 0);
        }
        if self.generation >= u16::MAX - 2 {
            self.stamps.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        Ok(())
    }

    /// Opens `node` at cost `g` through `parent`, or lowers its cost if it is open at a higher
    /// one; true if it did either (the caller then pushes it on the open list).
    #[inline(always)]
    pub(crate) fn open(&mut self, node: NodeId, parent: NodeId, g: Cost) -> bool {
        let n = node as usize;
        let st = &mut self.stamps[n];
        if *st < self.generation || (*st == self.generation && g < self.g[n]) {
            *st = self.generation;
            self.g[n] = g;
            self.parents[n] = parent;
            true
        } else {
            false
        }
    }

    /// Closes `node`; false if it was closed already (a stale open-list entry).
    #[inline(always)]
    pub(crate) fn close(&mut self, node: NodeId) -> bool {
        let st = &mut self.stamps[node as usize];
        let closed = self.generation + 1;
        if *st == closed {
            return false;
        }
        *st = closed;
        true
    }

    /// The cost so far of a node opened this search.
    #[inline(always)]
    pub(crate) fn g(&self, node: NodeId) -> Cost {
        self.g[node as usize]
    }

    /// The parent of a node opened this search.
    #[inline(always)]
    pub(crate) fn parent(&self, node: NodeId) -> NodeId {
        self.parents[node as usize]
    }

    /// `(closed, g, parent)` of a node this search reached; `None` if it did not (or `node`
    /// is beyond the states).
    pub(crate) fn state(&self, node: NodeId) -> Option<(bool, Cost, NodeId)> {
        let st = *self.stamps.get(node as usize)?;
        let n = node as usize;
        (st == self.generation || st == self.generation + 1)
            .then(|| (st == self.generation + 1, self.g[n], self.parents[n]))
    }

    /// Number of nodes with a state.
    pub(crate) fn len(&self) -> usize {
        self.stamps.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_improve_close_and_new_searches() {
        let mut s = CompactStates::default();
        s.begin(4).unwrap();
        assert!(s.open(1, 1, 10));
        assert!(!s.open(1, 2, 12), "a higher cost does not improve");
        assert!(s.open(1, 3, 7), "a lower cost does");
        assert_eq!((s.g(1), s.parent(1)), (7, 3));
        assert_eq!(s.state(1), Some((false, 7, 3)));
        assert!(s.close(1));
        assert!(!s.close(1), "closed once");
        assert!(!s.open(1, 0, 0), "a closed node stays closed");
        assert_eq!(s.state(1), Some((true, 7, 3)));
        assert_eq!(s.state(2), None);
        // Across the stamp's wrap-around every node is unvisited again.
        for _ in 0..u16::MAX {
            s.begin(4).unwrap();
            assert_eq!(s.state(1), None);
            assert!(s.open(1, 0, Cost::MAX));
            assert!(s.close(1));
        }
    }
}
