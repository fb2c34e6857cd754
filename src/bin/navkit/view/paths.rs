//! `/api/path`: every kind of path between two points: the corridor, straight and smooth paths
//! as `navkit path` finds them, a spline through the corners, the grid A* path on the same
//! geometry, the turn-boundary follower's trajectories and the optimal (shortest) path with each
//! kind's length over it (as `navkit compare` runs them), with the query filter the request
//! gives (include/exclude flags, area costs).

use std::time::Instant;

use glam::Vec3;
use serde_json::{Value, json};

use navkit::debug_draw::{Layer, follower as dd_follower, grid as dd_grid, paths as dd_paths};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::tools::compare::{CompareSettings, Comparer, FollowerRun, GridSide, OptimalSide};

use super::State;
use super::http::{self, Response};
use crate::json::{num32, v3};

/// The most points of one trajectory or grid path sent (longer ones are thinned evenly, the
/// last point kept).
const MAX_SENT_POINTS: usize = 4000;
/// The largest area cost accepted.
const MAX_AREA_COST: f64 = 1.0e6;
/// Area ids a filter may cost (Detour's 64).
const AREAS: usize = 64;
/// How far the followers' turn boundaries are drawn either side of the path (as in pictures).
const BOUNDARY_HALF_WIDTH: f32 = 1.2;

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

/// A path request: the two points and the filter.
pub(super) struct PathRequest {
    pub start: Vec3,
    pub end: Vec3,
    pub filter: QueryFilter,
}

/// A 16-bit flag mask given as a whole number 0..=65535.
fn flag_mask(v: &Value, key: &str) -> Result<u16, Response> {
    v.as_u64()
        .filter(|&x| x <= u64::from(u16::MAX))
        .map(|x| x as u16)
        .ok_or_else(|| {
            Response::error(
                400,
                format!("`filter.{key}` must be a whole number from 0 to 65535 (a flag mask)"),
            )
        })
}

/// `{"include_flags": N, "exclude_flags": N, "area_costs": {"AREA": COST, ...}}` over the
/// default filter (RecastDemo's: every flag but disabled, water 10, grass 2, jump 1.5).
pub(super) fn filter_request(v: &Value) -> Result<QueryFilter, Response> {
    let obj = v.as_object().ok_or_else(|| {
        Response::error(
            400,
            "`filter` must be an object {include_flags, exclude_flags, area_costs}",
        )
    })?;
    let mut f = QueryFilter::default();
    for (key, value) in obj {
        match key.as_str() {
            "include_flags" => f.set_include_flags(flag_mask(value, key)?),
            "exclude_flags" => f.set_exclude_flags(flag_mask(value, key)?),
            "area_costs" => {
                let costs = value.as_object().ok_or_else(|| {
                    Response::error(
                        400,
                        "`filter.area_costs` must be an object from area id (\"0\" to \"63\") to cost",
                    )
                })?;
                if costs.len() > AREAS {
                    return Err(Response::error(
                        400,
                        format!(
                            "`filter.area_costs` has {} entries; there are {AREAS} areas",
                            costs.len()
                        ),
                    ));
                }
                for (area, cost) in costs {
                    let a = area
                        .parse::<u8>()
                        .ok()
                        .filter(|&a| usize::from(a) < AREAS)
                        .ok_or_else(|| {
                            Response::error(
                                400,
                                format!(
                                    "`filter.area_costs`: `{}` is not an area id (0 to 63)",
                                    http::clip(area)
                                ),
                            )
                        })?;
                    let c = cost
                        .as_f64()
                        .filter(|c| c.is_finite() && (0.0..=MAX_AREA_COST).contains(c))
                        .ok_or_else(|| {
                            Response::error(
                                400,
                                format!(
                                    "`filter.area_costs.{a}` must be a finite number from 0 to {MAX_AREA_COST}"
                                ),
                            )
                        })?;
                    f.set_area_cost(a, c as f32);
                }
            }
            _ => {
                return Err(Response::error(
                    400,
                    format!(
                        "unknown filter field `{}` (expected include_flags, exclude_flags and area_costs)",
                        http::clip(key)
                    ),
                ));
            }
        }
    }
    Ok(f)
}

