//! `/api/stages`: Recast's intermediate stages of the current settings
//! ([`navkit::build::SoloBuild::stages`] drawn by [`navkit::debug_draw::stages`]): the
//! heightfield (every span, and the walkable ones alone), the compact heightfield, the distance
//! field, the regions, the raw and simplified contours, the poly mesh and the detail mesh.
//! Built on the first request and kept until the next rebuild.
//!
//! When the navmesh is tiled, the stages are those of one tile, as RecastDemo's Tile Mesh
//! sample shows them ([`navkit::build::tiled::TiledNavMesh::tile_stages`] of a tiled build
//! kept for them: the tile's own build, its heightfield with its border): the tile asked for (`"tile": [x, z]`), the tile under a point
//! (`"at": [x, y, z]`), else the last one shown, else the centre tile.
//!
//! - `GET /api/stages` lists them (`name`, `vertices`), without data, with the tile (`tile`:
//!   `x`, `z`, its bounds and border bounds, the grid's size, the tile's counts; null for a solo
//!   navmesh);
//! - `POST /api/stages {"tile": [x, z]}` (or `{"at": [x, y, z]}`) lists those of that tile;
//! - `POST /api/stages {"layers": ["stage.regions", ...], "tile": [x, z]}` sends those layers,
//!   as [`super::encode`] does (bounded: big layers are thinned or left out, saying so).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};

use navkit::TileCoord;
use navkit::build::SoloStages;
use navkit::build::tiled::TileGrid;
use navkit::debug_draw::{DebugDraw, stages as dd};
use navkit::{Error, InputGeometry, NavMeshBuilder};

use super::State;
use super::encode::{MAX_LAYER_VERTICES, MAX_RESPONSE_VERTICES, entries, vertex_count};
use super::http::{self, Response};
use super::settings::budget;

/// The most grid cells a stages build may have (the stages are copies of the whole
/// heightfield: their memory grows with it).
pub(super) const STAGES_MAX_CELLS: u64 = 4_000_000;
/// The most heightfield spans drawn (each is a box of 12 triangles).
pub(super) const STAGES_MAX_SPANS: usize = 400_000;

/// The stage layers of the current settings, and how long building them took.
pub(crate) struct Stages {
    draw: DebugDraw,
    build_ms: f64,
    /// What the stages are of (a tile of the tiled build, or the solo build).
    note: String,
    /// The tile, for a tiled navmesh: its coordinate and the JSON the answers carry.
    tile: Option<(TileCoord, Value)>,
}

/// Which tile's stages a request asks for (tiled navmeshes only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum TileChoice {
    /// The last tile shown, else the centre tile.
    Default,
    /// This tile.
    Tile(TileCoord),
    /// The tile under this point.
    At([f32; 3]),
}

/// The tile choice of a request body: `"tile": [x, z]` (two whole numbers) or
/// `"at": [x, y, z]` (finite numbers), not both; neither is [`TileChoice::Default`].
fn tile_choice(obj: &serde_json::Map<String, Value>) -> Result<TileChoice, Response> {
    match (obj.get("tile"), obj.get("at")) {
        (Some(_), Some(_)) => Err(Response::error(
            400,
            "give `tile` ([x, z]) or `at` ([x, y, z]), not both",
        )),
        (Some(t), None) => {
            let bad = || {
                Response::error(
                    400,
                    format!(
                        "`tile` must be [x, z], two whole numbers (a tile's column and row), \
                         not {}",
                        http::clip(&t.to_string())
                    ),
                )
            };
            let a = t.as_array().filter(|a| a.len() == 2).ok_or_else(bad)?;
            let n = |v: &Value| v.as_i64().and_then(|n| i32::try_from(n).ok());
            match (n(&a[0]), n(&a[1])) {
                (Some(x), Some(z)) => Ok(TileChoice::Tile(TileCoord::new(x, z))),
                _ => Err(bad()),
            }
        }
        (None, Some(p)) => {
            let bad = || {
                Response::error(
                    400,
                    format!(
                        "`at` must be [x, y, z], three finite numbers, not {}",
                        http::clip(&p.to_string())
                    ),
                )
            };
            let a = p.as_array().filter(|a| a.len() == 3).ok_or_else(bad)?;
            let mut out = [0.0f32; 3];
            for (o, v) in out.iter_mut().zip(a) {
                *o = v
                    .as_f64()
                    .map(|f| f as f32)
                    .filter(|f| f.is_finite())
                    .ok_or_else(bad)?;
            }
            Ok(TileChoice::At(out))
        }
        (None, None) => Ok(TileChoice::Default),
    }
}

