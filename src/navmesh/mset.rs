//! RecastDemo's `MSET` navmesh set files, and exhaustive validation of Detour tile data.
//!
//! An `MSET` file (written by RecastDemo's `Sample::saveAll`) is a header
//! `{ int magic = 'MSET', int version = 1, int numTiles, dtNavMeshParams params }`
//! followed, per tile, by `{ dtTileRef tileRef, int dataSize }` and `dataSize` bytes of
//! Detour tile data (the output of `dtCreateNavMeshData`). Everything is native
//! little-endian, as RecastDemo writes it with `fwrite` on x86.
//!
//! The file has no field for the width of Detour's refs, but both widths are in use: a Detour
//! built with `DT_POLYREF64` (as RecastDemo's own files may be) writes 16-byte tile records
//! (an 8-byte `tileRef`, the 4-byte `dataSize`, 4 bytes of struct padding) and 16-byte links
//! inside the tile data, where 32-bit refs give 8-byte records and 12-byte links.
//! [`read_mset`] tells them apart by where the first tile's `DT_NAVMESH_MAGIC` is (8 or 16
//! bytes into its record), then checks every tile for that width; [`NavMeshSet::ref_width`]
//! says which it was. [`crate::navmesh::NavMesh`] converts a set of the other width than its
//! build's on load ([`convert_tile_data`]) and saves in either width.
//!
//! Detour trusts tile data completely: `dtNavMesh::addTile` and every query follow the
//! indices stored in it without bounds checks. [`validate_tile_data`] therefore checks every
//! index Detour follows, every float it computes with, and every structural invariant that
//! `dtCreateNavMeshData` guarantees, so that data which passes can be handed to `addTile`.
//! [`read_mset`] additionally checks the file header, the navmesh parameters (so that
//! `dtNavMesh::init` succeeds) and how the tiles fit together (refs, duplicates, poly bits).
//!
//! Offsets in errors are byte offsets: relative to the start of the tile data for
//! [`validate_tile_data`], relative to the start of the file for [`read_mset`], and relative
//! to the start of the `dtNavMeshParams` struct for [`validate_params`].

pub use super::params::{
    MAX_COORDINATE, MAX_TILES_LIMIT, MIN_SALT_BITS, NavMeshParams, RefLayout, RefWidth,
    validate_params, validate_params_for,
};
pub use super::validate::{
    TileInfo, convert_tile_data, validate_tile_data, validate_tile_data_for,
};

use super::params::{P_MAX_POLYS, P_MAX_TILES, P_ORIG, P_TILE_HEIGHT, P_TILE_WIDTH};
use crate::ffi::bytes::{f32_at, i32_at, u32_at};
use crate::ffi::validate::tile::offsets::h;
use crate::{Error, Result};
use recastnavigation_sys::dtNavMeshParams;
use std::collections::HashMap;
use std::mem::size_of;

/// The `MSET` file magic, `'M'<<24 | 'S'<<16 | 'E'<<8 | 'T'` (RecastDemo's `NAVMESHSET_MAGIC`).
pub const MSET_MAGIC: i32 =
    (b'M' as i32) << 24 | (b'S' as i32) << 16 | (b'E' as i32) << 8 | b'T' as i32;
/// The `MSET` file version RecastDemo writes and reads (`NAVMESHSET_VERSION`).
pub const MSET_VERSION: i32 = 1;

/// Size of the `MSET` file header (`NavMeshSetHeader`).
pub(crate) const SET_HEADER_SIZE: usize = 12 + size_of::<dtNavMeshParams>();
/// Offset of `params` within the `MSET` file header.
const SET_PARAMS_OFFSET: usize = 12;
/// Size of an `MSET` per-tile header for refs of `width`: 8 bytes, or 16 with 64-bit refs (the
/// 8-byte `tileRef`, `dataSize`, and 4 bytes of padding to the struct's 8-byte alignment).
pub const fn tile_record_size(width: RefWidth) -> usize {
    match width {
        RefWidth::Bits32 => 8,
        RefWidth::Bits64 => 16,
    }
}

