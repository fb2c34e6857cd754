//! RecastDemo's `TSET` tile cache files (`Sample_TempObstacles::saveAll`).

use std::collections::HashSet;
use std::mem::{offset_of, size_of};

use recastnavigation_sys as sys;

use super::*;
use crate::ffi::tilecache::{Compressor, LAYER_HEADER_SIZE};
use crate::ffi::validate::ValidLayer;
use crate::navmesh::mset;
use crate::navmesh::params::NavMeshParams;
use crate::{Error, Result};

/// RecastDemo's `TILECACHESET_MAGIC`, `'T'<<24 | 'S'<<16 | 'E'<<8 | 'T'`.
pub const TSET_MAGIC: i32 =
    (b'T' as i32) << 24 | (b'S' as i32) << 16 | (b'E' as i32) << 8 | b'T' as i32;
/// RecastDemo's `TILECACHESET_VERSION`: navkit writes it for FastLZ layers, RecastDemo's
/// format. (navkit's files from before FastLZ support have it too, with LZ4 layers.)
pub const TSET_VERSION: i32 = 1;
/// The `TSET` version navkit writes for LZ4 layers (`'L' << 24 | 'Z' << 16 | '4' << 8 | 1`):
/// not RecastDemo's, so RecastDemo refuses such files cleanly (its `loadAll` checks the version
/// before anything else) instead of failing to decompress their layers.
pub const TSET_VERSION_LZ4: i32 =
    (b'L' as i32) << 24 | (b'Z' as i32) << 16 | (b'4' as i32) << 8 | 1;

/// Size of the `TSET` header (`TileCacheSetHeader`).
pub(super) const TSET_HEADER_SIZE: usize =
    12 + size_of::<sys::dtNavMeshParams>() + size_of::<sys::dtTileCacheParams>();
/// Offset of the navmesh params in the `TSET` header.
pub(super) const TSET_NAV_PARAMS: usize = 12;
/// Offset of the tile cache params in the `TSET` header.
pub(super) const TSET_CACHE_PARAMS: usize = 12 + size_of::<sys::dtNavMeshParams>();
/// Size of a `TSET` tile header (`TileCacheTileHeader`).
pub(super) const TSET_TILE_HEADER_SIZE: usize = 8;

/// Offsets of `dtNavMeshParams` and `dtTileCacheParams` fields.
pub(super) mod pp {
    use super::*;
    pub const N_TILE_WIDTH: usize = offset_of!(sys::dtNavMeshParams, tileWidth);
    pub const N_TILE_HEIGHT: usize = offset_of!(sys::dtNavMeshParams, tileHeight);
    pub const C_ORIG: usize = offset_of!(sys::dtTileCacheParams, orig);
    pub const C_CS: usize = offset_of!(sys::dtTileCacheParams, cs);
    pub const C_CH: usize = offset_of!(sys::dtTileCacheParams, ch);
    pub const C_WIDTH: usize = offset_of!(sys::dtTileCacheParams, width);
    pub const C_HEIGHT: usize = offset_of!(sys::dtTileCacheParams, height);
    pub const C_WALKABLE_HEIGHT: usize = offset_of!(sys::dtTileCacheParams, walkableHeight);
    pub const C_WALKABLE_RADIUS: usize = offset_of!(sys::dtTileCacheParams, walkableRadius);
    pub const C_WALKABLE_CLIMB: usize = offset_of!(sys::dtTileCacheParams, walkableClimb);
    pub const C_MAX_ERROR: usize = offset_of!(sys::dtTileCacheParams, maxSimplificationError);
    pub const C_MAX_TILES: usize = offset_of!(sys::dtTileCacheParams, maxTiles);
    pub const C_MAX_OBSTACLES: usize = offset_of!(sys::dtTileCacheParams, maxObstacles);
}

/// The contents of a `TSET` file, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCacheSet {
    /// The navmesh parameters.
    pub navmesh: NavMeshParams,
    /// The tile cache parameters.
    pub cache: TileCacheParams,
    /// The compressed tiles in file order: the ref they had and their data.
    pub tiles: Vec<(u32, Vec<u8>)>,
    /// The format of the tiles' compressed grids (and so the file's version).
    pub compression: LayerCompression,
}

