//! The heightfield rasterized in row strips: `rcRasterizeTriangles` of the triangles that touch
//! each strip of grid rows, side by side on the calling thread and helper threads
//! ([`crate::par::claim_each`]), the first strip into the whole heightfield (cut to the strip's
//! rows meanwhile), the others into heightfields of their own whose strip columns are then moved
//! into the whole one.
//!
//! Recast rasterizes a triangle row by row: it computes the triangle's first and last rows from
//! its bounds, the heightfield's origin and cell size (clamped to the grid's rows), then clips
//! the triangle at each row's far edge in turn, from the first row on, and adds the row's part
//! to the row's columns cell by cell. A column's spans come from the triangles that reach it,
//! in the order they are given, merged as they come. A strip's heightfield has the whole grid's
//! origin, bounds, width and cell sizes, and rows `0..end` (the strip's last row plus one); it
//! is given, in their order, exactly the triangles whose rows (as Recast computes them for the
//! whole grid) reach the strip. For a row of the strip, such a triangle is clipped by the same
//! float operations from the same first row (its first row is inside `0..end`, so the clamp to
//! the strip's rows does not move it), so the row's columns receive the same parts in the same
//! order as in one call over the whole grid: the same spans. Rows before the strip receive
//! spans too (the triangles reaching into it from below); they are left unused, their spans'
//! memory freed with the whole heightfield. So the strips give the same heightfield as one call
//! (`tests/parallel_parity.rs` compares them on RecastDemo's meshes and a terrain).

use std::ops::Range;

use recastnavigation_sys as sys;

use super::{Heightfield, mesh_ok};
use crate::ffi::context::RecastContext;

/// How [`Heightfield::rasterize_in_strips`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rasterized {
    /// Every triangle was rasterized.
    Done,
    /// Recast failed (out of memory), or the input was refused.
    Failed,
    /// `keep_going` said to stop.
    Stopped,
}

/// Fewest grid rows per strip: below this the strips' extra clipping and set-up outweigh
/// what they share out.
const MIN_ROWS_PER_STRIP: i32 = 16;

/// The rows (as `rasterizeTri` computes them for the whole grid: first clamped to `-1..h`,
/// last to `0..h`) that triangle `t` of `tris` reaches in a grid of `h` rows from `zmin` with
/// inverse cell size `ics`.
fn tri_rows(verts: &[f32], tris: &[i32], t: usize, zmin: f32, ics: f32, h: i32) -> (i32, i32) {
    let z = |k: usize| verts[tris[t * 3 + k] as usize * 3 + 2];
    let (a, b, c) = (z(0), z(1), z(2));
    // As rcVmin / rcVmax: exact, so the order does not matter.
    let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
    // Recast's float-to-int conversion truncates (Rust's `as` saturates where C++ would be
    // undefined; within the grid both agree).
    let z0 = ((lo - zmin) * ics) as i32;
    let z1 = ((hi - zmin) * ics) as i32;
    (z0.clamp(-1, h - 1), z1.clamp(0, h - 1))
}

