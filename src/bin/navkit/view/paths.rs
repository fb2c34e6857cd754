//! `/api/path`: the paths between two points, as `navkit path` finds them.

use std::time::Instant;

use glam::Vec3;
use serde_json::{Value, json};

use navkit::query::{NavMeshQuery, QueryFilter};

use super::State;
use super::http::{self, Response};
use crate::json::{num32, v3};

/// A point `[x, y, z]` of finite numbers.
pub(super) fn point(v: &Value, key: &str) -> Result<Vec3, Response> {
    let bad = || {
        Response::error(
            400,
            format!("`{key}` must be [x, y, z], three finite numbers (at most 1e7 in size)"),
        )
    };
    let arr = v.get(key).and_then(Value::as_array).ok_or_else(bad)?;
    if arr.len() != 3 {
        return Err(bad());
    }
    let mut p = [0f32; 3];
    for (i, x) in arr.iter().enumerate() {
        let f = x.as_f64().ok_or_else(bad)?;
        if !f.is_finite() || f.abs() > 1e7 {
            return Err(bad());
        }
        p[i] = f as f32;
    }
    Ok(Vec3::from_array(p))
}

pub(super) fn path_request(v: &Value) -> Result<(Vec3, Vec3), Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object {start, end}"))?;
    if let Some(k) = obj.keys().find(|k| *k != "start" && *k != "end") {
        return Err(Response::error(
            400,
            format!("unknown field `{}` (expected start and end)", http::clip(k)),
        ));
    }
    Ok((point(v, "start")?, point(v, "end")?))
}

pub(super) fn refs_json(refs: impl IntoIterator<Item = navkit::query::PolyRef>) -> Value {
    Value::Array(
        refs.into_iter()
            .map(|r| Value::String(r.to_u64().to_string()))
            .collect(),
    )
}

/// A path between two points, as `navkit path` finds it (default search box and filter).
pub(super) fn path(st: &State, start: Vec3, end: Vec3) -> Value {
    let mut q = match NavMeshQuery::new(&st.navmesh, 2048) {
        Ok(q) => q,
        Err(e) => return json!({"status": "failed", "error": e.to_string()}),
    };
    let t = Instant::now();
    let answer = crate::path::find(&mut q, start, end, &QueryFilter::default(), None);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    match answer.result() {
        Ok(fp) => json!({
            "status": crate::json::status(fp.path.is_complete()),
            "start": v3(start),
            "goal": v3(end),
            "start_ref": fp.start.poly.to_u64().to_string(),
            "goal_ref": fp.end.poly.to_u64().to_string(),
            "corridor": refs_json(fp.path.polys.iter().copied()),
            "straight": fp.straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
            "straight_length_m": num32(fp.straight.length()),
            "smooth": fp.smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
            "smooth_length_m": num32(fp.smooth.length()),
            "query_ms": ms,
        }),
        Err(e) => json!({
            "status": "failed",
            "start": v3(start),
            "goal": v3(end),
            "error": e.to_string(),
        }),
    }
}
