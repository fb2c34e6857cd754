//! The open list: an indexed binary min-heap keyed on `(f, h)` with decrease-key, plus a stack
//! for nodes whose `f` equals the `f` of the node being expanded.
//!
//! Heap entries are 16 bytes: `f` is an exact fixed-point cost; `h` only breaks ties, so f32
//! is plenty for it. A pop moves the hole left by the root down to a leaf along the smaller
//! children (one comparison per level) and then sifts the last entry up from there (Floyd's
//! bottom-up method): it usually belongs near the bottom, so this takes about half the
//! comparisons of the textbook sift-down.
//!
//! With a consistent heuristic, `f` never decreases along a search, so a node opened with the
//! `f` of the node being expanded has the smallest `f` of the whole open list: it goes on a
//! last-in-first-out stack that is popped before the heap, skipping the heap's `log n` sifts
//! (in open areas a third of the nodes expanded, or more: stepping towards the goal keeps `f`
//! unchanged). Any order of the nodes of smallest `f` keeps A* optimal, and the stack's
//! depth-first order heads for the goal.

use super::{Cost, NodeId};

/// `pos` of a node that is on the stack.
const ON_STACK: u32 = u32::MAX;

/// One heap entry.
#[derive(Clone, Copy, Debug)]
struct Entry {
    f: Cost,
    h: f32,
    node: NodeId,
}

impl Entry {
    /// Lower `f` first; among equal `f`, lower `h` first.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        self.f < other.f || (self.f == other.f && self.h < other.h)
    }
}

/// The open list: a binary heap that knows where each node sits, so a node's key can be
/// decreased in place, and the stack of nodes of the smallest `f`. `pos` is sized to the
/// graph; its value for a node is meaningful only while the node is on the list (the caller
/// tracks that).
#[derive(Debug, Default, Clone)]
pub(crate) struct OpenList {
    entries: Vec<Entry>,
    pos: Vec<u32>,
    /// Nodes pushed with `f` at most `current_f`: popped first, last in first out.
    stack: Vec<NodeId>,
    /// The `f` of the last entry popped from the heap: the smallest `f` on the open list.
    current_f: Cost,
}

impl OpenList {
    /// Makes room for node ids below `node_count` (fails with [`crate::Error::OutOfMemory`]
    /// if it cannot be allocated); [`reset`](Self::reset) then allocates nothing.
    pub(crate) fn reserve(&mut self, node_count: usize) -> crate::Result<()> {
        if self.pos.len() < node_count {
            super::try_grow(&mut self.pos, node_count, 0, "the open list's positions")?;
        }
        Ok(())
    }

    /// Makes room for node ids below `node_count` and empties the list.
    pub(crate) fn reset(&mut self, node_count: usize) {
        if self.pos.len() < node_count {
            self.pos.resize(node_count, 0);
        }
        self.entries.clear();
        self.stack.clear();
        self.current_f = 0;
    }

    /// Number of entries.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len() + self.stack.len()
    }

    /// Inserts a node that is not on the list, with key `f = g + h`.
    #[inline]
    pub(crate) fn push(&mut self, node: NodeId, f: Cost, h: Cost) {
        if f <= self.current_f {
            self.pos[node as usize] = ON_STACK;
            self.stack.push(node);
            return;
        }
        let i = self.entries.len();
        self.entries.push(Entry {
            f,
            h: h as f32,
            node,
        });
        self.sift_up(i);
    }

    /// Lowers the cost so far of a node that is on the list: its key becomes `g + h`. A node on
    /// the stack stays there (it comes out before any node of the heap anyway).
    #[inline]
    pub(crate) fn decrease(&mut self, node: NodeId, g: Cost, h: Cost) {
        let i = self.pos[node as usize];
        if i == ON_STACK {
            return;
        }
        let i = i as usize;
        debug_assert_eq!(self.entries[i].node, node);
        self.entries[i].f = g.saturating_add(h);
        self.sift_up(i);
    }

    /// Removes and returns a node of the lowest key: the top of the stack if there is one,
    /// else the heap's root (lowest `f`, then lowest `h`).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<NodeId> {
        if let Some(n) = self.stack.pop() {
            return Some(n);
        }
        let last = self.entries.pop()?;
        if self.entries.is_empty() {
            self.current_f = last.f;
            return Some(last.node);
        }
        let top = self.entries[0];
        self.current_f = top.f;
        self.sift_down(last);
        Some(top.node)
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let e = self.entries[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.entries[parent];
            if !e.before(&p) {
                break;
            }
            self.entries[i] = p;
            self.pos[p.node as usize] = i as u32;
            i = parent;
        }
        self.entries[i] = e;
        self.pos[e.node as usize] = i as u32;
    }

    /// Places `e` starting from the root (whose entry has been taken out): the hole goes down
    /// to a leaf along the smaller children, then `e` sifts up from there.
    #[inline]
    fn sift_down(&mut self, e: Entry) {
        let len = self.entries.len();
        let mut i = 0;
        let mut child = 1;
        while child + 1 < len {
            child += self.entries[child + 1].before(&self.entries[child]) as usize;
            let c = self.entries[child];
            self.entries[i] = c;
            self.pos[c.node as usize] = i as u32;
            i = child;
            child = 2 * i + 1;
        }
        if child < len {
            let c = self.entries[child];
            self.entries[i] = c;
            self.pos[c.node as usize] = i as u32;
            i = child;
        }
        self.entries[i] = e;
        self.sift_up(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_with_h_tie_break_and_decrease_key() {
        let mut heap = OpenList::default();
        heap.reset(10);
        heap.push(1, 50, 10);
        heap.push(2, 50, 5);
        heap.push(3, 70, 0);
        heap.push(4, 30, 20);
        heap.push(5, 90, 0);
        heap.decrease(5, 40, 0);
        assert_eq!(heap.len(), 5);
        let order: Vec<_> = std::iter::from_fn(|| heap.pop()).collect();
        assert_eq!(order, vec![4, 5, 2, 1, 3]);
    }

    #[test]
    fn keys_at_most_the_last_popped_go_first_last_in_first_out() {
        let mut heap = OpenList::default();
        heap.reset(10);
        heap.push(1, 10, 0);
        heap.push(2, 20, 0);
        heap.push(5, 30, 0);
        assert_eq!(heap.pop(), Some(1)); // the smallest f is now 10
        heap.push(3, 10, 5);
        heap.push(4, 10, 1);
        // 5 improves to the smallest f: it stays in the heap, first of it.
        heap.decrease(5, 10, 0);
        // 3 is on the stack: a decrease leaves it there.
        heap.decrease(3, 5, 0);
        let order: Vec<_> = std::iter::from_fn(|| heap.pop()).collect();
        assert_eq!(order, vec![4, 3, 5, 2]);
    }

    #[test]
    fn random_against_sort() {
        let mut heap = OpenList::default();
        heap.reset(1000);
        let mut state = 12345u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut keys = vec![0u64; 1000];
        for n in 0..1000u32 {
            keys[n as usize] = 100 + next() % 500;
            heap.push(n, keys[n as usize], 0);
        }
        for n in (0..1000u32).step_by(3) {
            keys[n as usize] -= next() % 100;
            heap.decrease(n, keys[n as usize], 0);
        }
        let mut last = 0;
        let mut count = 0;
        while let Some(n) = heap.pop() {
            assert!(keys[n as usize] >= last);
            last = keys[n as usize];
            count += 1;
        }
        assert_eq!(count, 1000);
    }
}
