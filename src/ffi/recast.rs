//! Owners of Recast's intermediate structures, and the Recast calls that fill them.
//!
//! Each function returns Recast's own success flag; the `build` module turns failures into
//! errors carrying the context's log. Inputs are checked here only where Recast would read or
//! write out of bounds otherwise (slice lengths, index ranges, negative borders, polygons of
//! fewer than 3 vertices).

use recastnavigation_sys as sys;

use super::buffers::c_slice;
use super::context::{Guarded, Interrupt, RecastContext};
use super::owner::owner;
use super::sweep_room::{Sweep, call_with_room};

mod detail_parts;
mod raster_strips;

pub(crate) use raster_strips::Rasterized;

unsafe extern "C" {
    fn navkit_build_regions(
        ctx: *mut std::ffi::c_void,
        chf: *mut sys::rcCompactHeightfield,
        border: i32,
        min_area: i32,
        merge_area: i32,
        cancel: *const u8,
        remaining_ns: i64,
    ) -> i32;
    fn navkit_build_contours(
        ctx: *mut std::ffi::c_void,
        chf: *mut sys::rcCompactHeightfield,
        max_error: f32,
        max_edge_len: i32,
        cset: *mut sys::rcContourSet,
        flags: i32,
        cancel: *const u8,
        remaining_ns: i64,
    ) -> i32;
}

owner!(
    /// `rcHeightfield`.
    pub(crate) Heightfield(sys::rcHeightfield),
    free: sys::rcFreeHeightField,
    alloc: sys::rcAllocHeightfield
);
owner!(
    /// `rcCompactHeightfield`, with the [`Source`] stamp of its current contents.
    pub(crate) CompactHeightfield(sys::rcCompactHeightfield),
    free: sys::rcFreeCompactHeightfield,
    alloc: sys::rcAllocCompactHeightfield,
    with: Source
);
owner!(
    /// `rcContourSet`, with the [`Source`] of the compact heightfield it was traced from.
    pub(crate) ContourSet(sys::rcContourSet),
    free: sys::rcFreeContourSet,
    alloc: sys::rcAllocContourSet,
    with: Source
);
owner!(
    /// `rcPolyMesh`, with the [`Source`] of the compact heightfield its contours came from.
    pub(crate) PolyMesh(sys::rcPolyMesh),
    free: sys::rcFreePolyMesh,
    alloc: sys::rcAllocPolyMesh,
    with: Source
);

/// Which contents of which compact heightfield a contour set and a poly mesh were made from:
/// a number no two compact heightfields' contents share (a fresh one for every change), 0 for
/// none. `rcBuildPolyMeshDetail` indexes the compact heightfield it samples by the poly mesh's
/// vertices and regions, so it is given only a pair whose stamps match
/// ([`PolyMeshDetail::build`]): the types cannot say it, the stamps check it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Source(u64);

