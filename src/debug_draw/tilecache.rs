//! The tile cache's layers, as RecastDemo's Temp Obstacles sample draws them
//! (`duDebugDrawTileCacheLayerAreas` and `duDebugDrawTileCacheLayerRegions`): each decoded
//! layer ([`DecodedLayer`], from [`crate::tilecache::TileCache::decode_layers`]) as its bounds,
//! a quad per cell with a floor (by area or by region, tinted by layer) and its portals to the
//! tile's other layers; the contours and poly mesh Detour builds from it
//! (`duDebugDrawTileCacheContours`, `duDebugDrawTileCachePolyMesh`, from
//! [`DecodedLayer::build`]); and the bounds of every compressed tile (RecastDemo's "cache bounds", [`tile_bounds`]).
//! Obstacles are [`super::geometry::obstacles`].

use glam::Vec3;

use super::{Color, Layer};
use crate::settings::area;
use crate::tilecache::{DecodedLayer, LayerBuild, NO_HEIGHT, NO_REGION};

/// Name of the layer of tile-cache layers by area.
pub const AREAS_LAYER: &str = "tilecache.areas";
/// Name of the layer of tile-cache layers by region.
pub const REGIONS_LAYER: &str = "tilecache.regions";
/// Name of the layer of tile-cache layer contours.
pub const CONTOURS_LAYER: &str = "tilecache.contours";
/// Name of the layer of tile-cache layer poly meshes.
pub const POLY_MESH_LAYER: &str = "tilecache.poly_mesh";
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