impl TileCacheSet {
    /// The same set with its layers in `compression`: each layer's header as it is and its
    /// grids decompressed and compressed again, as Detour's `dtBuildTileCacheLayer` would have
    /// compressed them (a copy if the format is already `compression`).
    ///
    /// # Errors
    /// [`Error::NavMeshData`] if a layer is too short or its grids do not decompress to
    /// exactly 3 bytes per cell of the cache's tile size (a set [`read_tset`] returned always
    /// converts).
    pub fn recompressed(&self, compression: LayerCompression) -> Result<TileCacheSet> {
        let mut out = self.clone();
        out.compression = compression;
        if compression == self.compression {
            return Ok(out);
        }
        let cells = (self.cache.width.max(0) as usize) * (self.cache.height.max(0) as usize);
        let mut from = Compressor::new(self.compression);
        let mut to = Compressor::new(compression);
        for (i, (_, data)) in out.tiles.iter_mut().enumerate() {
            if data.len() <= LAYER_HEADER_SIZE {
                return Err(Error::data(
                    0,
                    format!(
                        "tile {i} is {} bytes, no more than a layer header",
                        data.len()
                    ),
                ));
            }
            let grids = from
                .decompress_grids(&data[LAYER_HEADER_SIZE..], cells)
                .map_err(|_| {
                    Error::data(
                        LAYER_HEADER_SIZE,
                        format!(
                            "tile {i}: layer grids do not decompress ({}) to {} bytes",
                            self.compression.describe(),
                            3 * cells
                        ),
                    )
                })?;
            let packed = to
                .compress(&grids)
                .map_err(|s| crate::status::detour_err("dtTileCacheCompressor::compress", s))?;
            data.truncate(LAYER_HEADER_SIZE);
            data.extend_from_slice(&packed);
        }
        Ok(out)
    }
}

/// Parses and validates a `TSET` file.
///
/// The layers' format comes from the header's version: [`TSET_VERSION_LZ4`] is LZ4; version 1
/// ([`TSET_VERSION`]) is RecastDemo's FastLZ, or LZ4 in files navkit wrote before it wrote
/// FastLZ. For version 1 every layer is validated as FastLZ, and if that fails, as LZ4; the
/// file is of the format under which *all* of it validates (FastLZ if both did, which no real
/// file does: every layer must decompress to exactly its size under one format). A file
/// neither format reads gets the error of the attempt that got further into the file (FastLZ's
/// at a tie).
///
/// # Errors
/// [`Error::VersionMismatch`] if the file's version is neither [`TSET_VERSION`] nor
/// [`TSET_VERSION_LZ4`]; [`Error::NavMeshData`], naming the byte offset, if anything else is
/// wrong.
///
/// Checks the header (magic, version, tile count within both caches' limits and the file), the
/// navmesh parameters ([`crate::navmesh::params::validate_params`]), the tile cache parameters
/// ([`validate_cache_params`]) and that both describe the same tile grid, every tile header (ref
/// non-zero, decoding to a distinct tile index below `maxTiles` with a non-zero salt, data size
/// within the file), every layer (see the module docs: magic, version, position, dimensions,
/// exact decompressed size, areas, connections, region partition), that no two layers share a
/// position, and that nothing follows the last tile. Offsets in errors are file offsets.
pub fn read_tset(bytes: &[u8]) -> Result<TileCacheSet> {
    let set = read_valid_tset(bytes)?;
    Ok(TileCacheSet {
        navmesh: set.navmesh,
        cache: set.cache,
        tiles: set
            .tiles
            .into_iter()
            .map(|(r, layer)| (r, layer.into_bytes()))
            .collect(),
        compression: set.compression,
    })
}

/// A `TSET` file's contents with its layers as checked ([`ValidLayer`]), for loading.
pub(super) struct ValidTileCacheSet {
    /// The navmesh parameters.
    pub(super) navmesh: NavMeshParams,
    /// The tile cache parameters.
    pub(super) cache: TileCacheParams,
    /// The compressed tiles in file order: the ref they had and their layer.
    pub(super) tiles: Vec<(u32, ValidLayer)>,
    /// The layers' format.
    pub(super) compression: LayerCompression,
}

