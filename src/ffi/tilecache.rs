//! Owners of Detour's tile cache (`dtTileCache`) and of navkit's three objects it calls back into
//! (`glue/navkit_tilecache.cpp`): the layer compressor, the mesh process and the allocator.
//!
//! The compressor's work is done here, through callbacks the glue holds: FastLZ (RecastDemo's
//! compressor: fastlz.c compresses, navkit's bounds-checked decoder decompresses; see
//! [`super::fastlz`]) or LZ4 (block format, by `lz4_flex`), chosen per compressor
//! ([`LayerCompression`]). Everything else returns Detour's status word; `crate::tilecache`
//! gives it meaning. Detour trusts tile data, so [`RawTileCache::add_tile`] takes only a
//! `ValidLayer` (validated, or built by [`build_layer`]).

use std::os::raw::c_int;

use recastnavigation_sys as sys;

use super::buffers::{DetourCopy, c_slice, take_detour_alloc};
use super::detour::OffMeshInput;
use super::owner::{opaque, owner};
use super::status_result;
use super::tile_layer::check_connections;
use super::validate::ValidLayer;
use super::validate::layer::LayerHeader;
use crate::ffi::layer_compression::LayerCompression;

type MaxSizeFn = unsafe extern "C" fn(c_int) -> c_int;
type BufferFn = unsafe extern "C" fn(*const u8, c_int, *mut u8, c_int, *mut c_int) -> c_int;

opaque!(
    /// The glue's `NavkitCompressor`: a `dtTileCacheCompressor` whose work is done by Rust
    /// callbacks.
    NavkitCompressor
);
opaque!(
    /// The glue's `NavkitMeshProcess`: a `dtTileCacheMeshProcess`.
    NavkitMeshProcess
);
opaque!(
    /// The glue's `NavkitTileCacheAlloc`: a `dtTileCacheAlloc` with the region-neighbour guard.
    NavkitTileCacheAlloc
);

unsafe extern "C" {
    fn navkit_tc_compressor_new(
        max_fn: Option<MaxSizeFn>,
        compress_fn: Option<BufferFn>,
        decompress_fn: Option<BufferFn>,
    ) -> *mut NavkitCompressor;
    fn navkit_tc_compressor_free(c: *mut NavkitCompressor);
    fn navkit_tc_compressor_base(c: *mut NavkitCompressor) -> *mut sys::dtTileCacheCompressor;
    fn navkit_tc_compressor_max_size(c: *mut sys::dtTileCacheCompressor, n: c_int) -> c_int;
    fn navkit_tc_compressor_compress(
        c: *mut sys::dtTileCacheCompressor,
        input: *const u8,
        n: c_int,
        out: *mut u8,
        cap: c_int,
        out_size: *mut c_int,
    ) -> u32;
    fn navkit_tc_compressor_decompress(
        c: *mut sys::dtTileCacheCompressor,
        input: *const u8,
        n: c_int,
        out: *mut u8,
        cap: c_int,
        out_size: *mut c_int,
    ) -> u32;
    fn navkit_tc_meshproc_new(flag_table: *const u16) -> *mut NavkitMeshProcess;
    fn navkit_tc_meshproc_free(p: *mut NavkitMeshProcess);
    fn navkit_tc_meshproc_base(p: *mut NavkitMeshProcess) -> *mut sys::dtTileCacheMeshProcess;
    fn navkit_tc_meshproc_set_offmesh(
        p: *mut NavkitMeshProcess,
        verts: *const f32,
        rads: *const f32,
        dirs: *const u8,
        areas: *const u8,
        flags: *const u16,
        ids: *const u32,
        n: c_int,
    ) -> c_int;
    fn navkit_tc_alloc_new(walkable_climb: f32, ch: f32) -> *mut NavkitTileCacheAlloc;
    fn navkit_tc_alloc_free(a: *mut NavkitTileCacheAlloc);
    fn navkit_tc_alloc_base(a: *mut NavkitTileCacheAlloc) -> *mut sys::dtTileCacheAlloc;
    fn navkit_tc_alloc_stats(
        a: *const NavkitTileCacheAlloc,
        checks: *mut u64,
        refused: *mut u64,
        builds: *mut u64,
    );
    fn navkit_tc_layer_regions_fit(
        w: c_int,
        h: c_int,
        heights: *const u8,
        areas: *const u8,
        climb: c_int,
    ) -> c_int;
}

const FAILURE: u32 = sys::DT_FAILURE;

/// How far from the tile grid's origin, in cells, obstacle coordinates may be: far inside
/// `int` range for Detour's cell and tile conversions. (The safe layer admits obstacles only
/// within 1e8 cells.)
const GRID_LIMIT_CELLS: f32 = 1.0e9;

// ---------------------------------------------------------------------------------------------
// The compressor's callbacks (called by the C++ compressor).

