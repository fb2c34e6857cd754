//! Room for Recast's row sweeps: the fix for upstream recastnavigation #317.
//!
//! `rcBuildRegionsMonotone`, `rcBuildLayerRegions` and `rcBuildHeightfieldLayers` walk the
//! compact heightfield row by row and split each row into *sweeps*: runs of spans joined along
//! x. They keep a row's sweeps in an array sized by the grid, `max(width, height)` entries for
//! the two region partitions and `width` for the layers, on the assumption that a row holds at
//! most one sweep per cell. Where floors stack, a cell holds a span per floor and a row can hold
//! more sweeps than the grid is wide, and Recast writes past its array (a multi-storey level,
//! `../shared/hostile/layers-overflow/stacked.obj`, does it with default settings).
//!
//! Before each of these calls navkit counts the sweeps each row will start, exactly as Recast
//! starts them ([`row_sweeps`]). Where the grid is too small for them, Recast is handed the
//! same spans in a larger grid ([`Layout`]): the cells are placed `pad` cells in from every side
//! and the border passed to Recast is widened by `pad`, so that Recast visits the same spans in
//! the same order, paints the same border, sizes its outputs the same (`width - 2 * border`)
//! and finds the same regions and layers; only its sweep array is larger. A region partition
//! without a border instead gets empty columns on the right, which its loops cross without
//! effect. The spans, their areas and connections (which count cells relative to their own) are
//! shared with the original heightfield, not copied: only the cell table is rebuilt. Grids that
//! are large enough (every single-floor level, and most others) are passed to Recast untouched.
//!
//! Two limits are Recast's data formats, not its buffers: a region partition numbers a row's
//! sweeps with 16 bits, and the layers with 8 bits (at most 255 regions per tile, which a row of
//! more than 255 sweeps would exceed). Rows past them are refused with a message saying so.

use recastnavigation_sys as sys;

use super::context::RecastContext;

/// Which of Recast's sweeps a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// `rcBuildRegionsMonotone` and `rcBuildLayerRegions`: a span continues the sweep of its -x
    /// neighbour if both have the same area; sweeps are numbered from 1 in 16 bits and kept in
    /// `max(width, height)` entries.
    Regions,
    /// `rcBuildHeightfieldLayers`: a span continues the sweep of any walkable -x neighbour;
    /// sweeps are numbered from 0 in 8 bits and kept in `width` entries.
    Layers,
}

/// `RC_NOT_CONNECTED`: a span's connection field for "no neighbour this way".
const NOT_CONNECTED: u32 = 0x3f;
/// `RC_NULL_AREA`.
const NULL_AREA: u8 = 0;
/// The most cells a widened grid may have (4 bytes each): 256 MiB.
const MAX_CELLS: usize = 1 << 26;

/// Where a widened grid puts the original one, and what it tells Recast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Empty columns before the original cells.
    pub(crate) left: i32,
    /// Empty rows before the original cells.
    pub(crate) top: i32,
    /// The widened grid's width and height.
    pub(crate) width: i32,
    pub(crate) height: i32,
    /// The border to pass to Recast.
    pub(crate) border: i32,
}

/// The compact heightfield's cells, spans and areas, as slices.
struct Grid<'a> {
    w: usize,
    h: usize,
    cells: &'a [sys::rcCompactCell],
    spans: &'a [sys::rcCompactSpan],
    areas: &'a [u8],
}