/// The tile grid of a tiled build of `geom` with the current settings.
fn tile_grid(st: &State, geom: &InputGeometry) -> Result<TileGrid, Response> {
    let (bmin, bmax) = geom.mesh.bounds().into();
    TileGrid::new(bmin, bmax, &st.settings)
        .map_err(|e| Response::error(422, format!("no tile grid with these settings: {e}")))
}

/// The tile `choice` names on `grid`, checked to be in it (400 if not).
fn resolve_tile(st: &State, grid: &TileGrid, choice: TileChoice) -> Result<TileCoord, Response> {
    let tile = match choice {
        TileChoice::Default => st
            .stages
            .as_ref()
            .and_then(|s| s.tile.as_ref().map(|t| t.0))
            .unwrap_or(TileCoord::new(grid.tiles_x / 2, grid.tiles_z / 2)),
        TileChoice::Tile(t) => t,
        TileChoice::At(p) => grid.tile_at(glam::Vec3::from_array(p)).ok_or_else(|| {
            Response::error(
                400,
                format!(
                    "the point ({}, {}, {}) is outside the tile grid (x {} .. {}, z {} .. {})",
                    p[0], p[1], p[2], grid.bmin.x, grid.bmax.x, grid.bmin.z, grid.bmax.z
                ),
            )
        })?,
    };
    if !(0..grid.tiles_x).contains(&tile.x) || !(0..grid.tiles_z).contains(&tile.z) {
        return Err(Response::error(
            400,
            format!(
                "tile ({}, {}) is outside the {} x {} tile grid (x in 0..{}, z in 0..{})",
                tile.x, tile.z, grid.tiles_x, grid.tiles_z, grid.tiles_x, grid.tiles_z
            ),
        ));
    }
    Ok(tile)
}

fn stages_failed(e: Error) -> Response {
    let status = if matches!(e, Error::InvalidArgument(_)) {
        400
    } else {
        422
    };
    Response::error(
        status,
        format!(
            "the build of the stages failed (the viewer builds stages of at most \
             {STAGES_MAX_CELLS} cells: use a bigger cell size or build bounds): {e}"
        ),
    )
}

/// The stage layers of the current settings (built on first request; for a tiled navmesh, of
/// the tile `choice` names, built again when another tile is asked for).
fn built(st: &mut State, choice: TileChoice) -> Result<Arc<Stages>, Response> {
    let Some(geom) = &st.geometry else {
        return Err(Response::error(
            422,
            "the viewer was started on a saved navmesh: there are no build stages to show",
        ));
    };
    let t = Instant::now();
    let budget = budget().max_cells(STAGES_MAX_CELLS);
    let (stages, note, tile): (SoloStages, String, Option<(TileCoord, Value)>) = if st.tiled {
        let grid = tile_grid(st, geom)?;
        let coord = resolve_tile(st, &grid, choice)?;
        if let Some(s) = &st.stages
            && s.tile.as_ref().map(|t| t.0) == Some(coord)
        {
            return Ok(Arc::clone(s));
        }
        if st.stage_tiles.is_none() {
            let tiled = NavMeshBuilder::new(geom)
                .settings(st.settings.clone())
                .budget(super::settings::budget())
                .tiled()
                .map_err(stages_failed)?;
            st.stage_tiles = Some(tiled);
        }
        let tiles = st.stage_tiles.as_ref().expect("built above");
        let ts = tiles.tile_stages(coord, &budget).map_err(stages_failed)?;
        let bounds = grid.tile_bounds(coord);
        let c = &ts.config;
        let counts: serde_json::Map<String, Value> = ts
            .counts
            .named()
            .iter()
            .map(|(k, v)| ((*k).to_string(), json!(v)))
            .collect();
        let info = json!({
            "x": coord.x, "z": coord.z,
            "tiles_x": grid.tiles_x, "tiles_z": grid.tiles_z,
            "bounds": [bounds.min.to_array(), bounds.max.to_array()],
            "border_cells": c.border_size,
            "border_bounds": [c.bmin, c.bmax],
            "counts": counts,
            "has_polys": ts.data.is_some(),
            "warnings": ts.warnings,
        });
        let note = format!(
            "the stages of tile ({}, {}) of the {} x {} tiled build: its heightfield and compact \
             heightfield with their {}-cell border{}",
            coord.x,
            coord.z,
            grid.tiles_x,
            grid.tiles_z,
            c.border_size,
            if ts.counts.rasterized_tris == 0 {
                "; no triangle is near this tile"
            } else if ts.data.is_none() {
                "; this tile has no polygons"
            } else {
                ""
            }
        );
        (ts.stages, note, Some((coord, info)))
    } else {
        if choice != TileChoice::Default {
            return Err(Response::error(
                400,
                "the navmesh is solo: its stages are the whole build's, there are no tiles \
                 (rebuild it tiled to see a tile's stages)",
            ));
        }
        if let Some(s) = &st.stages {
            return Ok(Arc::clone(s));
        }
        let built = NavMeshBuilder::new(geom)
            .settings(st.settings.clone())
            .budget(budget)
            .capture_stages(true)
            .solo()
            .map_err(stages_failed)?;
        let stages = built.into_parts().2.unwrap_or_default();
        (stages, "the stages of the solo build".to_string(), None)
    };
    let spans = stages.heightfield.spans.len();
    if spans > STAGES_MAX_SPANS {
        return Err(Response::error(
            422,
            format!(
                "the heightfield has {spans} spans, more than the {STAGES_MAX_SPANS} the viewer \
                 draws: use a bigger cell size or build bounds"
            ),
        ));
    }
    let mut walkable = stages.heightfield.clone();
    walkable.spans.retain(|s| s.area != 0);
    let mut walkable_layer = dd::heightfield(&walkable);
    walkable_layer.name = "stage.walkable".into();
    let mut draw = DebugDraw::new();
    draw.push(dd::heightfield(&stages.heightfield));
    draw.push(walkable_layer);
    draw.layers
        .extend(dd::all(&stages).layers.into_iter().skip(1));
    let s = Arc::new(Stages {
        draw,
        build_ms: t.elapsed().as_secs_f64() * 1e3,
        note,
        tile,
    });
    st.stages = Some(Arc::clone(&s));
    Ok(s)
}