unsafe extern "C" fn lz4_max_size(n: c_int) -> c_int {
    if n < 0 {
        return 0;
    }
    super::panic::wrap(|| {
        c_int::try_from(lz4_flex::block::get_maximum_output_size(n as usize)).unwrap_or(c_int::MAX)
    })
    .unwrap_or(0)
}

/// Runs `f` on the input and output buffers the C++ side passed, after checking them; 1 with
/// `*out_size` set on success, 0 on any failure. A panic never crosses FFI: it is caught, the
/// callback fails, and it is raised again once the Detour call returns ([`super::panic`]).
///
/// # Safety
/// `input` must point to `n` readable bytes and `out` to `cap` writable bytes (or be null).
unsafe fn with_buffers(
    input: *const u8,
    n: c_int,
    out: *mut u8,
    cap: c_int,
    out_size: *mut c_int,
    f: fn(&[u8], &mut [u8]) -> Option<usize>,
) -> c_int {
    if input.is_null() && n != 0 || out.is_null() && cap != 0 || out_size.is_null() {
        return 0;
    }
    let (Ok(n), Ok(cap)) = (usize::try_from(n), usize::try_from(cap)) else {
        return 0;
    };
    // SAFETY: the caller passes `n` readable bytes at `input` (non-null unless `n` is 0).
    let input = unsafe { c_slice(input, n) };
    let out: &mut [u8] = if cap == 0 {
        &mut []
    } else {
        // SAFETY: the caller passes `cap` writable bytes at `out` (checked non-null), not
        // overlapping `input` (Detour's buffers are separate allocations).
        unsafe { std::slice::from_raw_parts_mut(out, cap) }
    };
    let result = super::panic::wrap(|| {
        super::panic::test_hook();
        f(input, out)
    });
    match result {
        Some(Some(written)) if written <= cap => {
            // SAFETY: checked non-null above; a single int.
            unsafe { *out_size = written as c_int };
            1
        }
        _ => 0,
    }
}

unsafe extern "C" fn fastlz_max_size(n: c_int) -> c_int {
    if n < 0 {
        return 0;
    }
    c_int::try_from(super::fastlz::max_compressed_size(n as usize)).unwrap_or(c_int::MAX)
}

/// One step of a layer codec, which the C++ compressor calls back ([`buffer_callback`]):
/// `run(input, output)` gives the number of bytes it wrote, or `None` if it failed. Safe Rust on
/// slices: it cannot read or write outside them.
trait CodecStep {
    fn run(input: &[u8], out: &mut [u8]) -> Option<usize>;
}

/// LZ4 block compression (`lz4_flex`).
struct Lz4Compress;
impl CodecStep for Lz4Compress {
    fn run(input: &[u8], out: &mut [u8]) -> Option<usize> {
        lz4_flex::block::compress_into(input, out).ok()
    }
}

/// LZ4 block decompression: `lz4_flex`'s safe decoder fails on corrupt input.
struct Lz4Decompress;
impl CodecStep for Lz4Decompress {
    fn run(input: &[u8], out: &mut [u8]) -> Option<usize> {
        lz4_flex::block::decompress_into(input, out).ok()
    }
}

/// FastLZ compression by fastlz.c (Detour gives it `fastlz_max_size` bytes of output;
/// `compress_into` refuses a smaller output).
struct FastLzCompress;
impl CodecStep for FastLzCompress {
    fn run(input: &[u8], out: &mut [u8]) -> Option<usize> {
        super::fastlz::compress_into(input, out, None)
    }
}

/// FastLZ decompression by navkit's decoder, which fails on corrupt input. fastlz.c compresses
/// nothing to nothing, so nothing decompresses to nothing (a FastLZ stream is never empty).
struct FastLzDecompress;
impl CodecStep for FastLzDecompress {
    fn run(input: &[u8], out: &mut [u8]) -> Option<usize> {
        if input.is_empty() {
            return Some(0);
        }
        crate::ffi::fastlz::codec::decompress_into(input, out).ok()
    }
}

/// The C++ compressor's callback for codec step `S` (its `compress` or `decompress`).
unsafe extern "C" fn buffer_callback<S: CodecStep>(
    input: *const u8,
    n: c_int,
    out: *mut u8,
    cap: c_int,
    out_size: *mut c_int,
) -> c_int {
    // SAFETY: Detour passes its buffers with their sizes (dtBuildTileCacheLayer,
    // dtDecompressTileCacheLayer).
    unsafe { with_buffers(input, n, out, cap, out_size, S::run) }
}

// ---------------------------------------------------------------------------------------------
// The three callback objects.

owner!(
    /// A `NavkitCompressor`.
    CompressorObj(NavkitCompressor),
    free: navkit_tc_compressor_free,
    base: navkit_tc_compressor_base => sys::dtTileCacheCompressor
);

