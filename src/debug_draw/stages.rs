//! Recast's intermediate stages, from [`crate::build::SoloBuild::stages`], as RecastDemo's
//! "Voxels", "Compact", "Distance field", "Regions", "Raw contours", "Contours", "Poly mesh"
//! and "Poly mesh detail" views (upstream's `RecastDebugDraw.cpp`).

use glam::Vec3;

use super::{Color, DebugDraw, Layer};
use crate::build::{
    CompactSnapshot, CompactSpanSnapshot, ContoursSnapshot, DetailMeshSnapshot,
    HeightfieldSnapshot, PolyMeshSnapshot, SoloStages,
};
use crate::settings::area;

/// Name of the heightfield layer.
pub const HEIGHTFIELD_LAYER: &str = "stage.heightfield";
/// Name of the compact heightfield layer.
pub const COMPACT_LAYER: &str = "stage.compact";
/// Name of the distance field layer.
pub const DISTANCE_LAYER: &str = "stage.distance";
/// Name of the regions layer.
pub const REGIONS_LAYER: &str = "stage.regions";
/// Name of the raw contours layer.
pub const RAW_CONTOURS_LAYER: &str = "stage.raw_contours";
/// Name of the simplified contours layer.
pub const CONTOURS_LAYER: &str = "stage.contours";
/// Name of the poly mesh layer.
pub const POLY_MESH_LAYER: &str = "stage.poly_mesh";
/// Name of the detail mesh layer.
pub const DETAIL_MESH_LAYER: &str = "stage.detail_mesh";

/// Every stage's layer, in pipeline order.
pub fn all(stages: &SoloStages) -> DebugDraw {
    let mut d = DebugDraw::new();
    d.push(heightfield(&stages.heightfield));
    d.push(compact(&stages.compact));
    d.push(distance_field(&stages.compact));
    d.push(regions(&stages.compact));
    d.push(raw_contours(&stages.contours));
    d.push(contours(&stages.contours));
    d.push(poly_mesh(&stages.poly_mesh));
    d.push(detail_mesh(&stages.detail_mesh));
    d
}

/// A solid box: 12 triangles, the top in `top`, the sides and bottom in `side` shaded as
/// `duCalcBoxColors` (times 140/256 to 250/256).
fn solid_box(l: &mut Layer, bmin: Vec3, bmax: Vec3, top: Color, side: Color) {
    let c = |i: usize| {
        Vec3::new(
            if i & 1 != 0 { bmax.x } else { bmin.x },
            if i & 2 != 0 { bmax.y } else { bmin.y },
            if i & 4 != 0 { bmax.z } else { bmin.z },
        )
    };
    let faces: [([usize; 4], Color); 6] = [
        ([2, 3, 7, 6], top.mult(250)),
        ([0, 4, 5, 1], side.mult(140)),
        ([0, 1, 3, 2], side.mult(165)),
        ([4, 6, 7, 5], side.mult(165)),
        ([0, 2, 6, 4], side.mult(217)),
        ([1, 5, 7, 3], side.mult(217)),
    ];
    for (f, col) in faces {
        l.triangle([c(f[0]), c(f[1]), c(f[2])], col);
        l.triangle([c(f[0]), c(f[2]), c(f[3])], col);
    }
}

/// Every heightfield span as a solid box (12 triangles), as `duDebugDrawHeightfieldWalkable`:
/// walkable `duRGBA(64,128,160,255)`, not walkable `duRGBA(64,64,64,255)`, marked areas their
/// colour times 200/256.
pub fn heightfield(hf: &HeightfieldSnapshot) -> Layer {
    let mut l = Layer::new(HEIGHTFIELD_LAYER);
    for s in &hf.spans {
        let top = match s.area {
            area::WALKABLE => Color::rgba(64, 128, 160, 255),
            area::NULL => Color::rgba(64, 64, 64, 255),
            a => Color::area(a).mult(200),
        };
        let x = hf.bmin.x + f32::from(s.x) * hf.cs;
        let z = hf.bmin.z + f32::from(s.z) * hf.cs;
        let bmin = Vec3::new(x, hf.bmin.y + f32::from(s.smin) * hf.ch, z);
        let bmax = Vec3::new(x + hf.cs, hf.bmin.y + f32::from(s.smax) * hf.ch, z + hf.cs);
        solid_box(
            &mut l,
            bmin,
            bmax,
            top,
            Color::rgba(217, 217, 217, 255).lerp(top, 128),
        );
    }
    l
}

/// One quad (two triangles) per compact span, on its floor, coloured by `color`.
fn span_quads(
    name: &str,
    chf: &CompactSnapshot,
    mut color: impl FnMut(&CompactSpanSnapshot) -> Color,
) -> Layer {
    let mut l = Layer::new(name);
    for s in &chf.spans {
        let x = chf.bmin.x + f32::from(s.x) * chf.cs;
        let z = chf.bmin.z + f32::from(s.z) * chf.cs;
        let y = chf.bmin.y + (f32::from(s.y) + 1.0) * chf.ch;
        let c = color(s);
        let (a, b) = (Vec3::new(x, y, z), Vec3::new(x, y, z + chf.cs));
        let (cc, d) = (
            Vec3::new(x + chf.cs, y, z + chf.cs),
            Vec3::new(x + chf.cs, y, z),
        );
        l.triangle([a, b, cc], c);
        l.triangle([a, cc, d], c);
    }
    l
}

