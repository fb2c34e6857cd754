//! The proximity grid of the crowd update: the same answers as Detour's `dtProximityGrid`, in
//! the same order, without its quadratic de-duplication.
//!
//! Layout and semantics kept from Detour, since neighbour selection depends on the order of
//! the ids a query returns (the 6 nearest are kept with ties going to the earlier candidate,
//! and a query stops at 32 ids):
//! - an item is added to every cell its box touches, up to the pool size (items past it are
//!   dropped), into hashed buckets of 16-bit chain links, newest first;
//! - a cell's coordinates are stored as 16-bit integers and compared with the 32-bit query
//!   coordinates, so an item whose cell coordinate does not fit 16 bits is never found;
//! - a query walks its cells row by row (y, then x), each cell's items newest first, keeps the
//!   first occurrence of each id and stops at the most ids asked for.
//!
//! Detour de-duplicates by scanning the ids found so far for every item; here a per-query stamp
//! per id (the worker's `Scratch`) makes that check O(1).

/// The end of a bucket chain.
const NONE: u16 = 0xffff;

/// One cell entry of an item.
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

/// A grid of item boxes on the xz-plane, rebuilt every frame.
pub(crate) struct ProximityGrid {
    inv_cell_size: f32,
    buckets: Vec<u16>,
    /// Item cells by 16-bit index (Detour indexes its pool with the pool head cast to 16 bits).
    pool: Vec<Item>,
    /// Item cells added (at most `pool_size`).
    head: usize,
    pool_size: usize,
    /// The largest id added plus one: the size the stamps need.
    id_bound: usize,
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

impl ProximityGrid {
    /// A grid of at most `pool_size` item cells, of cells `cell_size` wide (dtCrowd makes
    /// `4 x max agents` items of `3 x max agent radius`).
    pub(crate) fn new(pool_size: usize, cell_size: f32) -> Self {
        let pool_size = pool_size.max(1);
        let empty = Item {
            x: 0,
            y: 0,
            id: 0,
            next: NONE,
        };
        ProximityGrid {
            inv_cell_size: 1.0 / cell_size,
            buckets: vec![NONE; pool_size.next_power_of_two()],
            pool: vec![empty; pool_size.min(1 << 16)],
            head: 0,
            pool_size,
            id_bound: 0,
        }
    }

    /// Removes every item.
    pub(crate) fn clear(&mut self) {
        self.buckets.fill(NONE);
        self.head = 0;
        self.id_bound = 0;
    }

    /// Adds item `id` over the box (`minx`, `miny`)-(`maxx`, `maxy`).
    pub(crate) fn add_item(&mut self, id: u16, minx: f32, miny: f32, maxx: f32, maxy: f32) {
        let inv = self.inv_cell_size;
        let (x0, y0) = (cell(minx, inv), cell(miny, inv));
        let (x1, y1) = (cell(maxx, inv), cell(maxy, inv));
        self.id_bound = self.id_bound.max(id as usize + 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                if self.head >= self.pool_size {
                    // The pool is full: the rest are dropped (Detour loops on without adding).
                    return;
                }
                let h = bucket(x, y, self.buckets.len());
                let idx = self.head as u16;
                self.head += 1;
                self.pool[idx as usize] = Item {
                    x: x as i16,
                    y: y as i16,
                    id,
                    next: self.buckets[h],
                };
                self.buckets[h] = idx;
            }
        }
    }

    /// The ids of the items over the box (`minx`, `miny`)-(`maxx`, `maxy`), into `ids`, in
    /// Detour's order (see the module docs), at most `ids.len()`; how many.
    ///
    /// A chain is followed for at most the pool's length: only a pool of more than 0xffff
    /// items (crowds of over 16,383 agents) can link a chain into a loop, on which Detour's
    /// query would never return.
    pub(crate) fn query(
        &self,
        (minx, miny, maxx, maxy): (f32, f32, f32, f32),
        ids: &mut [u16],
        stamps: &mut Stamps,
    ) -> usize {
        let inv = self.inv_cell_size;
        let (x0, y0) = (cell(minx, inv), cell(miny, inv));
        let (x1, y1) = (cell(maxx, inv), cell(maxy, inv));
        let stamp = stamps.next(self.id_bound);
        let stamps = &mut stamps.seen;
        let mut n = 0;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let mut idx = self.buckets[bucket(x, y, self.buckets.len())];
                let mut steps = 0;
                while idx != NONE && steps < self.pool.len() {
                    steps += 1;
                    let item = self.pool[idx as usize];
                    idx = item.next;
                    if i32::from(item.x) != x || i32::from(item.y) != y {
                        continue;
                    }
                    let seen = &mut stamps[item.id as usize];
                    if *seen == stamp {
                        continue;
                    }
                    if n >= ids.len() {
                        return n;
                    }
                    *seen = stamp;
                    ids[n] = item.id;
                    n += 1;
                }
            }
        }
        n
    }
}