/// The `TSET` format: its versions are RecastDemo's (FastLZ layers) and navkit's LZ4 one.
const TSET_FORMAT: mset::SetFormat = mset::SetFormat {
    name: "TSET",
    what: "TSET file",
    magic: TSET_MAGIC,
    versions: &[TSET_VERSION, TSET_VERSION_LZ4],
    header_size: TSET_HEADER_SIZE,
};

/// [`read_tset`], keeping the layers as [`ValidLayer`]s.
pub(super) fn read_valid_tset(bytes: &[u8]) -> Result<ValidTileCacheSet> {
    let (version, num_tiles) = mset::read_set_header(bytes, &TSET_FORMAT)?;
    if version == TSET_VERSION_LZ4 {
        return read_valid_tset_as(bytes, num_tiles, LayerCompression::Lz4);
    }
    let fast = match read_valid_tset_as(bytes, num_tiles, LayerCompression::FastLz) {
        Ok(set) => return Ok(set),
        Err(e) => e,
    };
    let offset = |e: &Error| match e {
        Error::NavMeshData { offset, .. } => Some(*offset),
        _ => None,
    };
    // Only a layer can fail under one format and not the other; anything before the first
    // layer fails the same way.
    if offset(&fast).is_none_or(|o| o < TSET_HEADER_SIZE + TSET_TILE_HEADER_SIZE) {
        return Err(fast);
    }
    match read_valid_tset_as(bytes, num_tiles, LayerCompression::Lz4) {
        Ok(set) => Ok(set),
        Err(lz4) if offset(&lz4) > offset(&fast) => Err(lz4),
        Err(_) => Err(fast),
    }
}

/// [`read_valid_tset`] for one layer format, after the header's start (`numTiles` is
/// `num_tiles`) was read.
fn read_valid_tset_as(
    bytes: &[u8],
    num_tiles: i32,
    compression: LayerCompression,
) -> Result<ValidTileCacheSet> {
    let navmesh = mset::read_checked_params(bytes, TSET_NAV_PARAMS)?;
    let cache = read_cache_params(bytes)?;
    check_same_tile_grid(&navmesh, &cache)?;
    let num_tiles = checked_tile_count(num_tiles, &navmesh, &cache, bytes.len())?;
    let mut reader = LayerReader::new(&cache, compression, num_tiles);
    let mut pos = TSET_HEADER_SIZE;
    for t in 0..num_tiles {
        pos = reader.read_tile(bytes, pos, t)?;
    }
    mset::check_no_trailing(bytes, pos, num_tiles)?;
    Ok(ValidTileCacheSet {
        navmesh,
        cache,
        tiles: reader.tiles,
        compression,
    })
}

/// Reads the header's `dtTileCacheParams` and validates them ([`validate_cache_params`]);
/// error offsets are file offsets.
fn read_cache_params(bytes: &[u8]) -> Result<TileCacheParams> {
    let c = TSET_CACHE_PARAMS;
    let cache = TileCacheParams {
        origin: [
            f32_at(bytes, c + pp::C_ORIG)?,
            f32_at(bytes, c + pp::C_ORIG + 4)?,
            f32_at(bytes, c + pp::C_ORIG + 8)?,
        ],
        cell_size: f32_at(bytes, c + pp::C_CS)?,
        cell_height: f32_at(bytes, c + pp::C_CH)?,
        width: i32_at(bytes, c + pp::C_WIDTH)?,
        height: i32_at(bytes, c + pp::C_HEIGHT)?,
        walkable_height: f32_at(bytes, c + pp::C_WALKABLE_HEIGHT)?,
        walkable_radius: f32_at(bytes, c + pp::C_WALKABLE_RADIUS)?,
        walkable_climb: f32_at(bytes, c + pp::C_WALKABLE_CLIMB)?,
        max_simplification_error: f32_at(bytes, c + pp::C_MAX_ERROR)?,
        max_tiles: i32_at(bytes, c + pp::C_MAX_TILES)?,
        max_obstacles: i32_at(bytes, c + pp::C_MAX_OBSTACLES)?,
    };
    validate_cache_params(&cache).map_err(|e| match e {
        Error::NavMeshData {
            offset, message, ..
        } => Error::data(c + offset, message),
        other => other,
    })?;
    Ok(cache)
}

