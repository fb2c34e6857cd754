//! `TileCache::load` takes a `TSET` file's layers in RecastDemo's order (issue 19, part 3).
//!
//! RecastDemo's `Sample_TempObstacles::loadAll` reads the file's tile records in file order and,
//! for each, calls `dtTileCache::addTile(data, size, DT_COMPRESSEDTILE_FREE_DATA, &ref)` and, if
//! that gave a ref, `dtTileCache::buildNavMeshTile(ref, navmesh)`. The test below replays that
//! loop with raw Detour calls (recastnavigation-sys, in `unsafe` blocks) on RecastDemo's own
//! tile cache of dungeon.obj and checks that navkit's loaded cache has the very same navmesh:
//! every tile at the same index with the same tile ref and grid position, the same polygon
//! count and poly refs, and the same tile bytes.
//!
//! The file has positions with two and three layers, so the order matters: building position by
//! position (`buildNavMeshTilesAt`, which Detour hands the layers of a position newest first)
//! gives those layers other tile indices, hence other poly refs.
//!
//! The replay's tile cache uses navkit's C++ glue for the three callback objects Detour's tile
//! cache needs (allocator, compressor, mesh process: RecastDemo's are C++ classes of its own,
//! which cannot be made from Rust) with RecastDemo's FastLZ decoding (navkit's decoder, which
//! tests/tset.rs shows gives fastlz.c's bytes on every layer of this file).

mod common;

use std::collections::HashMap;
use std::os::raw::{c_int, c_void};

use navkit::tilecache::{TileCache, fastlz};
use recastnavigation_sys as sys;

/// `TileCacheSetHeader`: magic, version, numTiles, dtNavMeshParams, dtTileCacheParams.
const NAV_PARAMS_AT: usize = 12;
const CACHE_PARAMS_AT: usize = NAV_PARAMS_AT + size_of::<sys::dtNavMeshParams>();
const HEADER: usize = CACHE_PARAMS_AT + size_of::<sys::dtTileCacheParams>();

type MaxSizeFn = unsafe extern "C" fn(c_int) -> c_int;
type BufferFn = unsafe extern "C" fn(*const u8, c_int, *mut u8, c_int, *mut c_int) -> c_int;

// navkit's C++ glue (glue/navkit_tilecache.cpp), linked into the navkit library.
unsafe extern "C" {
    fn navkit_tc_compressor_new(
        max_fn: Option<MaxSizeFn>,
        compress_fn: Option<BufferFn>,
        decompress_fn: Option<BufferFn>,
    ) -> *mut c_void;
    fn navkit_tc_compressor_free(c: *mut c_void);
    fn navkit_tc_compressor_base(c: *mut c_void) -> *mut sys::dtTileCacheCompressor;
    fn navkit_tc_meshproc_new(flag_table: *const u16) -> *mut c_void;
    fn navkit_tc_meshproc_free(p: *mut c_void);
    fn navkit_tc_meshproc_base(p: *mut c_void) -> *mut sys::dtTileCacheMeshProcess;
    fn navkit_tc_alloc_new(walkable_climb: f32, ch: f32) -> *mut c_void;
    fn navkit_tc_alloc_free(a: *mut c_void);
    fn navkit_tc_alloc_base(a: *mut c_void) -> *mut sys::dtTileCacheAlloc;
}

unsafe extern "C" fn max_size(n: c_int) -> c_int {
    n + n / 16 + 66
}

/// Loading never compresses.
unsafe extern "C" fn no_compress(
    _: *const u8,
    _: c_int,
    _: *mut u8,
    _: c_int,
    _: *mut c_int,
) -> c_int {
    0
}

/// FastLZ decoding into Detour's buffer.
///
/// # Safety
/// `input` holds `n` bytes, `out` has room for `cap`, `out_size` is writable (Detour's call).
unsafe extern "C" fn decompress(
    input: *const u8,
    n: c_int,
    out: *mut u8,
    cap: c_int,
    out_size: *mut c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    let (stream, buf) = unsafe {
        (
            std::slice::from_raw_parts(input, n as usize),
            std::slice::from_raw_parts_mut(out, cap as usize),
        )
    };
    match fastlz::decompress_into(stream, buf) {
        Ok(written) => {
            // SAFETY: the caller's contract.
            unsafe { *out_size = written as c_int };
            1
        }
        Err(_) => 0,
    }
}

/// What the test compares of a navmesh tile.
#[derive(Debug, PartialEq)]
struct Tile {
    index: usize,
    tile_ref: u64,
    /// Grid x, z and layer.
    at: (i32, i32, i32),
    poly_count: usize,
    poly_refs: Vec<u64>,
    data: Vec<u8>,
}

