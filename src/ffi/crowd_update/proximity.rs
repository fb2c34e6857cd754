//! The proximity grid of the crowd update: the same answers as Detour's `dtProximityGrid`, in
//! the same order, faster.
//!
//! Detour's semantics, kept since neighbour selection depends on the order of the ids a query
//! returns (the 6 nearest are kept, ties resolved by candidate order, and a query stops at 32
//! ids):
//! - an item is entered in every cell its box touches, up to the pool size (cells past it are
//!   dropped), into hashed buckets of 16-bit chain links, newest first;
//! - a cell's coordinates are stored as 16-bit integers and compared with the 32-bit query
//!   coordinates: an entry whose coordinate does not fit 16 bits is found only by a query of
//!   its wrapped coordinate whose cell hashes to the same bucket;
//! - a query walks its cells row by row (y, then x), each cell's entries newest first, keeps
//!   the first occurrence of each id and stops at the most ids asked for.
//!
//! Detour de-duplicates by scanning the ids found so far for every entry; here a per-query
//! stamp per id ([`Stamps`], the worker's) makes that check O(1). And when every entry's cell
//! fits 16 bits, fewer than 0xffff entries were made and the cells span a compact rectangle
//! (the usual case), the grid is laid out densely: each row's cells one after the other, each
//! cell's entries newest first, so a query reads one contiguous run per row instead of a
//! hashed chain per cell. It finds exactly the entries the chains give: a chain holds the
//! entries of its cells only, and these match their own cell only. Otherwise the grid is
//! Detour's hashed layout, chain for chain.

/// The end of a bucket chain.
const NONE: u16 = 0xffff;

/// One cell entry of an item in the hashed layout.
#[derive(Clone, Copy)]
struct Item {
    x: i16,
    y: i16,
    id: u16,
    next: u16,
}

/// Per id, the query that last found it: a query's de-duplication without clearing anything.
#[derive(Default)]
pub(crate) struct Stamps {
    seen: Vec<u32>,
    stamp: u32,
}

impl Stamps {
    /// A fresh stamp for a query over ids below `ids`: no id carries it yet.
    fn next(&mut self, ids: usize) -> u32 {
        if self.seen.len() < ids {
            self.seen.resize(ids, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }
}

/// The dense layout: cells `x0..x0 + width` by `y0..`, row-major.
#[derive(Default)]
struct Dense {
    x0: i32,
    y0: i32,
    width: i32,
    height: i32,
    /// Where each cell's entries start in `ids` (one more than the cells).
    start: Vec<u32>,
    /// Every cell's entries (item ids), each cell's newest first.
    ids: Vec<u16>,
}

/// A grid of item boxes on the xz-plane, rebuilt every frame: [`ProximityGrid::clear`],
/// [`ProximityGrid::add_item`]s, [`ProximityGrid::finish`], then queries.
pub(crate) struct ProximityGrid {
    inv_cell_size: f32,
    pool_size: usize,
    /// The cell entries made, in order: (x, y, id).
    entries: Vec<(i32, i32, u16)>,
    /// The largest id added plus one: the size the stamps need.
    id_bound: usize,
    /// The dense layout, when it applies.
    dense: Option<Dense>,
    spare: Dense,
    buckets: Vec<u16>,
    /// Hashed entries by 16-bit index (Detour indexes its pool with the pool head cast to 16
    /// bits).
    pool: Vec<Item>,
}

/// A float's integer part as x86-64's truncating conversion gives it: `i32::MIN` for NaN and
/// values out of range (Detour casts with `(int)`).
fn to_int(f: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&f) {
        f as i32
    } else {
        i32::MIN
    }
}

/// The cell coordinate of `v`.
fn cell(v: f32, inv_cell_size: f32) -> i32 {
    to_int((v * inv_cell_size).floor())
}

/// The bucket of cell (x, y) among `n` (a power of two) buckets.
fn bucket(x: i32, y: i32, n: usize) -> usize {
    ((x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) & (n as i32 - 1)) as usize
}

/// True if `v` fits 16 bits.
fn fits(v: i32) -> bool {
    i16::try_from(v).is_ok()
}

impl ProximityGrid {
    /// A grid of at most `pool_size` cell entries, of cells `cell_size` wide (dtCrowd makes
    /// `4 x max agents` entries of `3 x max agent radius`).
    pub(crate) fn new(pool_size: usize, cell_size: f32) -> Self {
        let pool_size = pool_size.max(1);
        ProximityGrid {
            inv_cell_size: 1.0 / cell_size,
            pool_size,
            entries: Vec::new(),
            id_bound: 0,
            dense: None,
            spare: Dense::default(),
            buckets: Vec::new(),
            pool: Vec::new(),
        }
    }