/// Errors unless both parameter sets describe one tile grid (same origin, tile size).
fn check_same_tile_grid(navmesh: &NavMeshParams, cache: &TileCacheParams) -> Result<()> {
    let (c, n) = (TSET_CACHE_PARAMS, TSET_NAV_PARAMS);
    let (tw, th) = cache.tile_world_size();
    for a in 0..3 {
        if (navmesh.origin[a] - cache.origin[a]).abs() > 1e-3 * cache.cell_size {
            return Err(Error::data(
                c + pp::C_ORIG + 4 * a,
                format!(
                    "tile cache origin[{a}] {} differs from the navmesh origin {}",
                    cache.origin[a], navmesh.origin[a]
                ),
            ));
        }
    }
    for (name, got, want, off) in [
        ("tileWidth", navmesh.tile_width, tw, n + pp::N_TILE_WIDTH),
        ("tileHeight", navmesh.tile_height, th, n + pp::N_TILE_HEIGHT),
    ] {
        if (got - want).abs() > 1e-3 * cache.cell_size {
            return Err(Error::data(
                off,
                format!(
                    "navmesh {name} {got} is not the tile cache's tile size x cell size {want}"
                ),
            ));
        }
    }
    Ok(())
}

/// The header's `numTiles`, checked: not negative, within both caches' `maxTiles`, and able to
/// fit in the `file_len - TSET_HEADER_SIZE` bytes after the header.
fn checked_tile_count(
    num_tiles: i32,
    navmesh: &NavMeshParams,
    cache: &TileCacheParams,
    file_len: usize,
) -> Result<usize> {
    let num_tiles = usize::try_from(num_tiles)
        .map_err(|_| Error::data(8, format!("numTiles is {num_tiles}, must be >= 0")))?;
    let limit = (cache.max_tiles.min(navmesh.max_tiles)) as usize;
    if num_tiles > limit {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} exceeds the cache's maxTiles {} or the navmesh's {}",
                cache.max_tiles, navmesh.max_tiles
            ),
        ));
    }
    let rest = file_len - TSET_HEADER_SIZE;
    if num_tiles > rest / (TSET_TILE_HEADER_SIZE + LAYER_HEADER_SIZE + 1) {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} cannot fit in the {rest} bytes after the header (each tile \
                 needs at least {} bytes)",
                TSET_TILE_HEADER_SIZE + LAYER_HEADER_SIZE + 1
            ),
        ));
    }
    Ok(num_tiles)
}

/// Reads a `TSET` file's tiles one after the other, checking each against the cache's
/// parameters and the tiles before it.
struct LayerReader {
    /// The tile cache parameters, as Detour has them.
    dt: sys::dtTileCacheParams,
    /// The cache's `maxTiles`.
    max_tiles: i32,
    /// The bits of a tile ref that are its tile index, as `dtTileCache::init` splits them.
    tile_bits: u32,
    /// The bits of a tile ref's salt.
    salt_bits: u32,
    /// The layers' decompressor.
    comp: Compressor,
    /// The tile indices seen so far.
    by_index: HashSet<u32>,
    /// The layer positions `(x, y, layer)` seen so far.
    by_position: HashSet<(i32, i32, i32)>,
    /// The tiles read so far: their ref and their layer.
    tiles: Vec<(u32, ValidLayer)>,
    /// How many tiles the header promises.
    num_tiles: usize,
}

impl LayerReader {
    fn new(cache: &TileCacheParams, compression: LayerCompression, num_tiles: usize) -> Self {
        let tile_bits = ilog2_next_pow2(cache.max_tiles as u32);
        LayerReader {
            dt: cache.to_dt(),
            max_tiles: cache.max_tiles,
            tile_bits,
            salt_bits: 31.min(32 - tile_bits),
            comp: Compressor::new(compression),
            by_index: HashSet::new(),
            by_position: HashSet::new(),
            tiles: Vec::with_capacity(num_tiles),
            num_tiles,
        }
    }