impl Source {
    /// A stamp never handed out before.
    fn fresh() -> Source {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Source(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}
owner!(
    /// `rcPolyMeshDetail`.
    pub(crate) PolyMeshDetail(sys::rcPolyMeshDetail),
    free: sys::rcFreePolyMeshDetail,
    alloc: sys::rcAllocPolyMeshDetail
);

/// Slice over a Recast-owned array, empty for null pointers, borrowed for as long as `_owner`.
///
/// # Safety
/// Unless `ptr` is null or `len` is 0, `ptr` must point to `len` initialised `T`s that belong to
/// `_owner` (an object Recast filled, which frees them only when it is dropped) and are not
/// written while the returned borrow of `_owner` lasts.
unsafe fn slice<T, O: ?Sized>(_owner: &O, ptr: *const T, len: usize) -> &[T] {
    // SAFETY: the caller passes a pointer and element count Recast filled together, owned by
    // `_owner`, whose shared borrow bounds the slice's life.
    unsafe { c_slice(ptr, len) }
}

/// Mutable slice over a Recast-owned array, empty for null pointers, borrowed for as long as
/// the exclusive borrow of `_owner`.
///
/// # Safety
/// Unless `ptr` is null or `len` is 0, `ptr` must point to `len` initialised `T`s that belong to
/// `_owner` and that nothing else reads or writes while the returned borrow lasts.
unsafe fn slice_mut<T, O: ?Sized>(_owner: &mut O, ptr: *mut T, len: usize) -> &mut [T] {
    if ptr.is_null() || len == 0 {
        &mut []
    } else {
        // SAFETY: the caller passes a pointer and element count Recast filled together, owned by
        // `_owner`, whose exclusive borrow bounds the slice's life and excludes other access.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }
}

/// Checks a triangle mesh's arrays before Recast indexes them.
fn mesh_ok(verts: &[f32], tris: &[i32]) -> bool {
    let nv = verts.len() / 3;
    verts.len().is_multiple_of(3)
        && tris.len().is_multiple_of(3)
        && nv <= i32::MAX as usize
        && tris.len() / 3 <= i32::MAX as usize
        && tris.iter().all(|&i| i >= 0 && (i as usize) < nv)
}

impl Heightfield {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn create(
        &mut self,
        ctx: &mut RecastContext,
        width: i32,
        height: i32,
        bmin: [f32; 3],
        bmax: [f32; 3],
        cs: f32,
        ch: f32,
    ) -> bool {
        // SAFETY: live context and heightfield; bounds arrays hold 3 floats each.
        ctx.call(|c| unsafe {
            sys::rcCreateHeightfield(
                c,
                self.0.as_ptr(),
                width,
                height,
                bmin.as_ptr(),
                bmax.as_ptr(),
                cs,
                ch,
            )
        })
    }

    /// `rcRasterizeTriangles` with one area id per triangle.
    pub(crate) fn rasterize(
        &mut self,
        ctx: &mut RecastContext,
        verts: &[f32],
        tris: &[i32],
        areas: &[u8],
        flag_merge_threshold: i32,
    ) -> bool {
        if !mesh_ok(verts, tris) || areas.len() != tris.len() / 3 {
            return false;
        }
        // SAFETY: every index was checked against the vertex count and `areas` has one entry per
        // triangle, so Recast reads only inside the slices.
        ctx.call(|c| unsafe {
            sys::rcRasterizeTriangles(
                c,
                verts.as_ptr(),
                (verts.len() / 3) as i32,
                tris.as_ptr(),
                areas.as_ptr(),
                (tris.len() / 3) as i32,
                self.0.as_ptr(),
                flag_merge_threshold,
            )
        })
    }

    pub(crate) fn filter_low_hanging_obstacles(&mut self, ctx: &mut RecastContext, climb: i32) {
        // SAFETY: live context and heightfield.
        ctx.call(|c| unsafe { sys::rcFilterLowHangingWalkableObstacles(c, climb, self.0.as_ptr()) })
    }

    pub(crate) fn filter_ledge_spans(&mut self, ctx: &mut RecastContext, height: i32, climb: i32) {
        // SAFETY: live context and heightfield.
        ctx.call(|c| unsafe { sys::rcFilterLedgeSpans(c, height, climb, self.0.as_ptr()) })
    }

    pub(crate) fn filter_walkable_low_height_spans(
        &mut self,
        ctx: &mut RecastContext,
        height: i32,
    ) {
        // SAFETY: live context and heightfield.
        ctx.call(|c| unsafe { sys::rcFilterWalkableLowHeightSpans(c, height, self.0.as_ptr()) })
    }

    pub(crate) fn span_count(&self, ctx: &mut RecastContext) -> i32 {
        // SAFETY: live context and heightfield.
        ctx.call(|c| unsafe { sys::rcGetHeightFieldSpanCount(c, self.0.as_ptr()) })
    }

    /// The most walkable spans (area not `RC_NULL_AREA`) in one column, and that column's
    /// `(x, z)`: what `rcBuildCompactHeightfield` stores in an 8-bit count per cell.
    pub(crate) fn max_walkable_column(&self) -> (usize, (i32, i32)) {
        // SAFETY: a created heightfield has `width * height` column heads in `spans`, each null
        // or the first of a null-terminated list of spans owned by the heightfield's pools; the
        // heightfield is borrowed, so nothing changes them meanwhile. An uncreated heightfield
        // has a null `spans` array and zero size.
        unsafe {
            let hf = &*self.0.as_ptr();
            if hf.spans.is_null() || hf.width <= 0 || hf.height <= 0 {
                return (0, (0, 0));
            }
            let columns = hf.width as usize * hf.height as usize;
            let heads = std::slice::from_raw_parts(hf.spans, columns);
            let mut best = (0usize, (0i32, 0i32));
            for (i, &head) in heads.iter().enumerate() {
                let mut n = 0usize;
                let mut s = head;
                while let Some(span) = s.as_ref() {
                    if span.area() != 0 {
                        n += 1;
                    }
                    s = span.next;
                }
                if n > best.0 {
                    best = (
                        n,
                        (
                            (i % hf.width as usize) as i32,
                            (i / hf.width as usize) as i32,
                        ),
                    );
                }
            }
            best
        }
    }
}

/// `rcMarkWalkableTriangles`: area ids (0 or `RC_WALKABLE_AREA`) by slope.
pub(crate) fn mark_walkable_triangles(
    ctx: &mut RecastContext,
    slope: f32,
    verts: &[f32],
    tris: &[i32],
) -> Option<Vec<u8>> {
    if !mesh_ok(verts, tris) {
        return None;
    }
    let mut areas = vec![0u8; tris.len() / 3];
    // SAFETY: indices checked; `areas` has one entry per triangle.
    ctx.call(|c| unsafe {
        sys::rcMarkWalkableTriangles(
            c,
            slope,
            verts.as_ptr(),
            (verts.len() / 3) as i32,
            tris.as_ptr(),
            (tris.len() / 3) as i32,
            areas.as_mut_ptr(),
        )
    });
    Some(areas)
}

impl CompactHeightfield {
    /// The heightfield's pointer for a call that changes it: its contents get a fresh
    /// [`Source`], so that contours and poly meshes of the old contents no longer match it.
    fn changing(&mut self) -> *mut sys::rcCompactHeightfield {
        self.1 = Source::fresh();
        self.0.as_ptr()
    }

    pub(crate) fn build(
        &mut self,
        ctx: &mut RecastContext,
        walkable_height: i32,
        walkable_climb: i32,
        hf: &Heightfield,
    ) -> bool {
        // SAFETY: live objects; Recast only reads the heightfield.
        ctx.call(|c| unsafe {
            sys::rcBuildCompactHeightfield(
                c,
                walkable_height,
                walkable_climb,
                hf.0.as_ptr(),
                self.changing(),
            )
        })
    }

    pub(crate) fn erode(&mut self, ctx: &mut RecastContext, radius: i32) -> bool {
        // SAFETY: live objects.
        ctx.call(|c| unsafe { sys::rcErodeWalkableArea(c, radius, self.changing()) })
    }

    pub(crate) fn mark_convex_poly_area(
        &mut self,
        ctx: &mut RecastContext,
        verts: &[f32],
        hmin: f32,
        hmax: f32,
        area: u8,
    ) {
        if verts.len() < 9 || !verts.len().is_multiple_of(3) {
            return;
        }
        // SAFETY: `verts` holds `len/3` points of 3 floats.
        ctx.call(|c| unsafe {
            sys::rcMarkConvexPolyArea(
                c,
                verts.as_ptr(),
                (verts.len() / 3) as i32,
                hmin,
                hmax,
                area,
                self.changing(),
            )
        })
    }

    pub(crate) fn build_distance_field(&mut self, ctx: &mut RecastContext) -> bool {
        // SAFETY: live objects.
        ctx.call(|c| unsafe { sys::rcBuildDistanceField(c, self.changing()) })
    }

    /// `rcBuildRegions` (the watershed), interruptible between its levels.
    pub(crate) fn build_regions(
        &mut self,
        ctx: &mut RecastContext,
        border: i32,
        min: i32,
        merge: i32,
        interrupt: &Interrupt,
    ) -> Guarded {
        if border < 0 {
            return Guarded::Failed;
        }
        let chf = self.changing();
        // SAFETY: `ctx` is a live navkit context and `chf` a live compact heightfield; the
        // border is not negative; the cancel pointer is null or points to an AtomicBool that
        // `interrupt` borrows for the whole call.
        ctx.call_guarded(interrupt, |nctx, cancel, remaining| unsafe {
            navkit_build_regions(nctx, chf, border, min, merge, cancel, remaining)
        })
    }

    pub(crate) fn build_regions_monotone(
        &mut self,
        ctx: &mut RecastContext,
        border: i32,
        min: i32,
        merge: i32,
    ) -> bool {
        let chf = self.changing();
        // SAFETY: a live compact heightfield, borrowed exclusively for the call; the border is
        // not negative (checked first); Recast gets a grid with room for its sweeps.
        border >= 0
            && unsafe {
                call_with_room(ctx, chf, border, Sweep::Regions, |c, chf, b| {
                    sys::rcBuildRegionsMonotone(c, chf, b, min, merge)
                })
            }
    }

    pub(crate) fn build_layer_regions(
        &mut self,
        ctx: &mut RecastContext,
        border: i32,
        min: i32,
    ) -> bool {
        let chf = self.changing();
        // SAFETY: as for the monotone partition.
        border >= 0
            && unsafe {
                call_with_room(ctx, chf, border, Sweep::Regions, |c, chf, b| {
                    sys::rcBuildLayerRegions(c, chf, b, min)
                })
            }
    }

    /// Grid size and span count.
    pub(crate) fn dims(&self) -> (i32, i32, i32) {
        let r = self.raw();
        (r.width, r.height, r.spanCount)
    }

    /// `maxDistance` (the distance field's largest value; 0 before `rcBuildDistanceField`) and
    /// `maxRegions` (one more than the largest region id; 0 before partitioning).
    pub(crate) fn distance_and_regions(&self) -> (u16, u16) {
        let r = self.raw();
        (r.maxDistance, r.maxRegions)
    }
}

impl ContourSet {
    pub(crate) fn build(
        &mut self,
        ctx: &mut RecastContext,
        chf: &CompactHeightfield,
        max_error: f32,
        max_edge_len: i32,
        interrupt: &Interrupt,
    ) -> Guarded {
        self.1 = chf.1;
        let (chf, cset) = (chf.0.as_ptr(), self.0.as_ptr());
        // SAFETY: live context, compact heightfield and contour set (Recast only reads the
        // heightfield); the cancel pointer is null or points to an AtomicBool that `interrupt`
        // borrows for the whole call. Default build flags as RecastDemo
        // (RC_CONTOUR_TESS_WALL_EDGES).
        ctx.call_guarded(interrupt, |nctx, cancel, remaining| unsafe {
            navkit_build_contours(
                nctx,
                chf,
                max_error,
                max_edge_len,
                cset,
                sys::rcBuildContoursFlags_RC_CONTOUR_TESS_WALL_EDGES as i32,
                cancel,
                remaining,
            )
        })
    }

    pub(crate) fn count(&self) -> i32 {
        self.raw().nconts
    }
}

impl PolyMesh {
    /// `rcBuildPolyMesh` with at most `nvp` vertices per polygon; false (without calling
    /// Recast) for `nvp` below 3, whose polygons could not hold Recast's triangles.
    pub(crate) fn build(&mut self, ctx: &mut RecastContext, cset: &ContourSet, nvp: i32) -> bool {
        self.1 = cset.1;
        // SAFETY: live objects; `nvp >= 3` (checked first), so every triangle fits a polygon.
        nvp >= 3
            && ctx
                .call(|c| unsafe { sys::rcBuildPolyMesh(c, cset.0.as_ptr(), nvp, self.0.as_ptr()) })
    }

    pub(crate) fn nverts(&self) -> usize {
        self.raw().nverts.max(0) as usize
    }
    pub(crate) fn npolys(&self) -> usize {
        self.raw().npolys.max(0) as usize
    }
    pub(crate) fn nvp(&self) -> usize {
        self.raw().nvp.max(0) as usize
    }
    pub(crate) fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        (self.raw().bmin, self.raw().bmax)
    }
    pub(crate) fn cell(&self) -> (f32, f32) {
        (self.raw().cs, self.raw().ch)
    }
    /// Quantized vertices (x, y, z per vertex).
    pub(crate) fn verts(&self) -> &[u16] {
        // SAFETY: rcBuildPolyMesh allocated `nverts * 3` coordinates at `verts`, owned by `self`.
        unsafe { slice(self, self.raw().verts, self.nverts() * 3) }
    }
    /// Polygons: `nvp` vertex indices then `nvp` neighbour entries each.
    pub(crate) fn polys(&self) -> &[u16] {
        // SAFETY: rcBuildPolyMesh allocated `npolys * nvp * 2` entries at `polys`, owned by `self`.
        unsafe { slice(self, self.raw().polys, self.npolys() * self.nvp() * 2) }
    }
    pub(crate) fn areas_mut(&mut self) -> &mut [u8] {
        let (ptr, n) = (self.raw().areas, self.npolys());
        // SAFETY: rcBuildPolyMesh allocated `npolys` areas at `areas`, owned by `self`, which is
        // exclusively borrowed.
        unsafe { slice_mut(self, ptr, n) }
    }
    pub(crate) fn areas(&self) -> &[u8] {
        // SAFETY: rcBuildPolyMesh allocated `npolys` areas at `areas`, owned by `self`.
        unsafe { slice(self, self.raw().areas, self.npolys()) }
    }
    pub(crate) fn flags_mut(&mut self) -> &mut [u16] {
        let (ptr, n) = (self.raw().flags, self.npolys());
        // SAFETY: rcBuildPolyMesh allocated `npolys` flags at `flags`, owned by `self`, which is
        // exclusively borrowed.
        unsafe { slice_mut(self, ptr, n) }
    }
}

impl PolyMeshDetail {
    /// `rcBuildPolyMeshDetail` of `pmesh` sampling `chf`. Recast indexes `chf` by `pmesh`'s
    /// vertices and regions, so `pmesh` must be the poly mesh built from the contours of `chf`
    /// as it is now (as the build's stages always pass them): false, without calling Recast,
    /// for any other pair (their [`Source`] stamps differ).
    pub(crate) fn build(
        &mut self,
        ctx: &mut RecastContext,
        pmesh: &PolyMesh,
        chf: &CompactHeightfield,
        sample_dist: f32,
        sample_max_error: f32,
    ) -> bool {
        // Without sampling (RecastDemo's `detailSampleDist` below 0.9 becomes 0) Recast never
        // fills the outline it triangulates each polygon from and reads it uninitialised and
        // out of bounds, or loops for ever (found by fuzzing; upstream issue 650). Then no
        // detail mesh is made: `create_nav_mesh_data` lets Detour triangulate each polygon
        // from its own vertices, which is what a detail mesh without samples holds.
        if pmesh.1 == Source::default() || pmesh.1 != chf.1 {
            return false;
        }
        if sample_dist.is_nan() || sample_dist <= 0.0 {
            return true;
        }
        // SAFETY: live objects; `pmesh` was built from the contours of `chf` as it is now (their
        // stamps match: every change to `chf` gives it a new one), so its vertices and regions
        // index `chf` as Recast expects.
        ctx.call(|c| unsafe {
            sys::rcBuildPolyMeshDetail(
                c,
                pmesh.0.as_ptr(),
                chf.0.as_ptr(),
                sample_dist,
                sample_max_error,
                self.0.as_ptr(),
            )
        })
    }

    pub(crate) fn nmeshes(&self) -> usize {
        self.raw().nmeshes.max(0) as usize
    }
    pub(crate) fn nverts(&self) -> usize {
        self.raw().nverts.max(0) as usize
    }
    pub(crate) fn ntris(&self) -> usize {
        self.raw().ntris.max(0) as usize
    }
    pub(crate) fn meshes(&self) -> &[u32] {
        // SAFETY: rcBuildPolyMeshDetail allocated `nmeshes * 4` entries at `meshes`, owned by
        // `self`.
        unsafe { slice(self, self.raw().meshes, self.nmeshes() * 4) }
    }
    pub(crate) fn verts(&self) -> &[f32] {
        // SAFETY: rcBuildPolyMeshDetail allocated `nverts * 3` coordinates at `verts`, owned by
        // `self`.
        unsafe { slice(self, self.raw().verts, self.nverts() * 3) }
    }
    pub(crate) fn tris(&self) -> &[u8] {
        // SAFETY: rcBuildPolyMeshDetail allocated `ntris * 4` bytes at `tris`, owned by `self`.
        unsafe { slice(self, self.raw().tris, self.ntris() * 4) }
    }
}

/// One walkable span of a compact heightfield, copied out of Recast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSpan {
    /// Floor height in voxels.
    pub y: u16,
    /// Headroom in voxels.
    pub h: u8,
    /// Area id (0: not walkable, e.g. eroded away).
    pub area: u8,
    /// Span index of the neighbour in directions -x, +z, +x, -z (Recast's order), or `u32::MAX`.
    pub neighbours: [u32; 4],
}

impl CompactHeightfield {
    /// Copies out every cell's first span index and span count, and every span with its
    /// neighbours resolved to span indices.
    pub(crate) fn export(&self) -> (Vec<(u32, u8)>, Vec<RawSpan>) {
        let r = self.raw();
        let (w, h) = (r.width.max(0) as usize, r.height.max(0) as usize);
        // SAFETY: rcBuildCompactHeightfield allocated `width * height` cells and `spanCount` spans
        // and areas, owned by `self`.
        let (cells, spans, areas) = unsafe {
            (
                slice(self, r.cells, w * h),
                slice(self, r.spans, r.spanCount.max(0) as usize),
                slice(self, r.areas, r.spanCount.max(0) as usize),
            )
        };
        let cell_list: Vec<(u32, u8)> =
            cells.iter().map(|c| (c.index(), c.count() as u8)).collect();
        const DX: [i32; 4] = [-1, 0, 1, 0];
        const DZ: [i32; 4] = [0, 1, 0, -1];
        let mut out = vec![
            RawSpan {
                y: 0,
                h: 0,
                area: 0,
                neighbours: [u32::MAX; 4],
            };
            spans.len()
        ];
        for z in 0..h {
            for x in 0..w {
                let (first, count) = cell_list[x + z * w];
                for i in first as usize..(first as usize + count as usize).min(spans.len()) {
                    let s = &spans[i];
                    let mut n = [u32::MAX; 4];
                    for (dir, slot) in n.iter_mut().enumerate() {
                        let con = (s.con() >> (dir * 6)) & 0x3f;
                        if con == 0x3f {
                            continue;
                        }
                        let (nx, nz) = (x as i32 + DX[dir], z as i32 + DZ[dir]);
                        if nx < 0 || nz < 0 || nx as usize >= w || nz as usize >= h {
                            continue;
                        }
                        let (nfirst, ncount) = cell_list[nx as usize + nz as usize * w];
                        if con < ncount as u32 {
                            *slot = nfirst + con;
                        }
                    }
                    out[i] = RawSpan {
                        y: s.y,
                        h: s.h() as u8,
                        area: areas.get(i).copied().unwrap_or(0),
                        neighbours: n,
                    };
                }
            }
        }
        (cell_list, out)
    }