/// navkit's `dtTileCacheCompressor`, FastLZ or LZ4.
pub(crate) struct Compressor {
    obj: CompressorObj,
    compression: LayerCompression,
}

impl Compressor {
    pub(crate) fn new(compression: LayerCompression) -> Self {
        let (max, compress, decompress): (MaxSizeFn, BufferFn, BufferFn) = match compression {
            LayerCompression::FastLz => (
                fastlz_max_size,
                buffer_callback::<FastLzCompress>,
                buffer_callback::<FastLzDecompress>,
            ),
            LayerCompression::Lz4 => (
                lz4_max_size,
                buffer_callback::<Lz4Compress>,
                buffer_callback::<Lz4Decompress>,
            ),
        };
        // SAFETY: the callbacks are `'static` functions of this module; the glue returns a new
        // compressor (freed by navkit_tc_compressor_free) or null.
        let obj = unsafe {
            CompressorObj::from_raw(navkit_tc_compressor_new(
                Some(max),
                Some(compress),
                Some(decompress),
            ))
        };
        Compressor {
            obj: obj.expect("out of memory allocating the tile cache compressor"),
            compression,
        }
    }

    /// The compressor's format.
    pub(crate) fn compression(&self) -> LayerCompression {
        self.compression
    }

    fn base(&self) -> *mut sys::dtTileCacheCompressor {
        self.obj.base()
    }

    /// Compresses through the C++ object's virtual `compress`, as Detour calls it.
    pub(crate) fn compress(&mut self, data: &[u8]) -> Result<Vec<u8>, u32> {
        let n = c_int::try_from(data.len()).map_err(|_| FAILURE | sys::DT_INVALID_PARAM)?;
        // SAFETY: live compressor.
        let cap =
            super::panic::call(|| unsafe { navkit_tc_compressor_max_size(self.base(), n) }).max(0);
        let mut out = vec![0u8; cap as usize];
        let mut size = 0;
        // SAFETY: `data` holds `n` bytes, `out` holds `cap` bytes.
        let st = super::panic::call(|| unsafe {
            navkit_tc_compressor_compress(
                self.base(),
                data.as_ptr(),
                n,
                out.as_mut_ptr(),
                cap,
                &mut size,
            )
        });
        if st & FAILURE != 0 || size < 0 || size > cap {
            return Err(st | FAILURE);
        }
        out.truncate(size as usize);
        Ok(out)
    }

    /// Decompresses layer grids of `cells` cells through the C++ object's virtual `decompress`,
    /// with the buffer Detour gives it (4 bytes per cell); succeeds only with exactly 3 bytes
    /// per cell (heights, areas, connections).
    pub(crate) fn decompress_grids(&mut self, data: &[u8], cells: usize) -> Result<Vec<u8>, u32> {
        let n = c_int::try_from(data.len()).map_err(|_| FAILURE | sys::DT_INVALID_PARAM)?;
        let cap = cells
            .checked_mul(4)
            .and_then(|c| c_int::try_from(c).ok())
            .ok_or(FAILURE | sys::DT_INVALID_PARAM)?;
        let mut out = vec![0u8; cap as usize];
        let mut size = 0;
        // SAFETY: `data` holds `n` bytes, `out` holds `cap` bytes.
        let st = super::panic::call(|| unsafe {
            navkit_tc_compressor_decompress(
                self.base(),
                data.as_ptr(),
                n,
                out.as_mut_ptr(),
                cap,
                &mut size,
            )
        });
        if st & FAILURE != 0 || size as usize != cells * 3 {
            return Err(st | FAILURE);
        }
        out.truncate(cells * 3);
        Ok(out)
    }
}

owner!(
    /// navkit's `dtTileCacheMeshProcess`: areas, flags and off-mesh connections per built tile.
    MeshProcess(NavkitMeshProcess),
    free: navkit_tc_meshproc_free,
    base: navkit_tc_meshproc_base => sys::dtTileCacheMeshProcess
);

impl MeshProcess {
    fn with_flags(flag_table: &[u16; 64]) -> Self {
        // SAFETY: the glue copies the 64 entries and returns a new mesh process (freed by
        // navkit_tc_meshproc_free) or null.
        unsafe { Self::from_raw(navkit_tc_meshproc_new(flag_table.as_ptr())) }
            .expect("out of memory allocating the tile cache mesh process")
    }

    fn set_off_mesh(&mut self, off: &OffMeshInput<'_>) -> bool {
        let Some(n) = off.count().filter(|&n| n <= c_int::MAX as usize) else {
            return false;
        };
        // SAFETY: every array holds `n` entries (6 floats per connection for `verts`); the glue
        // copies them.
        unsafe {
            navkit_tc_meshproc_set_offmesh(
                self.as_ptr(),
                off.verts.as_ptr(),
                off.radii.as_ptr(),
                off.dirs.as_ptr(),
                off.areas.as_ptr(),
                off.flags.as_ptr(),
                off.user_ids.as_ptr(),
                n as c_int,
            ) != 0
        }
    }
}

