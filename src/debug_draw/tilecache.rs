//! The tile cache's layers, as RecastDemo's Temp Obstacles sample draws them
//! (`duDebugDrawTileCacheLayerAreas` and `duDebugDrawTileCacheLayerRegions`): each decoded
//! layer ([`DecodedLayer`], from [`crate::tilecache::TileCache::decode_layers`]) as its bounds,
//! a quad per cell with a floor (by area or by region, tinted by layer) and its portals to the
//! tile's other layers; and the bounds of every compressed tile (RecastDemo's "cache bounds", [`tile_bounds`]).
//! Obstacles are [`super::geometry::obstacles`].

use glam::Vec3;

use super::{Color, Layer};
use crate::build::settings::area;
use crate::tilecache::{DecodedLayer, NO_HEIGHT, NO_REGION};

/// Name of the layer of tile-cache layers by area.
pub const AREAS_LAYER: &str = "tilecache.areas";
/// Name of the layer of tile-cache layers by region.
pub const REGIONS_LAYER: &str = "tilecache.regions";
/// Name of the layer of compressed tile bounds.
pub const BOUNDS_LAYER: &str = "tilecache.bounds";

/// Portal edges: `duRGBA(255,255,255,255)`.
pub const PORTAL_COLOR: Color = Color::rgba(255, 255, 255, 255);

/// A layer's colour: `duIntToCol(tlayer + 1, 255)`.
pub fn layer_color(layer: &DecodedLayer) -> Color {
    Color::from_int(layer.tlayer.wrapping_add(1) as u32, 255)
}

/// The colour of a cell of area `area` in `layer`, as `duDebugDrawTileCacheLayerAreas`: the
/// layer colour lerped 32/255 toward `duRGBA(0,192,255,64)` for Recast's walkable area (63),
/// `duRGBA(0,0,0,64)` for area 0, RecastDemo's area colour otherwise.
pub fn area_cell_color(layer: &DecodedLayer, area_id: u8) -> Color {
    let target = match area_id {
        area::WALKABLE => Color::rgba(0, 192, 255, 64),
        area::NULL => Color::rgba(0, 0, 0, 64),
        a => Color::area(a),
    };
    layer_color(layer).lerp(target, 32)
}

/// The colour of a cell of region `region` in `layer`, as `duDebugDrawTileCacheLayerRegions`:
/// the layer colour lerped 192/255 toward `duIntToCol(region, 255)`.
pub fn region_cell_color(layer: &DecodedLayer, region: u8) -> Color {
    layer_color(layer).lerp(Color::from_int(u32::from(region), 255), 192)
}

/// The box of the layer's used cells (`minx..=maxx`, `miny..=maxy`) from `bmin.y` to
/// `bmax.y`: 12 lines, the layer colour at alpha 128, 2 pixels.
fn bounds(l: &mut Layer, layer: &DecodedLayer) {
    let (lo, hi) = tight_bounds(layer);
    l.box_wire(lo, hi, layer_color(layer).with_alpha(128), 2.0);
}

/// One quad (2 triangles) per cell with a floor, one cell height above it, coloured by `color`.
fn cells(l: &mut Layer, layer: &DecodedLayer, mut color: impl FnMut(usize) -> Color) {
    let (cs, ch) = (layer.cell_size, layer.cell_height);
    for y in 0..layer.height {
        for x in 0..layer.width {
            let i = x + y * layer.width;
            let h = layer.heights[i];
            if h == NO_HEIGHT {
                continue;
            }
            let f = layer.bmin + Vec3::new(x as f32 * cs, (f32::from(h) + 1.0) * ch, y as f32 * cs);
            let c = color(i);
            let q = [
                f,
                f + Vec3::new(0.0, 0.0, cs),
                f + Vec3::new(cs, 0.0, cs),
                f + Vec3::new(cs, 0.0, 0.0),
            ];
            l.triangle([q[0], q[1], q[2]], c);
            l.triangle([q[0], q[2], q[3]], c);
        }
    }
}

