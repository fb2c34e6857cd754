//! [`Color`]: RGBA packed as upstream's `duRGBA`, with DebugUtils' colour formulas.

use crate::settings::area;

/// An RGBA colour packed as upstream's `duRGBA` (`r | g << 8 | b << 16 | a << 24`), so values
/// compare directly with RecastDemo's.
///
/// ```
/// use navkit::debug_draw::Color;
/// let ground = Color::area(navkit::area::GROUND);
/// assert_eq!(ground, Color::rgba(0, 192, 255, 255));
/// assert_eq!(ground.with_alpha(64).to_array(), [0, 192, 255, 64]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Color(pub u32);

const fn bit(a: u32, b: u32) -> u32 {
    (a >> b) & 1
}

impl Color {
    /// Opaque white.
    pub const WHITE: Color = Color::rgba(255, 255, 255, 255);
    /// Opaque black.
    pub const BLACK: Color = Color::rgba(0, 0, 0, 255);

    /// `duRGBA(r, g, b, a)`.
    pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Color {
        Color(r as u32 | (g as u32) << 8 | (b as u32) << 16 | (a as u32) << 24)
    }

    /// `duRGBAf`: components in 0..=1 (clamped), truncated to bytes as upstream.
    pub fn rgba_f32(r: f32, g: f32, b: f32, a: f32) -> Color {
        let c = |v: f32| (v.clamp(0.0, 1.0) * 255.0) as u8;
        Color::rgba(c(r), c(g), c(b), c(a))
    }

    /// Red.
    pub const fn r(self) -> u8 {
        self.0 as u8
    }
    /// Green.
    pub const fn g(self) -> u8 {
        (self.0 >> 8) as u8
    }
    /// Blue.
    pub const fn b(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// Alpha.
    pub const fn a(self) -> u8 {
        (self.0 >> 24) as u8
    }

    /// `[r, g, b, a]`.
    pub const fn to_array(self) -> [u8; 4] {
        self.0.to_le_bytes()
    }

    /// Components in 0..=1, `[r, g, b, a]`.
    pub fn to_f32(self) -> [f32; 4] {
        self.to_array().map(|c| f32::from(c) / 255.0)
    }

    /// `duTransCol(c, a)`: the same colour with alpha `a`.
    pub const fn with_alpha(self, a: u8) -> Color {
        Color((a as u32) << 24 | (self.0 & 0x00ff_ffff))
    }

    /// `duDarkenCol`: every colour channel halved, alpha kept.
    pub const fn darken(self) -> Color {
        Color(((self.0 >> 1) & 0x007f_7f7f) | (self.0 & 0xff00_0000))
    }

    /// `duMultCol(c, d)`: colour channels times `d / 256`, alpha kept.
    pub const fn mult(self, d: u32) -> Color {
        const fn m(v: u8, d: u32) -> u8 {
            ((v as u32 * d) >> 8) as u8
        }
        Color::rgba(m(self.r(), d), m(self.g(), d), m(self.b(), d), self.a())
    }

    /// `duLerpCol(self, other, u)`: `u` in 0..=255 from `self` to `other`.
    pub const fn lerp(self, other: Color, u: u8) -> Color {
        let u = u as u32;
        const fn l(a: u8, b: u8, u: u32) -> u8 {
            ((a as u32 * (255 - u) + b as u32 * u) / 255) as u8
        }
        Color::rgba(
            l(self.r(), other.r(), u),
            l(self.g(), other.g(), u),
            l(self.b(), other.b(), u),
            l(self.a(), other.a(), u),
        )
    }

    /// `duIntToCol(i, a)`: a distinct colour per small integer (tiles, regions, agents).
    pub const fn from_int(i: u32, a: u8) -> Color {
        let r = bit(i, 1) + bit(i, 3) * 2 + 1;
        let g = bit(i, 2) + bit(i, 4) * 2 + 1;
        let b = bit(i, 0) + bit(i, 5) * 2 + 1;
        Color::rgba((r * 63) as u8, (g * 63) as u8, (b * 63) as u8, a)
    }

    /// RecastDemo's `SampleDebugDraw::areaToCol` for navkit's (RecastDemo's) area ids: ground
    /// light blue, water blue, road brown, door cyan, grass green, jump yellow, anything else
    /// red. Opaque; use [`Color::with_alpha`] as RecastDemo does (64 for polys).
    pub const fn area(id: u8) -> Color {
        match id {
            area::GROUND => Color::rgba(0, 192, 255, 255),
            area::WATER => Color::rgba(0, 0, 255, 255),
            area::ROAD => Color::rgba(50, 20, 12, 255),
            area::DOOR => Color::rgba(0, 255, 255, 255),
            area::GRASS => Color::rgba(0, 255, 0, 255),
            area::JUMP => Color::rgba(255, 255, 0, 255),
            _ => Color::rgba(255, 0, 0, 255),
        }
    }

    /// DebugUtils' default `duDebugDraw::areaToCol`, for area ids of one's own: area 0 light
    /// blue, any other `duIntToCol(area, 255)`.
    pub const fn area_generic(id: u8) -> Color {
        if id == 0 {
            Color::rgba(0, 192, 255, 255)
        } else {
            Color::from_int(id as u32, 255)
        }
    }
}