    /// Origin, cell size and cell height.
    pub(crate) fn frame(&self) -> ([f32; 3], f32, f32) {
        let r = self.raw();
        (r.bmin, r.cs, r.ch)
    }
}

// ---------------------------------------------------------------------------------------------
// Heightfield layers (for the tile cache).

owner!(
    /// `rcHeightfieldLayerSet`.
    pub(crate) HeightfieldLayerSet(sys::rcHeightfieldLayerSet),
    free: sys::rcFreeHeightfieldLayerSet,
    alloc: sys::rcAllocHeightfieldLayerSet
);

/// One layer of a [`HeightfieldLayerSet`], borrowed from it.
pub(crate) struct HeightfieldLayer<'a> {
    pub bmin: [f32; 3],
    pub bmax: [f32; 3],
    pub width: i32,
    pub height: i32,
    pub minx: i32,
    pub maxx: i32,
    pub miny: i32,
    pub maxy: i32,
    pub hmin: i32,
    pub hmax: i32,
    pub heights: &'a [u8],
    pub areas: &'a [u8],
    pub cons: &'a [u8],
}

impl HeightfieldLayerSet {
    /// `rcBuildHeightfieldLayers`.
    pub(crate) fn build(
        &mut self,
        ctx: &mut RecastContext,
        chf: &CompactHeightfield,
        border: i32,
        walkable_height: i32,
    ) -> bool {
        if border < 0 {
            return false;
        }
        let lset = self.0.as_ptr();
        // SAFETY: live objects; Recast only reads the compact heightfield (shared-borrowed for
        // the call) and gets a grid with room for its sweeps; the border is not negative.
        let ok = unsafe {
            call_with_room(ctx, chf.0.as_ptr(), border, Sweep::Layers, |c, chf, b| {
                sys::rcBuildHeightfieldLayers(c, chf, b, walkable_height, lset)
            })
        };
        if ok {
            self.place_layers(chf, border);
        }
        ok
    }