/// The compact heightfield's walkable spans by area (`duDebugDrawCompactHeightfieldSolid`):
/// walkable `duRGBA(0,192,255,64)`, eroded away `duRGBA(0,0,0,64)`, marked areas their
/// colour at 64.
pub fn compact(chf: &CompactSnapshot) -> Layer {
    span_quads(COMPACT_LAYER, chf, |s| match s.area {
        area::WALKABLE => Color::rgba(0, 192, 255, 64),
        area::NULL => Color::rgba(0, 0, 0, 64),
        a => Color::area(a).with_alpha(64),
    })
}

/// The distance field in grey, `distance * 255 / max_distance`
/// (`duDebugDrawCompactHeightfieldDistance`); black without a distance field.
pub fn distance_field(chf: &CompactSnapshot) -> Layer {
    let max = f32::from(chf.max_distance.max(1));
    span_quads(DISTANCE_LAYER, chf, |s| {
        let cd = (f32::from(s.distance) * 255.0 / max).min(255.0) as u8;
        Color::rgba(cd, cd, cd, 255)
    })
}

/// The regions, `duIntToCol(region, 192)`, spans in no region `duRGBA(0,0,0,64)`
/// (`duDebugDrawCompactHeightfieldRegions`).
pub fn regions(chf: &CompactSnapshot) -> Layer {
    span_quads(REGIONS_LAYER, chf, |s| {
        if s.region != 0 {
            Color::from_int(u32::from(s.region), 192)
        } else {
            Color::rgba(0, 0, 0, 64)
        }
    })
}

fn contour_layer(name: &str, cset: &ContoursSnapshot, raw: bool) -> Layer {
    let mut l = Layer::new(name);
    let mut points = Vec::new();
    for (i, c) in cset.contours.iter().enumerate() {
        let col = Color::from_int(u32::from(c.region), 255);
        let verts = if raw { &c.raw_verts } else { &c.verts };
        let lift = if raw { (i & 1) as f32 } else { 0.5 };
        let pos = |v: &[i32; 4]| {
            cset.bmin
                + Vec3::new(
                    v[0] as f32 * cset.cs,
                    (v[1] as f32 + 1.0 + lift) * cset.ch,
                    v[2] as f32 * cset.cs,
                )
        };
        for j in 0..verts.len() {
            let (a, b) = (pos(&verts[j]), pos(&verts[(j + 1) % verts.len()]));
            l.line(a, b, col, if raw { 2.0 } else { 2.5 });
            points.push((a, col.darken()));
        }
    }
    for (p, c) in points {
        l.point(
            p,
            c,
            if l.name == RAW_CONTOURS_LAYER {
                2.0
            } else {
                3.0
            },
        );
    }
    l
}

/// The raw contours (`duDebugDrawRawContours`): a closed loop of lines per contour in
/// `duIntToCol(region, 255)`, a point per vertex, odd contours a cell height higher.
pub fn raw_contours(cset: &ContoursSnapshot) -> Layer {
    contour_layer(RAW_CONTOURS_LAYER, cset, true)
}

/// The simplified contours (`duDebugDrawContours`): a closed loop of 2.5-pixel lines per
/// contour in `duIntToCol(region, 255)`, a point per vertex.
pub fn contours(cset: &ContoursSnapshot) -> Layer {
    contour_layer(CONTOURS_LAYER, cset, false)
}

/// The poly mesh (`duDebugDrawPolyMesh`): each poly as a fan of triangles in its area colour
/// at 64, inner edges `duRGBA(0,48,64,32)` 1.5 px, boundary edges `duRGBA(0,48,64,220)`
/// 2.5 px, vertices `duRGBA(0,0,0,220)`.
pub fn poly_mesh(pm: &PolyMeshSnapshot) -> Layer {
    let mut l = Layer::new(POLY_MESH_LAYER);
    let v = |i: u16| pm.vertex(usize::from(i)).unwrap_or(Vec3::NAN);
    for (p, poly) in pm.polys.iter().enumerate() {
        let col = match pm.areas.get(p).copied().unwrap_or(0) {
            area::WALKABLE => Color::rgba(0, 192, 255, 64),
            a => Color::area(a).with_alpha(64),
        };
        for k in 2..poly.len() {
            l.triangle([v(poly[0]), v(poly[k - 1]), v(poly[k])], col);
        }
    }
    for boundary in [false, true] {
        for (poly, neis) in pm.polys.iter().zip(&pm.neis) {
            for (j, &n) in neis.iter().enumerate() {
                // 0xffff: no neighbour; the 0x8000 bit: a portal to the tile's border.
                let is_boundary = n & 0x8000 != 0;
                if is_boundary != boundary {
                    continue;
                }
                let (a, b) = (v(poly[j]), v(poly[(j + 1) % poly.len()]));
                if boundary {
                    l.line(a, b, Color::rgba(0, 48, 64, 220), 2.5);
                } else {
                    l.line(a, b, Color::rgba(0, 48, 64, 32), 1.5);
                }
            }
        }
    }
    for i in 0..pm.verts.len() {
        l.point(v(i as u16), Color::rgba(0, 0, 0, 220), 3.0);
    }
    l
}

/// The detail mesh (`duDebugDrawPolyMeshDetail`): each poly's triangles in
/// `duIntToCol(poly, 192)`.
pub fn detail_mesh(dm: &DetailMeshSnapshot) -> Layer {
    let mut l = Layer::new(DETAIL_MESH_LAYER);
    for (i, m) in dm.meshes.iter().enumerate() {
        let [vb, _, tb, tn] = m.map(|x| x as usize);
        let col = Color::from_int(i as u32, 192);
        for t in dm.tris.iter().skip(tb).take(tn) {
            let p = |k: usize| {
                dm.verts
                    .get(vb + usize::from(t[k]))
                    .copied()
                    .unwrap_or(Vec3::NAN)
            };
            l.triangle([p(0), p(1), p(2)], col);
        }
    }
    l
}
