//! Navmesh-wide parameters ([`NavMeshParams`]), how poly refs split into salt, tile and poly
//! ([`RefLayout`]), and the checks `dtNavMesh::init` needs ([`validate_params`]).
//!
//! Offsets in [`validate_params`] errors are relative to the start of the `dtNavMeshParams`
//! struct.

use crate::ffi::bytes::check_coord;
use crate::{Error, Result};
use recastnavigation_sys::dtNavMeshParams;
use std::mem::offset_of;

pub use crate::poly_ref::{RefLayout, RefWidth};

pub use crate::ffi::validate::MAX_COORDINATE;
/// Largest accepted `max_tiles`: `dtNavMesh::init` allocates a `dtMeshTile` (about 100
/// bytes) per tile up front, so this caps that allocation at about 100 MiB.
pub const MAX_TILES_LIMIT: i32 = 1 << 20;
/// Fewest salt bits `dtNavMesh::init` accepts for 32-bit poly refs.
pub const MIN_SALT_BITS: u32 = 10;

/// Navmesh-wide parameters (`dtNavMeshParams`), as stored in `MSET` and `TSET` files.
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
    /// How 32-bit poly refs are split for these parameters, computed as `dtNavMesh::init`
    /// does (without its unsigned wrap-around when tile and poly bits exceed 32).
    pub fn ref_layout(&self) -> RefLayout {
        self.ref_layout_for(RefWidth::NATIVE)
    }

    /// How refs of the given width split into salt, tile and poly bits for these parameters:
    /// 32-bit refs share their bits as `dtNavMesh::init` computes them from `max_tiles` and
    /// `max_polys`; 64-bit refs (`DT_POLYREF64`) always have 16 salt, 28 tile and 20 poly bits.
    pub fn ref_layout_for(&self, width: RefWidth) -> RefLayout {
        match width {
            RefWidth::Bits32 => {
                let tile_bits = dt_ilog2(dt_next_pow2(self.max_tiles as u32));
                let poly_bits = dt_ilog2(dt_next_pow2(self.max_polys as u32));
                let salt_bits = 32i64 - i64::from(tile_bits) - i64::from(poly_bits);
                RefLayout {
                    tile_bits,
                    poly_bits,
                    salt_bits: salt_bits.clamp(0, 31) as u32,
                }
            }
            RefWidth::Bits64 => RefLayout::LARGE,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Detour's integer helpers.

/// Detour's `dtNextPow2` (wrapping exactly like the C++ on `unsigned int`).
pub(crate) fn dt_next_pow2(v: u32) -> u32 {
    let mut v = v.wrapping_sub(1);
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    v.wrapping_add(1)
}

/// Detour's `dtIlog2`.
pub(crate) fn dt_ilog2(mut v: u32) -> u32 {
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

// ---------------------------------------------------------------------------------------
// Checks.

/// Offsets of the `dtNavMeshParams` fields.
pub(super) const P_ORIG: usize = offset_of!(dtNavMeshParams, orig);
pub(super) const P_TILE_WIDTH: usize = offset_of!(dtNavMeshParams, tileWidth);
pub(super) const P_TILE_HEIGHT: usize = offset_of!(dtNavMeshParams, tileHeight);
pub(super) const P_MAX_TILES: usize = offset_of!(dtNavMeshParams, maxTiles);
pub(super) const P_MAX_POLYS: usize = offset_of!(dtNavMeshParams, maxPolys);

/// Checks navmesh parameters: everything `dtNavMesh::init` needs to succeed in this build, plus
/// sanity ([`validate_params_for`] with [`RefWidth::NATIVE`]).
pub fn validate_params(p: &NavMeshParams) -> Result<()> {
    validate_params_for(p, RefWidth::NATIVE)
}

/// Checks navmesh parameters for refs of `width`: everything `dtNavMesh::init` needs, plus
/// sanity.
///
/// Checks: origin finite and within [`MAX_COORDINATE`]; tile width and height finite and
/// `> 0`; `max_tiles` in `1..=`[`MAX_TILES_LIMIT`]; `max_polys >= 1`; for 32-bit refs at least
/// [`MIN_SALT_BITS`] salt bits left in the ref (64-bit refs always have 16; their 20 poly bits
/// bound each tile's poly count, whatever `max_polys` says). Error offsets are byte offsets of the offending
/// field within `dtNavMeshParams`.
pub fn validate_params_for(p: &NavMeshParams, width: RefWidth) -> Result<()> {
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
    if width == RefWidth::Bits64 {
        // 28 tile bits hold MAX_TILES_LIMIT; maxPolys plays no part in 64-bit refs (a tile's
        // polys must fit the 20 poly bits, which the tile checks see to).
        return Ok(());
    }
    let layout = p.ref_layout_for(RefWidth::Bits32);
    let salt_bits = 32i64 - i64::from(layout.tile_bits) - i64::from(layout.poly_bits);
    if salt_bits < i64::from(MIN_SALT_BITS) {
        return Err(Error::data(
            P_MAX_POLYS,
            format!(
                "navmesh params maxTiles {} ({} tile bits) and maxPolys {} ({} poly bits) leave \
                 {salt_bits} salt bits in a 32-bit poly ref; Detour needs at least {MIN_SALT_BITS} \
                 (tile + poly bits must fit 22; navkit's `large-refs` feature gives 64-bit refs)",
                p.max_tiles, layout.tile_bits, p.max_polys, layout.poly_bits
            ),
        ));
    }
    Ok(())
}