pub(super) fn path_request(v: &Value) -> Result<PathRequest, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object {start, end, filter}"))?;
    if let Some(k) = obj
        .keys()
        .find(|k| !matches!(k.as_str(), "start" | "end" | "filter"))
    {
        return Err(Response::error(
            400,
            format!(
                "unknown field `{}` (expected start, end and filter)",
                http::clip(k)
            ),
        ));
    }
    let filter = match obj.get("filter") {
        Some(f) => filter_request(f)?,
        None => QueryFilter::default(),
    };
    Ok(PathRequest {
        start: point(v, "start")?,
        end: point(v, "end")?,
        filter,
    })
}

pub(super) fn refs_json(refs: impl IntoIterator<Item = navkit::query::PolyRef>) -> Value {
    Value::Array(
        refs.into_iter()
            .map(|r| Value::String(r.to_u64().to_string()))
            .collect(),
    )
}

/// At most [`MAX_SENT_POINTS`] of `points`, evenly, the last kept.
fn thin(points: &[Vec3]) -> Vec<Value> {
    let step = points.len().div_ceil(MAX_SENT_POINTS).max(1);
    let mut out: Vec<Value> = points.iter().step_by(step).map(|&p| v3(p)).collect();
    if let Some(&last) = points.last()
        && !(points.len() - 1).is_multiple_of(step)
    {
        out.push(v3(last));
    }
    out
}

fn follower_json(f: &FollowerRun) -> Value {
    json!({
        "arrived": f.arrived,
        "travelled_m": num32(f.travelled),
        "time_s": num32(f.time),
        "steps": f.trajectory.len(),
        "trajectory": thin(&f.trajectory),
    })
}

/// The grid the grid paths run on, built from the geometry with the current settings on first
/// use and kept until the next rebuild.
pub(super) fn grid(st: &mut State) -> Result<(), String> {
    if st.grid.is_none() {
        let Some(geom) = &st.geometry else {
            return Err(
                "no grid: the viewer was started on a saved navmesh, without geometry".into(),
            );
        };
        let t = Instant::now();
        let g = navkit::NavMeshBuilder::new(geom)
            .settings(st.settings.clone())
            .grid()
            .map_err(|e| format!("no grid: {e}"))?;
        st.grid_ms = t.elapsed().as_secs_f64() * 1e3;
        st.grid = Some(g);
    }
    Ok(())
}

/// Every path between the request's points.
pub(super) fn path(st: &mut State, req: &PathRequest) -> Value {
    // Layers off by default: how the paths were found.
    let mut how: Vec<Layer> = Vec::new();
    let mut answer = match navmesh_paths(st, req, &mut how) {
        Ok(answer) => answer,
        Err(failed) => return failed,
    };
    compared_paths(st, req, &mut answer, &mut how);
    answer["layers"] = Value::Array(path_layers(st, &answer, &how));
    answer
}

