//! [`DecodedPolyRef`]: a poly ref split into salt, tile index and poly index, with this
//! navmesh's bit layout.

use crate::ffi::tile_view::{narrow, widen};
use crate::ffi::{PolyRef, RawPolyRef};
use crate::navmesh::NavMesh;
use crate::navmesh::params::RefLayout;

/// A poly ref's parts (`dtNavMesh::decodePolyId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecodedPolyRef {
    /// The tile's salt.
    pub salt: u32,
    /// The tile's index in the tile array.
    pub tile: u32,
    /// The poly's index in the tile.
    pub poly: u32,
}

fn mask(bits: u32) -> u64 {
    1u64.checked_shl(bits).map_or(u64::MAX, |v| v - 1)
}

impl NavMesh {
    /// The split of this navmesh's poly refs into salt, tile and poly bits, as Detour chose it
    /// in `dtNavMesh::init` (read from Detour, so right for either ref width).
    pub fn ref_layout(&self) -> RefLayout {
        let (salt_bits, tile_bits, poly_bits) = self.raw().ref_bits();
        RefLayout {
            tile_bits,
            poly_bits,
            salt_bits,
        }
    }

    /// Splits `poly` into salt, tile index and poly index with this navmesh's layout (the salt,
    /// tile and poly bits `dtNavMesh::init` chose), as `dtNavMesh::decodePolyId` does. Any ref
    /// decodes; whether it names a poly is [`NavMesh::is_valid`].
    pub fn decode_poly_ref(&self, poly: PolyRef) -> DecodedPolyRef {
        let (salt_bits, tile_bits, poly_bits) = self.raw().ref_bits();
        let r = widen(poly.0);
        let field = |shift: u32, bits: u32| (r.checked_shr(shift).unwrap_or(0) & mask(bits)) as u32;
        DecodedPolyRef {
            salt: field(poly_bits + tile_bits, salt_bits),
            tile: field(poly_bits, tile_bits),
            poly: field(0, poly_bits),
        }
    }

    /// The ref of poly `poly` in tile `tile` with salt `salt` (`dtNavMesh::encodePolyId`);
    /// `None` if a part does not fit its bits. The ref is only valid if the tile is in use with
    /// that salt and has that many polys.
    pub fn encode_poly_ref(&self, salt: u32, tile: u32, poly: u32) -> Option<PolyRef> {
        let (salt_bits, tile_bits, poly_bits) = self.raw().ref_bits();
        if u64::from(salt) > mask(salt_bits)
            || u64::from(tile) > mask(tile_bits)
            || u64::from(poly) > mask(poly_bits)
        {
            return None;
        }
        let r = (u64::from(salt) << (poly_bits + tile_bits))
            | (u64::from(tile) << poly_bits)
            | u64::from(poly);
        narrow::<RawPolyRef>(r).map(PolyRef)
    }
}
