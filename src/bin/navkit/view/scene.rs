//! `/api/layers`: the scene as named layers of triangles, lines and points.

use glam::Vec3;
use serde_json::{Value, json};

use navkit::navmesh::NavMesh;

use super::State;
use super::settings::settings_json;
use crate::json::{num32, v3};

pub(super) fn counts(st: &State) -> Value {
    let polys = st.navmesh.polys();
    let mut detail_tris = 0usize;
    for tile in st.navmesh.tiles() {
        for poly in tile.polys() {
            detail_tris += poly.detail().map_or(0, |d| d.triangle_count());
        }
    }
    json!({
        "tiles": st.navmesh.tile_count(),
        "polys": polys.iter().filter(|p| !p.off_mesh).count(),
        "off_mesh_connections": polys.iter().filter(|p| p.off_mesh).count(),
        "detail_tris": detail_tris,
        "input_tris": st.geometry.as_ref().map_or(0, |g| g.mesh.tri_count()),
        "input_verts": st.geometry.as_ref().map_or(0, |g| g.mesh.vert_count()),
    })
}

/// An area's colour, after RecastDemo's (ground 0 and walkable 63 blue; others hashed to a hue).
fn area_color(area: u8) -> [u8; 4] {
    match area {
        0 | 63 => [0, 192, 255, 150],
        a => {
            let h = u32::from(a).wrapping_mul(2_654_435_761);
            [
                (h >> 24) as u8 | 64,
                (h >> 16) as u8 | 64,
                (h >> 8) as u8 | 64,
                160,
            ]
        }
    }
}

/// The scene as layers. Each layer: `name`, `kind` (`tris`, `lines` or `points`), `positions`
/// (flat xyz), `colors` (flat rgba bytes, one per vertex), and for the navmesh triangles the
/// poly ref of each triangle (`refs`, decimal strings).
pub(super) fn layers(st: &State) -> Value {
    let mut out = Vec::new();
    let round = |x: f32| num32(x);
    if let Some(g) = &st.geometry {
        let m = &g.mesh;
        let mut pos = Vec::with_capacity(m.tris.len() * 3);
        let mut col = Vec::with_capacity(m.tris.len() * 4);
        for tri in m.tris.chunks_exact(3) {
            let v = |i: i32| {
                let i = i as usize * 3;
                Vec3::new(m.verts[i], m.verts[i + 1], m.verts[i + 2])
            };
            let (a, b, c) = (v(tri[0]), v(tri[1]), v(tri[2]));
            let n = (b - a).cross(c - a).normalize_or_zero();
            // RecastDemo's: walkable slopes lighter, the rest darker, shaded by the normal.
            let walkable = n.y >= st.settings.agent_max_slope.to_radians().cos();
            let shade = 0.6 + 0.4 * n.y.abs();
            let base: [f32; 3] = if walkable {
                [200.0, 190.0, 170.0]
            } else {
                [150.0, 120.0, 110.0]
            };
            for p in [a, b, c] {
                pos.extend([round(p.x), round(p.y), round(p.z)]);
                col.extend([
                    json!((base[0] * shade) as u8),
                    json!((base[1] * shade) as u8),
                    json!((base[2] * shade) as u8),
                    json!(110),
                ]);
            }
        }
        out.push(json!({"name": "geometry", "kind": "tris", "positions": pos, "colors": col}));
    }
    let (mut tp, mut tc, mut trefs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lp, mut lc) = (Vec::new(), Vec::new());
    let (mut op, mut oc) = (Vec::new(), Vec::new());
    for tile in st.navmesh.tiles() {
        for poly in tile.polys() {
            let r = poly.poly_ref().to_u64().to_string();
            let color = area_color(poly.area());
            if let Some(d) = poly.detail() {
                for t in d.triangles() {
                    for p in t.verts {
                        tp.extend([round(p.x), round(p.y), round(p.z)]);
                        tc.extend(color.map(|c| json!(c)));
                    }
                    trefs.push(Value::String(r.clone()));
                }
                let verts: Vec<Vec3> = poly.vertices().collect();
                for (i, &a) in verts.iter().enumerate() {
                    let b = verts[(i + 1) % verts.len()];
                    for p in [a, b] {
                        lp.extend([round(p.x), round(p.y), round(p.z)]);
                        lc.extend([json!(0), json!(48), json!(64), json!(200)]);
                    }
                }
            } else {
                for p in poly.vertices() {
                    op.extend([round(p.x), round(p.y), round(p.z)]);
                    oc.extend([json!(255), json!(196), json!(0), json!(255)]);
                }
            }
        }
    }
    out.push(
        json!({"name": "navmesh", "kind": "tris", "positions": tp, "colors": tc, "refs": trefs}),
    );
    out.push(json!({"name": "poly outlines", "kind": "lines", "positions": lp, "colors": lc}));
    out.push(json!({"name": "off-mesh links", "kind": "lines", "positions": op, "colors": oc}));
    let (bmin, bmax) = match &st.geometry {
        Some(g) => {
            let b = g.mesh.bounds();
            (b.min, b.max)
        }
        None => navmesh_bounds(&st.navmesh),
    };
    json!({
        "source": st.source,
        "bmin": v3(bmin),
        "bmax": v3(bmax),
        "counts": counts(st),
        "settings": settings_json(&st.settings),
        "can_rebuild": st.geometry.is_some(),
        "build_ms": st.build_ms,
        "layers": out,
    })
}

fn navmesh_bounds(nav: &NavMesh) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in nav.polys() {
        for v in p.verts {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo.x > hi.x {
        (Vec3::ZERO, Vec3::ONE)
    } else {
        (lo, hi)
    }
}