    /// Reads and checks tile `t`, whose record starts at `pos`; returns where the next starts.
    fn read_tile(&mut self, bytes: &[u8], pos: usize, t: usize) -> Result<usize> {
        let (tile_ref, data) = mset::read_tile_record(bytes, pos, t, self.num_tiles)?;
        self.check_tile_ref(tile_ref, pos, t)?;
        let pos = pos + TSET_TILE_HEADER_SIZE;
        let (layer, h) = ValidLayer::new(data, &self.dt, &mut self.comp).map_err(|e| match e {
            Error::NavMeshData {
                offset, message, ..
            } => Error::data(
                pos + offset,
                format!("tile {t} (data at byte {pos}): {message}"),
            ),
            other => other,
        })?;
        if !self.by_position.insert((h.tx, h.ty, h.tlayer)) {
            return Err(Error::data(
                pos + lh::TX,
                format!(
                    "tile {t} is at (x {}, y {}, layer {}), as an earlier tile is",
                    h.tx, h.ty, h.tlayer
                ),
            ));
        }
        self.tiles.push((tile_ref, layer));
        Ok(pos + data.len())
    }

    /// Errors unless `tile_ref` (tile `t`'s, in the record at `header_at`) is a tile cache ref
    /// (an index below `maxTiles`, a salt that is not 0 and fits its bits) of an index no
    /// earlier tile used.
    fn check_tile_ref(&mut self, tile_ref: u32, header_at: usize, t: usize) -> Result<()> {
        let index = tile_ref & ((1u32 << self.tile_bits) - 1);
        let salt = (u64::from(tile_ref) >> self.tile_bits) as u32;
        let max_tiles = self.max_tiles;
        if index >= max_tiles as u32 || salt == 0 || u64::from(salt) >= 1u64 << self.salt_bits {
            return Err(Error::data(
                header_at,
                format!(
                    "tile {t} ref 0x{tile_ref:08x} is not a tile cache ref (index {index} of \
                     maxTiles {max_tiles}, salt {salt})"
                ),
            ));
        }
        if !self.by_index.insert(index) {
            return Err(Error::data(
                header_at,
                format!("tile {t} ref 0x{tile_ref:08x} uses tile index {index} a second time"),
            ));
        }
        Ok(())
    }
}

/// Serialises a tile cache set in RecastDemo's `TSET` format (little-endian), with the version
/// of its layers' format ([`LayerCompression::tset_version`]: 1 for FastLZ, as RecastDemo).
/// Does not validate; [`read_tset`] does.
pub fn write_tset(set: &TileCacheSet) -> Vec<u8> {
    let clamp = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let mut out = Vec::with_capacity(
        TSET_HEADER_SIZE
            + set
                .tiles
                .iter()
                .map(|(_, d)| TSET_TILE_HEADER_SIZE + d.len())
                .sum::<usize>(),
    );
    out.extend_from_slice(&TSET_MAGIC.to_le_bytes());
    out.extend_from_slice(&set.compression.tset_version().to_le_bytes());
    out.extend_from_slice(&clamp(set.tiles.len()).to_le_bytes());
    mset::write_params(&mut out, &set.navmesh);
    let put = |buf: &mut [u8], off: usize, b: [u8; 4]| buf[off..off + 4].copy_from_slice(&b);
    let mut cache = [0u8; size_of::<sys::dtTileCacheParams>()];
    let cp = &set.cache;
    for a in 0..3 {
        put(&mut cache, pp::C_ORIG + 4 * a, cp.origin[a].to_le_bytes());
    }
    put(&mut cache, pp::C_CS, cp.cell_size.to_le_bytes());
    put(&mut cache, pp::C_CH, cp.cell_height.to_le_bytes());
    put(&mut cache, pp::C_WIDTH, cp.width.to_le_bytes());
    put(&mut cache, pp::C_HEIGHT, cp.height.to_le_bytes());
    put(
        &mut cache,
        pp::C_WALKABLE_HEIGHT,
        cp.walkable_height.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_WALKABLE_RADIUS,
        cp.walkable_radius.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_WALKABLE_CLIMB,
        cp.walkable_climb.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_MAX_ERROR,
        cp.max_simplification_error.to_le_bytes(),
    );
    put(&mut cache, pp::C_MAX_TILES, cp.max_tiles.to_le_bytes());
    put(
        &mut cache,
        pp::C_MAX_OBSTACLES,
        cp.max_obstacles.to_le_bytes(),
    );
    out.extend_from_slice(&cache);
    for (r, data) in &set.tiles {
        out.extend_from_slice(&r.to_le_bytes());
        out.extend_from_slice(&clamp(data.len()).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}