owner!(
    /// navkit's `dtTileCacheAlloc`, with the region-neighbour guard (see the glue).
    TileCacheAlloc(NavkitTileCacheAlloc),
    free: navkit_tc_alloc_free,
    base: navkit_tc_alloc_base => sys::dtTileCacheAlloc
);

impl TileCacheAlloc {
    fn for_climb(walkable_climb: f32, ch: f32) -> Self {
        // SAFETY: the glue returns a new allocator (freed by navkit_tc_alloc_free) or null.
        unsafe { Self::from_raw(navkit_tc_alloc_new(walkable_climb, ch)) }
            .expect("out of memory allocating the tile cache allocator")
    }

    /// (layers checked, layers refused, tile layer builds started).
    fn stats(&self) -> (u64, u64, u64) {
        let (mut checks, mut refused, mut builds) = (0u64, 0u64, 0u64);
        // SAFETY: live allocator; three output integers.
        unsafe { navkit_tc_alloc_stats(self.as_ptr(), &mut checks, &mut refused, &mut builds) };
        (checks, refused, builds)
    }
}

/// True if Detour's region partition of a `w` x `h` layer keeps every region within its 16
/// neighbour slots (the glue's replay of `dtBuildTileCacheRegions`).
pub(crate) fn layer_regions_fit(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    climb: i32,
) -> bool {
    let cells = w * h;
    if w > 255 || h > 255 || heights.len() < cells || areas.len() < cells {
        return false;
    }
    // SAFETY: both grids hold at least w*h bytes; the glue only reads them.
    unsafe {
        navkit_tc_layer_regions_fit(
            w as c_int,
            h as c_int,
            heights.as_ptr(),
            areas.as_ptr(),
            climb,
        ) != 0
    }
}

// ---------------------------------------------------------------------------------------------
// Layers.

/// `dtTileCacheLayerHeader` size rounded up to 4 (`dtAlign4`), where compressed data starts.
pub(crate) const LAYER_HEADER_SIZE: usize =
    (std::mem::size_of::<sys::dtTileCacheLayerHeader>() + 3) & !3;

/// `dtBuildTileCacheLayer`: the header (with Detour's magic and version) followed by the
/// compressed grids (heights, areas, connections, `width * height` bytes each), valid by
/// construction: Detour's own output from grids of the header's size whose connections stay
/// inside the layer (checked: Detour follows them unchecked when it rebuilds the tile; Recast's
/// heightfield layers always pass). Regions that would overflow Detour's neighbour lists are
/// refused when the tile is built, by the allocator's guard.
pub(crate) fn build_layer(
    comp: &mut Compressor,
    header: &LayerHeader,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
) -> Result<ValidLayer, u32> {
    let (w, h) = (usize::from(header.width), usize::from(header.height));
    let cells = w * h;
    if heights.len() != cells
        || areas.len() != cells
        || cons.len() != cells
        || check_connections(w, h, cons).is_err()
    {
        return Err(FAILURE | sys::DT_INVALID_PARAM);
    }
    // Detour copies the whole header, padding included, into the layer (`memcpy`). A Rust copy
    // of the struct leaves its padding uninitialized, and reading those bytes back (to save or
    // compare a layer) would read uninitialized memory; so start from zeros and set the fields.
    // SAFETY: the header is plain data (integers, floats and arrays of them), for which all
    // zero bytes is a valid value.
    let mut h: sys::dtTileCacheLayerHeader = unsafe { std::mem::zeroed() };
    h.magic = sys::DT_TILECACHE_MAGIC;
    h.version = sys::DT_TILECACHE_VERSION;
    h.tx = header.tx;
    h.ty = header.ty;
    h.tlayer = header.tlayer;
    h.bmin = header.bmin;
    h.bmax = header.bmax;
    h.hmin = header.hmin;
    h.hmax = header.hmax;
    h.width = header.width;
    h.height = header.height;
    h.minx = header.minx;
    h.maxx = header.maxx;
    h.miny = header.miny;
    h.maxy = header.maxy;
    let mut header = h;
    let mut data: *mut u8 = std::ptr::null_mut();
    let mut size: c_int = 0;
    // SAFETY: the grids hold width*height bytes each (checked); Detour copies the header.
    let st = super::panic::call(|| unsafe {
        sys::dtBuildTileCacheLayer(
            comp.base(),
            &mut header,
            heights.as_ptr(),
            areas.as_ptr(),
            cons.as_ptr(),
            &mut data,
            &mut size,
        )
    });
    // SAFETY: Detour left `data` null or set it to `size` bytes it allocated with dtAlloc for
    // us, which `take_detour_alloc` copies out and frees.
    let out = unsafe { take_detour_alloc(data, size) };
    match out {
        // SAFETY: `out` is what dtBuildTileCacheLayer returned for our header (Detour's magic
        // and version) and grids of its size whose connections stay inside the layer (checked
        // above), compressed by `comp`.
        Some(out) if st & FAILURE == 0 => {
            Ok(unsafe { ValidLayer::built_by_detour(out, comp.compression()) })
        }
        _ => Err(st | FAILURE),
    }
}