/// The cell edges that are portals to another layer (connection bits 4..8), two cell heights
/// above the floor, white, 2 pixels: one line per portal bit.
fn portals(l: &mut Layer, layer: &DecodedLayer) {
    // Corner offsets (x, z) of the edge in each direction: -x, +z, +x, -z.
    const SEGS: [[f32; 4]; 4] = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ];
    let (cs, ch) = (layer.cell_size, layer.cell_height);
    for y in 0..layer.height {
        for x in 0..layer.width {
            let i = x + y * layer.width;
            let h = layer.heights[i];
            if h == NO_HEIGHT {
                continue;
            }
            let fy = layer.bmin.y + (f32::from(h) + 2.0) * ch;
            for (dir, s) in SEGS.iter().enumerate() {
                if layer.cons[i] & (1 << (dir + 4)) != 0 {
                    let p = |dx: f32, dz: f32| {
                        Vec3::new(
                            layer.bmin.x + (x as f32 + dx) * cs,
                            fy,
                            layer.bmin.z + (y as f32 + dz) * cs,
                        )
                    };
                    l.line(p(s[0], s[1]), p(s[2], s[3]), PORTAL_COLOR, 2.0);
                }
            }
        }
    }
}

/// Every layer by area ([`area_cell_color`]): its bounds (12 lines), a quad per cell with a
/// floor (2 triangles) and its portals (a line each).
pub fn layer_areas(layers: &[DecodedLayer]) -> Layer {
    let mut l = Layer::new(AREAS_LAYER);
    for layer in layers {
        bounds(&mut l, layer);
        cells(&mut l, layer, |i| area_cell_color(layer, layer.areas[i]));
        portals(&mut l, layer);
    }
    l
}

/// Every layer by region ([`region_cell_color`]; cells without a region as region 0xff): its
/// bounds, a quad per cell with a floor and its portals, as [`layer_areas`].
pub fn layer_regions(layers: &[DecodedLayer]) -> Layer {
    let mut l = Layer::new(REGIONS_LAYER);
    for layer in layers {
        bounds(&mut l, layer);
        cells(&mut l, layer, |i| {
            region_cell_color(layer, layer.regions.get(i).copied().unwrap_or(NO_REGION))
        });
        portals(&mut l, layer);
    }
    l
}

/// The tight box of a layer's used cells, as `dtTileCache::calcTightTileBounds`: columns
/// `minx..=maxx`, rows `miny..=maxy`, from `bmin.y` to `bmax.y`.
pub fn tight_bounds(layer: &DecodedLayer) -> (Vec3, Vec3) {
    let cs = layer.cell_size;
    let lo = layer.bmin + Vec3::new(f32::from(layer.minx) * cs, 0.0, f32::from(layer.miny) * cs);
    let hi = Vec3::new(
        layer.bmin.x + (f32::from(layer.maxx) + 1.0) * cs,
        layer.bmax.y,
        layer.bmin.z + (f32::from(layer.maxy) + 1.0) * cs,
    );
    (lo, hi)
}

/// The compressed tiles as RecastDemo's "cache bounds" view (`drawTiles`): for layer `i` of
/// `layers`, its [`tight_bounds`] as a filled box (12 triangles, `duIntToCol(i, 64)` shaded per
/// face as `duCalcBoxColors`) and a wire box 0.1 cell larger (12 lines, `duIntToCol(i, 255)`,
/// 2 pixels).
pub fn tile_bounds(layers: &[DecodedLayer]) -> Layer {
    // duAppendBox's faces over corners 0..4 (bottom) and 4..8 (top), and the shade of each.
    const FACES: [([usize; 4], u32); 6] = [
        ([7, 6, 5, 4], 250),
        ([0, 1, 2, 3], 140),
        ([1, 5, 6, 2], 165),
        ([3, 7, 4, 0], 217),
        ([2, 6, 7, 3], 165),
        ([0, 4, 5, 1], 217),
    ];
    let mut l = Layer::new(BOUNDS_LAYER);
    for (i, layer) in layers.iter().enumerate() {
        let (lo, hi) = tight_bounds(layer);
        let v = [
            Vec3::new(lo.x, lo.y, lo.z),
            Vec3::new(hi.x, lo.y, lo.z),
            Vec3::new(hi.x, lo.y, hi.z),
            Vec3::new(lo.x, lo.y, hi.z),
            Vec3::new(lo.x, hi.y, lo.z),
            Vec3::new(hi.x, hi.y, lo.z),
            Vec3::new(hi.x, hi.y, hi.z),
            Vec3::new(lo.x, hi.y, hi.z),
        ];
        let fill = Color::from_int(i as u32, 64);
        for (f, shade) in FACES {
            let c = fill.mult(shade);
            l.triangle([v[f[0]], v[f[1]], v[f[2]]], c);
            l.triangle([v[f[0]], v[f[2]], v[f[3]]], c);
        }
        let pad = Vec3::splat(layer.cell_size * 0.1);
        l.box_wire(lo - pad, hi + pad, Color::from_int(i as u32, 255), 2.0);
    }
    l
}