    /// Sets each layer's horizontal bounds as Recast computes them from `chf` (its bounds
    /// contracted by the border): a widened grid's bounds, contracted by a wider border, give
    /// the same values only up to rounding.
    pub(crate) fn place_layers(&mut self, chf: &CompactHeightfield, border: i32) {
        let c = chf.raw();
        let inset = border as f32 * c.cs;
        let r = self.raw();
        // SAFETY: rcBuildHeightfieldLayers allocated `nlayers` layers at `layers`, owned by
        // `self`, which is borrowed exclusively.
        let layers = unsafe { slice_mut(self, r.layers, r.nlayers.max(0) as usize) };
        for l in layers {
            l.bmin[0] = c.bmin[0] + inset;
            l.bmin[2] = c.bmin[2] + inset;
            l.bmax[0] = c.bmax[0] - inset;
            l.bmax[2] = c.bmax[2] - inset;
        }
    }

    /// The layers, with their grids (`width * height` bytes each).
    pub(crate) fn layers(&self) -> Vec<HeightfieldLayer<'_>> {
        let r = self.raw();
        // SAFETY: rcBuildHeightfieldLayers allocated `nlayers` layers at `layers`, owned by `self`.
        unsafe { slice(self, r.layers, r.nlayers.max(0) as usize) }
            .iter()
            .map(|l| {
                let cells = l.width.max(0) as usize * l.height.max(0) as usize;
                // SAFETY: each layer owns `width * height` heights, areas and connections,
                // allocated by rcBuildHeightfieldLayers and freed with the set, `self`.
                let (heights, areas, cons) = unsafe {
                    (
                        slice(self, l.heights, cells),
                        slice(self, l.areas, cells),
                        slice(self, l.cons, cells),
                    )
                };
                HeightfieldLayer {
                    bmin: l.bmin,
                    bmax: l.bmax,
                    width: l.width,
                    height: l.height,
                    minx: l.minx,
                    maxx: l.maxx,
                    miny: l.miny,
                    maxy: l.maxy,
                    hmin: l.hmin,
                    hmax: l.hmax,
                    heights,
                    areas,
                    cons,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod interrupt_tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::ffi::context::{Guarded, Interrupt, RecastContext};

    /// A compact heightfield of a flat 20 x 20 cell square.
    fn square(ctx: &mut RecastContext) -> CompactHeightfield {
        let mut hf = Heightfield::new();
        assert!(hf.create(ctx, 20, 20, [0.0; 3], [6.0, 1.0, 6.0], 0.3, 0.2));
        let verts = [0.0, 0.5, 0.0, 6.0, 0.5, 6.0, 6.0, 0.5, 0.0, 0.0, 0.5, 6.0];
        let tris = [0, 1, 2, 0, 3, 1];
        assert!(hf.rasterize(ctx, &verts, &tris, &[63, 63], 1));
        let mut chf = CompactHeightfield::new();
        assert!(chf.build(ctx, 10, 4, &hf));
        assert!(chf.build_distance_field(ctx));
        chf
    }

    #[test]
    fn a_set_flag_interrupts_the_watershed_and_the_contours_and_the_context_works_on() {
        let mut ctx = RecastContext::new();
        let mut chf = square(&mut ctx);
        let flag = AtomicBool::new(true);
        let stop = Interrupt {
            cancel: Some(&flag),
            deadline: None,
        };
        assert_eq!(
            chf.build_regions(&mut ctx, 0, 8, 20, &stop),
            Guarded::Interrupted
        );
        let past = Interrupt {
            cancel: None,
            deadline: Some(std::time::Instant::now()),
        };
        assert_eq!(
            chf.build_regions(&mut ctx, 0, 8, 20, &past),
            Guarded::Interrupted
        );
        // Disarmed again: the same calls without a flag run to the end.
        let none = Interrupt::default();
        assert_eq!(chf.build_regions(&mut ctx, 0, 8, 20, &none), Guarded::Done);
        let mut cset = ContourSet::new();
        assert_eq!(
            cset.build(&mut ctx, &chf, 1.3, 40, &stop),
            Guarded::Interrupted
        );
        let mut cset = ContourSet::new();
        assert_eq!(cset.build(&mut ctx, &chf, 1.3, 40, &none), Guarded::Done);
        assert_eq!(cset.count(), 1);
    }

    #[test]
    fn the_detail_mesh_samples_only_the_heightfield_its_poly_mesh_came_from() {
        let mut ctx = RecastContext::new();
        let none = Interrupt::default();
        let regions = |ctx: &mut RecastContext, chf: &mut CompactHeightfield| {
            assert_eq!(chf.build_regions(ctx, 0, 8, 20, &none), Guarded::Done);
        };
        let mut chf = square(&mut ctx);
        regions(&mut ctx, &mut chf);
        let mut cset = ContourSet::new();
        assert_eq!(cset.build(&mut ctx, &chf, 1.3, 40, &none), Guarded::Done);
        let mut pmesh = PolyMesh::new();
        assert!(pmesh.build(&mut ctx, &cset, 6));
        // Another heightfield, even of the same square: refused without calling Recast.
        let mut other = square(&mut ctx);
        regions(&mut ctx, &mut other);
        assert!(!PolyMeshDetail::new().build(&mut ctx, &pmesh, &other, 6.0, 1.0));
        // A poly mesh of nothing: refused.
        assert!(!PolyMeshDetail::new().build(&mut ctx, &PolyMesh::new(), &chf, 6.0, 1.0));
        // Its own heightfield: built.
        let mut dmesh = PolyMeshDetail::new();
        assert!(dmesh.build(&mut ctx, &pmesh, &chf, 6.0, 1.0));
        assert_eq!(dmesh.nmeshes(), pmesh.npolys());
        // The same heightfield changed since (its regions rebuilt): refused.
        regions(&mut ctx, &mut chf);
        assert!(!PolyMeshDetail::new().build(&mut ctx, &pmesh, &chf, 6.0, 1.0));
    }
}

// ---------------------------------------------------------------------------------------------
// Copies of the intermediate stages, for debug drawing (`SoloBuild::stages`).

/// One heightfield span copied out of Recast: its column and extent in voxels, and its area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawHfSpan {
    pub x: u16,
    pub z: u16,
    pub smin: u16,
    pub smax: u16,
    pub area: u8,
}

impl Heightfield {
    /// Every span, column by column (row-major, bottom to top within a column), with the
    /// grid's origin, cell size and height.
    pub(crate) fn export_spans(&self) -> (Vec<RawHfSpan>, [f32; 3], f32, f32) {
        let mut out = Vec::new();
        // SAFETY: as in `max_walkable_column`: `width * height` column heads, each null or a
        // null-terminated list of spans owned by the heightfield, which is borrowed.
        unsafe {
            let hf = &*self.0.as_ptr();
            if !hf.spans.is_null() && hf.width > 0 && hf.height > 0 {
                let w = hf.width as usize;
                let heads = std::slice::from_raw_parts(hf.spans, w * hf.height as usize);
                for (i, &head) in heads.iter().enumerate() {
                    let mut s = head;
                    while let Some(span) = s.as_ref() {
                        out.push(RawHfSpan {
                            x: (i % w) as u16,
                            z: (i / w) as u16,
                            smin: span.smin() as u16,
                            smax: span.smax() as u16,
                            area: span.area() as u8,
                        });
                        s = span.next;
                    }
                }
            }
        }
        let r = self.raw();
        (out, r.bmin, r.cs, r.ch)
    }
}

impl CompactHeightfield {
    /// Every span's region id, and its distance-field value (empty without a distance
    /// field, as after a monotone or layer partition).
    pub(crate) fn export_regions_and_distances(&self) -> (Vec<u16>, Vec<u16>) {
        let r = self.raw();
        let n = r.spanCount.max(0) as usize;
        // SAFETY: rcBuildCompactHeightfield allocated `spanCount` spans; rcBuildDistanceField
        // allocated `spanCount` distances at `dist` (null before it runs); both owned by `self`.
        let (spans, dist) = unsafe { (slice(self, r.spans, n), slice(self, r.dist, n)) };
        (spans.iter().map(|s| s.reg).collect(), dist.to_vec())
    }
}

/// One contour copied out of Recast: region, area, and simplified and raw vertices
/// (`x, y, z, flags` in voxels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawContour {
    pub reg: u16,
    pub area: u8,
    pub verts: Vec<[i32; 4]>,
    pub raw_verts: Vec<[i32; 4]>,
}

impl ContourSet {
    /// Every contour, with the set's origin, cell size and height and border size.
    pub(crate) fn export(&self) -> (Vec<RawContour>, [f32; 3], f32, f32, i32) {
        let r = self.raw();
        // SAFETY: rcBuildContours allocated `nconts` contours at `conts`, owned by `self`.
        let conts = unsafe { slice(self, r.conts, r.nconts.max(0) as usize) };
        let quads = |p: *const i32, n: i32| -> Vec<[i32; 4]> {
            // SAFETY: each contour's `verts` and `rverts` hold `4 * nverts` and `4 * nrverts`
            // ints allocated by rcBuildContours, owned by `self`.
            let s = unsafe { slice(self, p, n.max(0) as usize * 4) };
            s.chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        };
        let out = conts
            .iter()
            .map(|c| RawContour {
                reg: c.reg,
                area: c.area,
                verts: quads(c.verts, c.nverts),
                raw_verts: quads(c.rverts, c.nrverts),
            })
            .collect();
        (out, r.bmin, r.cs, r.ch, r.borderSize)
    }
}

impl PolyMesh {
    /// Poly flags.
    pub(crate) fn flags(&self) -> &[u16] {
        // SAFETY: rcBuildPolyMesh allocated `npolys` flags at `flags`, owned by `self`.
        unsafe { slice(self, self.raw().flags, self.npolys()) }
    }
    /// Border size in cells.
    pub(crate) fn border_size(&self) -> i32 {
        self.raw().borderSize
    }
}

#[cfg(test)]
impl CompactHeightfield {
    /// The object's pointer, for tests that call Recast on it directly.
    pub(crate) fn test_ptr(&self) -> *mut sys::rcCompactHeightfield {
        self.0.as_ptr()
    }
}

#[cfg(test)]
impl HeightfieldLayerSet {
    /// The object's pointer, for tests that call Recast on it directly.
    pub(crate) fn test_ptr(&self) -> *mut sys::rcHeightfieldLayerSet {
        self.0.as_ptr()
    }
}