impl<'a> Grid<'a> {
    /// # Safety
    /// `raw` must be a built compact heightfield: `width * height` cells whose spans
    /// (`index .. index + count`) lie within its `spanCount` spans and areas, not written while
    /// the returned grid lives.
    unsafe fn of(raw: &'a sys::rcCompactHeightfield) -> Grid<'a> {
        let (w, h) = (raw.width.max(0) as usize, raw.height.max(0) as usize);
        let n = raw.spanCount.max(0) as usize;
        // SAFETY: the caller promises these arrays and lengths; `c_slice` gives an empty slice
        // for a null pointer.
        unsafe {
            Grid {
                w,
                h,
                cells: super::buffers::c_slice(raw.cells, w * h),
                spans: super::buffers::c_slice(raw.spans, n),
                areas: super::buffers::c_slice(raw.areas, n),
            }
        }
    }

    /// The span that span `i` of cell (`x`, `y`) connects to in direction `dir` (0: -x, 3: -y),
    /// if any.
    fn neighbour(&self, x: usize, y: usize, i: usize, dir: u32) -> Option<usize> {
        let con = (self.spans[i].con() >> (dir * 6)) & 0x3f;
        let (nx, ny) = match dir {
            0 => (x.checked_sub(1)?, y),
            3 => (x, y.checked_sub(1)?),
            _ => return None,
        };
        if con == NOT_CONNECTED || nx >= self.w || ny >= self.h {
            return None;
        }
        let n = self.cells[nx + ny * self.w].index() as usize + con as usize;
        (n < self.spans.len()).then_some(n)
    }

    /// Whether span `i` of cell (`x`, `y`) continues the sweep of its -x neighbour, as `sweep`
    /// decides it (the neighbour must have been swept in this row: `x - 1 >= border`).
    fn continues(&self, sweep: Sweep, x: usize, y: usize, i: usize, border: usize) -> bool {
        let con = self.spans[i].con() & 0x3f;
        if con == NOT_CONNECTED || x == 0 || x - 1 < border {
            return false;
        }
        let left = self.cells[x - 1 + y * self.w];
        let ai = left.index() as usize + con as usize;
        match (sweep, self.areas.get(ai)) {
            (Sweep::Regions, Some(&a)) => a == self.areas[i],
            (Sweep::Layers, Some(&a)) => a != NULL_AREA,
            (_, None) => false,
        }
    }
}

/// The most sweeps any row of `raw` starts in a call of `sweep` with `border` (rows and columns
/// `border .. size - border`, walkable spans only).
///
/// # Safety
/// As [`Grid::of`].
#[cfg(test)]
unsafe fn max_row_sweeps(raw: &sys::rcCompactHeightfield, border: i32, sweep: Sweep) -> usize {
    // SAFETY: passed on from the caller.
    unsafe { row_sweeps(raw, border, sweep) }.0
}

/// The most sweeps any row starts, and the sweeps of all rows, counted as for
/// [`max_row_sweeps`].
///
/// # Safety
/// As [`Grid::of`].
unsafe fn row_sweeps(raw: &sys::rcCompactHeightfield, border: i32, sweep: Sweep) -> (usize, usize) {
    // SAFETY: passed on from the caller.
    let g = unsafe { Grid::of(raw) };
    let b = border.max(0) as usize;
    let (mut most, mut total) = (0, 0);
    for y in b..g.h.saturating_sub(b) {
        let mut row = 0;
        for x in b..g.w.saturating_sub(b) {
            let c = g.cells[x + y * g.w];
            for i in c.index() as usize..c.index() as usize + c.count() as usize {
                if g.areas[i] != NULL_AREA && !g.continues(sweep, x, y, i, b) {
                    row += 1;
                }
            }
        }
        most = most.max(row);
        total += row;
    }
    (most, total)
}

/// `RC_BORDER_REG`: the flag of a border region's id.
const BORDER_REG: u32 = 0x8000;

/// One past the largest region id the sweep of a region partition hands out before its regions
/// are merged (the `maxRegions` it passes on), counted as Recast counts it: 4 ids for the border
/// if there is one, then one for each sweep that does not continue the region of the row
/// before. Recast keeps these ids in 16 bits with the top bit for "border", and does not check
/// them: past `0x8000` they read as border regions, past `0xffff` they wrap and its region
/// table is indexed beyond its end.
///
/// # Safety
/// As [`Grid::of`].
unsafe fn region_ids(raw: &sys::rcCompactHeightfield, border: i32) -> u32 {
    // SAFETY: passed on from the caller.
    let g = unsafe { Grid::of(raw) };
    let b = border.max(0) as usize;
    let mut reg = vec![0u32; g.spans.len()];
    let mut next = 1u32;
    if b > 0 {
        for y in 0..g.h {
            for x in 0..g.w {
                let c = g.cells[x + y * g.w];
                let edge =
                    x < b || x >= g.w.saturating_sub(b) || y < b || y >= g.h.saturating_sub(b);
                let span = c.index() as usize..c.index() as usize + c.count() as usize;
                for (r, &a) in reg[span.clone()].iter_mut().zip(&g.areas[span]) {
                    if edge && a != NULL_AREA {
                        *r = BORDER_REG | 1;
                    }
                }
            }
        }
        next = 5;
    }
    // Per sweep of a row: the region below it (0 none, u32::MAX several) and its span count.
    let mut sweeps: Vec<(u32, u32)> = Vec::new();
    let mut below: Vec<u32> = Vec::new();
    for y in b..g.h.saturating_sub(b) {
        sweeps.clear();
        below.clear();
        below.resize(next as usize + 1, 0);
        for x in b..g.w.saturating_sub(b) {
            let c = g.cells[x + y * g.w];
            for i in c.index() as usize..c.index() as usize + c.count() as usize {
                if g.areas[i] == NULL_AREA {
                    continue;
                }
                let left = g.neighbour(x, y, i, 0).map_or(0, |a| reg[a]);
                let sid = if left != 0
                    && left & BORDER_REG == 0
                    && g.continues(Sweep::Regions, x, y, i, b)
                {
                    left
                } else {
                    sweeps.push((0, 0));
                    sweeps.len() as u32
                };
                if let Some(a) = g.neighbour(x, y, i, 3) {
                    let r = reg[a];
                    if r != 0 && r & BORDER_REG == 0 && g.areas[a] == g.areas[i] {
                        let s = &mut sweeps[sid as usize - 1];
                        if s.0 == 0 || s.0 == r {
                            *s = (r, s.1 + 1);
                            below[r as usize] += 1;
                        } else {
                            s.0 = u32::MAX;
                        }
                    }
                }
                reg[i] = sid;
            }
        }
        let ids: Vec<u32> = sweeps
            .iter()
            .map(|&(r, n)| {
                if r != 0 && r != u32::MAX && below[r as usize] == n {
                    r
                } else {
                    next += 1;
                    next - 1
                }
            })
            .collect();
        for x in b..g.w.saturating_sub(b) {
            let c = g.cells[x + y * g.w];
            for i in c.index() as usize..c.index() as usize + c.count() as usize {
                if reg[i] > 0 && reg[i] & BORDER_REG == 0 && reg[i] as usize <= ids.len() {
                    reg[i] = ids[reg[i] as usize - 1];
                }
            }
        }
    }
    next
}

/// The grid Recast needs for a row of `sweeps` sweeps on a `w` x `h` grid with `border`:
/// `Ok(None)` if the grid is large enough as it is, `Err` with the reason where a limit of
/// Recast's formats (or [`MAX_CELLS`]) is passed.
pub(crate) fn layout(
    w: i32,
    h: i32,
    border: i32,
    sweep: Sweep,
    sweeps: usize,
) -> Result<Option<Layout>, String> {
    let (need, have, id_limit) = match sweep {
        // Ids 1..=sweeps, so sweeps + 1 entries; ids are u16.
        Sweep::Regions => (sweeps + 1, w.max(h).max(0) as usize, u16::MAX as usize),
        // Ids 0..sweeps; 255 is "none", and a tile's layers hold at most 255 regions.
        Sweep::Layers => (sweeps, w.max(0) as usize, 255),
    };
    if need > id_limit {
        return Err(format!(
            "one row of the grid holds {sweeps} separate runs of walkable spans (stacked floors); \
             Recast numbers at most {} per row here: use smaller tiles",
            id_limit - usize::from(sweep == Sweep::Regions)
        ));
    }
    if need <= have {
        return Ok(None);
    }
    let grow = (need - have) as i32;
    let l = if sweep == Sweep::Regions && border == 0 {
        Layout {
            left: 0,
            top: 0,
            width: w + grow,
            height: h,
            border: 0,
        }
    } else {
        let pad = (grow + 1) / 2;
        Layout {
            left: pad,
            top: pad,
            width: w + 2 * pad,
            height: h + 2 * pad,
            border: border + pad,
        }
    };
    if l.width as usize * l.height as usize > MAX_CELLS {
        return Err(format!(
            "one row of the grid holds {sweeps} separate runs of walkable spans (stacked floors); \
             Recast would need a {} x {} grid for them: use smaller tiles",
            l.width, l.height
        ));
    }
    Ok(Some(l))
}

/// A copy of a compact heightfield's header over a widened cell table; its spans, areas and
/// distances are the original's.
pub(crate) struct Widened {
    /// The header Recast is given.
    pub(crate) raw: sys::rcCompactHeightfield,
    /// The cell table `raw.cells` points into.
    _cells: Vec<sys::rcCompactCell>,
}

impl Widened {
    /// `raw`'s spans in a grid laid out as `l`.
    ///
    /// # Safety
    /// As [`Grid::of`]; the result points at `raw`'s spans, areas and distances, so `raw` must
    /// outlive it and not be freed or rebuilt while Recast works on it.
    pub(crate) unsafe fn new(raw: &sys::rcCompactHeightfield, l: Layout) -> Widened {
        // SAFETY: passed on from the caller.
        let g = unsafe { Grid::of(raw) };
        let empty = sys::rcCompactCell {
            _bitfield_align_1: [],
            _bitfield_1: sys::rcCompactCell::new_bitfield_1(0, 0),
        };
        let width = l.width as usize;
        let mut cells = vec![empty; width * l.height as usize];
        for y in 0..g.h {
            let to = (y + l.top as usize) * width + l.left as usize;
            cells[to..to + g.w].copy_from_slice(&g.cells[y * g.w..(y + 1) * g.w]);
        }
        let (dx, dz) = (l.left as f32 * raw.cs, l.top as f32 * raw.cs);
        let header = sys::rcCompactHeightfield {
            width: l.width,
            height: l.height,
            spanCount: raw.spanCount,
            walkableHeight: raw.walkableHeight,
            walkableClimb: raw.walkableClimb,
            borderSize: raw.borderSize,
            maxDistance: raw.maxDistance,
            maxRegions: raw.maxRegions,
            bmin: [raw.bmin[0] - dx, raw.bmin[1], raw.bmin[2] - dz],
            bmax: [raw.bmax[0] + dx, raw.bmax[1], raw.bmax[2] + dz],
            cs: raw.cs,
            ch: raw.ch,
            cells: cells.as_mut_ptr(),
            spans: raw.spans,
            dist: raw.dist,
            areas: raw.areas,
        };
        Widened {
            raw: header,
            _cells: cells,
        }
    }
}

/// Runs `f(ctx, chf, border)`, one of the three sweeping Recast calls on `chf`, in a grid with
/// room for its sweeps: `chf` itself where it has the room, else a [`Widened`] copy of its
/// header, after which `chf` gets the region count and border Recast wrote into the copy. Rows
/// past Recast's formats are refused before Recast runs: the reason goes to the context's log
/// as an error and the result is `false`, as for Recast's own failures.
///
/// # Safety
/// `chf` must point to a live compact heightfield (built, or freshly allocated and empty) that
/// nothing else reads or writes during the call, and `f` must pass its arguments to one of the
/// three functions of [`Sweep`] (`sweep` naming which).
pub(crate) unsafe fn call_with_room(
    ctx: &mut RecastContext,
    chf: *mut sys::rcCompactHeightfield,
    border: i32,
    sweep: Sweep,
    f: impl FnOnce(*mut sys::rcContext, *mut sys::rcCompactHeightfield, i32) -> bool,
) -> bool {
    let planned = {
        // SAFETY: the caller passes a live compact heightfield that nothing writes meanwhile;
        // this borrow ends before Recast is called.
        let raw = unsafe { &*chf };
        // SAFETY: as above: its cells, spans and areas are Recast's, consistent and unchanged.
        let (most, total) = unsafe { row_sweeps(raw, border, sweep) };
        // At most 4 border ids and one per sweep: counted exactly only when that could pass.
        // SAFETY: as above.
        if sweep == Sweep::Regions && 5 + total > BORDER_REG as usize {
            let ids = unsafe { region_ids(raw, border) };
            if ids > BORDER_REG {
                log_error(
                    ctx,
                    &format!(
                        "the partition would number {} regions; Recast's region ids hold at most {}: \
                     use smaller tiles or the watershed partition",
                        ids - 1,
                        BORDER_REG - 1
                    ),
                );
                return false;
            }
        }
        layout(raw.width, raw.height, border, sweep, most)
    };
    match planned {
        Err(reason) => {
            log_error(ctx, &reason);
            false
        }
        // SAFETY: passed on from the caller.
        Ok(l) => unsafe { call_in(ctx, chf, border, sweep, l, f) },
    }
}

/// Runs `f` on `chf` itself (`None`) or on a copy of its header widened as `l` says.
///
/// # Safety
/// As [`call_with_room`].
unsafe fn call_in(
    ctx: &mut RecastContext,
    chf: *mut sys::rcCompactHeightfield,
    border: i32,
    sweep: Sweep,
    l: Option<Layout>,
    f: impl FnOnce(*mut sys::rcContext, *mut sys::rcCompactHeightfield, i32) -> bool,
) -> bool {
    let Some(l) = l else {
        return ctx.call(|c| f(c, chf, border));
    };
    // SAFETY: a live compact heightfield (the caller's promise); `wide` shares its spans and
    // lives only in this call, while `chf` stays alive.
    let mut wide = unsafe { Widened::new(&*chf, l) };
    let ok = ctx.call(|c| f(c, &mut wide.raw, l.border));
    // SAFETY: live, and no borrow of it is held (Recast has returned).
    let raw = unsafe { &mut *chf };
    raw.maxRegions = wide.raw.maxRegions;
    if sweep == Sweep::Regions {
        raw.borderSize = border;
    }
    ok
}

/// Logs `text` as an error through the context, as Recast logs its own failures.
fn log_error(ctx: &mut RecastContext, text: &str) {
    let text = std::ffi::CString::new(text.replace('\0', " ")).unwrap_or_default();
    // SAFETY: live context; a "%s" format with one NUL-terminated string argument.
    ctx.call(|c| unsafe {
        sys::rcContext_log(
            c,
            sys::rcLogCategory_RC_LOG_ERROR,
            c"%s".as_ptr(),
            text.as_ptr(),
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_wide_enough_is_left_alone() {
        assert_eq!(layout(40, 10, 0, Sweep::Regions, 39), Ok(None));
        assert_eq!(layout(10, 40, 3, Sweep::Regions, 39), Ok(None));
        assert_eq!(layout(40, 90, 3, Sweep::Layers, 40), Ok(None));
    }

    #[test]
    fn a_region_partition_without_border_gets_columns_on_the_right() {
        // 50 sweeps need ids 1..=50: 51 entries, against max(40, 10) = 40.
        let l = layout(40, 10, 0, Sweep::Regions, 50).unwrap().unwrap();
        assert_eq!(
            l,
            Layout {
                left: 0,
                top: 0,
                width: 51,
                height: 10,
                border: 0
            }
        );
    }

    #[test]
    fn a_bordered_grid_is_padded_on_every_side_and_its_border_widened() {
        // Layers: 45 sweeps against a width of 40: 5 more, 3 on each side.
        let l = layout(40, 90, 2, Sweep::Layers, 45).unwrap().unwrap();
        assert_eq!(
            l,
            Layout {
                left: 3,
                top: 3,
                width: 46,
                height: 96,
                border: 5
            }
        );
        // What Recast sizes its layers by is unchanged: width - 2 * border.
        assert_eq!(l.width - 2 * l.border, 40 - 2 * 2);
        let l = layout(40, 30, 4, Sweep::Regions, 60).unwrap().unwrap();
        assert!(l.width.max(l.height) as usize >= 61);
        assert_eq!((l.width - 2 * l.border, l.height - 2 * l.border), (32, 22));
    }

    #[test]
    fn rows_past_recasts_id_formats_are_refused() {
        assert!(layout(300, 300, 0, Sweep::Layers, 255).unwrap().is_none());
        let e = layout(300, 300, 0, Sweep::Layers, 256).unwrap_err();
        assert!(
            e.contains("256 separate runs") && e.contains("at most 255"),
            "{e}"
        );
        assert!(layout(10, 10, 0, Sweep::Regions, 65534).is_ok());
        assert!(layout(10, 10, 0, Sweep::Regions, 65535).is_err());
        assert!(layout(60_000, 60_000, 8, Sweep::Regions, 65_000).is_err());
    }

    /// Recast's outputs on a grid with room, unwidened and widened, for the equivalence checks.
    mod widened {
        use super::super::*;
        use crate::ffi::recast::{CompactHeightfield, Heightfield, HeightfieldLayerSet};

        /// A 120 x 40 cell grid (0.3 m cells) holding a level 44 cells wide: ground with ramps
        /// and platforms stacked over it at several heights (some overlapping, some of another
        /// area), from a small deterministic generator: many regions, layers and borders to
        /// compare. Its rows start up to 55 sweeps: more than the level is wide (on a grid
        /// just wide enough for the level, Recast writes past its sweep array), fewer than the
        /// grid, so that Recast can run on it as it is, for the reference.
        fn level(ctx: &mut RecastContext, platforms: usize) -> CompactHeightfield {
            let (mut verts, mut tris, mut areas) = (Vec::new(), Vec::new(), Vec::new());
            let mut quad = |x0: f32, z0: f32, x1: f32, z1: f32, y0: f32, y1: f32, area: u8| {
                let n = (verts.len() / 3) as i32;
                verts.extend_from_slice(&[x0, y0, z0, x1, y1, z0, x1, y1, z1, x0, y0, z1]);
                tris.extend_from_slice(&[n, n + 2, n + 1, n, n + 3, n + 2]);
                areas.extend_from_slice(&[area, area]);
            };
            quad(0.0, 0.0, 13.2, 12.0, 0.0, 0.0, 63);
            let mut seed = 7u32;
            let mut next = |m: f32| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 8) as f32 / (1u32 << 24) as f32 * m
            };
            for k in 0..platforms {
                let (x, z) = (next(11.0), next(10.0));
                let (sx, sz) = (1.0 + next(4.0), 1.0 + next(4.0));
                let y = [2.2, 2.6, 4.6, 5.0, 7.0, 0.3][k % 6] + next(0.3);
                let rise = if k % 5 == 0 { 0.6 } else { 0.0 };
                let area = if k % 7 == 3 { 5 } else { 63 };
                quad(
                    x,
                    z,
                    (x + sx).min(13.2),
                    (z + sz).min(12.0),
                    y,
                    y + rise,
                    area,
                );
            }
            let mut hf = Heightfield::new();
            assert!(hf.create(ctx, 120, 40, [0.0, -1.0, 0.0], [36.0, 10.0, 12.0], 0.3, 0.2));
            assert!(hf.rasterize(ctx, &verts, &tris, &areas, 1));
            let mut chf = CompactHeightfield::new();
            assert!(chf.build(ctx, 10, 4, &hf));
            chf
        }

        /// Every span's region, the region count and the border, after `f` ran on a fresh
        /// level, itself or widened by `grow` as [`layout`] would widen it.
        fn regions(
            grow: usize,
            border: i32,
            f: fn(*mut sys::rcContext, *mut sys::rcCompactHeightfield, i32) -> bool,
        ) -> (Vec<u16>, u16, i32) {
            let mut ctx = RecastContext::new();
            let chf = level(&mut ctx, 14);
            // SAFETY: live, and not written while read here.
            let raw = unsafe { &*chf.test_ptr() };
            // SAFETY: as above.
            let most = unsafe { max_row_sweeps(raw, border, Sweep::Regions) };
            assert!(
                most > 44 && most < 120,
                "{most} sweeps: more than the level is wide"
            );
            let l = if grow == 0 {
                None
            } else {
                let have = raw.width.max(raw.height) as usize;
                layout(
                    raw.width,
                    raw.height,
                    border,
                    Sweep::Regions,
                    have + grow - 1,
                )
                .unwrap()
            };
            assert_eq!(l.is_some(), grow > 0);
            let p = chf.test_ptr();
            // SAFETY: a live compact heightfield no one else uses; `f` is a region partition.
            assert!(unsafe { call_in(&mut ctx, p, border, Sweep::Regions, l, f) });
            // SAFETY: live, and not written while read here.
            let raw = unsafe { &*chf.test_ptr() };
            // SAFETY: Recast's `spanCount` spans, owned by `chf`.
            let spans =
                unsafe { super::super::super::buffers::c_slice(raw.spans, raw.spanCount as usize) };
            (
                spans.iter().map(|s| s.reg).collect(),
                raw.maxRegions,
                raw.borderSize,
            )
        }

        fn monotone(c: *mut sys::rcContext, chf: *mut sys::rcCompactHeightfield, b: i32) -> bool {
            // SAFETY: live context and compact heightfield (the tests' `call_in`).
            unsafe { sys::rcBuildRegionsMonotone(c, chf, b, 8, 20) }
        }

        fn layer_regions(
            c: *mut sys::rcContext,
            chf: *mut sys::rcCompactHeightfield,
            b: i32,
        ) -> bool {
            // SAFETY: as above.
            unsafe { sys::rcBuildLayerRegions(c, chf, b, 8) }
        }

        #[test]
        fn the_region_partitions_find_the_same_regions_in_a_widened_grid() {
            for (f, least) in [(monotone as fn(_, _, _) -> _, 12), (layer_regions, 6)] {
                for border in [0, 3] {
                    let plain = regions(0, border, f);
                    assert!(plain.1 > least, "a level of many regions: {}", plain.1);
                    for grow in [1, 2, 9, 50] {
                        assert_eq!(
                            regions(grow, border, f),
                            plain,
                            "border {border}, grow {grow}"
                        );
                    }
                }
            }
        }

        /// Each layer's fields and grids, after `rcBuildHeightfieldLayers` ran on a fresh level
        /// itself or widened by `grow`.
        fn layers(grow: usize, border: i32) -> Vec<String> {
            let mut ctx = RecastContext::new();
            let chf = level(&mut ctx, 5);
            // SAFETY: live, and not written while read here.
            let raw = unsafe { &*chf.test_ptr() };
            // SAFETY: as above.
            let most = unsafe { max_row_sweeps(raw, border, Sweep::Layers) };
            assert!(most > 0 && most < 64, "{most}");
            let l = if grow == 0 {
                None
            } else {
                layout(
                    raw.width,
                    raw.height,
                    border,
                    Sweep::Layers,
                    raw.width as usize + grow,
                )
                .unwrap()
            };
            let mut lset = HeightfieldLayerSet::new();
            let out = lset.test_ptr();
            let p = chf.test_ptr();
            // SAFETY: a live compact heightfield and layer set no one else uses.
            let ok = unsafe {
                call_in(&mut ctx, p, border, Sweep::Layers, l, |c, chf, b| {
                    sys::rcBuildHeightfieldLayers(c, chf, b, 10, out)
                })
            };
            assert!(ok, "{:?}", ctx.take_logs());
            lset.place_layers(&chf, border);
            lset.layers()
                .iter()
                .map(|l| {
                    format!(
                        "{:?} {:?} {} {} {} {} {} {} {} {} {:?} {:?} {:?}",
                        l.bmin,
                        l.bmax,
                        l.width,
                        l.height,
                        l.minx,
                        l.maxx,
                        l.miny,
                        l.maxy,
                        l.hmin,
                        l.hmax,
                        l.heights,
                        l.areas,
                        l.cons
                    )
                })
                .collect()
        }

        #[test]
        fn the_heightfield_layers_are_the_same_from_a_widened_grid() {
            for border in [0, 4] {
                let plain = layers(0, border);
                assert!(
                    plain.len() >= 3,
                    "a level of several layers: {}",
                    plain.len()
                );
                for grow in [1, 2, 9, 60] {
                    // (Not assert_eq: the layers' grids would fill the screen.)
                    let wide = layers(grow, border);
                    assert!(
                        wide == plain,
                        "border {border}, grow {grow}: the layers differ"
                    );
                }
            }
        }

        /// A compact heightfield of `n` x `n` cells, each holding one walkable span: a
        /// checkerboard of 0.2 m squares, alternately `lift` m higher (1.2 m: more than an
        /// agent climbs, so that no span is joined to a neighbour; 0: a level floor).
        fn checkerboard(ctx: &mut RecastContext, n: usize, lift: f32) -> CompactHeightfield {
            let (mut verts, mut tris) = (Vec::new(), Vec::new());
            for z in 0..n {
                for x in 0..n {
                    let (x0, z0) = (x as f32 * 0.3 + 0.05, z as f32 * 0.3 + 0.05);
                    let y = if (x + z) % 2 == 0 { 0.0 } else { lift };
                    let k = (verts.len() / 3) as i32;
                    verts.extend_from_slice(&[
                        x0,
                        y,
                        z0,
                        x0,
                        y,
                        z0 + 0.2,
                        x0 + 0.2,
                        y,
                        z0 + 0.2,
                        x0 + 0.2,
                        y,
                        z0,
                    ]);
                    tris.extend_from_slice(&[k, k + 1, k + 2, k, k + 2, k + 3]);
                }
            }
            let areas = vec![63u8; tris.len() / 3];
            let side = n as f32 * 0.3;
            let mut hf = Heightfield::new();
            assert!(hf.create(
                ctx,
                n as i32,
                n as i32,
                [0.0, -1.0, 0.0],
                [side, 3.0, side],
                0.3,
                0.2
            ));
            assert!(hf.rasterize(ctx, &verts, &tris, &areas, 1));
            let mut chf = CompactHeightfield::new();
            assert!(chf.build(ctx, 10, 4, &hf));
            chf
        }

        #[test]
        fn region_ids_past_recasts_15_bits_are_counted_and_refused() {
            // Every span its own sweep, under no region: one id each, after id 0 (hand count).
            for (n, fits) in [(150, true), (190, false)] {
                let mut ctx = RecastContext::new();
                let chf = checkerboard(&mut ctx, n, 1.2);
                // SAFETY: a built compact heightfield, not written while read here.
                let ids = unsafe { region_ids(&*chf.test_ptr(), 0) };
                assert_eq!(ids as usize, 1 + n * n);
                // SAFETY: a live compact heightfield no one else uses; the monotone partition.
                let ok = unsafe {
                    call_with_room(&mut ctx, chf.test_ptr(), 0, Sweep::Regions, monotone)
                };
                assert_eq!(ok, fits, "{n} x {n}");
                let logs = ctx.take_logs();
                let said = logs
                    .iter()
                    .any(|l| l.text.contains("region ids hold at most 32767"));
                assert_eq!(said, !fits, "{logs:?}");
            }
            // With a border, 4 ids for it first, and its spans in no sweep.
            let mut ctx = RecastContext::new();
            let chf = checkerboard(&mut ctx, 40, 1.2);
            // SAFETY: as above.
            assert_eq!(unsafe { region_ids(&*chf.test_ptr(), 3) }, 5 + 34 * 34);
            // Level, every row's one sweep continues the region below it: one region.
            let chf = checkerboard(&mut ctx, 40, 0.0);
            // SAFETY: as above.
            assert_eq!(unsafe { region_ids(&*chf.test_ptr(), 0) }, 2);
            // SAFETY: as above.
            assert_eq!(unsafe { region_ids(&*chf.test_ptr(), 3) }, 6);
        }
    }
}