/// At most `n` consecutive row ranges splitting `0..h`, of at least [`MIN_ROWS_PER_STRIP`] rows
/// each, chosen so that the most work a strip does is as small as a greedy split can make it.
/// A strip's work is counted in triangle rows: a row counts once, plus once per triangle
/// reaching it (`rows` holds each triangle's first and last row); a strip other than the first
/// also clips again the rows below it of the triangles reaching into it from below.
fn strips(rows: &[(i32, i32)], h: i32, n: usize) -> Vec<Range<i32>> {
    let hu = h.max(0) as usize;
    let min = (MIN_ROWS_PER_STRIP as usize).min(hu);
    // Differences along the rows: triangles reaching a row; triangles reaching from below a
    // row to it or past it, and the sum of their first rows.
    let (mut reach, mut across, mut first) =
        (vec![0i64; hu + 1], vec![0i64; hu + 1], vec![0i64; hu + 1]);
    for &(z0, z1) in rows {
        let (z0, z1) = (z0.max(0) as usize, z1 as usize);
        reach[z0] += 1;
        reach[z1 + 1] -= 1;
        across[z0 + 1] += 1;
        across[z1 + 1] -= 1;
        first[z0 + 1] += z0 as i64;
        first[z1 + 1] -= z0 as i64;
    }
    // `before[z]`: the work of rows `0..z`; `again[a]`: the rows a strip starting at `a` clips
    // again below it.
    let (mut before, mut again) = (vec![0i64; hu + 1], vec![0i64; hu + 1]);
    let (mut r, mut c, mut f) = (0i64, 0i64, 0i64);
    for z in 0..hu {
        r += reach[z];
        before[z + 1] = before[z] + r.max(0) + 1;
        c += across[z];
        f += first[z];
        again[z] = (z as i64 * c - f).max(0);
    }
    let work = |a: usize, b: usize| before[b] - before[a] + again[a];
    // The cuts of strips each taken as long as `limit` allows (but `min` rows at least, and no
    // shorter tail).
    let split = |limit: i64| {
        let mut cuts = vec![0usize];
        let mut a = 0;
        while a < hu {
            let shortest = (a + min).min(hu);
            let mut b = shortest;
            while b < hu && work(a, b + 1) <= limit {
                b += 1;
            }
            if hu - b < min {
                b = if hu - min >= shortest && work(a, hu) > limit {
                    hu - min
                } else {
                    hu
                };
            }
            cuts.push(b);
            a = b;
        }
        cuts
    };
    let (mut lo, mut hi) = (0i64, work(0, hu));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if split(mid).len() - 1 <= n {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    split(hi)
        .windows(2)
        .map(|c| c[0] as i32..c[1] as i32)
        .collect()
}

/// The whole heightfield's grid: its width, bounds and cell sizes.
struct Grid {
    width: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
    cs: f32,
    ch: f32,
}

/// What every strip reads: the triangles and the whole heightfield's grid.
struct Inputs<'a> {
    verts: &'a [f32],
    tris: &'a [i32],
    areas: &'a [u8],
    rows: Vec<(i32, i32)>,
    grid: Grid,
    flag_merge_threshold: i32,
    batch: usize,
    keep_going: &'a (dyn Fn() -> bool + Sync),
}

impl Inputs<'_> {
    /// The heightfield of rows `0..strip.end` with the spans of the triangles reaching `strip`.
    fn strip(&self, strip: Range<i32>) -> (Rasterized, Option<Heightfield>, RecastContext) {
        let mut ctx = RecastContext::new();
        let mut hf = Heightfield::new();
        let g = &self.grid;
        let (w, cs, ch) = (g.width, g.cs, g.ch);
        if !hf.create(&mut ctx, w, strip.end, g.bmin, g.bmax, cs, ch) {
            return (Rasterized::Failed, None, ctx);
        }
        let done = self.fill(&mut hf, &mut ctx, strip);
        (done, Some(hf), ctx)
    }

    /// Rasterizes the triangles reaching `strip` into `hf` (created, of the whole grid's width,
    /// bounds and cell sizes, with at least `strip.end` rows), in their order.
    fn fill(&self, hf: &mut Heightfield, ctx: &mut RecastContext, strip: Range<i32>) -> Rasterized {
        let mut tris = Vec::new();
        let mut areas = Vec::new();
        for (t, &(z0, z1)) in self.rows.iter().enumerate() {
            if z0 < strip.end && z1 >= strip.start {
                tris.extend_from_slice(&self.tris[t * 3..t * 3 + 3]);
                areas.push(self.areas[t]);
            }
        }
        for (tris, areas) in tris.chunks(self.batch * 3).zip(areas.chunks(self.batch)) {
            if !(self.keep_going)() {
                return Rasterized::Stopped;
            }
            if !hf.rasterize(ctx, self.verts, tris, areas, self.flag_merge_threshold) {
                return Rasterized::Failed;
            }
        }
        Rasterized::Done
    }
}

