//! RecastDemo's `MSET` navmesh set files, and exhaustive validation of Detour tile data.
//!
//! An `MSET` file (written by RecastDemo's `Sample::saveAll`) is a header
//! `{ int magic = 'MSET', int version = 1, int numTiles, dtNavMeshParams params }`
//! followed, per tile, by `{ dtTileRef tileRef, int dataSize }` and `dataSize` bytes of
//! Detour tile data (the output of `dtCreateNavMeshData`). Everything is native
//! little-endian, as RecastDemo writes it with `fwrite` on x86.
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

use crate::{Error, Result};
use recastnavigation_sys::{
    DT_EXT_LINK, DT_NAVMESH_MAGIC, DT_NAVMESH_VERSION, DT_OFFMESH_CON_BIDIR, DT_VERTS_PER_POLYGON,
    dtBVNode, dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY, dtLink, dtMeshHeader, dtNavMeshParams,
    dtOffMeshConnection, dtPoly, dtPolyDetail, dtPolyTypes_DT_POLYTYPE_GROUND,
    dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION,
};
use std::collections::HashMap;
use std::mem::{offset_of, size_of};

/// The `MSET` file magic, `'M'<<24 | 'S'<<16 | 'E'<<8 | 'T'` (RecastDemo's `NAVMESHSET_MAGIC`).
pub const MSET_MAGIC: i32 =
    (b'M' as i32) << 24 | (b'S' as i32) << 16 | (b'E' as i32) << 8 | b'T' as i32;
/// The `MSET` file version RecastDemo writes and reads (`NAVMESHSET_VERSION`).
pub const MSET_VERSION: i32 = 1;
/// Largest accepted magnitude of any coordinate, extent or radius in navmesh data.
///
/// Detour squares coordinate differences (e.g. in `dtDistancePtSegSqr2D`) and relies on
/// the results being finite and below `FLT_MAX`; with every stored coordinate (and every
/// query coordinate) bounded by this value that holds with a wide margin.
pub const MAX_COORDINATE: f32 = 1.0e9;
/// Largest accepted `max_tiles`: `dtNavMesh::init` allocates a `dtMeshTile` (about 100
/// bytes) per tile up front, so this caps that allocation at about 100 MiB.
pub const MAX_TILES_LIMIT: i32 = 1 << 20;
/// Fewest salt bits `dtNavMesh::init` accepts for 32-bit poly refs.
pub const MIN_SALT_BITS: u32 = 10;

/// Size of the `MSET` file header (`NavMeshSetHeader`).
const SET_HEADER_SIZE: usize = 12 + size_of::<dtNavMeshParams>();
/// Offset of `params` within the `MSET` file header.
const SET_PARAMS_OFFSET: usize = 12;
/// Size of the per-tile header (`NavMeshTileHeader`: `dtTileRef tileRef; int dataSize;`).
const TILE_HEADER_SIZE: usize = 8;
/// `DT_VERTS_PER_POLYGON` as a `usize`.
const NVP: usize = DT_VERTS_PER_POLYGON as usize;
/// Poly type of ground polygons (`DT_POLYTYPE_GROUND`).
const POLYTYPE_GROUND: u8 = dtPolyTypes_DT_POLYTYPE_GROUND as u8;
/// Poly type of off-mesh connection polygons (`DT_POLYTYPE_OFFMESH_CONNECTION`).
const POLYTYPE_OFFMESH: u8 = dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION as u8;
/// `DT_DETAIL_EDGE_BOUNDARY` in each of the three 2-bit edge fields of a detail triangle.
const ANY_BOUNDARY_EDGE: u8 = (dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY
    | dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY << 2
    | dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY << 4) as u8;

/// Navmesh-wide parameters (`dtNavMeshParams`), as stored in an `MSET` file.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NavMeshParams {
    /// World-space origin of the tile grid.
    pub origin: [f32; 3],
    /// Width of each tile along x.
    pub tile_width: f32,
    /// Height (depth) of each tile along z.
    pub tile_height: f32,
    /// Maximum number of tiles the navmesh can hold.
    pub max_tiles: i32,
    /// Maximum number of polygons per tile.
    pub max_polys: i32,
}

impl NavMeshParams {
    /// The equivalent `dtNavMeshParams`, for `dtNavMesh::init`.
    pub fn to_dt(&self) -> dtNavMeshParams {
        dtNavMeshParams {
            orig: self.origin,
            tileWidth: self.tile_width,
            tileHeight: self.tile_height,
            maxTiles: self.max_tiles,
            maxPolys: self.max_polys,
        }
    }

    /// The parameters of a `dtNavMeshParams`.
    pub fn from_dt(p: &dtNavMeshParams) -> Self {
        NavMeshParams {
            origin: p.orig,
            tile_width: p.tileWidth,
            tile_height: p.tileHeight,
            max_tiles: p.maxTiles,
            max_polys: p.maxPolys,
        }
    }

    /// How 32-bit poly refs are split for these parameters, computed as `dtNavMesh::init`
    /// does (without its unsigned wrap-around when tile and poly bits exceed 32).
    pub fn ref_layout(&self) -> RefLayout {
        let tile_bits = dt_ilog2(dt_next_pow2(self.max_tiles as u32));
        let poly_bits = dt_ilog2(dt_next_pow2(self.max_polys as u32));
        let salt_bits = 32i64 - i64::from(tile_bits) - i64::from(poly_bits);
        RefLayout {
            tile_bits,
            poly_bits,
            salt_bits: salt_bits.clamp(0, 31) as u32,
        }
    }
}

/// How a 32-bit `dtPolyRef` / `dtTileRef` is split into salt, tile index and poly index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RefLayout {
    /// Bits for the tile index (`dtIlog2(dtNextPow2(maxTiles))`).
    pub tile_bits: u32,
    /// Bits for the poly index within a tile (`dtIlog2(dtNextPow2(maxPolys))`).
    pub poly_bits: u32,
    /// Bits for the salt (`min(31, 32 - tile_bits - poly_bits)`, 0 if that is negative).
    pub salt_bits: u32,
}

impl RefLayout {
    fn mask(bits: u32) -> u64 {
        (1u64 << bits) - 1
    }

    /// Splits a ref into `(salt, tile index, poly index)` as Detour's `decodePolyId` does.
    pub fn decode(&self, r: u32) -> (u32, u32, u32) {
        let r = u64::from(r);
        let salt = (r >> (self.poly_bits + self.tile_bits)) & Self::mask(self.salt_bits);
        let tile = (r >> self.poly_bits) & Self::mask(self.tile_bits);
        let poly = r & Self::mask(self.poly_bits);
        (salt as u32, tile as u32, poly as u32)
    }

    /// Builds a ref from its parts as Detour's `encodePolyId` does (`None` if a part does not
    /// fit its bits).
    pub fn encode(&self, salt: u32, tile: u32, poly: u32) -> Option<u32> {
        if u64::from(salt) > Self::mask(self.salt_bits)
            || u64::from(tile) > Self::mask(self.tile_bits)
            || u64::from(poly) > Self::mask(self.poly_bits)
        {
            return None;
        }
        let r = (u64::from(salt) << (self.poly_bits + self.tile_bits))
            | (u64::from(tile) << self.poly_bits)
            | u64::from(poly);
        u32::try_from(r).ok()
    }
}

/// One tile of an `MSET` file: the tile ref it had when saved, and its Detour tile data.
#[derive(Clone, Debug, PartialEq)]
pub struct TileRecord {
    /// The `dtTileRef` the tile had when saved; pass it to `addTile` as `lastRef` to restore
    /// the same poly refs.
    pub tile_ref: u32,
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
}

/// Summary of validated tile data.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileInfo {
    /// Tile grid x.
    pub x: i32,
    /// Tile grid y (along world z).
    pub y: i32,
    /// Tile layer.
    pub layer: i32,
    /// Number of polygons, ground and off-mesh.
    pub poly_count: usize,
    /// Number of polygon vertices, including off-mesh connection end points.
    pub vert_count: usize,
    /// Number of detail sub-meshes (one per ground polygon).
    pub detail_mesh_count: usize,
    /// Number of extra detail vertices.
    pub detail_vert_count: usize,
    /// Number of detail triangles.
    pub detail_tri_count: usize,
    /// Number of BV tree nodes (0: no BV tree).
    pub bv_node_count: usize,
    /// Number of off-mesh connections.
    pub off_mesh_con_count: usize,
    /// Number of link slots reserved for Detour.
    pub max_link_count: usize,
    /// Tile bounds, minimum corner.
    pub bmin: [f32; 3],
    /// Tile bounds, maximum corner.
    pub bmax: [f32; 3],
    /// Agent height the tile was built for.
    pub walkable_height: f32,
    /// Agent radius the tile was built for.
    pub walkable_radius: f32,
    /// Maximum climb the tile was built for.
    pub walkable_climb: f32,
}

// ---------------------------------------------------------------------------------------
// Detour's integer helpers.

/// Detour's `dtNextPow2` (wrapping exactly like the C++ on `unsigned int`).
fn dt_next_pow2(v: u32) -> u32 {
    let mut v = v.wrapping_sub(1);
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    v.wrapping_add(1)
}

/// Detour's `dtIlog2`.
fn dt_ilog2(mut v: u32) -> u32 {
    let mut r = u32::from(v > 0xffff) << 4;
    v >>= r;
    let mut shift = u32::from(v > 0xff) << 3;
    v >>= shift;
    r |= shift;
    shift = u32::from(v > 0xf) << 2;
    v >>= shift;
    r |= shift;
    shift = u32::from(v > 0x3) << 1;
    v >>= shift;
    r |= shift;
    r | (v >> 1)
}

/// Detour's `dtAlign4`, on `usize` with overflow checking.
fn align4(x: usize) -> Option<usize> {
    x.checked_add(3).map(|x| x & !3)
}