/// One tile of an `MSET` file: the tile ref it had when saved, and its Detour tile data.
#[derive(Clone, Debug, PartialEq)]
pub struct TileRecord {
    /// The `dtTileRef` the tile had when saved, in the set's [`NavMeshSet::ref_width`]; pass
    /// it to `addTile` as `lastRef` to restore the same poly refs.
    pub tile_ref: u64,
    /// The tile data, as produced by `dtCreateNavMeshData`.
    pub data: Vec<u8>,
}

/// The contents of an `MSET` file.
#[derive(Clone, Debug, PartialEq)]
pub struct NavMeshSet {
    /// Navmesh-wide parameters for `dtNavMesh::init`.
    pub params: NavMeshParams,
    /// The tiles, in file order.
    pub tiles: Vec<TileRecord>,
    /// The width of the refs the tiles were built with: their tile refs and the links inside
    /// their data have this width.
    pub ref_width: RefWidth,
}

// ---------------------------------------------------------------------------------------
// Navmesh parameters as stored in files.

fn read_params(data: &[u8], base: usize) -> Result<NavMeshParams> {
    let f = |o: usize| f32_at(data, base + o);
    Ok(NavMeshParams {
        origin: [f(P_ORIG)?, f(P_ORIG + 4)?, f(P_ORIG + 8)?],
        tile_width: f(P_TILE_WIDTH)?,
        tile_height: f(P_TILE_HEIGHT)?,
        max_tiles: i32_at(data, base + P_MAX_TILES)?,
        max_polys: i32_at(data, base + P_MAX_POLYS)?,
    })
}

/// Appends `dtNavMeshParams` as stored in `MSET` and `TSET` files.
pub(crate) fn write_params(out: &mut Vec<u8>, p: &NavMeshParams) {
    let mut buf = [0u8; size_of::<dtNavMeshParams>()];
    let mut put = |off: usize, b: [u8; 4]| buf[off..off + 4].copy_from_slice(&b);
    for (a, v) in p.origin.iter().enumerate() {
        put(P_ORIG + 4 * a, v.to_le_bytes());
    }
    put(P_TILE_WIDTH, p.tile_width.to_le_bytes());
    put(P_TILE_HEIGHT, p.tile_height.to_le_bytes());
    put(P_MAX_TILES, p.max_tiles.to_le_bytes());
    put(P_MAX_POLYS, p.max_polys.to_le_bytes());
    out.extend_from_slice(&buf);
}

/// Moves a tile-relative error to file offsets and names the tile.
fn in_tile(err: Error, tile: usize, base: usize) -> Error {
    match err {
        Error::NavMeshData {
            offset, message, ..
        } => Error::data(
            base + offset,
            format!("tile {tile} (data at byte {base}): {message}"),
        ),
        other => other,
    }
}

// ---------------------------------------------------------------------------------------
// MSET files.

/// The fixed start of a set file format (`MSET` or `TSET`): what [`read_set_header`] checks.
pub(crate) struct SetFormat {
    /// The magic's four letters, as error messages name the format (`MSET`).
    pub(crate) name: &'static str,
    /// What [`Error::VersionMismatch`] calls such a file (`MSET file`).
    pub(crate) what: &'static str,
    /// The file magic.
    pub(crate) magic: i32,
    /// The versions navkit reads.
    pub(crate) versions: &'static [i32],
    /// The size of the whole header (the `magic, version, numTiles` start and the parameters).
    pub(crate) header_size: usize,
}

/// The `MSET` format.
const MSET_FORMAT: SetFormat = SetFormat {
    name: "MSET",
    what: "MSET file",
    magic: MSET_MAGIC,
    versions: &[MSET_VERSION],
    header_size: SET_HEADER_SIZE,
};

