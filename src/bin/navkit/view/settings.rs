//! `/api/build`: the build settings the page may change, checked, and the rebuild.

use std::time::Instant;

use serde_json::{Map, Value, json};

use navkit::BuildSettings;
use navkit::build::{Budget, build_solo_with};

use super::http::{self, Response};
use super::scene::counts;
use super::{BUILD_MAX_CELLS, BUILD_TIME_LIMIT, State};
use crate::json::num32;

/// The settings the page may change: name, smallest and largest value, whole number or not.
const SETTINGS: &[(&str, f64, f64, bool)] = &[
    ("cell_size", 0.05, 100.0, false),
    ("cell_height", 0.05, 100.0, false),
    ("agent_height", 0.0, 1000.0, false),
    ("agent_radius", 0.0, 1000.0, false),
    ("agent_max_climb", 0.0, 1000.0, false),
    ("agent_max_slope", 0.0, 90.0, false),
    ("region_min_size", 0.0, 1.0e5, false),
    ("region_merge_size", 0.0, 1.0e5, false),
    ("edge_max_len", 0.0, 1.0e5, false),
    ("edge_max_error", 0.0, 1.0e3, false),
    ("verts_per_poly", 3.0, 6.0, true),
    ("detail_sample_dist", 0.0, 1.0e4, false),
    ("detail_sample_max_error", 0.0, 1.0e4, false),
];

/// `base` with the fields of a build request in place; every field checked.
pub(super) fn settings_request(base: &BuildSettings, v: &Value) -> Result<BuildSettings, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object of settings"))?;
    let mut s = base.clone();
    for (key, value) in obj {
        let Some(&(name, lo, hi, whole)) = SETTINGS.iter().find(|(n, ..)| n == key) else {
            let names: Vec<&str> = SETTINGS.iter().map(|(n, ..)| *n).collect();
            return Err(Response::error(
                400,
                format!(
                    "unknown setting `{}` (known: {})",
                    http::clip(key),
                    names.join(", ")
                ),
            ));
        };
        let x = value
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| Response::error(400, format!("`{name}` must be a finite number")))?;
        if x < lo || x > hi || (whole && x.fract() != 0.0) {
            return Err(Response::error(
                400,
                format!(
                    "`{name}` = {x} is out of range: {}from {lo} to {hi}",
                    if whole { "a whole number " } else { "" }
                ),
            ));
        }
        let f = x as f32;
        match name {
            "cell_size" => s.cell_size = f,
            "cell_height" => s.cell_height = f,
            "agent_height" => s.agent_height = f,
            "agent_radius" => s.agent_radius = f,
            "agent_max_climb" => s.agent_max_climb = f,
            "agent_max_slope" => s.agent_max_slope = f,
            "region_min_size" => s.region_min_size = f,
            "region_merge_size" => s.region_merge_size = f,
            "edge_max_len" => s.edge_max_len = f,
            "edge_max_error" => s.edge_max_error = f,
            "verts_per_poly" => s.verts_per_poly = x as u32,
            "detail_sample_dist" => s.detail_sample_dist = f,
            "detail_sample_max_error" => s.detail_sample_max_error = f,
            _ => unreachable!("every name in SETTINGS is matched"),
        }
    }
    s.validate()
        .map_err(|e| Response::error(400, format!("invalid settings: {e}")))?;
    Ok(s)
}

pub(super) fn settings_json(s: &BuildSettings) -> Value {
    let mut m = Map::new();
    let all = [
        s.cell_size,
        s.cell_height,
        s.agent_height,
        s.agent_radius,
        s.agent_max_climb,
        s.agent_max_slope,
        s.region_min_size,
        s.region_merge_size,
        s.edge_max_len,
        s.edge_max_error,
        s.verts_per_poly as f32,
        s.detail_sample_dist,
        s.detail_sample_max_error,
    ];
    for ((name, ..), x) in SETTINGS.iter().zip(all) {
        m.insert((*name).to_string(), num32(x));
    }
    Value::Object(m)
}

pub(super) fn rebuild(st: &mut State, settings: BuildSettings) -> Result<Value, Response> {
    let Some(geom) = st.geometry.as_ref() else {
        return Err(Response::error(
            422,
            "the viewer was started on a saved navmesh: there is no geometry to rebuild from",
        ));
    };
    let budget = Budget::new()
        .time_limit(BUILD_TIME_LIMIT)
        .max_cells(BUILD_MAX_CELLS);
    let t = Instant::now();
    match build_solo_with(geom, &settings, &budget) {
        Ok(built) => {
            st.navmesh = built.navmesh;
            st.settings = settings;
            st.build_ms = t.elapsed().as_secs_f64() * 1e3;
            Ok(
                json!({"counts": counts(st), "settings": settings_json(&st.settings), "build_ms": st.build_ms}),
            )
        }
        Err(e) => Err(Response::error(422, format!("the build failed: {e}"))),
    }
}