// ---------------------------------------------------------------------------------------------
// The tile cache.

/// An obstacle's shape as Detour stores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RawShape {
    Cylinder {
        pos: [f32; 3],
        radius: f32,
        height: f32,
    },
    Box {
        bmin: [f32; 3],
        bmax: [f32; 3],
    },
    OrientedBox {
        center: [f32; 3],
        half_extents: [f32; 3],
        rot_aux: [f32; 2],
    },
}

/// An obstacle of the pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawObstacle {
    pub shape: RawShape,
    /// `ObstacleState`.
    pub state: u8,
}

/// `DT_OBSTACLE_EMPTY` .. `DT_OBSTACLE_REMOVING`.
pub(crate) const OBSTACLE_EMPTY: u8 = sys::ObstacleState_DT_OBSTACLE_EMPTY as u8;
pub(crate) const OBSTACLE_PROCESSING: u8 = sys::ObstacleState_DT_OBSTACLE_PROCESSING as u8;
pub(crate) const OBSTACLE_PROCESSED: u8 = sys::ObstacleState_DT_OBSTACLE_PROCESSED as u8;
pub(crate) const OBSTACLE_REMOVING: u8 = sys::ObstacleState_DT_OBSTACLE_REMOVING as u8;

/// True if `dtTileCache::init` and the tile builds may be given `p`: finite origin and sizes,
/// positive cell size and height, layers of 1..=255 cells a side (layer dimensions are bytes),
/// an agent climb of at most 255 cell heights, 1..=2^20 tiles and 1..=0xffff obstacles
/// (obstacle refs keep 16 bits for the index).
fn cache_params_ok(p: &sys::dtTileCacheParams) -> bool {
    let finite_non_negative = |v: f32| v.is_finite() && v >= 0.0;
    p.orig.iter().all(|v| v.is_finite())
        && p.cs.is_finite()
        && p.cs > 0.0
        && p.ch.is_finite()
        && p.ch > 0.0
        && (1..=255).contains(&p.width)
        && (1..=255).contains(&p.height)
        && finite_non_negative(p.walkableHeight)
        && finite_non_negative(p.walkableRadius)
        && finite_non_negative(p.walkableClimb)
        && p.walkableClimb / p.ch <= 255.0
        && finite_non_negative(p.maxSimplificationError)
        && (1..=1 << 20).contains(&p.maxTiles)
        && (1..=0xffff).contains(&p.maxObstacles)
}

/// `dtFreeTileCache`, after telling a cache whose `init` ran out of memory before it allocated
/// its tiles that it has none: Detour's destructor walks `maxTiles` tiles even then.
///
/// # Safety
/// `tc` is a live tile cache from `dtAllocTileCache`, owned by the caller, freed here.
unsafe fn free_tile_cache(tc: *mut sys::dtTileCache) {
    // SAFETY: live tile cache, exclusively owned (the caller's contract).
    unsafe {
        let t = &mut *tc;
        if t.m_tiles.is_null() {
            t.m_params.maxTiles = 0;
        }
        sys::dtFreeTileCache(tc)
    }
}

owner!(
    /// A `dtTileCache`, freed (with the tile data it owns) on drop.
    TileCacheObj(sys::dtTileCache),
    free: free_tile_cache
);

/// Owner of a `dtTileCache` and of the callback objects it points to.
pub(crate) struct RawTileCache {
    tc: TileCacheObj,
    // Freed after `tc` (fields drop in declaration order).
    alloc: TileCacheAlloc,
    comp: Compressor,
    _process: MeshProcess,
    /// What navkit's polygon mesh builder did differently from Detour's, over all tile builds.
    pub(super) fixes: super::tile_poly_mesh::PolyMeshFixes,
}

// SAFETY: the tile cache and its callback objects are heap data owned by this value, with no
// thread affinity. `&self` methods only read (no Detour call through `&self` writes), and every
// call that writes takes `&mut self`.
unsafe impl Send for RawTileCache {}
// SAFETY: see above.
unsafe impl Sync for RawTileCache {}

