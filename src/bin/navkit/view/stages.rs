//! `/api/stages`: Recast's intermediate stages of the current settings
//! ([`navkit::build::build_solo_stages_with`] drawn by [`navkit::debug_draw::stages`]): the
//! heightfield (every span, and the walkable ones alone), the compact heightfield, the distance
//! field, the regions, the raw and simplified contours, the poly mesh and the detail mesh.
//! Built on the first request and kept until the next rebuild.
//!
//! - `GET /api/stages` lists them (`name`, `vertices`), without data;
//! - `POST /api/stages {"layers": ["stage.regions", ...]}` sends those layers, as
//!   [`super::encode`] does (bounded: big layers are thinned or left out, saying so).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};

use navkit::build::build_solo_stages_with;
use navkit::debug_draw::{DebugDraw, stages as dd};

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
    tiled_note: Option<&'static str>,
}

/// The stage layers of the current settings (built on first request).
fn built(st: &mut State) -> Result<Arc<Stages>, Response> {
    if let Some(s) = &st.stages {
        return Ok(Arc::clone(s));
    }
    let Some(geom) = &st.geometry else {
        return Err(Response::error(
            422,
            "the viewer was started on a saved navmesh: there are no build stages to show",
        ));
    };
    let t = Instant::now();
    let (_, stages) =
        build_solo_stages_with(geom, &st.settings, &budget().max_cells(STAGES_MAX_CELLS)).map_err(
            |e| {
                Response::error(
                    422,
                    format!(
                        "the build of the stages failed (the viewer builds stages of at most \
                         {STAGES_MAX_CELLS} cells: use a bigger cell size or build bounds): {e}"
                    ),
                )
            },
        )?;
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
        tiled_note: st.tiled.then_some(
            "the stages of a solo build with the same settings (the navmesh shown is tiled)",
        ),
    });
    st.stages = Some(Arc::clone(&s));
    Ok(s)
}

/// `GET /api/stages`: the stage layers' names and sizes.
pub(super) fn list(st: &mut State) -> Result<Value, Response> {
    let s = built(st)?;
    Ok(json!({
        "build_ms": s.build_ms,
        "note": s.tiled_note,
        "max_layer_vertices": MAX_LAYER_VERTICES,
        "max_response_vertices": MAX_RESPONSE_VERTICES,
        "layers": s.draw.layers.iter().map(|l| json!({"name": l.name, "vertices": vertex_count(l)})).collect::<Vec<_>>(),
    }))
}

/// `POST /api/stages {"layers": [...]}`: the named stage layers.
pub(super) fn send(st: &mut State, v: &Value) -> Result<Value, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object {\"layers\": [names]}"))?;
    if let Some(k) = obj.keys().find(|k| *k != "layers") {
        return Err(Response::error(
            400,
            format!("unknown field `{}` (expected layers)", http::clip(k)),
        ));
    }
    let names = obj
        .get("layers")
        .and_then(Value::as_array)
        .ok_or_else(|| Response::error(400, "`layers` must be an array of stage layer names"))?;
    let s = built(st)?;
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
    Ok(json!({"build_ms": s.build_ms, "note": s.tiled_note, "layers": out}))
}