/// RecastDemo's `loadAll`, with raw Detour calls: the navmesh's tiles in tile-array order.
// Refs are u32 or u64 (the `large-refs` feature): `as u64` is a no-op in one of the builds.
#[allow(clippy::unnecessary_cast)]
fn recastdemo_load(bytes: &[u8]) -> Vec<Tile> {
    assert!(bytes.len() >= HEADER);
    let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    // SAFETY: both parameter structs are plain old data; `bytes` holds them at these offsets
    // (read unaligned, as fread into the header struct does).
    let (nav_params, cache_params) = unsafe {
        (
            std::ptr::read_unaligned(bytes[NAV_PARAMS_AT..].as_ptr() as *const sys::dtNavMeshParams),
            std::ptr::read_unaligned(
                bytes[CACHE_PARAMS_AT..].as_ptr() as *const sys::dtTileCacheParams
            ),
        )
    };
    let flags: Vec<u16> = (0..64u8).map(navkit::flags::for_area).collect();
    // SAFETY: every object is made here, checked non-null, used while alive and freed at the
    // end (the tile cache before the callback objects it points to). Tile data is allocated
    // with dtAlloc; addTile takes it over (DT_COMPRESSEDTILE_FREE_DATA) or it is freed here on
    // failure, as RecastDemo does.
    unsafe {
        let nav = sys::dtAllocNavMesh();
        assert!(!nav.is_null());
        assert_eq!(sys::dtNavMesh_init(nav, &nav_params) & sys::DT_FAILURE, 0);
        let alloc = navkit_tc_alloc_new(cache_params.walkableClimb, cache_params.ch);
        let comp = navkit_tc_compressor_new(Some(max_size), Some(no_compress), Some(decompress));
        let process = navkit_tc_meshproc_new(flags.as_ptr());
        assert!(!alloc.is_null() && !comp.is_null() && !process.is_null());
        let tc = sys::dtAllocTileCache();
        assert!(!tc.is_null());
        let st = sys::dtTileCache_init(
            tc,
            &cache_params,
            navkit_tc_alloc_base(alloc),
            navkit_tc_compressor_base(comp),
            navkit_tc_meshproc_base(process),
        );
        assert_eq!(st & sys::DT_FAILURE, 0);

        // The loop of loadAll: file order, addTile then buildNavMeshTile.
        let mut at = HEADER;
        for _ in 0..i32_at(8) {
            let (tile_ref, size) = (i32_at(at) as u32, i32_at(at + 4) as usize);
            if tile_ref == 0 || size == 0 {
                break;
            }
            let data = sys::dtAlloc(size, sys::dtAllocHint_DT_ALLOC_PERM) as *mut u8;
            assert!(!data.is_null());
            std::ptr::copy_nonoverlapping(bytes[at + 8..at + 8 + size].as_ptr(), data, size);
            at += 8 + size;
            let mut r = 0;
            let st = sys::dtTileCache_addTile(
                tc,
                data,
                size as c_int,
                sys::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as u8,
                &mut r,
            );
            if st & sys::DT_FAILURE != 0 {
                sys::dtFree(data as *mut c_void);
            }
            if r != 0 {
                let st = sys::dtTileCache_buildNavMeshTile(tc, r, nav);
                assert_eq!(st & sys::DT_FAILURE, 0, "buildNavMeshTile(0x{r:x})");
            }
        }
        assert_eq!(at, bytes.len());

        let mut tiles = Vec::new();
        for i in 0..sys::dtNavMesh_getMaxTiles(nav) {
            let t = sys::dtNavMesh_getTile(nav, i);
            if t.is_null() || (*t).header.is_null() {
                continue;
            }
            let h = &*(*t).header;
            let base = sys::dtNavMesh_getPolyRefBase(nav, t);
            tiles.push(Tile {
                index: i as usize,
                tile_ref: sys::dtNavMesh_getTileRef(nav, t) as u64,
                at: (h.x, h.y, h.layer),
                poly_count: h.polyCount as usize,
                poly_refs: (0..h.polyCount)
                    .map(|p| (base | p as sys::dtPolyRef) as u64)
                    .collect(),
                data: std::slice::from_raw_parts((*t).data, (*t).dataSize as usize).to_vec(),
            });
        }
        sys::dtFreeTileCache(tc);
        navkit_tc_meshproc_free(process);
        navkit_tc_compressor_free(comp);
        navkit_tc_alloc_free(alloc);
        sys::dtFreeNavMesh(nav);
        tiles
    }
}

/// navkit's loaded cache's navmesh tiles, in tile-array order.
fn navkit_load(bytes: &[u8]) -> Vec<Tile> {
    let cache = TileCache::from_tset_bytes(bytes, &[]).unwrap();
    cache
        .navmesh()
        .tiles()
        .map(|t| {
            let h = t.header();
            Tile {
                index: t.index(),
                tile_ref: t.tile_ref(),
                at: (h.x, h.y, h.layer),
                poly_count: h.poly_count,
                poly_refs: t.polys().map(|p| p.poly_ref().to_u64()).collect(),
                data: t.data().to_vec(),
            }
        })
        .collect()
}

#[test]
fn recastdemo_tset_loads_with_recastdemos_tile_indices_and_poly_refs() {
    let path = common::shared().join("meshes/recastdemo-files/dungeon_all_tiles_tilecache.bin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let theirs = recastdemo_load(&bytes);
    let ours = navkit_load(&bytes);

    // The file's 30 layers (tests/tset.rs reads them) each make a navmesh tile.
    assert_eq!(theirs.len(), 30);
    // The order matters for this file: positions with more than one layer (counted from
    // RecastDemo's own result).
    let mut layers_at: HashMap<(i32, i32), usize> = HashMap::new();
    for t in &theirs {
        *layers_at.entry((t.at.0, t.at.1)).or_default() += 1;
    }
    let stacked = layers_at.values().filter(|&&n| n > 1).count();
    assert!(stacked >= 2, "{stacked} positions with several layers");
    // loadAll's order is file order: tile i of the file becomes navmesh tile i.
    assert_eq!(
        theirs.iter().map(|t| t.index).collect::<Vec<_>>(),
        (0..30).collect::<Vec<_>>()
    );

    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(
            (a.index, a.tile_ref, a.at, a.poly_count),
            (b.index, b.tile_ref, b.at, b.poly_count),
            "navmesh tile {}",
            b.index
        );
        assert_eq!(a.poly_refs, b.poly_refs, "poly refs of tile {}", b.index);
        assert!(a.data == b.data, "tile {} data", b.index);
    }
    let polys: usize = theirs.iter().map(|t| t.poly_count).sum();
    eprintln!(
        "RecastDemo's dungeon TSET: {} tiles, {polys} polys, {stacked} positions with several \
         layers, same tile indices and poly refs",
        theirs.len()
    );
}