/// Reads the `magic, version, numTiles` start of a file of `format`, checking the length, the
/// magic and the version ([`Error::VersionMismatch`] if it is not one of `format.versions`);
/// returns the version and `numTiles` as stored.
pub(crate) fn read_set_header(bytes: &[u8], format: &SetFormat) -> Result<(i32, i32)> {
    let SetFormat {
        name,
        what,
        magic,
        versions,
        header_size,
    } = *format;
    if bytes.len() < header_size {
        return Err(Error::data(
            bytes.len(),
            format!(
                "file is {} bytes, shorter than the {header_size}-byte {name} header",
                bytes.len()
            ),
        ));
    }
    let found = i32_at(bytes, 0)?;
    if found != magic {
        return Err(Error::data(
            0,
            format!("file magic is 0x{found:08x}, expected 0x{magic:08x} ('{name}')"),
        ));
    }
    let version = i32_at(bytes, 4)?;
    if !versions.contains(&version) {
        return Err(Error::VersionMismatch {
            path: None,
            what,
            found: version,
            supported: versions,
        });
    }
    Ok((version, i32_at(bytes, 8)?))
}

/// Reads `dtNavMeshParams` at `base` and validates them ([`validate_params`]); error offsets
/// are file offsets.
pub(crate) fn read_checked_params(bytes: &[u8], base: usize) -> Result<NavMeshParams> {
    let params = read_params(bytes, base)?;
    validate_params(&params).map_err(|e| match e {
        Error::NavMeshData {
            offset, message, ..
        } => Error::data(base + offset, message),
        other => other,
    })?;
    Ok(params)
}

/// Errors if anything follows the last of `num_tiles` tiles, which ended at `pos`.
pub(crate) fn check_no_trailing(bytes: &[u8], pos: usize, num_tiles: usize) -> Result<()> {
    if pos != bytes.len() {
        return Err(Error::data(
            pos,
            format!(
                "{} bytes of trailing data after the last of {num_tiles} tiles",
                bytes.len() - pos
            ),
        ));
    }
    Ok(())
}

/// Reads the 32-bit-ref `tileRef, dataSize` record of tile `t` (of `num_tiles`) at `pos`, as
/// `TSET` files have them, and returns the ref and the data that follows it. RecastDemo's end
/// marker (a zero ref or size), a negative size and data running past the end of the file are
/// errors.
pub(crate) fn read_tile_record(
    bytes: &[u8],
    pos: usize,
    t: usize,
    num_tiles: usize,
) -> Result<(u32, &[u8])> {
    let (r, data) = read_tile_record_of(bytes, pos, t, num_tiles, RefWidth::Bits32)?;
    Ok((r as u32, data))
}

/// Reads the `tileRef, dataSize` record of tile `t` for refs of `width` (see
/// [`tile_record_size`]); see [`read_tile_record`].
fn read_tile_record_of(
    bytes: &[u8],
    pos: usize,
    t: usize,
    num_tiles: usize,
    width: RefWidth,
) -> Result<(u64, &[u8])> {
    let ends = |_: Error| Error::data(pos, format!("tile {t}: file ends inside its tile header"));
    let record = tile_record_size(width);
    if bytes.len().saturating_sub(pos) < record {
        return Err(ends(Error::InvalidArgument(String::new())));
    }
    let tile_ref = match width {
        RefWidth::Bits32 => u64::from(u32_at(bytes, pos).map_err(ends)?),
        RefWidth::Bits64 => {
            let lo = u64::from(u32_at(bytes, pos).map_err(ends)?);
            let hi = u64::from(u32_at(bytes, pos + 4).map_err(ends)?);
            hi << 32 | lo
        }
    };
    let size_at = pos + width.bytes();
    let size = i32_at(bytes, size_at).map_err(ends)?;
    if tile_ref == 0 || size == 0 {
        return Err(Error::data(
            pos,
            format!(
                "tile {t} of {num_tiles} has tileRef {tile_ref} and dataSize {size}; \
                 RecastDemo stops at such an end marker, but numTiles promises more tiles"
            ),
        ));
    }
    let size = usize::try_from(size)
        .map_err(|_| Error::data(size_at, format!("tile {t} dataSize is {size}, must be > 0")))?;
    let start = pos + record;
    if size > bytes.len() - start {
        return Err(Error::data(
            size_at,
            format!(
                "tile {t} dataSize {size} exceeds the {} bytes left in the file",
                bytes.len() - start
            ),
        ));
    }
    Ok((tile_ref, &bytes[start..start + size]))
}

