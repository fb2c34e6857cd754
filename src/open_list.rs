//! The open list: a radix heap keyed on `f` with lazy deletion, plus a stack for nodes whose
//! `f` equals the `f` of the node being expanded. Used by the grid searches (`f` in exact
//! fixed point) and by the optimal path's Polyanya (`f` as the bits of a non-negative `f64`,
//! which sort as the numbers do).
//!
//! With a consistent heuristic, `f` never decreases along a search, so every key pushed is at
//! least the last key popped: a monotone priority queue is enough. The radix heap (Ahuja,
//! Mehlhorn, Orlin and Tarjan, 1990) keeps entries in 65 buckets by the highest bit in which
//! their `f` differs from the last `f` popped; a push is one `xor`, one leading-zero count and
//! a vector push, and an entry moves to a lower bucket at most once per bit, so a pop costs a
//! few sequential moves instead of a binary heap's `log n` scattered sifts. Bucket 0 holds the
//! entries of the smallest `f`, popped last in first out.
//!
//! Ties in `f` are not broken on `h`: with a consistent heuristic A* expands every node of `f`
//! below the optimal cost whatever the order, so the order matters only among the nodes of the
//! last `f`, where the stack (below) already heads for the goal. Sorting bucket 0 on `h` cost
//! 10-20% of A*'s time on the Moving AI maps and saved under 0.3% of its expansions.
//!
//! A node's cost is lowered by pushing it again (lazy deletion): the caller skips entries of
//! nodes it has already closed when they come out, which are exactly the stale ones (a lower
//! entry of the same node always comes out before them). No per-node position array is kept.
//!
//! A node opened with the `f` of the node being expanded has the smallest `f` of the whole
//! open list: it goes on a last-in-first-out stack that is popped before the heap (in open
//! areas a third of the nodes expanded, or more: stepping towards the goal keeps `f`
//! unchanged). Any order of the nodes of smallest `f` keeps A* optimal, and the stack's
//! depth-first order heads for the goal.

/// A key (`f`, in fixed point or as the bits of a non-negative `f64`).
type Cost = u64;
/// A node's index.
type NodeId = u32;

/// One heap entry.
#[derive(Clone, Copy, Debug)]
struct Entry {
    f: Cost,
    node: NodeId,
}

/// Number of buckets: bucket 0 for `f` equal to the last `f` popped, bucket `b` for `f` whose
/// highest bit differing from it is bit `b - 1`.
const BUCKETS: usize = 65;

/// The open list: a radix heap with lazy deletion and the stack of nodes of the smallest `f`.
#[derive(Debug, Clone)]
pub(crate) struct OpenList {
    buckets: [Vec<Entry>; BUCKETS],
    /// Bit `b` set if bucket `b` is not empty.
    occupied: u128,
    /// Nodes pushed with `f` at most `current_f`: popped first, last in first out.
    stack: Vec<NodeId>,
    /// The `f` of the last entry taken from the heap: the smallest `f` on the open list, and
    /// the radix heap's reference key.
    current_f: Cost,
}

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            buckets: [const { Vec::new() }; BUCKETS],
            occupied: 0,
            stack: Vec::new(),
            current_f: 0,
        }
    }
}

impl OpenList {
    /// Empties the list (keeping its memory).
    pub(crate) fn reset(&mut self, _node_count: usize) {
        while self.occupied != 0 {
            let b = self.occupied.trailing_zeros() as usize;
            self.buckets[b].clear();
            self.occupied &= self.occupied - 1;
        }
        self.stack.clear();
        self.current_f = 0;
    }