/// Offsets (x, z) of the neighbour in each direction: -x, +z, +x, -z.
const DIR_OFFSETS: [(f32, f32); 4] = [(-1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (0.0, -1.0)];

/// A red line from the middle of `a`-`b` two cells toward direction `dir`: where a portal
/// leads (`duRGBA(255,0,0,255)`).
fn portal_tick(l: &mut Layer, a: Vec3, b: Vec3, dir: u16, cs: f32) {
    let (dx, dz) = DIR_OFFSETS[usize::from(dir & 3)];
    let c = (a + b) * 0.5;
    l.line(
        c,
        c + Vec3::new(dx * 2.0 * cs, 0.0, dz * 2.0 * cs),
        Color::rgba(255, 0, 0, 255),
        2.0,
    );
}

/// An arrow from `a` to `b` with a head of `head` at `b` (`duAppendArrow(a, b, 0, head)`):
/// the shaft and two head lines.
fn arrow(l: &mut Layer, a: Vec3, b: Vec3, head: f32, color: Color, width: f32) {
    l.line(a, b, color, width);
    let d = b - a;
    let len = d.length();
    if len < 1e-6 {
        return;
    }
    let dir = d / len;
    let side = Vec3::new(-dir.z, 0.0, dir.x) * head / 3.0;
    l.line(b, b - dir * head + side, color, width);
    l.line(b, b - dir * head - side, color, width);
}

/// Each layer's contours (`builds[i]` of `layers[i]`, from [`DecodedLayer::build`]) as
/// `duDebugDrawTileCacheContours`: for contour `i` of a layer, an arrow (3 lines, head half a
/// cell) along each edge in `duIntToCol(i, 255)`, or `duRGBA(255,255,255,128)` for a portal
/// edge with a red line (1) two cells toward the neighbour; a 4-pixel point at each vertex, the
/// contour colour darkened, red for vertices Detour removes on the tile border. Drawn
/// `1 + (i & 1)` cells above the floor so neighbouring contours do not hide each other.
pub fn layer_contours(layers: &[DecodedLayer], builds: &[LayerBuild]) -> Layer {
    let mut l = Layer::new(CONTOURS_LAYER);
    for (layer, b) in layers.iter().zip(builds) {
        let (cs, ch) = (layer.cell_size, layer.cell_height);
        let at = |v: [u8; 4], i: usize| {
            layer.world(u16::from(v[0]), u16::from(v[1]), u16::from(v[2]))
                + Vec3::Y * ((1 + (i & 1)) as f32 * ch)
        };
        for (i, c) in b.contours.iter().enumerate() {
            let color = Color::from_int(i as u32, 255);
            let n = c.verts.len();
            for j in 0..n {
                let (va, vb) = (c.verts[j], c.verts[(j + 1) % n]);
                let (a, e) = (at(va, i), at(vb, i));
                let mut col = color;
                if va[3] & 0xf != 0xf {
                    col = Color::rgba(255, 255, 255, 128);
                    portal_tick(&mut l, a, e, u16::from(va[3] & 0xf), cs);
                }
                arrow(&mut l, a, e, cs * 0.5, col, 2.0);
            }
        }
        for (i, c) in b.contours.iter().enumerate() {
            for &v in &c.verts {
                let col = if v[3] & 0x80 != 0 {
                    Color::rgba(255, 0, 0, 255)
                } else {
                    Color::from_int(i as u32, 255).darken()
                };
                l.point(at(v, i), col, 4.0);
            }
        }
    }
    l
}

/// Each layer's poly mesh (`builds[i]` of `layers[i]`) as `duDebugDrawTileCachePolyMesh`: each
/// poly as a fan of triangles one cell above its floor (Recast's walkable area
/// `duRGBA(0,192,255,64)`, area 0 `duRGBA(0,0,0,64)`, others [`Color::area`]); inner edges
/// `duRGBA(0,48,64,32)` 1.5 pixels; boundary edges `duRGBA(0,48,64,220)` 2.5 pixels, or
/// `duRGBA(255,255,255,128)` for portals with a red line toward the neighbour tile; a 3-pixel
/// point `duRGBA(0,0,0,220)` at each vertex.
pub fn layer_poly_mesh(layers: &[DecodedLayer], builds: &[LayerBuild]) -> Layer {
    let mut l = Layer::new(POLY_MESH_LAYER);
    for (layer, b) in layers.iter().zip(builds) {
        let (cs, ch) = (layer.cell_size, layer.cell_height);
        let m = &b.poly_mesh;
        let at = |i: u16, lift: f32| {
            m.verts
                .get(usize::from(i))
                .map(|v| layer.world(v[0], v[1], v[2]) + Vec3::Y * (ch + lift))
        };
        for p in &m.polys {
            let color = match p.area {
                area::WALKABLE => Color::rgba(0, 192, 255, 64),
                area::NULL => Color::rgba(0, 0, 0, 64),
                a => Color::area(a),
            };
            for j in 2..p.verts.len() {
                if let (Some(a), Some(b), Some(c)) = (
                    at(p.verts[0], 0.0),
                    at(p.verts[j - 1], 0.0),
                    at(p.verts[j], 0.0),
                ) {
                    l.triangle([a, b, c], color);
                }
            }
        }
        for (pi, p) in m.polys.iter().enumerate() {
            let n = p.verts.len();
            for j in 0..n {
                let (Some(a), Some(e)) = (at(p.verts[j], 0.1), at(p.verts[(j + 1) % n], 0.1))
                else {
                    continue;
                };
                let nei = p.neighbours[j];
                if nei & 0x8000 == 0 {
                    l.line(a, e, Color::rgba(0, 48, 64, 32), 1.5);
                } else if nei & 0xf != 0xf {
                    let lift = Vec3::Y * ((pi & 1) as f32 * ch - 0.1);
                    portal_tick(&mut l, a + lift, e + lift, nei & 0xf, cs);
                    l.line(a, e, Color::rgba(255, 255, 255, 128), 2.5);
                } else {
                    l.line(a, e, Color::rgba(0, 48, 64, 220), 2.5);
                }
            }
        }
        for i in 0..m.verts.len() {
            if let Some(v) = at(i as u16, 0.1) {
                l.point(v, Color::rgba(0, 0, 0, 220), 3.0);
            }
        }
    }
    l
}