impl RawTileCache {
    /// A tile cache with `params`, RecastDemo's area -> flags table, the level's off-mesh
    /// connections and a compressor of `compression` (the format of every layer it will hold).
    /// Detour trusts the parameters: bad ones fail with `DT_INVALID_PARAM` (`cache_params_ok`;
    /// the safe layer's `validate_cache_params` checks more, naming the field).
    pub(crate) fn new(
        params: &sys::dtTileCacheParams,
        flag_table: &[u16; 64],
        off: &OffMeshInput<'_>,
        compression: LayerCompression,
    ) -> Result<Self, u32> {
        if !cache_params_ok(params) {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        let alloc = TileCacheAlloc::for_climb(params.walkableClimb, params.ch);
        let comp = Compressor::new(compression);
        let mut process = MeshProcess::with_flags(flag_table);
        if !process.set_off_mesh(off) {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        // SAFETY: dtAllocTileCache returns a constructed object or null.
        let tc = unsafe { TileCacheObj::from_raw(sys::dtAllocTileCache()) }
            .ok_or(FAILURE | sys::DT_OUT_OF_MEMORY)?;
        let cache = RawTileCache {
            tc,
            alloc,
            comp,
            _process: process,
            fixes: Default::default(),
        };
        // SAFETY: live tile cache; Detour copies the params (checked by `cache_params_ok`) and
        // keeps the three pointers, which live as long as `cache` (freed after the dtTileCache
        // in Drop).
        let st = unsafe {
            sys::dtTileCache_init(
                cache.tc.as_ptr(),
                params,
                cache.alloc.base(),
                cache.comp.base(),
                cache._process.base(),
            )
        };
        if st & FAILURE != 0 {
            return Err(st);
        }
        Ok(cache)
    }

    pub(super) fn raw(&self) -> &sys::dtTileCache {
        self.tc.raw()
    }

    /// The `dtTileCache`, for the tile build and update steps (`super::tilecache_build`),
    /// which change it only through `&mut self`.
    pub(super) fn as_mut_ptr(&mut self) -> *mut sys::dtTileCache {
        self.tc.as_ptr()
    }

    pub(crate) fn params(&self) -> sys::dtTileCacheParams {
        self.raw().m_params
    }

    /// The format of the cache's layers (its compressor's).
    pub(crate) fn compression(&self) -> LayerCompression {
        self.comp.compression()
    }

    /// Adds a compressed layer (copied into Detour's allocation, which the cache then owns).
    /// Detour trusts layers completely, so only a [`ValidLayer`] is accepted: one Detour built
    /// ([`build_layer`]) or one that passed `validate_layer` (header magic and version, grids of
    /// the cache's size that decompress to exactly 3 bytes per cell, connections that point
    /// inside the layer, regions that fit Detour's lists), in the format of this cache's
    /// compressor (`DT_INVALID_PARAM` otherwise).
    pub(crate) fn add_tile(&mut self, layer: &ValidLayer) -> Result<u32, u32> {
        let data = layer.bytes();
        if layer.compression() != self.comp.compression()
            || data.len() < LAYER_HEADER_SIZE
            || data.len() > c_int::MAX as usize
        {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        // Detour takes the copy over with DT_COMPRESSEDTILE_FREE_DATA on success (and frees it
        // with dtFree); it is freed on failure.
        let copy = DetourCopy::of(data).ok_or(FAILURE | sys::DT_OUT_OF_MEMORY)?;
        let mut r = 0;
        // SAFETY: live tile cache; `copy` holds a copy of a `ValidLayer`.
        let st = unsafe {
            sys::dtTileCache_addTile(
                self.tc.as_ptr(),
                copy.ptr(),
                copy.len() as c_int,
                sys::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as u8,
                &mut r,
            )
        };
        if st & FAILURE != 0 {
            return Err(st);
        }
        copy.handed_over();
        Ok(r)
    }

    /// True if every point is finite and within [`GRID_LIMIT_CELLS`] cells of the grid origin
    /// on each axis, so that Detour's float-to-int conversions of cell and tile coordinates (in
    /// `queryTiles` and when obstacles are carved) are defined.
    fn near_grid(&self, points: &[[f32; 3]]) -> bool {
        let p = &self.raw().m_params;
        let unit = p.cs.min(p.ch);
        points.iter().all(|v| {
            (0..3).all(|a| {
                let cells = (v[a] - p.orig[a]).abs() / unit;
                cells.is_finite() && cells < GRID_LIMIT_CELLS
            })
        })
    }

    /// Queues a cylinder obstacle; fails (`DT_INVALID_PARAM`) unless its bounds are finite and
    /// near the grid.
    pub(crate) fn add_cylinder(
        &mut self,
        pos: [f32; 3],
        radius: f32,
        height: f32,
    ) -> Result<u32, u32> {
        let (r, h) = (radius.abs(), height.abs());
        let bmin = [pos[0] - r, pos[1] - h, pos[2] - r];
        let bmax = [pos[0] + r, pos[1] + h, pos[2] + r];
        if !self.near_grid(&[bmin, bmax]) {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        let mut r = 0;
        // SAFETY: live tile cache; 3-float position.
        let st = unsafe {
            sys::dtTileCache_addObstacle(self.tc.as_ptr(), pos.as_ptr(), radius, height, &mut r)
        };
        status_result(st, r)
    }

    /// Queues an axis-aligned box obstacle; fails (`DT_INVALID_PARAM`) unless it is finite and
    /// near the grid.
    pub(crate) fn add_box(&mut self, bmin: [f32; 3], bmax: [f32; 3]) -> Result<u32, u32> {
        if !self.near_grid(&[bmin, bmax]) {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        let mut r = 0;
        // SAFETY: live tile cache; 3-float corners.
        let st = unsafe {
            sys::dtTileCache_addBoxObstacle(self.tc.as_ptr(), bmin.as_ptr(), bmax.as_ptr(), &mut r)
        };
        status_result(st, r)
    }

    /// Queues a box obstacle rotated by `y_angle` radians about y; fails (`DT_INVALID_PARAM`)
    /// unless its bounds (at any angle) are finite and near the grid.
    pub(crate) fn add_oriented_box(
        &mut self,
        center: [f32; 3],
        half: [f32; 3],
        y_angle: f32,
    ) -> Result<u32, u32> {
        // Detour bounds the box by 1.41 x its larger horizontal half extent; 2 x covers that.
        let e = 2.0 * half[0].abs().max(half[2].abs());
        let h = half[1].abs();
        let bmin = [center[0] - e, center[1] - h, center[2] - e];
        let bmax = [center[0] + e, center[1] + h, center[2] + e];
        if !y_angle.is_finite() || !self.near_grid(&[bmin, bmax]) {
            return Err(FAILURE | sys::DT_INVALID_PARAM);
        }
        let mut r = 0;
        // SAFETY: live tile cache; 3-float centre and half extents.
        let st = unsafe {
            sys::dtTileCache_addBoxObstacle1(
                self.tc.as_ptr(),
                center.as_ptr(),
                half.as_ptr(),
                y_angle,
                &mut r,
            )
        };
        status_result(st, r)
    }

    /// Queues the removal of an obstacle (the caller checked the ref is live).
    pub(crate) fn remove_obstacle(&mut self, r: u32) -> u32 {
        // SAFETY: live tile cache; Detour ignores refs whose salt does not match at update time.
        unsafe { sys::dtTileCache_removeObstacle(self.tc.as_ptr(), r) }
    }

    pub(super) fn obstacle_slots(&self) -> &[sys::dtTileCacheObstacle] {
        let t = self.raw();
        let n = t.m_params.maxObstacles.max(0) as usize;
        if t.m_obstacles.is_null() || n == 0 {
            return &[];
        }
        // SAFETY: init allocated `maxObstacles` obstacles at `m_obstacles`; they live as long as
        // the cache and are only written through `&mut self`.
        unsafe { std::slice::from_raw_parts(t.m_obstacles, n) }
    }

    fn decode(ob: &sys::dtTileCacheObstacle) -> RawObstacle {
        // SAFETY: the union member read is the one `type_` names (Detour writes that one).
        let shape = unsafe {
            match ob.type_ as u32 {
                sys::ObstacleType_DT_OBSTACLE_CYLINDER => {
                    let c = ob.__bindgen_anon_1.cylinder;
                    RawShape::Cylinder {
                        pos: c.pos,
                        radius: c.radius,
                        height: c.height,
                    }
                }
                sys::ObstacleType_DT_OBSTACLE_BOX => {
                    let b = ob.__bindgen_anon_1.box_;
                    RawShape::Box {
                        bmin: b.bmin,
                        bmax: b.bmax,
                    }
                }
                _ => {
                    let o = ob.__bindgen_anon_1.orientedBox;
                    RawShape::OrientedBox {
                        center: o.center,
                        half_extents: o.halfExtents,
                        rot_aux: o.rotAux,
                    }
                }
            }
        };
        RawObstacle {
            shape,
            state: ob.state,
        }
    }

    /// The obstacle `r` refers to, if its slot's salt matches (any state but empty).
    pub(crate) fn obstacle(&self, r: u32) -> Option<RawObstacle> {
        let idx = (r & 0xffff) as usize;
        let salt = r >> 16;
        let ob = self.obstacle_slots().get(idx)?;
        (r != 0 && u32::from(ob.salt) == salt && ob.state != OBSTACLE_EMPTY)
            .then(|| Self::decode(ob))
    }

    /// Every obstacle in use, with its ref.
    pub(crate) fn obstacles(&self) -> Vec<(u32, RawObstacle)> {
        self.obstacle_slots()
            .iter()
            .enumerate()
            .filter(|(_, ob)| ob.state != OBSTACLE_EMPTY)
            .map(|(i, ob)| ((u32::from(ob.salt) << 16) | i as u32, Self::decode(ob)))
            .collect()
    }

    /// How many tile layers overlap the box (what an obstacle there would touch), up to `max`;
    /// `max` for a box that is not finite or not near the grid (not queried). A box spanning
    /// many tiles costs time (Detour visits every tile position in it), never memory safety.
    pub(crate) fn count_tiles_touching(&self, bmin: [f32; 3], bmax: [f32; 3], max: usize) -> usize {
        let max = max.clamp(1, 1024);
        if !self.near_grid(&[bmin, bmax]) {
            return max;
        }
        let mut out = vec![0u32; max];
        let mut n: c_int = 0;
        // SAFETY: live tile cache; `out` holds `max` refs; the box is finite and near the grid
        // (checked above), so its tile coordinates convert to int.
        unsafe {
            sys::dtTileCache_queryTiles(
                self.tc.as_ptr(),
                bmin.as_ptr(),
                bmax.as_ptr(),
                out.as_mut_ptr(),
                &mut n,
                max as c_int,
            )
        };
        n.clamp(0, max as c_int) as usize
    }

    /// Queued obstacle requests and queued tile rebuilds.
    pub(crate) fn pending(&self) -> (usize, usize) {
        let t = self.raw();
        (t.m_nreqs.max(0) as usize, t.m_nupdate.max(0) as usize)
    }

    /// Every compressed tile in use, in tile-array order (as RecastDemo saves them): its ref and
    /// its data (header and compressed grids).
    pub(crate) fn tiles(&self) -> Vec<(u32, &[u8])> {
        let t = self.raw();
        let n = t.m_params.maxTiles.max(0) as usize;
        if t.m_tiles.is_null() {
            return Vec::new();
        }
        // SAFETY: init allocated `maxTiles` tiles at `m_tiles`, alive as long as the cache.
        let tiles = unsafe { std::slice::from_raw_parts(t.m_tiles, n) };
        tiles
            .iter()
            .filter(|c| !c.header.is_null() && !c.data.is_null() && c.dataSize > 0)
            .map(|c| {
                // SAFETY: live tile of this cache.
                let r = unsafe { sys::dtTileCache_getTileRef(self.tc.as_ptr(), c) };
                // SAFETY: a tile in use owns `dataSize` bytes at `data`.
                (r, unsafe {
                    std::slice::from_raw_parts(c.data, c.dataSize as usize)
                })
            })
            .collect()
    }

    /// Layer checks made by the allocator's guard, tile builds it refused, and tile layer
    /// builds started (one per `buildNavMeshTile`).
    pub(crate) fn guard_stats(&self) -> (u64, u64, u64) {
        self.alloc.stats()
    }

    /// Border vertices kept and one-sided links made walls by navkit's polygon mesh builder
    /// where Detour's would be undefined or invalid, over all tile builds so far.
    pub(crate) fn poly_mesh_fixes(&self) -> (u64, u64) {
        (self.fixes.kept_vertices, self.fixes.walled_links)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressor_round_trips() {
        for c in LayerCompression::ALL {
            let mut comp = Compressor::new(c);
            let grids: Vec<u8> = (0..300u32).map(|i| (i % 7) as u8).collect();
            let packed = comp.compress(&grids).unwrap();
            assert_eq!(comp.decompress_grids(&packed, 100).unwrap(), grids);
            // The other format's compressor does not take these bytes for the grids.
            let other = LayerCompression::ALL.into_iter().find(|&o| o != c).unwrap();
            assert!(
                Compressor::new(other)
                    .decompress_grids(&packed, 100)
                    .is_err()
            );
        }
        // FastLZ through the C++ object is fastlz.c's stream (RecastDemo's FastLZCompressor).
        let grids: Vec<u8> = (0..6912u32).map(|i| (i / 50 % 3) as u8).collect();
        let packed = Compressor::new(LayerCompression::FastLz)
            .compress(&grids)
            .unwrap();
        assert_eq!(packed, crate::ffi::fastlz::codec::compress(&grids).unwrap());
    }

    #[test]
    fn a_panic_in_the_compressor_callback_surfaces_after_the_call() {
        let mut comp = Compressor::new(LayerCompression::FastLz);
        crate::ffi::panic::PANIC_IN_CALLBACK.with(|p| p.set(true));
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| comp.compress(&[1, 2, 3])));
        let payload = caught.expect_err("the callback's panic must reach the Rust caller");
        assert_eq!(
            payload.downcast_ref::<&str>().copied(),
            Some("test panic inside a C callback")
        );
        // Not swallowed into a failure status, nothing left pending, and the compressor works on.
        assert!(comp.compress(&[1, 2, 3]).is_ok());
    }
}