// ---------------------------------------------------------------------------------------
// Little-endian field readers: never panic, report the offset of a short read.

fn bytes_at<const N: usize>(data: &[u8], off: usize) -> Result<[u8; N]> {
    off.checked_add(N)
        .and_then(|end| data.get(off..end))
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or_else(|| {
            Error::data(
                off.min(data.len()),
                format!(
                    "unexpected end of data: need {N} bytes at byte {off}, only {} bytes available",
                    data.len()
                ),
            )
        })
}

pub(crate) fn u8_at(data: &[u8], off: usize) -> Result<u8> {
    Ok(bytes_at::<1>(data, off)?[0])
}

pub(crate) fn u16_at(data: &[u8], off: usize) -> Result<u16> {
    Ok(u16::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn u32_at(data: &[u8], off: usize) -> Result<u32> {
    Ok(u32::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn i32_at(data: &[u8], off: usize) -> Result<i32> {
    Ok(i32::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn f32_at(data: &[u8], off: usize) -> Result<f32> {
    Ok(f32::from_le_bytes(bytes_at(data, off)?))
}

/// Checks that `v` (found at `off`) is finite and within [`MAX_COORDINATE`].
fn check_coord(v: f32, off: usize, what: impl FnOnce() -> String) -> Result<f32> {
    if !v.is_finite() {
        return Err(Error::data(off, format!("{} is {v}, not finite", what())));
    }
    if v.abs() > MAX_COORDINATE {
        return Err(Error::data(
            off,
            format!("{} is {v}, beyond +-{MAX_COORDINATE:e}", what()),
        ));
    }
    Ok(v)
}

/// Reads a float at `off` and checks it with [`check_coord`].
fn coord_at(data: &[u8], off: usize, what: impl FnOnce() -> String) -> Result<f32> {
    check_coord(f32_at(data, off)?, off, what)
}

/// Reads three floats at `off` and checks each with [`check_coord`].
fn vec3_at(data: &[u8], off: usize, what: &dyn Fn() -> String) -> Result<[f32; 3]> {
    let mut v = [0.0; 3];
    for (a, out) in v.iter_mut().enumerate() {
        let o = off + 4 * a;
        *out = coord_at(data, o, || format!("{}[{a}]", what()))?;
    }
    Ok(v)
}

// ---------------------------------------------------------------------------------------
// Navmesh parameters.

/// Offsets of the `dtNavMeshParams` fields.
const P_ORIG: usize = offset_of!(dtNavMeshParams, orig);
const P_TILE_WIDTH: usize = offset_of!(dtNavMeshParams, tileWidth);
const P_TILE_HEIGHT: usize = offset_of!(dtNavMeshParams, tileHeight);
const P_MAX_TILES: usize = offset_of!(dtNavMeshParams, maxTiles);
const P_MAX_POLYS: usize = offset_of!(dtNavMeshParams, maxPolys);

/// Checks navmesh parameters: everything `dtNavMesh::init` needs to succeed, plus sanity.
///
/// Checks: origin finite and within [`MAX_COORDINATE`]; tile width and height finite and
/// `> 0`; `max_tiles` in `1..=`[`MAX_TILES_LIMIT`]; `max_polys >= 1`; at least
/// [`MIN_SALT_BITS`] salt bits left in a 32-bit ref. Error offsets are byte offsets of the
/// offending field within `dtNavMeshParams`.
pub fn validate_params(p: &NavMeshParams) -> Result<()> {
    for (a, &v) in p.origin.iter().enumerate() {
        check_coord(v, P_ORIG + 4 * a, || format!("navmesh params origin[{a}]"))?;
    }
    for (name, v, off) in [
        ("tileWidth", p.tile_width, P_TILE_WIDTH),
        ("tileHeight", p.tile_height, P_TILE_HEIGHT),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::data(
                off,
                format!("navmesh params {name} is {v}, must be finite and > 0"),
            ));
        }
    }
    if !(1..=MAX_TILES_LIMIT).contains(&p.max_tiles) {
        return Err(Error::data(
            P_MAX_TILES,
            format!(
                "navmesh params maxTiles is {}, must be in 1..={MAX_TILES_LIMIT}",
                p.max_tiles
            ),
        ));
    }
    if p.max_polys < 1 {
        return Err(Error::data(
            P_MAX_POLYS,
            format!("navmesh params maxPolys is {}, must be >= 1", p.max_polys),
        ));
    }
    let layout = p.ref_layout();
    let salt_bits = 32i64 - i64::from(layout.tile_bits) - i64::from(layout.poly_bits);
    if salt_bits < i64::from(MIN_SALT_BITS) {
        return Err(Error::data(
            P_MAX_POLYS,
            format!(
                "navmesh params maxTiles {} ({} tile bits) and maxPolys {} ({} poly bits) leave \
                 {salt_bits} salt bits in a 32-bit poly ref; Detour needs at least {MIN_SALT_BITS}",
                p.max_tiles, layout.tile_bits, p.max_polys, layout.poly_bits
            ),
        ));
    }
    Ok(())
}

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

// ---------------------------------------------------------------------------------------
// Tile data.

/// Offsets of the `dtMeshHeader` fields.
mod h {
    use super::*;
    pub const MAGIC: usize = offset_of!(dtMeshHeader, magic);
    pub const VERSION: usize = offset_of!(dtMeshHeader, version);
    pub const X: usize = offset_of!(dtMeshHeader, x);
    pub const Y: usize = offset_of!(dtMeshHeader, y);
    pub const LAYER: usize = offset_of!(dtMeshHeader, layer);
    pub const POLY_COUNT: usize = offset_of!(dtMeshHeader, polyCount);
    pub const VERT_COUNT: usize = offset_of!(dtMeshHeader, vertCount);
    pub const MAX_LINK_COUNT: usize = offset_of!(dtMeshHeader, maxLinkCount);
    pub const DETAIL_MESH_COUNT: usize = offset_of!(dtMeshHeader, detailMeshCount);
    pub const DETAIL_VERT_COUNT: usize = offset_of!(dtMeshHeader, detailVertCount);
    pub const DETAIL_TRI_COUNT: usize = offset_of!(dtMeshHeader, detailTriCount);
    pub const BV_NODE_COUNT: usize = offset_of!(dtMeshHeader, bvNodeCount);
    pub const OFF_MESH_CON_COUNT: usize = offset_of!(dtMeshHeader, offMeshConCount);
    pub const OFF_MESH_BASE: usize = offset_of!(dtMeshHeader, offMeshBase);
    pub const WALKABLE_HEIGHT: usize = offset_of!(dtMeshHeader, walkableHeight);
    pub const WALKABLE_RADIUS: usize = offset_of!(dtMeshHeader, walkableRadius);
    pub const WALKABLE_CLIMB: usize = offset_of!(dtMeshHeader, walkableClimb);
    pub const BMIN: usize = offset_of!(dtMeshHeader, bmin);
    pub const BMAX: usize = offset_of!(dtMeshHeader, bmax);
    pub const BV_QUANT_FACTOR: usize = offset_of!(dtMeshHeader, bvQuantFactor);
}

/// Offsets of the `dtPoly` fields.
mod p {
    use super::*;
    pub const VERTS: usize = offset_of!(dtPoly, verts);
    pub const NEIS: usize = offset_of!(dtPoly, neis);
    pub const VERT_COUNT: usize = offset_of!(dtPoly, vertCount);
    pub const AREA_AND_TYPE: usize = offset_of!(dtPoly, areaAndtype);
}

/// Offsets of the `dtPolyDetail` fields.
mod pd {
    use super::*;
    pub const VERT_BASE: usize = offset_of!(dtPolyDetail, vertBase);
    pub const TRI_BASE: usize = offset_of!(dtPolyDetail, triBase);
    pub const VERT_COUNT: usize = offset_of!(dtPolyDetail, vertCount);
    pub const TRI_COUNT: usize = offset_of!(dtPolyDetail, triCount);
}

/// Offsets of the `dtBVNode` fields.
mod bv {
    use super::*;
    pub const BMIN: usize = offset_of!(dtBVNode, bmin);
    pub const BMAX: usize = offset_of!(dtBVNode, bmax);
    pub const I: usize = offset_of!(dtBVNode, i);
}

/// Offsets of the `dtOffMeshConnection` fields.
mod om {
    use super::*;
    pub const POS: usize = offset_of!(dtOffMeshConnection, pos);
    pub const RAD: usize = offset_of!(dtOffMeshConnection, rad);
    pub const POLY: usize = offset_of!(dtOffMeshConnection, poly);
    pub const FLAGS: usize = offset_of!(dtOffMeshConnection, flags);
    pub const SIDE: usize = offset_of!(dtOffMeshConnection, side);
}

/// Byte offsets of the sections of a tile, as `dtNavMesh::addTile` computes them.
#[derive(Debug)]
struct Layout {
    verts: usize,
    polys: usize,
    detail_meshes: usize,
    detail_verts: usize,
    detail_tris: usize,
    bv_tree: usize,
    off_mesh_cons: usize,
    end: usize,
}

/// A polygon as read from the tile.
#[derive(Clone, Copy, Debug)]
struct PolyRec {
    verts: [u16; NVP],
    neis: [u16; NVP],
    vert_count: usize,
    offset: usize,
}

/// Checks Detour tile data (the output of `dtCreateNavMeshData`) exhaustively, so that it can
/// be handed to `dtNavMesh::addTile` and queried without Detour reading or writing out of
/// bounds.
///
/// Checks, in order (error offsets are relative to the start of `data`):
/// - length >= the 100-byte `dtMeshHeader` and <= `i32::MAX`; magic `DT_NAVMESH_MAGIC`,
///   version `DT_NAVMESH_VERSION`; `x`, `y` not `i32::MIN`/`i32::MAX`; `layer >= 0`;
/// - every count `>= 0`, and the `dtAlign4` section sizes `addTile` computes (checked
///   arithmetic) add up to exactly `data.len()`;
/// - `1 <= offMeshBase <= polyCount`, `offMeshConCount == polyCount - offMeshBase`,
///   `detailMeshCount == offMeshBase`, `maxLinkCount >= 1`,
///   `vertCount >= 2 * offMeshConCount`;
/// - header floats finite and within [`MAX_COORDINATE`], walkable values `>= 0`,
///   `bmin <= bmax`, `bvQuantFactor` finite `> 0` and (with a BV tree) small enough that the
///   quantised tile extent fits 16 bits; every vertex and detail vertex finite and bounded;
/// - polys `[0, offMeshBase)` are ground with 3..=6 vertices indexing the ground vertices
///   (`< vertCount - 2 * offMeshConCount`); polys `[offMeshBase, polyCount)` are off-mesh
///   connections with exactly 2 vertices, their own (`groundVerts + 2c`, `+ 1`) and no
///   neighbours;
/// - ground neighbours are 0, `DT_EXT_LINK | side` with side 0, 2, 4 or 6, or an internal
///   ground poly other than itself that links back across the same (reversed) edge;
/// - each detail mesh's vertex and triangle ranges lie within the detail arrays, it has at
///   least one triangle and at least one triangle edge flagged `DT_DETAIL_EDGE_BOUNDARY`,
///   and every triangle index is `< poly vertCount + detail vertCount`;
/// - BV nodes: `bmin <= bmax`, leaves index ground polys, escape offsets stay within
///   `[0, bvNodeCount]` (and are not `i32::MIN`);
/// - off-mesh connections: end points finite and bounded, radius finite `>= 0`, poly index
///   exactly `offMeshBase + c`, flags only `DT_OFFMESH_CON_BIDIR`, side `0..=7` or `0xff`.
///
/// Links and `dtPoly::firstLink` are ignored: `addTile` rebuilds them.
pub fn validate_tile_data(data: &[u8]) -> Result<TileInfo> {
    let header_size = align4(size_of::<dtMeshHeader>()).unwrap_or(usize::MAX);
    if data.len() < header_size {
        return Err(Error::data(
            data.len(),
            format!(
                "tile data is {} bytes, shorter than the {header_size}-byte dtMeshHeader",
                data.len()
            ),
        ));
    }
    if data.len() > i32::MAX as usize {
        return Err(Error::data(
            0,
            format!(
                "tile data is {} bytes; Detour sizes are `int`, at most {}",
                data.len(),
                i32::MAX
            ),
        ));
    }

    // Magic and version, as addTile checks them.
    let magic = i32_at(data, h::MAGIC)?;
    if magic != DT_NAVMESH_MAGIC {
        return Err(Error::data(
            h::MAGIC,
            format!(
                "tile magic is 0x{magic:08x}, expected DT_NAVMESH_MAGIC 0x{DT_NAVMESH_MAGIC:08x} ('DNAV')"
            ),
        ));
    }
    let version = i32_at(data, h::VERSION)?;
    if version != DT_NAVMESH_VERSION {
        return Err(Error::data(
            h::VERSION,
            format!("tile version is {version}, expected DT_NAVMESH_VERSION {DT_NAVMESH_VERSION}"),
        ));
    }

    // Tile position: Detour computes x +- 1 and y +- 1 for neighbour lookups.
    let x = i32_at(data, h::X)?;
    let y = i32_at(data, h::Y)?;
    let layer = i32_at(data, h::LAYER)?;
    for (name, v, off) in [("x", x, h::X), ("y", y, h::Y)] {
        if v == i32::MIN || v == i32::MAX {
            return Err(Error::data(
                off,
                format!("tile {name} is {v}; neighbour lookups would overflow"),
            ));
        }
    }
    if layer < 0 {
        return Err(Error::data(
            h::LAYER,
            format!("tile layer is {layer}, must be >= 0"),
        ));
    }

    // Counts.
    let count = |name: &str, off: usize| -> Result<usize> {
        let v = i32_at(data, off)?;
        usize::try_from(v)
            .map_err(|_| Error::data(off, format!("tile {name} is {v}, must be >= 0")))
    };
    let poly_count = count("polyCount", h::POLY_COUNT)?;
    let vert_count = count("vertCount", h::VERT_COUNT)?;
    let max_link_count = count("maxLinkCount", h::MAX_LINK_COUNT)?;
    let detail_mesh_count = count("detailMeshCount", h::DETAIL_MESH_COUNT)?;
    let detail_vert_count = count("detailVertCount", h::DETAIL_VERT_COUNT)?;
    let detail_tri_count = count("detailTriCount", h::DETAIL_TRI_COUNT)?;
    let bv_node_count = count("bvNodeCount", h::BV_NODE_COUNT)?;
    let off_mesh_con_count = count("offMeshConCount", h::OFF_MESH_CON_COUNT)?;
    let off_mesh_base = count("offMeshBase", h::OFF_MESH_BASE)?;

    // Layout: the exact section sizes addTile computes; their sum must be the data size.
    let layout = {
        let sections = [
            ("verts", vert_count, 3 * size_of::<f32>()),
            ("polys", poly_count, size_of::<dtPoly>()),
            ("links", max_link_count, size_of::<dtLink>()),
            ("detailMeshes", detail_mesh_count, size_of::<dtPolyDetail>()),
            ("detailVerts", detail_vert_count, 3 * size_of::<f32>()),
            ("detailTris", detail_tri_count, 4),
            ("bvTree", bv_node_count, size_of::<dtBVNode>()),
            (
                "offMeshCons",
                off_mesh_con_count,
                size_of::<dtOffMeshConnection>(),
            ),
        ];
        let mut starts = [0usize; 8];
        let mut at = header_size;
        for (k, (name, n, elem)) in sections.iter().enumerate() {
            starts[k] = at;
            let size = n.checked_mul(*elem).and_then(align4);
            at = match size.and_then(|s| at.checked_add(s)) {
                Some(end) if end <= data.len() => end,
                _ => {
                    return Err(Error::data(
                        at.min(data.len()),
                        format!(
                            "tile {name} section ({n} x {elem} bytes at byte {at}) runs past the \
                             end of the {}-byte tile data (counts in the header are too large)",
                            data.len()
                        ),
                    ));
                }
            };
        }
        if at != data.len() {
            return Err(Error::data(
                at,
                format!(
                    "tile layout from the header counts is {at} bytes but the tile data is {} \
                     bytes ({} trailing bytes)",
                    data.len(),
                    data.len() - at
                ),
            ));
        }
        Layout {
            verts: starts[0],
            polys: starts[1],
            detail_meshes: starts[3],
            detail_verts: starts[4],
            detail_tris: starts[5],
            bv_tree: starts[6],
            off_mesh_cons: starts[7],
            end: at,
        }
    };
    debug_assert_eq!(layout.end, data.len());

    // Structural counts (as dtCreateNavMeshData lays them out).
    if off_mesh_base < 1 || off_mesh_base > poly_count {
        return Err(Error::data(
            h::OFF_MESH_BASE,
            format!(
                "tile offMeshBase is {off_mesh_base}, must be in 1..=polyCount ({poly_count}): \
                 polys [0, offMeshBase) are ground polys, and a tile has at least one"
            ),
        ));
    }
    let ground_count = off_mesh_base;
    if off_mesh_con_count != poly_count - off_mesh_base {
        return Err(Error::data(
            h::OFF_MESH_CON_COUNT,
            format!(
                "tile offMeshConCount is {off_mesh_con_count}, but polyCount {poly_count} - \
                 offMeshBase {off_mesh_base} = {} off-mesh polys",
                poly_count - off_mesh_base
            ),
        ));
    }
    if detail_mesh_count != ground_count {
        return Err(Error::data(
            h::DETAIL_MESH_COUNT,
            format!(
                "tile detailMeshCount is {detail_mesh_count}, must equal the number of ground \
                 polys (offMeshBase {off_mesh_base})"
            ),
        ));
    }
    if max_link_count < 1 {
        return Err(Error::data(
            h::MAX_LINK_COUNT,
            "tile maxLinkCount is 0; addTile writes links[maxLinkCount - 1]",
        ));
    }
    let off_mesh_verts = off_mesh_con_count * 2;
    if vert_count < off_mesh_verts {
        return Err(Error::data(
            h::VERT_COUNT,
            format!(
                "tile vertCount is {vert_count}, fewer than the {off_mesh_verts} vertices of \
                 its {off_mesh_con_count} off-mesh connections"
            ),
        ));
    }
    let ground_vert_count = vert_count - off_mesh_verts;

    // Header floats.
    let walkable = |name: &str, off: usize| -> Result<f32> {
        let v = coord_at(data, off, || format!("tile {name}"))?;
        if v < 0.0 {
            return Err(Error::data(
                off,
                format!("tile {name} is {v}, must be >= 0"),
            ));
        }
        Ok(v)
    };
    let walkable_height = walkable("walkableHeight", h::WALKABLE_HEIGHT)?;
    let walkable_radius = walkable("walkableRadius", h::WALKABLE_RADIUS)?;
    let walkable_climb = walkable("walkableClimb", h::WALKABLE_CLIMB)?;
    let bmin = vec3_at(data, h::BMIN, &|| "tile bmin".to_string())?;
    let bmax = vec3_at(data, h::BMAX, &|| "tile bmax".to_string())?;
    for a in 0..3 {
        if bmin[a] > bmax[a] {
            return Err(Error::data(
                h::BMAX + 4 * a,
                format!("tile bmax[{a}] {} < bmin[{a}] {}", bmax[a], bmin[a]),
            ));
        }
    }
    let qfac = f32_at(data, h::BV_QUANT_FACTOR)?;
    if !(qfac.is_finite() && qfac > 0.0) {
        return Err(Error::data(
            h::BV_QUANT_FACTOR,
            format!("tile bvQuantFactor is {qfac}, must be finite and > 0"),
        ));
    }
    if bv_node_count > 0 {
        // queryPolygonsInTile converts qfac * (clamped query - bmin) + 1 to unsigned short.
        for a in 0..3 {
            let q = f64::from(qfac) * (f64::from(bmax[a]) - f64::from(bmin[a])) + 1.0;
            if q >= 65535.0 {
                return Err(Error::data(
                    h::BV_QUANT_FACTOR,
                    format!(
                        "tile bvQuantFactor {qfac} x extent {} on axis {a} does not fit the \
                         16-bit BV tree coordinates",
                        bmax[a] - bmin[a]
                    ),
                ));
            }
        }
    }

    // Vertices.
    for v in 0..vert_count {
        vec3_at(data, layout.verts + 12 * v, &|| format!("vertex {v}"))?;
    }

    // Polygons.
    let mut polys = Vec::with_capacity(poly_count);
    for i in 0..poly_count {
        let base = layout.polys + i * size_of::<dtPoly>();
        let nv = usize::from(u8_at(data, base + p::VERT_COUNT)?);
        let area_type = u8_at(data, base + p::AREA_AND_TYPE)?;
        let ty = area_type >> 6;
        let ground = i < ground_count;
        let expect = if ground {
            POLYTYPE_GROUND
        } else {
            POLYTYPE_OFFMESH
        };
        if ty != expect {
            return Err(Error::data(
                base + p::AREA_AND_TYPE,
                format!(
                    "poly {i} has type {ty}, expected {expect} ({}; offMeshBase is {off_mesh_base})",
                    if ground {
                        "ground"
                    } else {
                        "off-mesh connection"
                    }
                ),
            ));
        }
        if ground && !(3..=NVP).contains(&nv) {
            return Err(Error::data(
                base + p::VERT_COUNT,
                format!("ground poly {i} has vertCount {nv}, must be in 3..={NVP}"),
            ));
        }
        if !ground && nv != 2 {
            return Err(Error::data(
                base + p::VERT_COUNT,
                format!("off-mesh poly {i} has vertCount {nv}, must be 2"),
            ));
        }
        let mut rec = PolyRec {
            verts: [0; NVP],
            neis: [0; NVP],
            vert_count: nv,
            offset: base,
        };
        for j in 0..NVP {
            rec.verts[j] = u16_at(data, base + p::VERTS + 2 * j)?;
            rec.neis[j] = u16_at(data, base + p::NEIS + 2 * j)?;
        }
        for j in 0..nv {
            let v = usize::from(rec.verts[j]);
            let off = base + p::VERTS + 2 * j;
            if ground && v >= ground_vert_count {
                return Err(Error::data(
                    off,
                    format!(
                        "poly {i} vertex {j} index {v} >= {ground_vert_count} (vertCount \
                         {vert_count} minus the {off_mesh_verts} off-mesh connection vertices)"
                    ),
                ));
            }
            if !ground {
                let want = ground_vert_count + 2 * (i - ground_count) + j;
                if v != want {
                    return Err(Error::data(
                        off,
                        format!(
                            "off-mesh poly {i} vertex {j} index {v}, expected its own vertex {want} \
                             (vertCount {vert_count})"
                        ),
                    ));
                }
            }
        }
        for j in 0..nv {
            let n = rec.neis[j];
            let off = base + p::NEIS + 2 * j;
            if n == 0 {
                continue;
            }
            if !ground {
                return Err(Error::data(
                    off,
                    format!("off-mesh poly {i} edge {j} has neighbour 0x{n:04x}, must be 0"),
                ));
            }
            if n & DT_EXT_LINK != 0 {
                let dir = n & !DT_EXT_LINK;
                if !matches!(dir, 0 | 2 | 4 | 6) {
                    return Err(Error::data(
                        off,
                        format!(
                            "poly {i} edge {j} neighbour 0x{n:04x}: an external link must be \
                             DT_EXT_LINK | side with side 0, 2, 4 or 6"
                        ),
                    ));
                }
            } else {
                let b = usize::from(n) - 1;
                if b >= ground_count {
                    return Err(Error::data(
                        off,
                        format!(
                            "poly {i} edge {j} neighbour index {b} >= ground poly count {ground_count}"
                        ),
                    ));
                }
                if b == i {
                    return Err(Error::data(
                        off,
                        format!("poly {i} edge {j} is its own neighbour"),
                    ));
                }
            }
        }
        polys.push(rec);
    }

    // Internal neighbours must be mutual and share the edge (as Recast's adjacency builds
    // them); one-sided or mismatched adjacency sends raycast/moveAlongSurface in circles.
    for (a, pa) in polys.iter().enumerate().take(ground_count) {
        for j in 0..pa.vert_count {
            let n = pa.neis[j];
            if n == 0 || n & DT_EXT_LINK != 0 {
                continue;
            }
            let b = usize::from(n) - 1;
            let pb = &polys[b];
            let va = pa.verts[j];
            let vb = pa.verts[(j + 1) % pa.vert_count];
            let back = (0..pb.vert_count).any(|k| {
                usize::from(pb.neis[k]) == a + 1
                    && pb.verts[k] == vb
                    && pb.verts[(k + 1) % pb.vert_count] == va
            });
            if !back {
                return Err(Error::data(
                    pa.offset + p::NEIS + 2 * j,
                    format!(
                        "poly {a} edge {j} ({va}, {vb}) has neighbour poly {b}, but poly {b} has \
                         no edge ({vb}, {va}) with neighbour poly {a}"
                    ),
                ));
            }
        }
    }

    // Detail meshes (one per ground poly) and their triangles.
    for (i, poly) in polys.iter().enumerate().take(ground_count) {
        let base = layout.detail_meshes + i * size_of::<dtPolyDetail>();
        let vert_base = u32_at(data, base + pd::VERT_BASE)? as usize;
        let tri_base = u32_at(data, base + pd::TRI_BASE)? as usize;
        let dv = usize::from(u8_at(data, base + pd::VERT_COUNT)?);
        let dt = usize::from(u8_at(data, base + pd::TRI_COUNT)?);
        if vert_base
            .checked_add(dv)
            .is_none_or(|e| e > detail_vert_count)
        {
            return Err(Error::data(
                base + pd::VERT_BASE,
                format!(
                    "detail mesh {i} vertices {vert_base}..{vert_base}+{dv} exceed detailVertCount \
                     {detail_vert_count}"
                ),
            ));
        }
        if dt == 0 {
            return Err(Error::data(
                base + pd::TRI_COUNT,
                format!("detail mesh {i} has no triangles; ground poly {i} needs at least one"),
            ));
        }
        if tri_base
            .checked_add(dt)
            .is_none_or(|e| e > detail_tri_count)
        {
            return Err(Error::data(
                base + pd::TRI_BASE,
                format!(
                    "detail mesh {i} triangles {tri_base}..{tri_base}+{dt} exceed detailTriCount \
                     {detail_tri_count}"
                ),
            ));
        }
        let limit = poly.vert_count + dv;
        let mut has_boundary = false;
        for t in tri_base..tri_base + dt {
            let toff = layout.detail_tris + 4 * t;
            for k in 0..3 {
                let idx = usize::from(u8_at(data, toff + k)?);
                if idx >= limit {
                    return Err(Error::data(
                        toff + k,
                        format!(
                            "detail mesh {i} triangle {t} vertex {k} index {idx} >= {limit} \
                             (poly vertCount {} + detail vertCount {dv})",
                            poly.vert_count
                        ),
                    ));
                }
            }
            has_boundary |= u8_at(data, toff + 3)? & ANY_BOUNDARY_EDGE != 0;
        }
        if !has_boundary {
            return Err(Error::data(
                base + pd::TRI_BASE,
                format!(
                    "detail mesh {i} has no triangle edge flagged DT_DETAIL_EDGE_BOUNDARY; \
                     closestPointOnPoly would dereference a null pointer"
                ),
            ));
        }
    }

    // Detail vertices.
    for v in 0..detail_vert_count {
        vec3_at(data, layout.detail_verts + 12 * v, &|| {
            format!("detail vertex {v}")
        })?;
    }

    // BV tree: queryPolygonsInTile walks nodes [0, bvNodeCount), stepping 1 past leaves and
    // overlapping nodes and `-i` past non-overlapping internal nodes.
    for k in 0..bv_node_count {
        let base = layout.bv_tree + k * size_of::<dtBVNode>();
        for a in 0..3 {
            let lo = u16_at(data, base + bv::BMIN + 2 * a)?;
            let hi = u16_at(data, base + bv::BMAX + 2 * a)?;
            if lo > hi {
                return Err(Error::data(
                    base + bv::BMAX + 2 * a,
                    format!("BV node {k} bmax[{a}] {hi} < bmin[{a}] {lo}"),
                ));
            }
        }
        let i = i32_at(data, base + bv::I)?;
        if i >= 0 {
            if i as usize >= ground_count {
                return Err(Error::data(
                    base + bv::I,
                    format!(
                        "BV node {k} is a leaf for poly {i} >= ground poly count {ground_count}"
                    ),
                ));
            }
        } else {
            let escape = i.unsigned_abs() as usize;
            if i == i32::MIN || k.saturating_add(escape) > bv_node_count {
                return Err(Error::data(
                    base + bv::I,
                    format!(
                        "BV node {k} escape index {i} jumps to node {} beyond bvNodeCount \
                         {bv_node_count}",
                        k as i64 - i64::from(i)
                    ),
                ));
            }
        }
    }

    // Off-mesh connections.
    for c in 0..off_mesh_con_count {
        let base = layout.off_mesh_cons + c * size_of::<dtOffMeshConnection>();
        for e in 0..2 {
            vec3_at(data, base + om::POS + 12 * e, &|| {
                format!("off-mesh connection {c} end point {e}")
            })?;
        }
        let rad = coord_at(data, base + om::RAD, || {
            format!("off-mesh connection {c} radius")
        })?;
        if rad < 0.0 {
            return Err(Error::data(
                base + om::RAD,
                format!("off-mesh connection {c} radius is {rad}, must be >= 0"),
            ));
        }
        let poly = usize::from(u16_at(data, base + om::POLY)?);
        if poly != off_mesh_base + c {
            return Err(Error::data(
                base + om::POLY,
                format!(
                    "off-mesh connection {c} poly index {poly}, expected offMeshBase {off_mesh_base} \
                     + {c} = {} (polyCount {poly_count})",
                    off_mesh_base + c
                ),
            ));
        }
        let flags = u8_at(data, base + om::FLAGS)?;
        if u32::from(flags) & !DT_OFFMESH_CON_BIDIR != 0 {
            return Err(Error::data(
                base + om::FLAGS,
                format!(
                    "off-mesh connection {c} flags 0x{flags:02x}: only DT_OFFMESH_CON_BIDIR \
                     (0x{DT_OFFMESH_CON_BIDIR:02x}) is defined"
                ),
            ));
        }
        let side = u8_at(data, base + om::SIDE)?;
        if side > 7 && side != 0xff {
            return Err(Error::data(
                base + om::SIDE,
                format!("off-mesh connection {c} side {side}, must be 0..=7 or 0xff"),
            ));
        }
    }

    Ok(TileInfo {
        x,
        y,
        layer,
        poly_count,
        vert_count,
        detail_mesh_count,
        detail_vert_count,
        detail_tri_count,
        bv_node_count,
        off_mesh_con_count,
        max_link_count,
        bmin,
        bmax,
        walkable_height,
        walkable_radius,
        walkable_climb,
    })
}

/// Moves a tile-relative error to file offsets and names the tile.
fn in_tile(err: Error, tile: usize, base: usize) -> Error {
    match err {
        Error::NavMeshData { offset, message } => Error::data(
            base + offset,
            format!("tile {tile} (data at byte {base}): {message}"),
        ),
        other => other,
    }
}

// ---------------------------------------------------------------------------------------
// MSET files.

/// Reads the `magic, version, numTiles` start of an `MSET` or `TSET` file (`name`) whose header
/// is `header_size` bytes, checking the length, magic and version; returns `numTiles` as stored.
pub(crate) fn read_set_header(
    bytes: &[u8],
    header_size: usize,
    magic: i32,
    version: i32,
    name: &str,
) -> Result<i32> {
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
    let found = i32_at(bytes, 4)?;
    if found != version {
        return Err(Error::data(
            4,
            format!("{name} version is {found}, expected {version}"),
        ));
    }
    i32_at(bytes, 8)
}

/// Reads `dtNavMeshParams` at `base` and validates them ([`validate_params`]); error offsets
/// are file offsets.
pub(crate) fn read_checked_params(bytes: &[u8], base: usize) -> Result<NavMeshParams> {
    let params = read_params(bytes, base)?;
    validate_params(&params).map_err(|e| match e {
        Error::NavMeshData { offset, message } => Error::data(base + offset, message),
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

/// Reads the `tileRef, dataSize` record of tile `t` (of `num_tiles`) at `pos` and returns the
/// ref and the data that follows it. RecastDemo's end marker (a zero ref or size), a negative
/// size and data running past the end of the file are errors.
pub(crate) fn read_tile_record(
    bytes: &[u8],
    pos: usize,
    t: usize,
    num_tiles: usize,
) -> Result<(u32, &[u8])> {
    let ends = |_| Error::data(pos, format!("tile {t}: file ends inside its tile header"));
    let tile_ref = u32_at(bytes, pos).map_err(ends)?;
    let size = i32_at(bytes, pos + 4).map_err(ends)?;
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
        .map_err(|_| Error::data(pos + 4, format!("tile {t} dataSize is {size}, must be > 0")))?;
    let start = pos + TILE_HEADER_SIZE;
    if size > bytes.len() - start {
        return Err(Error::data(
            pos + 4,
            format!(
                "tile {t} dataSize {size} exceeds the {} bytes left in the file",
                bytes.len() - start
            ),
        ));
    }
    Ok((tile_ref, &bytes[start..start + size]))
}

/// Parses and validates an `MSET` file.
///
/// Checks the header (magic, version, tile count against `max_tiles` and the file length),
/// the parameters ([`validate_params`]), each tile header (ref non-zero and decoding to a
/// free tile index below `max_tiles` with a non-zero salt, data size non-zero and within the
/// file), each tile's data ([`validate_tile_data`]), that each tile's poly count fits the
/// poly bits of the parameters, that no two tiles share a location `(x, y, layer)` or a tile
/// index, and that nothing follows the last tile.
pub fn read_mset(bytes: &[u8]) -> Result<NavMeshSet> {
    let num_tiles = read_set_header(bytes, SET_HEADER_SIZE, MSET_MAGIC, MSET_VERSION, "MSET")?;
    let params = read_checked_params(bytes, SET_PARAMS_OFFSET)?;
    let num_tiles = usize::try_from(num_tiles)
        .map_err(|_| Error::data(8, format!("numTiles is {num_tiles}, must be >= 0")))?;
    if num_tiles > params.max_tiles as usize {
        return Err(Error::data(
            8,
            format!("numTiles {num_tiles} exceeds maxTiles {}", params.max_tiles),
        ));
    }
    let rest = bytes.len() - SET_HEADER_SIZE;
    if num_tiles > rest / TILE_HEADER_SIZE {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} cannot fit in the {rest} bytes after the header (each tile \
                 needs at least {TILE_HEADER_SIZE})"
            ),
        ));
    }

    let layout = params.ref_layout();
    let max_polys_per_tile = 1usize << layout.poly_bits;
    let mut by_location: HashMap<(i32, i32, i32), usize> = HashMap::new();
    let mut by_index: HashMap<u32, usize> = HashMap::new();
    let mut tiles = Vec::with_capacity(num_tiles);
    let mut pos = SET_HEADER_SIZE;
    for t in 0..num_tiles {
        let header_at = pos;
        let (tile_ref, data) = read_tile_record(bytes, pos, t, num_tiles)?;
        pos += TILE_HEADER_SIZE;
        let size = data.len();
        let info = validate_tile_data(data).map_err(|e| in_tile(e, t, pos))?;

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
                format!("tile {t} ref 0x{tile_ref:08x} {why}"),
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
                format!(
                    "tile {t} ref 0x{tile_ref:08x} uses tile index {index}, as tile {prev} does"
                ),
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
    Ok(NavMeshSet { params, tiles })
}

/// Serialises a navmesh set in RecastDemo's `MSET` format (little-endian).
///
/// This does not validate; [`read_mset`] does. Counts and sizes beyond `i32::MAX` cannot be
/// represented and are written as `i32::MAX` (which [`read_mset`] then rejects).
pub fn write_mset(set: &NavMeshSet) -> Vec<u8> {
    let clamp = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let total: usize = SET_HEADER_SIZE
        + set
            .tiles
            .iter()
            .map(|t| TILE_HEADER_SIZE + t.data.len())
            .sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MSET_MAGIC.to_le_bytes());
    out.extend_from_slice(&MSET_VERSION.to_le_bytes());
    out.extend_from_slice(&clamp(set.tiles.len()).to_le_bytes());
    write_params(&mut out, &set.params);
    for tile in &set.tiles {
        out.extend_from_slice(&tile.tile_ref.to_le_bytes());
        out.extend_from_slice(&clamp(tile.data.len()).to_le_bytes());
        out.extend_from_slice(&tile.data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-assembled tile, laid out exactly as `dtCreateNavMeshData` does.
    #[derive(Clone, Debug)]
    struct TestTile {
        x: i32,
        y: i32,
        layer: i32,
        verts: Vec<[f32; 3]>,
        /// (verts, neis, vertCount, areaAndtype)
        polys: Vec<([u16; 6], [u16; 6], u8, u8)>,
        max_link_count: i32,
        /// (vertBase, triBase, vertCount, triCount)
        detail_meshes: Vec<(u32, u32, u8, u8)>,
        detail_verts: Vec<[f32; 3]>,
        detail_tris: Vec<[u8; 4]>,
        /// (bmin, bmax, i)
        bv: Vec<([u16; 3], [u16; 3], i32)>,
        /// (pos, rad, poly, flags, side, userId)
        cons: Vec<([f32; 6], f32, u16, u8, u8, u32)>,
        off_mesh_base: i32,
        bmin: [f32; 3],
        bmax: [f32; 3],
        qfac: f32,
    }

    const EXT: u16 = DT_EXT_LINK;
    const OFFMESH_TYPE: u8 = 1 << 6;

    impl TestTile {
        /// Two ground quads sharing an edge, an external portal on the +x side, detail meshes
        /// (one with an extra detail vertex), a 3-node BV tree and one off-mesh connection.
        fn new() -> Self {
            TestTile {
                x: 0,
                y: 0,
                layer: 0,
                verts: vec![
                    [0.0, 0.0, 0.0],
                    [0.0, 0.0, 2.0],
                    [2.0, 0.0, 2.0],
                    [2.0, 0.0, 0.0],
                    [4.0, 0.0, 2.0],
                    [4.0, 0.0, 0.0],
                    [1.0, 0.0, 1.0],
                    [3.0, 0.0, 1.0],
                ],
                polys: vec![
                    ([0, 1, 2, 3, 0, 0], [0, 0, 2, 0, 0, 0], 4, 0),
                    ([3, 2, 4, 5, 0, 0], [1, 0, EXT, 0, 0, 0], 4, 0),
                    ([6, 7, 0, 0, 0, 0], [0; 6], 2, OFFMESH_TYPE),
                ],
                max_link_count: 14,
                detail_meshes: vec![(0, 0, 1, 4), (1, 4, 0, 2)],
                detail_verts: vec![[1.0, 0.0, 1.0]],
                detail_tris: vec![
                    [0, 1, 4, 1],
                    [1, 2, 4, 1],
                    [2, 3, 4, 1],
                    [3, 0, 4, 1],
                    [0, 1, 2, 1 | 4],
                    [0, 2, 3, 4 | 16],
                ],
                bv: vec![
                    ([0, 0, 0], [8, 2, 4], -3),
                    ([0, 0, 0], [4, 2, 4], 0),
                    ([4, 0, 0], [8, 2, 4], 1),
                ],
                cons: vec![(
                    [1.0, 0.0, 1.0, 3.0, 0.0, 1.0],
                    0.5,
                    2,
                    DT_OFFMESH_CON_BIDIR as u8,
                    0xff,
                    7,
                )],
                off_mesh_base: 2,
                bmin: [0.0, 0.0, 0.0],
                bmax: [4.0, 1.0, 2.0],
                qfac: 2.0,
            }
        }

        fn at(x: i32) -> Self {
            let mut t = Self::new();
            t.x = x;
            t
        }

        fn bytes(&self) -> Vec<u8> {
            let header = size_of::<dtMeshHeader>();
            let sizes = [
                header,
                12 * self.verts.len(),
                size_of::<dtPoly>() * self.polys.len(),
                size_of::<dtLink>() * self.max_link_count.max(0) as usize,
                size_of::<dtPolyDetail>() * self.detail_meshes.len(),
                12 * self.detail_verts.len(),
                4 * self.detail_tris.len(),
                size_of::<dtBVNode>() * self.bv.len(),
                size_of::<dtOffMeshConnection>() * self.cons.len(),
            ];
            let mut d = vec![0u8; sizes.iter().sum()];
            let mut starts = [0usize; 9];
            for k in 1..9 {
                starts[k] = starts[k - 1] + sizes[k - 1];
            }
            fn put(d: &mut [u8], off: usize, b: &[u8]) {
                d[off..off + b.len()].copy_from_slice(b);
            }
            let i32s = [
                (h::MAGIC, DT_NAVMESH_MAGIC),
                (h::VERSION, DT_NAVMESH_VERSION),
                (h::X, self.x),
                (h::Y, self.y),
                (h::LAYER, self.layer),
                (h::POLY_COUNT, self.polys.len() as i32),
                (h::VERT_COUNT, self.verts.len() as i32),
                (h::MAX_LINK_COUNT, self.max_link_count),
                (h::DETAIL_MESH_COUNT, self.detail_meshes.len() as i32),
                (h::DETAIL_VERT_COUNT, self.detail_verts.len() as i32),
                (h::DETAIL_TRI_COUNT, self.detail_tris.len() as i32),
                (h::BV_NODE_COUNT, self.bv.len() as i32),
                (h::OFF_MESH_CON_COUNT, self.cons.len() as i32),
                (h::OFF_MESH_BASE, self.off_mesh_base),
            ];
            for (off, v) in i32s {
                put(&mut d, off, &v.to_le_bytes());
            }
            put(&mut d, h::WALKABLE_HEIGHT, &2.0f32.to_le_bytes());
            put(&mut d, h::WALKABLE_RADIUS, &0.6f32.to_le_bytes());
            put(&mut d, h::WALKABLE_CLIMB, &0.9f32.to_le_bytes());
            for a in 0..3 {
                put(&mut d, h::BMIN + 4 * a, &self.bmin[a].to_le_bytes());
                put(&mut d, h::BMAX + 4 * a, &self.bmax[a].to_le_bytes());
            }
            put(&mut d, h::BV_QUANT_FACTOR, &self.qfac.to_le_bytes());
            for (i, v) in self.verts.iter().enumerate() {
                for (a, c) in v.iter().enumerate() {
                    put(&mut d, starts[1] + 12 * i + 4 * a, &c.to_le_bytes());
                }
            }
            for (i, (verts, neis, nv, at)) in self.polys.iter().enumerate() {
                let b = starts[2] + i * size_of::<dtPoly>();
                // firstLink garbage: Detour rewrites it, so validation must ignore it.
                put(&mut d, b, &0xdead_beefu32.to_le_bytes());
                for j in 0..6 {
                    put(&mut d, b + p::VERTS + 2 * j, &verts[j].to_le_bytes());
                    put(&mut d, b + p::NEIS + 2 * j, &neis[j].to_le_bytes());
                }
                put(&mut d, b + offset_of!(dtPoly, flags), &1u16.to_le_bytes());
                d[b + p::VERT_COUNT] = *nv;
                d[b + p::AREA_AND_TYPE] = *at;
            }
            // Links: garbage, Detour rebuilds them.
            for byte in &mut d[starts[3]..starts[4]] {
                *byte = 0xa5;
            }
            for (i, (vb, tb, vc, tc)) in self.detail_meshes.iter().enumerate() {
                let b = starts[4] + i * size_of::<dtPolyDetail>();
                put(&mut d, b + pd::VERT_BASE, &vb.to_le_bytes());
                put(&mut d, b + pd::TRI_BASE, &tb.to_le_bytes());
                d[b + pd::VERT_COUNT] = *vc;
                d[b + pd::TRI_COUNT] = *tc;
            }
            for (i, v) in self.detail_verts.iter().enumerate() {
                for (a, c) in v.iter().enumerate() {
                    put(&mut d, starts[5] + 12 * i + 4 * a, &c.to_le_bytes());
                }
            }
            for (i, t) in self.detail_tris.iter().enumerate() {
                put(&mut d, starts[6] + 4 * i, t);
            }
            for (k, (lo, hi, i)) in self.bv.iter().enumerate() {
                let b = starts[7] + k * size_of::<dtBVNode>();
                for a in 0..3 {
                    put(&mut d, b + bv::BMIN + 2 * a, &lo[a].to_le_bytes());
                    put(&mut d, b + bv::BMAX + 2 * a, &hi[a].to_le_bytes());
                }
                put(&mut d, b + bv::I, &i.to_le_bytes());
            }
            for (c, (pos, rad, poly, flags, side, user)) in self.cons.iter().enumerate() {
                let b = starts[8] + c * size_of::<dtOffMeshConnection>();
                for (k, v) in pos.iter().enumerate() {
                    put(&mut d, b + om::POS + 4 * k, &v.to_le_bytes());
                }
                put(&mut d, b + om::RAD, &rad.to_le_bytes());
                put(&mut d, b + om::POLY, &poly.to_le_bytes());
                d[b + om::FLAGS] = *flags;
                d[b + om::SIDE] = *side;
                put(
                    &mut d,
                    b + offset_of!(dtOffMeshConnection, userId),
                    &user.to_le_bytes(),
                );
            }
            d
        }
    }

    fn params() -> NavMeshParams {
        NavMeshParams {
            origin: [0.0, 0.0, 0.0],
            tile_width: 4.0,
            tile_height: 4.0,
            max_tiles: 4,
            max_polys: 8,
        }
    }

    /// Tile ref for tile index `it` with salt 1 under [`params`] (2 tile bits, 3 poly bits).
    fn tref(it: u32) -> u32 {
        params().ref_layout().encode(1, it, 0).unwrap()
    }

    fn test_set() -> NavMeshSet {
        NavMeshSet {
            params: params(),
            tiles: vec![
                TileRecord {
                    tile_ref: tref(0),
                    data: TestTile::at(0).bytes(),
                },
                TileRecord {
                    tile_ref: tref(1),
                    data: TestTile::at(1).bytes(),
                },
            ],
        }
    }

    fn err_of(r: Result<impl std::fmt::Debug>) -> (usize, String) {
        match r {
            Err(Error::NavMeshData { offset, message }) => (offset, message),
            other => panic!("expected a NavMeshData error, got {other:?}"),
        }
    }

    #[track_caller]
    fn assert_tile_err(tile: &TestTile, needle: &str) {
        let (offset, message) = err_of(validate_tile_data(&tile.bytes()));
        assert!(
            message.contains(needle),
            "expected an error containing {needle:?}, got {message:?} at {offset}"
        );
    }

    #[test]
    fn constants_match_detour_layout() {
        assert_eq!(MSET_MAGIC, 0x4d53_4554);
        assert_eq!(SET_HEADER_SIZE, 40);
        assert_eq!(size_of::<dtMeshHeader>(), 100);
        assert_eq!(size_of::<dtPoly>(), 32);
        assert_eq!(size_of::<dtOffMeshConnection>(), 36);
    }

    #[test]
    fn detour_bit_helpers() {
        assert_eq!(dt_next_pow2(0), 0);
        assert_eq!(dt_next_pow2(1), 1);
        assert_eq!(dt_next_pow2(5), 8);
        assert_eq!(dt_next_pow2(1 << 31), 1 << 31);
        assert_eq!(dt_next_pow2((1 << 31) + 1), 0);
        assert_eq!(dt_ilog2(0), 0);
        assert_eq!(dt_ilog2(1), 0);
        assert_eq!(dt_ilog2(8), 3);
        assert_eq!(dt_ilog2(1 << 22), 22);
        let l = params().ref_layout();
        assert_eq!((l.tile_bits, l.poly_bits, l.salt_bits), (2, 3, 27));
        assert_eq!(l.decode(l.encode(5, 3, 7).unwrap()), (5, 3, 7));
        assert_eq!(l.encode(1, 4, 0), None);
    }

    #[test]
    fn valid_tile_is_accepted() {
        let info = validate_tile_data(&TestTile::new().bytes()).unwrap();
        assert_eq!(info.poly_count, 3);
        assert_eq!(info.vert_count, 8);
        assert_eq!(info.detail_mesh_count, 2);
        assert_eq!(info.detail_vert_count, 1);
        assert_eq!(info.detail_tri_count, 6);
        assert_eq!(info.bv_node_count, 3);
        assert_eq!(info.off_mesh_con_count, 1);
        assert_eq!(info.max_link_count, 14);
        assert_eq!(info.bmax, [4.0, 1.0, 2.0]);
        assert_eq!(info.walkable_height, 2.0);
    }

    #[test]
    fn tile_without_bv_tree_or_off_mesh_is_accepted() {
        let mut t = TestTile::new();
        t.bv.clear();
        t.cons.clear();
        t.polys.pop();
        t.verts.truncate(6);
        t.max_link_count = 10;
        validate_tile_data(&t.bytes()).unwrap();
        // dtCreateNavMeshData reserves 2 * polyCount BV nodes; the unused ones are zero.
        let mut t = TestTile::new();
        t.bv.push(([0; 3], [0; 3], 0));
        validate_tile_data(&t.bytes()).unwrap();
    }

    #[test]
    fn round_trip() {
        let set = test_set();
        let bytes = write_mset(&set);
        assert_eq!(bytes.len(), 40 + 2 * (8 + set.tiles[0].data.len()));
        let back = read_mset(&bytes).unwrap();
        assert_eq!(back, set);
        assert_eq!(write_mset(&back), bytes);
        let empty = NavMeshSet {
            params: params(),
            tiles: vec![],
        };
        assert_eq!(read_mset(&write_mset(&empty)).unwrap(), empty);
    }

    #[test]
    fn params_convert_to_detour() {
        let p = params();
        assert_eq!(NavMeshParams::from_dt(&p.to_dt()), p);
    }

    #[test]
    fn tile_corruptions_are_rejected() {
        type Edit = fn(&mut TestTile);
        let cases: &[(&str, Edit, &str)] = &[
            (
                "bad x",
                |t| t.x = i32::MAX,
                "neighbour lookups would overflow",
            ),
            ("negative layer", |t| t.layer = -1, "layer is -1"),
            (
                "ground vert index",
                |t| t.polys[0].0[2] = 900,
                "poly 0 vertex 2 index 900 >= 6",
            ),
            (
                "ground uses off-mesh vert",
                |t| t.polys[1].0[3] = 6,
                "poly 1 vertex 3 index 6 >= 6",
            ),
            (
                "off-mesh vert",
                |t| t.polys[2].0[1] = 3,
                "off-mesh poly 2 vertex 1 index 3",
            ),
            (
                "vertCount 7",
                |t| t.polys[0].2 = 7,
                "ground poly 0 has vertCount 7",
            ),
            (
                "vertCount 2",
                |t| t.polys[0].2 = 2,
                "ground poly 0 has vertCount 2",
            ),
            (
                "off-mesh vertCount",
                |t| t.polys[2].2 = 3,
                "off-mesh poly 2 has vertCount 3",
            ),
            (
                "ground typed off-mesh",
                |t| t.polys[1].3 = OFFMESH_TYPE,
                "poly 1 has type 1",
            ),
            (
                "off-mesh typed ground",
                |t| t.polys[2].3 = 0,
                "poly 2 has type 0",
            ),
            ("type 2", |t| t.polys[0].3 = 2 << 6 | 5, "poly 0 has type 2"),
            (
                "nei out of range",
                |t| t.polys[0].1[0] = 5,
                "neighbour index 4 >= ground poly count 2",
            ),
            (
                "nei to off-mesh",
                |t| t.polys[0].1[0] = 3,
                "neighbour index 2 >= ground poly count 2",
            ),
            (
                "self nei",
                |t| t.polys[0].1[0] = 1,
                "poly 0 edge 0 is its own neighbour",
            ),
            (
                "one-sided nei",
                |t| t.polys[1].1[0] = 0,
                "poly 0 edge 2 (2, 3) has neighbour poly 1",
            ),
            (
                "nei wrong edge",
                |t| t.polys[0].1 = [0, 2, 0, 0, 0, 0],
                "poly 0 edge 1",
            ),
            (
                "ext dir 1",
                |t| t.polys[1].1[2] = EXT | 1,
                "side 0, 2, 4 or 6",
            ),
            ("ext junk bits", |t| t.polys[1].1[2] = EXT | 0x100, "0x8100"),
            (
                "off-mesh nei",
                |t| t.polys[2].1[0] = 1,
                "off-mesh poly 2 edge 0 has neighbour",
            ),
            (
                "NaN vert",
                |t| t.verts[3][1] = f32::NAN,
                "vertex 3[1] is NaN",
            ),
            (
                "inf vert",
                |t| t.verts[0][0] = f32::INFINITY,
                "vertex 0[0] is inf",
            ),
            ("huge vert", |t| t.verts[0][2] = 1e20, "beyond"),
            (
                "NaN detail vert",
                |t| t.detail_verts[0][0] = f32::NAN,
                "detail vertex 0[0] is NaN",
            ),
            ("bmin > bmax", |t| t.bmin[1] = 2.0, "bmax[1] 1 < bmin[1] 2"),
            ("NaN bmin", |t| t.bmin[0] = f32::NAN, "tile bmin[0] is NaN"),
            ("qfac 0", |t| t.qfac = 0.0, "bvQuantFactor is 0"),
            ("qfac NaN", |t| t.qfac = f32::NAN, "bvQuantFactor is NaN"),
            ("qfac overflow", |t| t.qfac = 1e5, "16-bit BV tree"),
            (
                "detail vert range",
                |t| t.detail_meshes[0].2 = 2,
                "detail mesh 0 vertices 0..0+2",
            ),
            (
                "detail vert base",
                |t| t.detail_meshes[1].0 = u32::MAX,
                "exceed detailVertCount 1",
            ),
            (
                "detail tri range",
                |t| t.detail_meshes[1].1 = 5,
                "detail mesh 1 triangles 5..5+2",
            ),
            (
                "detail tri base",
                |t| t.detail_meshes[1].1 = u32::MAX,
                "exceed detailTriCount 6",
            ),
            (
                "no detail tris",
                |t| t.detail_meshes[1].3 = 0,
                "detail mesh 1 has no triangles",
            ),
            (
                "detail tri index",
                |t| t.detail_tris[5][2] = 4,
                "detail mesh 1 triangle 5 vertex 2 index 4 >= 4",
            ),
            (
                "detail tri index A",
                |t| t.detail_tris[0][2] = 5,
                "triangle 0 vertex 2 index 5 >= 5",
            ),
            (
                "no boundary edges",
                |t| {
                    t.detail_tris[4][3] = 0;
                    t.detail_tris[5][3] = 0x40;
                },
                "DT_DETAIL_EDGE_BOUNDARY",
            ),
            (
                "bv leaf",
                |t| t.bv[1].2 = 2,
                "BV node 1 is a leaf for poly 2",
            ),
            ("bv escape", |t| t.bv[0].2 = -4, "BV node 0 escape index -4"),
            (
                "bv escape min",
                |t| t.bv[0].2 = i32::MIN,
                "escape index -2147483648",
            ),
            (
                "bv bounds",
                |t| t.bv[2].0[0] = 9,
                "BV node 2 bmax[0] 8 < bmin[0] 9",
            ),
            (
                "off-mesh poly",
                |t| t.cons[0].2 = 1,
                "off-mesh connection 0 poly index 1",
            ),
            ("off-mesh rad", |t| t.cons[0].1 = -1.0, "radius is -1"),
            (
                "off-mesh rad NaN",
                |t| t.cons[0].1 = f32::NAN,
                "radius is NaN",
            ),
            (
                "off-mesh pos",
                |t| t.cons[0].0[4] = f32::NEG_INFINITY,
                "end point 1[1] is -inf",
            ),
            ("off-mesh flags", |t| t.cons[0].3 = 2, "flags 0x02"),
            ("off-mesh side", |t| t.cons[0].4 = 8, "side 8"),
            ("offMeshBase 0", |t| t.off_mesh_base = 0, "offMeshBase is 0"),
            (
                "offMeshBase big",
                |t| t.off_mesh_base = 4,
                "offMeshBase is 4",
            ),
            (
                "offMeshBase 3",
                |t| t.off_mesh_base = 3,
                "offMeshConCount is 1",
            ),
            ("no links", |t| t.max_link_count = 0, "maxLinkCount is 0"),
            (
                "extra detail mesh",
                |t| t.detail_meshes.push((0, 0, 0, 1)),
                "detailMeshCount is 3",
            ),
            (
                "missing off-mesh verts",
                |t| {
                    t.verts.truncate(1);
                    t.polys.truncate(1);
                    t.polys.push(([0; 6], [0; 6], 2, OFFMESH_TYPE));
                    t.polys.push(([0; 6], [0; 6], 2, OFFMESH_TYPE));
                    t.cons.push(t.cons[0]);
                    t.off_mesh_base = 1;
                    t.detail_meshes.truncate(1);
                },
                "fewer than the 4 vertices",
            ),
        ];
        for (name, edit, needle) in cases {
            let mut t = TestTile::new();
            edit(&mut t);
            let (_, message) = err_of(validate_tile_data(&t.bytes()));
            assert!(
                message.contains(needle),
                "{name}: expected an error containing {needle:?}, got {message:?}"
            );
        }
    }

    #[test]
    fn error_offsets_point_at_the_field() {
        let mut t = TestTile::new();
        t.polys[1].0[3] = 500;
        let (offset, _) = err_of(validate_tile_data(&t.bytes()));
        let polys = 100 + 12 * 8;
        assert_eq!(offset, polys + 32 + p::VERTS + 2 * 3);
    }

    fn set_i32(d: &mut [u8], off: usize, v: i32) {
        d[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn header_corruptions_are_rejected() {
        let good = TestTile::new().bytes();
        let cases: &[(usize, i32, &str)] = &[
            (h::MAGIC, 0x1234, "tile magic is 0x00001234"),
            (h::VERSION, 6, "tile version is 6"),
            (h::POLY_COUNT, -1, "polyCount is -1"),
            (h::POLY_COUNT, 4, "runs past the end"),
            (h::POLY_COUNT, i32::MAX, "polys section"),
            (h::VERT_COUNT, 9, "runs past the end"),
            (h::VERT_COUNT, i32::MAX, "verts section"),
            (h::MAX_LINK_COUNT, 13, "tile layout"),
            (h::MAX_LINK_COUNT, i32::MIN, "maxLinkCount is -2147483648"),
            (h::DETAIL_MESH_COUNT, 3, "runs past the end"),
            (h::DETAIL_VERT_COUNT, 2, "runs past the end"),
            (h::DETAIL_TRI_COUNT, 7, "runs past the end"),
            (h::DETAIL_TRI_COUNT, 5, "4 trailing bytes"),
            (h::BV_NODE_COUNT, 2, "tile layout"),
            (h::BV_NODE_COUNT, 1 << 30, "bvTree section"),
            (h::OFF_MESH_CON_COUNT, 0, "tile layout"),
            (h::OFF_MESH_CON_COUNT, -5, "offMeshConCount is -5"),
            (h::OFF_MESH_BASE, -1, "offMeshBase is -1"),
        ];
        for (off, v, needle) in cases {
            let mut d = good.clone();
            set_i32(&mut d, *off, *v);
            let (_, message) = err_of(validate_tile_data(&d));
            assert!(
                message.contains(needle),
                "field at {off} = {v}: expected {needle:?}, got {message:?}"
            );
        }
        let mut d = good.clone();
        d[h::WALKABLE_CLIMB..h::WALKABLE_CLIMB + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
        assert!(
            err_of(validate_tile_data(&d))
                .1
                .contains("walkableClimb is -1")
        );
        let mut d = good.clone();
        d.extend_from_slice(&[0; 4]);
        assert!(
            err_of(validate_tile_data(&d))
                .1
                .contains("4 trailing bytes")
        );
    }

    #[test]
    fn every_truncated_tile_is_an_error() {
        let good = TestTile::new().bytes();
        for len in 0..good.len() {
            assert!(
                validate_tile_data(&good[..len]).is_err(),
                "prefix of {len} bytes"
            );
        }
    }

    #[test]
    fn every_truncated_file_is_an_error() {
        let good = write_mset(&test_set());
        for len in 0..good.len() {
            assert!(read_mset(&good[..len]).is_err(), "prefix of {len} bytes");
        }
    }

    #[track_caller]
    fn assert_set_err(set: &NavMeshSet, needle: &str) {
        assert_bytes_err(&write_mset(set), needle);
    }

    #[track_caller]
    fn assert_bytes_err(bytes: &[u8], needle: &str) {
        let (offset, message) = err_of(read_mset(bytes));
        assert!(
            message.contains(needle),
            "expected {needle:?}, got {message:?} at {offset}"
        );
    }

    #[test]
    fn file_corruptions_are_rejected() {
        let good = write_mset(&test_set());

        let mut b = good.clone();
        b[0] = b'X';
        assert_bytes_err(&b, "file magic");
        let mut b = good.clone();
        set_i32(&mut b, 4, 2);
        assert_bytes_err(&b, "MSET version is 2");
        let mut b = good.clone();
        set_i32(&mut b, 8, -1);
        assert_bytes_err(&b, "numTiles is -1");
        let mut b = good.clone();
        set_i32(&mut b, 8, 3);
        assert_bytes_err(&b, "tile 2: file ends inside its tile header");
        let mut b = good.clone();
        set_i32(&mut b, 8, 1);
        assert_bytes_err(&b, "trailing data after the last of 1 tiles");
        let mut b = good.clone();
        b.push(0);
        assert_bytes_err(&b, "1 bytes of trailing data");
        let mut b = good.clone();
        set_i32(&mut b, 8, 4);
        b.truncate(60);
        assert_bytes_err(&b, "numTiles 4 cannot fit");

        // Tile headers.
        let mut s = test_set();
        s.tiles[1].tile_ref = 0;
        assert_set_err(&s, "end marker");
        let mut s = test_set();
        s.tiles[1].data.clear();
        assert_set_err(&s, "end marker");
        let mut b = good.clone();
        set_i32(&mut b, 44, -8);
        assert_bytes_err(&b, "dataSize is -8");
        let mut b = good.clone();
        set_i32(&mut b, 44, 100_000);
        assert_bytes_err(&b, "dataSize 100000 exceeds");

        // Tile refs.
        let mut s = test_set();
        s.tiles[1].tile_ref = tref(1) | 1;
        assert_set_err(&s, "has poly index 1");
        let mut s = test_set();
        s.tiles[1].tile_ref = 1 << 3;
        assert_set_err(&s, "has salt 0");
        let mut s = test_set();
        s.params.max_tiles = 3;
        s.tiles[1].tile_ref = tref(3);
        assert_set_err(&s, "tile index 3 >= maxTiles 3");
        let mut s = test_set();
        s.tiles[1].tile_ref = tref(0);
        assert_set_err(&s, "uses tile index 0, as tile 0 does");
        let mut s = test_set();
        s.tiles[1].data = TestTile::at(0).bytes();
        assert_set_err(&s, "is at (x 0, y 0, layer 0), as tile 0 is");
        let mut s = test_set();
        s.params.max_polys = 2;
        assert_set_err(&s, "has 3 polys, more than the 2");
        let mut s = test_set();
        s.params.max_tiles = 1;
        assert_set_err(&s, "numTiles 2 exceeds maxTiles 1");

        // Tile data errors are reported at file offsets.
        let mut s = test_set();
        let mut t = TestTile::at(1);
        t.polys[0].0[1] = 77;
        s.tiles[1].data = t.bytes();
        let bytes = write_mset(&s);
        let (offset, message) = err_of(read_mset(&bytes));
        let tile1 = 40 + 8 + s.tiles[0].data.len() + 8;
        assert_eq!(offset, tile1 + 100 + 12 * 8 + p::VERTS + 2);
        assert!(message.starts_with("tile 1 (data at byte"), "{message}");
        assert!(
            message.contains("poly 0 vertex 1 index 77 >= 6"),
            "{message}"
        );
    }

    #[test]
    fn params_are_validated() {
        type Edit = fn(&mut NavMeshParams);
        let bad: &[(Edit, &str, usize)] = &[
            (|p| p.origin[1] = f32::NAN, "origin[1] is NaN", 12 + 4),
            (|p| p.tile_width = 0.0, "tileWidth is 0", 12 + 12),
            (
                |p| p.tile_height = f32::INFINITY,
                "tileHeight is inf",
                12 + 16,
            ),
            (|p| p.max_tiles = 0, "maxTiles is 0", 12 + 20),
            (
                |p| p.max_tiles = MAX_TILES_LIMIT + 1,
                "maxTiles is 1048577",
                12 + 20,
            ),
            (|p| p.max_polys = -3, "maxPolys is -3", 12 + 24),
            // 2^14 tiles and 2^9 polys leave 9 salt bits.
            (
                |p| {
                    p.max_tiles = 1 << 14;
                    p.max_polys = 300;
                },
                "leave 9 salt bits",
                12 + 24,
            ),
            // Detour's own unsigned arithmetic would wrap to 31 salt bits here.
            (|p| p.max_polys = i32::MAX, "leave -1 salt bits", 12 + 24),
        ];
        for (edit, needle, file_offset) in bad {
            let mut s = test_set();
            edit(&mut s.params);
            let (_, message) = err_of(validate_params(&s.params));
            assert!(
                message.contains(needle),
                "expected {needle:?}, got {message:?}"
            );
            let (offset, message) = err_of(read_mset(&write_mset(&s)));
            assert!(
                message.contains(needle),
                "expected {needle:?}, got {message:?}"
            );
            assert_eq!(offset, *file_offset, "{message}");
        }
        let mut p = params();
        p.max_tiles = 1 << 14;
        p.max_polys = 256;
        validate_params(&p).unwrap();
    }

    #[test]
    fn tile_data_larger_than_needed_counts_use_checked_math() {
        let mut d = TestTile::new().bytes();
        for off in [
            h::VERT_COUNT,
            h::POLY_COUNT,
            h::MAX_LINK_COUNT,
            h::DETAIL_MESH_COUNT,
            h::DETAIL_VERT_COUNT,
            h::DETAIL_TRI_COUNT,
            h::BV_NODE_COUNT,
            h::OFF_MESH_CON_COUNT,
        ] {
            set_i32(&mut d, off, i32::MAX);
        }
        assert!(validate_tile_data(&d).is_err());
    }

    #[test]
    fn flipping_any_bit_never_panics() {
        let good = write_mset(&test_set());
        let mut accepted = 0;
        for byte in 0..good.len() {
            for bit in 0..8 {
                let mut b = good.clone();
                b[byte] ^= 1 << bit;
                if read_mset(&b).is_ok() {
                    accepted += 1;
                }
            }
        }
        // Links, flags, areas, user ids, float mantissas ... are free; the rest is caught.
        assert!(accepted < good.len() * 8, "{accepted} flips accepted");
    }

    #[test]
    fn flipping_any_bit_of_a_tile_never_panics() {
        let good = TestTile::new().bytes();
        for byte in 0..good.len() {
            for bit in 0..8 {
                let mut b = good.clone();
                b[byte] ^= 1 << bit;
                let _ = validate_tile_data(&b);
            }
        }
    }

    #[test]
    fn unused_tile_helper_is_consistent() {
        assert_tile_err(
            &{
                let mut t = TestTile::new();
                t.verts[7][0] = f32::NAN;
                t
            },
            "vertex 7[0] is NaN",
        );
    }
}