impl Heightfield {
    /// [`Heightfield::rasterize`] of `tris` (with their `areas`) in up to `parts` row strips
    /// rasterized side by side on the calling thread and helper threads (see the module's
    /// comment): the same spans as one call. Each strip asks `keep_going` before every `batch`
    /// triangles and stops when it says no. The heightfield must be created and empty (as
    /// [`Heightfield::create`] leaves it); otherwise, or with one part or too few rows, the
    /// triangles are rasterized here in one strip. The strips' log messages follow `ctx`'s;
    /// Recast's rasterize timer of `ctx` times the whole.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rasterize_in_strips(
        &mut self,
        ctx: &mut RecastContext,
        verts: &[f32],
        tris: &[i32],
        areas: &[u8],
        flag_merge_threshold: i32,
        parts: usize,
        batch: usize,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Rasterized {
        if !mesh_ok(verts, tris) || areas.len() != tris.len() / 3 {
            return Rasterized::Failed;
        }
        let hf = self.raw();
        let empty = !hf.spans.is_null() && hf.pools.is_null() && hf.freelist.is_null();
        let (h, grid) = (
            hf.height,
            Grid {
                width: hf.width,
                bmin: hf.bmin,
                bmax: hf.bmax,
                cs: hf.cs,
                ch: hf.ch,
            },
        );
        let batch = batch.max(1);
        if parts <= 1 || !empty || grid.width <= 0 || h < 2 * MIN_ROWS_PER_STRIP {
            for (tris, areas) in tris.chunks(batch * 3).zip(areas.chunks(batch)) {
                if !keep_going() {
                    return Rasterized::Stopped;
                }
                if !self.rasterize(ctx, verts, tris, areas, flag_merge_threshold) {
                    return Rasterized::Failed;
                }
            }
            return Rasterized::Done;
        }
        const T_RASTERIZE: u32 = sys::rcTimerLabel_RC_TIMER_RASTERIZE_TRIANGLES;
        ctx.start_timer(T_RASTERIZE);
        let ics = 1.0 / grid.cs;
        let rows: Vec<(i32, i32)> = (0..tris.len() / 3)
            .map(|t| tri_rows(verts, tris, t, grid.bmin[2], ics, h))
            .collect();
        let strips = strips(&rows, h, parts);
        let inputs = Inputs {
            verts,
            tris,
            areas,
            rows,
            grid,
            flag_merge_threshold,
            batch,
            keep_going,
        };
        // The first strip goes into this heightfield itself, cut to the strip's rows meanwhile
        // (Recast clamps a triangle's rows to the heightfield's), so that its triangles reaching
        // past the strip stop at its end, as in a strip's own heightfield.
        self.set_rows(strips[0].end);
        let whole = std::sync::Mutex::new(&mut *self);
        let built = crate::par::claim_each(strips.len(), parts, |i| {
            if i > 0 {
                return inputs.strip(strips[i].clone());
            }
            let mut ctx = RecastContext::new();
            let mut hf = whole.lock().unwrap_or_else(|e| e.into_inner());
            (inputs.fill(&mut hf, &mut ctx, strips[0].clone()), None, ctx)
        });
        self.set_rows(h);
        let mut outcome = Rasterized::Done;
        for (strip, (done, hf, mut strip_ctx)) in strips.into_iter().zip(built) {
            ctx.append_logs(strip_ctx.take_logs());
            if done != Rasterized::Done {
                outcome = done;
                break;
            }
            if let Some(mut hf) = hf {
                self.take_rows(&mut hf, strip);
            }
        }
        ctx.stop_timer(T_RASTERIZE);
        outcome
    }

    /// Sets the heightfield's row count to `rows`, at most the rows it was created with (its
    /// `spans` array keeps them all).
    fn set_rows(&mut self, rows: i32) {
        // SAFETY: a live heightfield borrowed exclusively; only its row count changes, and
        // callers pass at most the count it was created with, so every row Recast may then
        // index lies inside its `spans` array.
        unsafe { (*self.as_ptr()).height = rows }
    }

    /// Moves the columns of rows `rows` of `strip` (a heightfield of the same width and at
    /// least `rows.end` rows) into this one, with all of `strip`'s span pools (so the spans
    /// live as long as this heightfield; `strip` keeps none).
    fn take_rows(&mut self, strip: &mut Heightfield, rows: Range<i32>) {
        // SAFETY: both are live, created heightfields of the same width; `rows` lies within
        // both grids (`strips` splits `0..height`, and `strip` has `rows.end` rows), so the
        // column heads copied are inside both `spans` arrays. The spans those heads reach are
        // in `strip`'s pools, which are linked into this heightfield's list and taken from
        // `strip` (its pool list and free list emptied), so they are freed once, with this
        // heightfield, and not before. `rcFreeHeightField` frees a heightfield's spans array
        // and its pools, nothing else.
        unsafe {
            let (to, from) = (&mut *self.as_ptr(), &mut *strip.as_ptr());
            let w = to.width as usize;
            let cols = rows.start as usize * w..rows.end as usize * w;
            std::ptr::copy_nonoverlapping(
                from.spans.add(cols.start),
                to.spans.add(cols.start),
                cols.len(),
            );
            if !from.pools.is_null() {
                let mut last = from.pools;
                while !(*last).next.is_null() {
                    last = (*last).next;
                }
                (*last).next = to.pools;
                to.pools = from.pools;
                from.pools = std::ptr::null_mut();
            }
            from.freelist = std::ptr::null_mut();
        }
    }
}