/// The ref width of an `MSET` file's tile records, from its first record at `pos`: the tile
/// data (which starts with `DT_NAVMESH_MAGIC`) follows 8 bytes in with 32-bit refs and 16 bytes
/// in with 64-bit refs (whose 8-byte ref has its high half where the 32-bit layout has the
/// size). This build's width when there are no tiles or neither fits (the record's checks then
/// say what is wrong).
fn detect_ref_width(bytes: &[u8], pos: usize, num_tiles: usize) -> RefWidth {
    let magic = recastnavigation_sys::DT_NAVMESH_MAGIC as u32;
    let at = |off: usize| u32_at(bytes, pos + off).ok();
    if num_tiles == 0 {
        RefWidth::NATIVE
    } else if at(8) == Some(magic) {
        RefWidth::Bits32
    } else if at(16) == Some(magic) && i32_at(bytes, pos + 8).is_ok_and(|size| size > 0) {
        RefWidth::Bits64
    } else {
        RefWidth::NATIVE
    }
}

/// Parses and validates an `MSET` file.
///
/// # Errors
/// [`Error::VersionMismatch`] if the file's version is not [`MSET_VERSION`];
/// [`Error::NavMeshData`], naming the byte offset, if anything else is wrong.
///
/// Checks the header (magic, version, tile count against `max_tiles` and the file length),
/// the parameters ([`validate_params`]), each tile header (ref non-zero and decoding to a
/// free tile index below `max_tiles` with a non-zero salt, data size non-zero and within the
/// file), each tile's data ([`validate_tile_data`]), that each tile's poly count fits the
/// poly bits of the parameters, that no two tiles share a location `(x, y, layer)` or a tile
/// index, and that nothing follows the last tile.
pub fn read_mset(bytes: &[u8]) -> Result<NavMeshSet> {
    let (_, num_tiles) = read_set_header(bytes, &MSET_FORMAT)?;
    // Checked below, for the width of the file's refs.
    let params = read_params(bytes, SET_PARAMS_OFFSET)?;
    let num_tiles = usize::try_from(num_tiles)
        .map_err(|_| Error::data(8, format!("numTiles is {num_tiles}, must be >= 0")))?;
    let width = detect_ref_width(bytes, SET_HEADER_SIZE, num_tiles);
    validate_params_for(&params, width).map_err(|e| match e {
        Error::NavMeshData {
            offset, message, ..
        } => Error::data(
            SET_PARAMS_OFFSET + offset,
            format!("{message} ({width} refs)"),
        ),
        other => other,
    })?;
    if num_tiles > params.max_tiles as usize {
        return Err(Error::data(
            8,
            format!("numTiles {num_tiles} exceeds maxTiles {}", params.max_tiles),
        ));
    }
    let record = tile_record_size(width);
    let rest = bytes.len() - SET_HEADER_SIZE;
    if num_tiles > rest / record {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} cannot fit in the {rest} bytes after the header (each tile \
                 needs at least {record})"
            ),
        ));
    }

    let layout = params.ref_layout_for(width);
    let max_polys_per_tile = 1usize << layout.poly_bits;
    let mut by_location: HashMap<(i32, i32, i32), usize> = HashMap::new();
    let mut by_index: HashMap<u32, usize> = HashMap::new();
    let mut tiles = Vec::with_capacity(num_tiles);
    let mut pos = SET_HEADER_SIZE;
    for t in 0..num_tiles {
        let header_at = pos;
        let (tile_ref, data) = read_tile_record_of(bytes, pos, t, num_tiles, width)?;
        pos += record;
        let size = data.len();
        let info = validate_tile_data_for(data, width).map_err(|e| in_tile(e, t, pos))?;

        // The tile ref must be one Detour itself could have produced for this navmesh.
        let (salt, index, poly) = layout.decode(tile_ref);
        let why = if poly != 0 {
            Some(format!(
                "has poly index {poly} (a tile ref has poly index 0)"
            ))
        } else if salt == 0 {
            Some("has salt 0 (Detour salts are never 0)".to_string())
        } else if index >= params.max_tiles as u32 {
            Some(format!(
                "decodes to tile index {index} >= maxTiles {}",
                params.max_tiles
            ))
        } else if layout.encode(salt, index, 0) != Some(tile_ref) {
            Some(format!(
                "has bits above the {} salt + {} tile + {} poly bits",
                layout.salt_bits, layout.tile_bits, layout.poly_bits
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::data(
                header_at,
                format!("tile {t} ref {tile_ref:#x} ({width}) {why}"),
            ));
        }
        if info.poly_count > max_polys_per_tile {
            return Err(Error::data(
                pos + h::POLY_COUNT,
                format!(
                    "tile {t} has {} polys, more than the {max_polys_per_tile} that fit in {} poly \
                     bits (maxPolys {})",
                    info.poly_count, layout.poly_bits, params.max_polys
                ),
            ));
        }
        if let Some(prev) = by_index.insert(index, t) {
            return Err(Error::data(
                header_at,
                format!("tile {t} ref {tile_ref:#x} uses tile index {index}, as tile {prev} does"),
            ));
        }
        if let Some(prev) = by_location.insert((info.x, info.y, info.layer), t) {
            return Err(Error::data(
                pos + h::X,
                format!(
                    "tile {t} is at (x {}, y {}, layer {}), as tile {prev} is",
                    info.x, info.y, info.layer
                ),
            ));
        }
        tiles.push(TileRecord {
            tile_ref,
            data: data.to_vec(),
        });
        pos += size;
    }
    check_no_trailing(bytes, pos, num_tiles)?;
    Ok(NavMeshSet {
        params,
        tiles,
        ref_width: width,
    })
}