/// `GET /api/stages` (or a `POST` without `layers`): the stage layers' names and sizes, of the
/// tile `choice` names for a tiled navmesh.
pub(super) fn list(st: &mut State, choice: TileChoice) -> Result<Value, Response> {
    let s = built(st, choice)?;
    Ok(json!({
        "build_ms": s.build_ms,
        "note": s.note,
        "tile": s.tile.as_ref().map(|t| &t.1),
        "max_layer_vertices": MAX_LAYER_VERTICES,
        "max_response_vertices": MAX_RESPONSE_VERTICES,
        "layers": s.draw.layers.iter().map(|l| json!({"name": l.name, "vertices": vertex_count(l)})).collect::<Vec<_>>(),
    }))
}

/// `POST /api/stages {"layers": [...], "tile": [x, z]}`: the named stage layers (of that
/// tile); without `layers`, their list.
pub(super) fn send(st: &mut State, v: &Value) -> Result<Value, Response> {
    let obj = v.as_object().ok_or_else(|| {
        Response::error(
            400,
            "the body must be an object {\"layers\": [names], \"tile\": [x, z]}",
        )
    })?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["layers", "tile", "at"].contains(&k.as_str()))
    {
        return Err(Response::error(
            400,
            format!(
                "unknown field `{}` (expected layers, tile or at)",
                http::clip(k)
            ),
        ));
    }
    let choice = tile_choice(obj)?;
    let Some(names) = obj.get("layers") else {
        return list(st, choice);
    };
    let names = names
        .as_array()
        .ok_or_else(|| Response::error(400, "`layers` must be an array of stage layer names"))?;
    let s = built(st, choice)?;
    if names.len() > s.draw.layers.len() {
        return Err(Response::error(
            400,
            format!(
                "`layers` names {} layers; there are {}",
                names.len(),
                s.draw.layers.len()
            ),
        ));
    }
    let mut budget = MAX_RESPONSE_VERTICES;
    let mut out = Vec::new();
    for n in names {
        let name = n
            .as_str()
            .ok_or_else(|| Response::error(400, "`layers` must be an array of strings"))?;
        let layer = s.draw.layer(name).ok_or_else(|| {
            let known: Vec<&str> = s.draw.names().collect();
            Response::error(
                400,
                format!(
                    "no stage layer `{}` (known: {})",
                    http::clip(name),
                    known.join(", ")
                ),
            )
        })?;
        out.extend(entries(
            layer,
            &json!({"shown": true, "group": "stages"}),
            &mut budget,
        ));
    }
    Ok(json!({
        "build_ms": s.build_ms,
        "note": s.note,
        "tile": s.tile.as_ref().map(|t| &t.1),
        "layers": out,
    }))
}
