//! `/api/layers`: the scene as named layers from [`navkit::debug_draw`] (see [`super::encode`]
//! for the format), the bounds, the counts, the settings and what the last build reported.

use glam::Vec3;
use serde_json::{Map, Value, json};

use navkit::debug_draw::{self, geometry as dd_geometry, navmesh as dd};
use navkit::navmesh::NavMesh;
use navkit::navmesh::view::PolyType;

use super::State;
use super::encode::{MAX_RESPONSE_VERTICES, colors_b64, entries};
use super::settings::{fields_json, settings_json};
use crate::json::v3;

/// The navmesh's counts, read from the navmesh the viewer shows.
pub(super) fn counts(st: &State) -> Value {
    let nav = st.navmesh();
    let polys = nav.polys();
    let mut detail_tris = 0usize;
    for tile in nav.tiles() {
        for poly in tile.polys() {
            detail_tris += dd::poly_triangles(&poly).len();
        }
    }
    json!({
        "tiles": nav.tile_count(),
        "polys": polys.iter().filter(|p| !p.off_mesh).count(),
        "off_mesh_connections": polys.iter().filter(|p| p.off_mesh).count(),
        "detail_tris": detail_tris,
        "input_tris": st.geometry.as_ref().map_or(0, |g| g.mesh.tri_count()),
        "input_verts": st.geometry.as_ref().map_or(0, |g| g.mesh.vert_count()),
    })
}

/// Pushes `layer`'s entries with its default visibility.
fn push(out: &mut Vec<Value>, layer: &debug_draw::Layer, shown: bool) {
    let mut budget = MAX_RESPONSE_VERTICES;
    out.extend(entries(layer, &json!({ "shown": shown }), &mut budget));
}

/// The scene: every layer of the geometry and the navmesh. Each entry as
/// [`super::encode::entries`], with `shown` (on by default or not). The poly triangles
/// (`navmesh.polys`) also carry `refs` (the poly ref of each triangle, a decimal string),
/// `alt_colors_b64` (the same triangles coloured by `flags` and by `tile`), and the scene a
/// `polys` table from ref to `[area, flags, tile]`.
pub(super) fn layers(st: &State) -> Value {
    let nav = st.navmesh();
    let mut out = Vec::new();
    if let Some(g) = &st.geometry {
        push(
            &mut out,
            &dd_geometry::mesh(&g.mesh, st.settings.agent_max_slope),
            true,
        );
        if !g.convex_volumes.is_empty() {
            push(
                &mut out,
                &dd_geometry::convex_volumes(&g.convex_volumes),
                true,
            );
        }
    }
    let polys = dd::polys(nav, dd::PolyColoring::Area);
    let mut refs = Vec::new();
    let mut table = Map::new();
    for tile in nav.tiles() {
        for poly in tile.polys() {
            if poly.poly_type() != PolyType::Ground {
                continue;
            }
            let r = poly.poly_ref().to_u64().to_string();
            for _ in 0..dd::poly_triangles(&poly).len() {
                refs.push(Value::String(r.clone()));
            }
            table.insert(r, json!([poly.area(), poly.flags(), tile.index()]));
        }
    }
    let mut poly_entries = entries(
        &polys,
        &json!({"shown": true}),
        &mut MAX_RESPONSE_VERTICES.clone(),
    );
    if let [entry] = poly_entries.as_mut_slice()
        && entry.get("omitted").is_none()
    {
        entry["refs"] = Value::Array(refs);
        entry["alt_colors_b64"] = json!({
            "flags": colors_b64(&dd::polys(nav, dd::PolyColoring::Flags)),
            "tile": colors_b64(&dd::polys(nav, dd::PolyColoring::Tile)),
        });
    }
    out.extend(poly_entries);
    push(&mut out, &dd::detail_edges(nav), false);
    push(&mut out, &dd::outlines(nav, dd::Outlines::Detail), true);
    push(&mut out, &dd::vertices(nav), false);
    push(&mut out, &dd::tiles(nav), false);
    push(&mut out, &dd::off_mesh_links(nav), true);
    push(&mut out, &dd::bv_tree(nav), false);
    let (bmin, bmax) = match &st.geometry {
        Some(g) => {
            let b = g.mesh.bounds();
            (b.min, b.max)
        }
        None => navmesh_bounds(nav),
    };
    json!({
        "source": st.source,
        "bmin": v3(bmin),
        "bmax": v3(bmax),
        "counts": counts(st),
        "settings": settings_json(st),
        "fields": fields_json(),
        "can_rebuild": st.geometry.is_some(),
        "build": st.build,
        "building": super::settings::building_json(st),
        "polys": table,
        "limits": {
            "build_time_limit_s": super::BUILD_TIME_LIMIT.as_secs(),
            "build_max_cells": super::BUILD_MAX_CELLS,
            "stages_max_cells": super::stages::STAGES_MAX_CELLS,
            "stages_max_spans": super::stages::STAGES_MAX_SPANS,
            "max_layer_vertices": super::encode::MAX_LAYER_VERTICES,
            "max_response_vertices": MAX_RESPONSE_VERTICES,
        },
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