/// The corridor, straight and smooth paths as `navkit path` finds them, and the search's
/// nodes (pushed on `how`); `Err` is the whole answer when no path was found.
fn navmesh_paths(st: &State, req: &PathRequest, how: &mut Vec<Layer>) -> Result<Value, Value> {
    let (start, end) = (req.start, req.end);
    let mut q = NavMeshQuery::new(st.navmesh(), 2048)
        .map_err(|e| json!({"status": "failed", "error": e.to_string()}))?;
    let t = Instant::now();
    let found = crate::path::find(&mut q, start, end, &req.filter, None, None, None);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    // Detour's node pool after the path's findPath (the straight and smooth paths after
    // it do not search): RecastDemo's "nodes" view.
    let nodes = q.search_nodes();
    let closed = nodes.iter().filter(|n| n.closed).count();
    let search_nodes = json!({
        "count": nodes.len(),
        "closed": closed,
        "open": nodes.len() - closed,
    });
    how.push(dd_paths::search_nodes(&nodes));
    match found.result() {
        Ok(fp) => Ok(json!({
            "status": crate::json::status(fp.is_complete()),
            "start": v3(start),
            "goal": v3(end),
            "start_ref": fp.start.poly.to_u64().to_string(),
            "goal_ref": fp.goal.poly.to_u64().to_string(),
            "corridor": refs_json(fp.corridor.polys.iter().copied()),
            "straight": fp.straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
            "straight_length_m": num32(fp.straight.length()),
            "smooth": fp.smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
            "smooth_length_m": num32(fp.smooth.length()),
            "query_ms": ms,
            "search_nodes": search_nodes,
        })),
        Err(e) => Err(json!({
            "status": "failed",
            "start": v3(start),
            "goal": v3(end),
            "error": e.to_string(),
            "query_ms": ms,
        })),
    }
}

/// The other kinds, as `navkit compare` computes them (building the grid on first use), into
/// `answer`; the followers' turn boundaries and the grid search pushed on `how`.
fn compared_paths(st: &mut State, req: &PathRequest, answer: &mut Value, how: &mut Vec<Layer>) {
    let grid_was_built = st.grid.is_some();
    let grid_error = grid(st).err();
    if let Some(g) = st.grid.as_mut() {
        g.set_area_costs(&req.filter);
        if !grid_was_built {
            answer["grid_build_ms"] = json!(st.grid_ms);
        }
    }
    let settings = CompareSettings {
        filter: req.filter.clone(),
        ..CompareSettings::default()
    };
    let cmp = Comparer::new(st.navmesh(), st.grid.as_ref(), settings)
        .and_then(|mut c| c.compare(req.start, req.end).map(|r| (r, c)));
    let (c, comparer) = match cmp {
        Ok(done) => done,
        Err(e) => {
            answer["compare_error"] = json!(e.to_string());
            return;
        }
    };
    // The followers' turn boundaries (on the straight path, then on the grid path).
    let mut b = Layer::new(dd_follower::BOUNDARIES_LAYER);
    let runs = [
        c.navmesh.as_ref().and_then(|n| n.follower.as_ref()),
        c.grid.as_ref().and_then(|g| g.follower.as_ref()),
    ];
    for f in runs.into_iter().flatten() {
        b.primitives
            .extend(dd_follower::boundaries(&f.path, BOUNDARY_HALF_WIDTH).primitives);
    }
    how.push(b);
    if let Some(n) = &c.navmesh {
        answer["corridor_ms"] = json!(n.time_us / 1e3);
        answer["smooth_ms"] = json!(n.smooth_time_us / 1e3);
        answer["spline"] = Value::Array(thin(&n.spline));
        answer["spline_length_m"] = num32(n.spline_length);
        if let Some(f) = &n.follower {
            answer["follower"] = follower_json(f);
        }
    }
    match (&c.optimal, &c.optimal_error) {
        (Some(o), _) => answer["optimal"] = optimal_json(o),
        (None, Some(e)) => answer["optimal"] = json!({"status": "failed", "error": e.to_string()}),
        _ => {}
    }
    if let Some(r) = &c.over_optimal {
        answer["over_optimal"] = json!(r);
    }
    match (&c.grid, &c.grid_error, &grid_error) {
        (Some(g), _, _) => {
            answer["grid"] = grid_path_json(g);
            if let Some(grid) = st.grid.as_ref() {
                let ctx = comparer.grid_search();
                let visited = ctx.visited().count();
                let closed = ctx.visited().filter(|v| v.closed).count();
                answer["grid"]["search"] = json!({
                    "visited": visited,
                    "closed": closed,
                    "open": visited - closed,
                });
                how.push(dd_grid::mesh_search(ctx, grid));
            }
        }
        (None, Some(e), _) => answer["grid"] = json!({"status": "failed", "error": e.to_string()}),
        (None, None, Some(e)) => answer["grid"] = json!({"status": "failed", "error": e}),
        _ => {}
    }
}