    /// Number of entries (stale ones included).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.buckets.iter().map(Vec::len).sum::<usize>() + self.stack.len()
    }

    /// The bucket of key `f` (which is at least `current_f`).
    #[inline(always)]
    fn bucket(&self, f: Cost) -> usize {
        (u64::BITS - (f ^ self.current_f).leading_zeros()) as usize
    }

    /// Inserts a node with key `f = g + h`; a node already on the list is inserted again (its
    /// older entry becomes stale: see the module docs).
    #[inline]
    pub(crate) fn push(&mut self, node: NodeId, f: Cost) {
        if f <= self.current_f {
            self.stack.push(node);
            return;
        }
        let b = self.bucket(f);
        self.occupied |= 1 << b;
        self.buckets[b].push(Entry { f, node });
    }

    /// Removes and returns a node of the lowest key: the top of the stack if there is one,
    /// else the heap's last entry of lowest `f`. May return a node whose entry is
    /// stale (the caller skips nodes it has closed).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<NodeId> {
        if let Some(n) = self.stack.pop() {
            return Some(n);
        }
        if self.occupied & 1 == 0 {
            if self.occupied == 0 {
                return None;
            }
            // The lowest bucket holds one entry (common when the list is short, as in JPS):
            // it is the minimum, no need to spread it.
            let b = self.occupied.trailing_zeros() as usize;
            if self.buckets[b].len() == 1 {
                let e = self.buckets[b].pop().expect("one entry");
                self.occupied &= !(1 << b);
                self.current_f = e.f;
                return Some(e.node);
            }
            self.refill()?;
        }
        let e = self.buckets[0].pop().expect("bucket 0 is occupied");
        if self.buckets[0].is_empty() {
            self.occupied &= !1;
        }
        Some(e.node)
    }

    /// With bucket 0 empty: takes the lowest occupied bucket, makes its smallest `f` the new
    /// reference and spreads its entries over the lower buckets (those of that `f` into bucket
    /// 0). `None` if the heap is empty.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> Option<()> {
        if self.occupied == 0 {
            return None;
        }
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << b);
        let mut from = std::mem::take(&mut self.buckets[b]);
        self.current_f = from.iter().map(|e| e.f).min().expect("occupied bucket");
        for &e in &from {
            let k = self.bucket(e.f);
            self.occupied |= 1 << k;
            self.buckets[k].push(e);
        }
        from.clear();
        self.buckets[b] = from;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops every node, skipping stale entries (nodes already popped), as the search does.
    fn drain(heap: &mut OpenList) -> Vec<NodeId> {
        let mut seen = std::collections::HashSet::new();
        std::iter::from_fn(|| heap.pop())
            .filter(|&n| seen.insert(n))
            .collect()
    }

    #[test]
    fn pops_in_key_order_and_decrease_key() {
        let mut heap = OpenList::default();
        heap.reset(10);
        heap.push(1, 50);
        heap.push(2, 60);
        heap.push(3, 70);
        heap.push(4, 30);
        heap.push(5, 90);
        heap.push(5, 40); // 5 improves: pushed again, its entry at 90 is stale
        assert_eq!(heap.len(), 6);
        assert_eq!(drain(&mut heap), vec![4, 5, 1, 2, 3]);
    }

    #[test]
    fn keys_at_most_the_last_popped_go_first_last_in_first_out() {
        let mut heap = OpenList::default();
        heap.reset(10);
        heap.push(1, 10);
        heap.push(2, 20);
        heap.push(5, 30);
        assert_eq!(heap.pop(), Some(1)); // the smallest f is now 10
        heap.push(3, 10);
        heap.push(4, 10);
        // 5 improves to the smallest f: onto the stack, above 3 and 4.
        heap.push(5, 10);
        assert_eq!(drain(&mut heap), vec![5, 4, 3, 2]);
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
        // Monotone use, as in a search: keys pushed are above the last popped; some nodes are
        // pushed again with a lower key (a decrease).
        let mut keys = vec![u64::MAX; 1000];
        let mut last = 0;
        let mut popped = 0;
        let mut done = vec![false; 1000];
        for n in 0..1000u32 {
            keys[n as usize] = last + 1 + next() % 500;
            heap.push(n, keys[n as usize]);
            if n % 3 == 0 && n > 0 {
                let m = (next() % n as u64) as usize;
                if !done[m] && keys[m] > last + 1 {
                    keys[m] = last + 1 + next() % (keys[m] - last - 1);
                    heap.push(m as NodeId, keys[m]);
                }
            }
            if n % 2 == 1 {
                while let Some(m) = heap.pop() {
                    if !std::mem::replace(&mut done[m as usize], true) {
                        assert!(keys[m as usize] >= last);
                        last = keys[m as usize];
                        popped += 1;
                        break;
                    }
                }
            }
        }
        while let Some(m) = heap.pop() {
            if !std::mem::replace(&mut done[m as usize], true) {
                assert!(keys[m as usize] >= last);
                last = keys[m as usize];
                popped += 1;
            }
        }
        assert_eq!(popped, 1000);
    }
}