    /// Removes every item.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.id_bound = 0;
        if let Some(d) = self.dense.take() {
            self.spare = d;
        }
    }

    /// Adds item `id` over the box (`minx`, `miny`)-(`maxx`, `maxy`).
    pub(crate) fn add_item(&mut self, id: u16, minx: f32, miny: f32, maxx: f32, maxy: f32) {
        let inv = self.inv_cell_size;
        let (x0, y0) = (cell(minx, inv), cell(miny, inv));
        let (x1, y1) = (cell(maxx, inv), cell(maxy, inv));
        self.id_bound = self.id_bound.max(id as usize + 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                if self.entries.len() >= self.pool_size {
                    // The pool is full: the rest are dropped (Detour loops on without adding).
                    return;
                }
                self.entries.push((x, y, id));
            }
        }
    }

    /// Lays the entries out for queries: densely if it can, else as Detour's chains.
    pub(crate) fn finish(&mut self) {
        let e = &self.entries;
        let compact = e.len() < NONE as usize
            && e.iter().all(|&(x, y, _)| fits(x) && fits(y))
            && self.lay_out_dense();
        if !compact {
            self.lay_out_hashed();
        }
    }

    /// The dense layout, if the entries' cells span a rectangle of at most a few cells per
    /// entry; whether it was made.
    fn lay_out_dense(&mut self) -> bool {
        let e = &self.entries;
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &(x, y, _) in e {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let mut d = std::mem::take(&mut self.spare);
        if e.is_empty() {
            (x0, y0, x1, y1) = (0, 0, -1, -1);
        }
        let (w, h) = (i64::from(x1 - x0 + 1), i64::from(y1 - y0 + 1));
        if w * h > 16 * e.len() as i64 + 4096 {
            self.spare = d;
            return false;
        }
        (d.x0, d.y0, d.width, d.height) = (x0, y0, w as i32, h as i32);
        let cells = (w * h) as usize;
        d.start.clear();
        d.start.resize(cells + 1, 0);
        let at = |x: i32, y: i32| ((y - y0) as usize) * w as usize + (x - x0) as usize;
        for &(x, y, _) in e {
            d.start[at(x, y) + 1] += 1;
        }
        for c in 0..cells {
            d.start[c + 1] += d.start[c];
        }
        d.ids.clear();
        d.ids.resize(e.len(), 0);
        // Newest first within a cell: fill each cell from its start, newest entry first.
        let mut cursor = std::mem::take(&mut d.start);
        for &(x, y, id) in e.iter().rev() {
            let c = &mut cursor[at(x, y)];
            d.ids[*c as usize] = id;
            *c += 1;
        }
        // The cursors now hold each cell's end, the next cell's start: shift them back.
        d.start = cursor;
        d.start.rotate_right(1);
        d.start[0] = 0;
        self.dense = Some(d);
        true
    }

    /// Detour's hashed layout: the entries chained into their buckets in order, each new
    /// entry at its chain's head.
    fn lay_out_hashed(&mut self) {
        let n = self.pool_size.next_power_of_two();
        self.buckets.clear();
        self.buckets.resize(n, NONE);
        let empty = Item {
            x: 0,
            y: 0,
            id: 0,
            next: NONE,
        };
        self.pool.clear();
        self.pool.resize(self.pool_size.min(1 << 16), empty);
        for (head, &(x, y, id)) in self.entries.iter().enumerate() {
            let h = bucket(x, y, n);
            let idx = head as u16;
            self.pool[idx as usize] = Item {
                x: x as i16,
                y: y as i16,
                id,
                next: self.buckets[h],
            };
            self.buckets[h] = idx;
        }
    }

    /// The ids of the items over the box (`minx`, `miny`)-(`maxx`, `maxy`), into `ids`, in
    /// Detour's order (see the module docs), at most `ids.len()`; how many.
    pub(crate) fn query(
        &self,
        (minx, miny, maxx, maxy): (f32, f32, f32, f32),
        ids: &mut [u16],
        stamps: &mut Stamps,
    ) -> usize {
        let inv = self.inv_cell_size;
        let (x0, y0) = (cell(minx, inv), cell(miny, inv));
        let (x1, y1) = (cell(maxx, inv), cell(maxy, inv));
        if ids.is_empty() {
            return 0;
        }
        let stamp = stamps.next(self.id_bound);
        let mut found = Found {
            ids,
            n: 0,
            seen: &mut stamps.seen,
            stamp,
        };
        match &self.dense {
            Some(d) => self.query_dense(d, (x0, y0, x1, y1), &mut found),
            None => self.query_hashed((x0, y0, x1, y1), &mut found),
        };
        found.n
    }

    /// A query over the dense layout.
    fn query_dense(&self, d: &Dense, (x0, y0, x1, y1): (i32, i32, i32, i32), found: &mut Found) {
        let (xa, xb) = (x0.max(d.x0), x1.min(d.x0 + d.width - 1));
        let (ya, yb) = (y0.max(d.y0), y1.min(d.y0 + d.height - 1));
        if xa > xb || ya > yb {
            return;
        }
        for y in ya..=yb {
            let row = ((y - d.y0) * d.width) as usize;
            let lo = d.start[row + (xa - d.x0) as usize] as usize;
            let hi = d.start[row + (xb - d.x0) as usize + 1] as usize;
            for &id in &d.ids[lo..hi] {
                if !found.add(id) {
                    return;
                }
            }
        }
    }

    /// A query over the hashed layout. A chain is followed for at most the pool's length:
    /// only a pool of more than 0xffff entries (crowds of over 16,383 agents) can link a chain
    /// into a loop, on which Detour's query would never return.
    fn query_hashed(&self, (x0, y0, x1, y1): (i32, i32, i32, i32), found: &mut Found) {
        for y in y0..=y1 {
            for x in x0..=x1 {
                let mut idx = self.buckets[bucket(x, y, self.buckets.len())];
                let mut steps = 0;
                while idx != NONE && steps < self.pool.len() {
                    steps += 1;
                    let item = self.pool[idx as usize];
                    idx = item.next;
                    if i32::from(item.x) == x && i32::from(item.y) == y && !found.add(item.id) {
                        return;
                    }
                }
            }
        }
    }
}

/// A query's answer so far.
struct Found<'a> {
    ids: &'a mut [u16],
    n: usize,
    seen: &'a mut [u32],
    stamp: u32,
}

impl Found<'_> {
    /// Takes `id` unless already found; false when the answer is full (the query stops: no
    /// later id could be taken). Written without branches (whether an id was already found
    /// is hard to predict); the answer must not be full when called.
    fn add(&mut self, id: u16) -> bool {
        let seen = &mut self.seen[id as usize];
        let fresh = *seen != self.stamp;
        *seen = self.stamp;
        self.ids[self.n] = id;
        self.n += usize::from(fresh);
        self.n < self.ids.len()
    }
}