/// The optimal path of a comparison, as the answer gives it.
fn optimal_json(o: &OptimalSide) -> Value {
    json!({
        "status": crate::json::status(o.status.is_complete()),
        "length_m": num32(o.length),
        "length_xz_m": num32(o.length_xz),
        "points": thin(&o.path),
        "expanded": o.expanded,
        "exact": o.exact,
        "query_ms": o.time_us / 1e3,
    })
}

/// The grid A* path of a comparison, as the answer gives it.
fn grid_path_json(g: &GridSide) -> Value {
    json!({
        "status": crate::json::status(g.status.is_complete()),
        "length_m": num32(g.length),
        "cells": g.cells,
        "waypoints": g.waypoints,
        "expanded": g.expanded,
        "query_ms": g.time_us / 1e3,
        "points": thin(&g.points),
        "waypoint_points": thin(&g.waypoint_points),
        "follower": g.follower.as_ref().map(follower_json),
    })
}

/// Points `[x, y, z]` of a JSON array.
fn points_of(v: &Value) -> Vec<Vec3> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    let c = |i: usize| p.get(i).and_then(Value::as_f64).map(|x| x as f32);
                    Some(Vec3::new(c(0)?, c(1)?, c(2)?))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The answer's paths as debug-draw layers ([`navkit::debug_draw::paths`]), each kind in its
/// own colour and dash: the corridor, the optimal path (under the others), the straight, smooth and spline paths, the grid path,
/// the follower's trajectory on the straight path and on the grid path
/// ([`navkit::debug_draw::paths::grid_trajectory`]); and the start and goal markers; then the
/// layers of `how` they were found (search nodes, turn boundaries), off by default.
fn path_layers(st: &State, a: &Value, how: &[Layer]) -> Vec<Value> {
    use navkit::debug_draw::paths as dd;
    let nav = st.navmesh();
    let mut layers = Vec::new();
    let corridor: Vec<navkit::query::PolyRef> = a["corridor"]
        .as_array()
        .map(|refs| {
            refs.iter()
                .filter_map(|r| r.as_str()?.parse::<u64>().ok())
                .filter_map(navkit::query::PolyRef::from_u64)
                .collect()
        })
        .unwrap_or_default();
    layers.push(dd::corridor(nav, &corridor));
    layers.push(dd::polyline(
        dd::PathKind::Optimal,
        &points_of(&a["optimal"]["points"]),
    ));
    layers.push(dd::polyline(
        dd::PathKind::Straight,
        &points_of(&a["straight"]),
    ));
    layers.push(dd::polyline(dd::PathKind::Smooth, &points_of(&a["smooth"])));
    layers.push(dd::polyline(dd::PathKind::Spline, &points_of(&a["spline"])));
    layers.push(dd::polyline(
        dd::PathKind::Grid,
        &points_of(&a["grid"]["points"]),
    ));
    layers.push(dd::polyline(
        dd::PathKind::Trajectory,
        &points_of(&a["follower"]["trajectory"]),
    ));
    layers.push(dd::grid_trajectory(&points_of(
        &a["grid"]["follower"]["trajectory"],
    )));
    let r = st.settings.agent_radius.max(0.1);
    let h = st.settings.agent_height.max(0.1);
    let pt = |k: &str| points_of(&json!([a[k]])).first().copied();
    layers.push(dd::endpoints(pt("start"), pt("goal"), r, h));
    let mut budget = super::encode::MAX_RESPONSE_VERTICES;
    let mut out: Vec<Value> = layers
        .iter()
        .flat_map(|l| {
            super::encode::entries(l, &json!({"shown": true, "group": "path"}), &mut budget)
        })
        .collect();
    for l in how {
        out.extend(super::encode::entries(
            l,
            &json!({"shown": false, "group": "path"}),
            &mut budget,
        ));
    }
    out
}
