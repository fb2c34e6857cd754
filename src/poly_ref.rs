//! Poly refs and their layout: [`PolyRef`] (a `dtPolyRef`), the width this build gives them
//! ([`RefWidth`]) and how a ref splits into salt, tile and poly bits ([`RefLayout`]). Shared by
//! every layer from `ffi` up, and by the error type.

/// The integer a [`PolyRef`] holds: Detour's `dtPolyRef`, `u32` by default and `u64` with the
/// `large-refs` feature (Detour built with `DT_POLYREF64`).
///
/// Re-exported as `navkit::query::PolyRefBits`.
pub type PolyRefBits = recastnavigation_sys::dtPolyRef;

/// A polygon reference (`dtPolyRef`): tile salt, tile index and poly index packed in 32 bits
/// (by default: the split depends on the navmesh's `max_tiles` and `max_polys`) or in 64 bits
/// (with the `large-refs` feature: 16 salt, 28 tile and 20 poly bits).
///
/// Re-exported as `navkit::query::PolyRef`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[repr(transparent)]
pub struct PolyRef(pub PolyRefBits);

impl PolyRef {
    /// Bits in a ref in this build: 32, or 64 with the `large-refs` feature.
    pub const BITS: u32 = PolyRefBits::BITS;

    /// The ref as a `u64`, whatever the width of this build.
    #[allow(clippy::unnecessary_cast)] // u32 or u64, by feature
    pub const fn to_u64(self) -> u64 {
        self.0 as u64
    }

    /// The ref from a `u64`; `None` if it does not fit this build's width.
    pub fn from_u64(v: u64) -> Option<PolyRef> {
        PolyRefBits::try_from(v).ok().map(PolyRef)
    }
}

impl std::fmt::Display for PolyRef {
    /// In hex: `0x1c04`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// The width of Detour poly and tile refs: 32 bits (Detour's default) or 64 bits (Detour built
/// with `DT_POLYREF64`, navkit's `large-refs` feature).
///
/// A navkit build has one width, [`RefWidth::NATIVE`]; `MSET` files of either width load in
/// either build (their refs and tile data converted: see [`crate::navmesh::mset`]) and can be
/// saved in either width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RefWidth {
    /// 32-bit refs: salt, tile and poly bits share 32 bits.
    Bits32,
    /// 64-bit refs: 16 salt, 28 tile and 20 poly bits.
    Bits64,
}

impl RefWidth {
    /// The width of this build's refs: [`RefWidth::Bits64`] with the `large-refs` feature,
    /// otherwise [`RefWidth::Bits32`].
    pub const NATIVE: RefWidth = if cfg!(feature = "large-refs") {
        RefWidth::Bits64
    } else {
        RefWidth::Bits32
    };

    /// Bytes in a ref of this width (4 or 8).
    pub const fn bytes(self) -> usize {
        match self {
            RefWidth::Bits32 => 4,
            RefWidth::Bits64 => 8,
        }
    }

    /// Size of a `dtLink` in tile data built with refs of this width (12 or 16 bytes).
    pub const fn link_size(self) -> usize {
        match self {
            RefWidth::Bits32 => 12,
            RefWidth::Bits64 => 16,
        }
    }
}

impl std::fmt::Display for RefWidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefWidth::Bits32 => "32-bit",
            RefWidth::Bits64 => "64-bit",
        })
    }
}

/// How a `dtPolyRef` / `dtTileRef` is split into salt, tile index and poly index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RefLayout {
    /// Bits for the tile index (32-bit refs: `dtIlog2(dtNextPow2(maxTiles))`; 64-bit: 28).
    pub tile_bits: u32,
    /// Bits for the poly index within a tile (32-bit refs: `dtIlog2(dtNextPow2(maxPolys))`;
    /// 64-bit: 20).
    pub poly_bits: u32,
    /// Bits for the salt (32-bit refs: `min(31, 32 - tile_bits - poly_bits)`, 0 if that is
    /// negative; 64-bit: 16).
    pub salt_bits: u32,
}

impl RefLayout {
    /// The layout of 64-bit refs (`DT_SALT_BITS`, `DT_TILE_BITS`, `DT_POLY_BITS`).
    pub const LARGE: RefLayout = RefLayout {
        tile_bits: 28,
        poly_bits: 20,
        salt_bits: 16,
    };

    fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    /// Splits a ref into `(salt, tile index, poly index)` as Detour's `decodePolyId` does.
    pub fn decode(&self, r: u64) -> (u32, u32, u32) {
        let shift = self.poly_bits + self.tile_bits;
        let salt = r.checked_shr(shift).unwrap_or(0) & Self::mask(self.salt_bits);
        let tile = (r >> self.poly_bits) & Self::mask(self.tile_bits);
        let poly = r & Self::mask(self.poly_bits);
        (salt as u32, tile as u32, poly as u32)
    }

    /// Builds a ref from its parts as Detour's `encodePolyId` does (`None` if a part does not
    /// fit its bits).
    pub fn encode(&self, salt: u32, tile: u32, poly: u32) -> Option<u64> {
        if u64::from(salt) > Self::mask(self.salt_bits)
            || u64::from(tile) > Self::mask(self.tile_bits)
            || u64::from(poly) > Self::mask(self.poly_bits)
        {
            return None;
        }
        let shift = self.poly_bits + self.tile_bits;
        Some(
            u64::from(salt).checked_shl(shift).unwrap_or(0)
                | (u64::from(tile) << self.poly_bits)
                | u64::from(poly),
        )
    }
}