/// Serialises a navmesh set in RecastDemo's `MSET` format (little-endian), with tile records
/// of the set's [`NavMeshSet::ref_width`] (the padding of 16-byte records written as zeros).
///
/// This does not validate; [`read_mset`] does. A tile ref that does not fit a 32-bit record is
/// written as 0. Counts and sizes beyond `i32::MAX` cannot be
/// represented and are written as `i32::MAX` (which [`read_mset`] then rejects).
pub fn write_mset(set: &NavMeshSet) -> Vec<u8> {
    let clamp = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let total: usize = SET_HEADER_SIZE
        + set
            .tiles
            .iter()
            .map(|t| tile_record_size(set.ref_width) + t.data.len())
            .sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MSET_MAGIC.to_le_bytes());
    out.extend_from_slice(&MSET_VERSION.to_le_bytes());
    out.extend_from_slice(&clamp(set.tiles.len()).to_le_bytes());
    write_params(&mut out, &set.params);
    for tile in &set.tiles {
        match set.ref_width {
            RefWidth::Bits32 => {
                let r = u32::try_from(tile.tile_ref).unwrap_or(0);
                out.extend_from_slice(&r.to_le_bytes());
                out.extend_from_slice(&clamp(tile.data.len()).to_le_bytes());
            }
            RefWidth::Bits64 => {
                out.extend_from_slice(&tile.tile_ref.to_le_bytes());
                out.extend_from_slice(&clamp(tile.data.len()).to_le_bytes());
                out.extend_from_slice(&[0; 4]);
            }
        }
        out.extend_from_slice(&tile.data);
    }
    out
}
