//! `/api/build`: the build settings the page may change (RecastDemo's settings panel, from the
//! library's table [`BuildSettings::FIELDS`]), checked, and the rebuild, solo or tiled, with
//! its counts, per-stage timings and warnings. A build runs off the state lock, with a
//! [`CancelToken`] the next build trips ([`build_request`]).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value, json};

use navkit::build::{Budget, BuildReport, CancelToken, Stage};
use navkit::navmesh::NavMesh;
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder, Partition};

use super::dynamic::CacheBuilt;
use super::http::{self, Response};
use super::{BUILD_MAX_CELLS, BUILD_TIME_LIMIT, State};
use crate::json::num32;

/// Keys of a build request besides the numeric fields.
const OTHER_KEYS: [&str; 2] = ["partition", "mode"];

/// The build in flight: its number, what it builds, its token, when it started and what it
/// asked for.
pub(crate) struct InFlight {
    id: u64,
    kind: BuildKind,
    cancel: CancelToken,
    started: Instant,
    settings: Value,
}

/// What a build in flight builds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BuildKind {
    /// A navmesh (`/api/build`), and in dynamic mode its tile cache too.
    Navmesh,
    /// The tile cache of dynamic mode, entered or remade with another tile size.
    TileCache,
}

impl BuildKind {
    fn name(self) -> &'static str {
        match self {
            BuildKind::Navmesh => "navmesh",
            BuildKind::TileCache => "tile_cache",
        }
    }
}

/// The build in flight as the page shows it (`null` without one): its number, what it builds
/// (`navmesh` or `tile_cache`), the seconds it has run and its settings.
pub(super) fn building_json(st: &State) -> Value {
    match &st.building {
        None => Value::Null,
        Some(b) => json!({
            "id": b.id,
            "kind": b.kind.name(),
            "seconds": b.started.elapsed().as_secs_f64(),
            "settings": b.settings,
        }),
    }
}

/// Cancels the build in flight, if any (only if of `kind`, when given): it will not change
/// the state.
pub(super) fn cancel_build(st: &mut State, kind: Option<BuildKind>) {
    if kind.is_none_or(|k| st.building.as_ref().is_some_and(|b| b.kind == k))
        && let Some(b) = st.building.take()
    {
        b.cancel.cancel();
    }
}

/// Registers a build of `kind` asked with `settings` as the one in flight, cancelling the one
/// before: its number (for [`end_build`]) and the budget to run it in, with the token the next
/// build trips. The caller then lets go of the lock and builds.
pub(super) fn start_build(st: &mut State, kind: BuildKind, settings: Value) -> (u64, Budget) {
    cancel_build(st, None);
    let id = st.next_build;
    st.next_build += 1;
    let cancel = CancelToken::new();
    st.building = Some(InFlight {
        id,
        kind,
        cancel: cancel.clone(),
        started: Instant::now(),
        settings,
    });
    (id, budget().cancel_token(cancel))
}

/// Ends build `id` under the lock again: `Ok` if it is still the one in flight (its result
/// may go in), else the 409 of a build that a later build, a scenario or leaving dynamic mode
/// cancelled.
pub(super) fn end_build(st: &mut State, id: u64) -> Result<(), Response> {
    if st.building.as_ref().map(|b| b.id) != Some(id) {
        return Err(Response::error(
            409,
            "this build was cancelled: a later build (or a scenario, or leaving dynamic mode) \
             replaced it",
        ));
    }
    st.building = None;
    Ok(())
}

/// What a build request asks for.
pub(super) struct BuildRequest {
    pub settings: BuildSettings,
    pub tiled: bool,
}

/// The fields of the settings panel: RecastDemo's label, group, unit, slider and the accepted
/// range of each.
pub(super) fn fields_json() -> Value {
    Value::Array(
        BuildSettings::FIELDS
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "label": f.label,
                    "group": f.group,
                    "unit": f.unit,
                    "slider": [num32(f.slider.0), num32(f.slider.1), num32(f.slider.2)],
                    "min": num32(f.min),
                    "max": num32(f.max),
                    "whole": f.whole,
                })
            })
            .collect(),
    )
}

/// The current settings with the fields of a build request in place; every field checked.
pub(super) fn settings_request(st: &State, v: &Value) -> Result<BuildRequest, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object of settings"))?;
    let mut s = st.settings.clone();
    let mut tiled = st.tiled;
    for (key, value) in obj {
        match key.as_str() {
            "partition" => {
                let name = value.as_str().ok_or_else(|| {
                    Response::error(
                        400,
                        "`partition` must be \"watershed\", \"monotone\" or \"layers\"",
                    )
                })?;
                s.partition = name.parse::<Partition>().map_err(|e| {
                    Response::error(400, format!("`partition`: {}", http::clip(&e)))
                })?;
            }
            "mode" => {
                tiled = match value.as_str() {
                    Some("solo") => false,
                    Some("tiled") => true,
                    _ => {
                        return Err(Response::error(400, "`mode` must be \"solo\" or \"tiled\""));
                    }
                };
            }
            _ => {
                let Some(field) = BuildSettings::field(key) else {
                    let names: Vec<&str> = BuildSettings::FIELDS
                        .iter()
                        .map(|f| f.name)
                        .chain(OTHER_KEYS)
                        .collect();
                    return Err(Response::error(
                        400,
                        format!(
                            "unknown setting `{}` (known: {})",
                            http::clip(key),
                            names.join(", ")
                        ),
                    ));
                };
                let x = value.as_f64().ok_or_else(|| {
                    Response::error(400, format!("`{}` must be a finite number", field.name))
                })?;
                field.check(x).map_err(|e| {
                    Response::error(400, format!("`{}` = {x} is out of range: {e}", field.name))
                })?;
                (field.set)(&mut s, x as f32);
            }
        }
    }
    s.validate()
        .map_err(|e| Response::error(400, format!("invalid settings: {e}")))?;
    Ok(BuildRequest { settings: s, tiled })
}

/// The settings as the page shows them: every field of the table, the partition and the mode.
pub(super) fn settings_json(st: &State) -> Value {
    let mut m = Map::new();
    for f in BuildSettings::FIELDS {
        m.insert(f.name.to_string(), num32((f.get)(&st.settings)));
    }
    let partition = match st.settings.partition {
        Partition::Watershed => "watershed",
        Partition::Monotone => "monotone",
        Partition::Layers => "layers",
    };
    m.insert("partition".into(), json!(partition));
    m.insert(
        "mode".into(),
        json!(if st.tiled { "tiled" } else { "solo" }),
    );
    Value::Object(m)
}

/// The budget of a build the page asks for (its limits; the caller adds a cancel token).
pub(super) fn budget() -> Budget {
    crate::common::with_memory_limit(
        Budget::new()
            .time_limit(BUILD_TIME_LIMIT)
            .max_cells(BUILD_MAX_CELLS),
    )
}

fn stage_ms(timings: &[(Stage, f64)]) -> Value {
    Value::Array(
        timings
            .iter()
            .map(|(s, ms)| json!({"stage": s.name(), "ms": ms}))
            .collect(),
    )
}

/// A solo build's report as the page shows it.
pub(super) fn solo_report(r: &BuildReport) -> Value {
    let counts: Map<String, Value> = r
        .counts()
        .named()
        .iter()
        .map(|(k, v)| ((*k).to_string(), json!(v)))
        .collect();
    json!({
        "mode": "solo",
        "total_ms": r.total_ms,
        "stages_ms": stage_ms(&r.timings_ms),
        "counts": counts,
        "warnings": r.warnings,
        "off_mesh_issues": crate::build::off_mesh_issues_json(&r.off_mesh_issues),
        "grid": {"width_cells": r.grid_width, "height_cells": r.grid_height},
    })
}

/// The navmesh of `req` built from `geom` within `budget`, with its report as the page shows
/// it (`mode`, `total_ms`, `stages_ms`, `counts`, `warnings`, `off_mesh_issues`, `grid`).
/// Needs no state: it runs off the lock.
fn build_navmesh(
    geom: &InputGeometry,
    req: &BuildRequest,
    budget: Budget,
) -> Result<(NavMesh, Value), Response> {
    let settings = &req.settings;
    let (navmesh, report) = if req.tiled {
        let built = NavMeshBuilder::new(geom)
            .settings(settings.clone())
            .budget(budget)
            .tiled()
            .map_err(|e| Response::error(422, format!("the tiled build failed: {e}")))?;
        let r = built.report();
        let counts: Map<String, Value> = r
            .totals
            .named()
            .iter()
            .map(|(k, v)| ((*k).to_string(), json!(v)))
            .collect();
        let report = json!({
            "mode": "tiled",
            "total_ms": r.total_ms,
            "stages_ms": stage_ms(&r.tiles.stage_ms),
            "stages_note": "summed over the tiles",
            "counts": counts,
            "warnings": r.warnings,
            "off_mesh_issues": crate::build::off_mesh_issues_json(&r.off_mesh_issues),
            "grid": {
                "tiles_x": r.grid.tiles_x, "tiles_z": r.grid.tiles_z,
                "tile_size_cells": settings.tile_size, "tiles_built": r.tiles.built,
                "tiles_non_empty": r.tiles.non_empty, "threads": r.threads,
            },
        });
        (built.into_navmesh(), report)
    } else {
        let built = NavMeshBuilder::new(geom)
            .settings(settings.clone())
            .budget(budget)
            .solo()
            .map_err(|e| Response::error(422, format!("the build failed: {e}")))?;
        let report = solo_report(built.report());
        (built.into_navmesh(), report)
    };
    Ok((navmesh, report))
}

/// The state's geometry (to build from), or the 422 of a viewer without one.
fn geometry(st: &State) -> Result<Arc<InputGeometry>, Response> {
    st.geometry.clone().ok_or_else(|| {
        Response::error(
            422,
            "the viewer was started on a saved navmesh: there is no geometry to rebuild from",
        )
    })
}

/// Puts a built navmesh in the state with its settings and report; the caches of the old
/// navmesh (stages, grid) are dropped.
fn install(st: &mut State, navmesh: NavMesh, report: Value, req: BuildRequest) {
    st.set_navmesh(navmesh);
    st.settings = req.settings;
    st.tiled = req.tiled;
    st.build = report;
}

/// Builds the navmesh of `req` from the geometry, holding the state (a scenario's settings);
/// a build in flight is cancelled first.
fn build_into(st: &mut State, req: BuildRequest) -> Result<(), Response> {
    let geom = geometry(st)?;
    cancel_build(st, None);
    let (navmesh, report) = build_navmesh(&geom, &req, budget())?;
    install(st, navmesh, report, req);
    Ok(())
}

/// The answer to a build: the new counts, settings and build report; dynamic mode (obstacles,
/// crowd) is made again on the new navmesh with `cache`, the tile cache built with the new
/// settings (`dynamic`: what happened).
fn rebuilt(st: &mut State, cache: Option<Result<CacheBuilt, Response>>) -> Value {
    let dynamic = super::dynamic::after_rebuild(st, cache);
    json!({
        "counts": super::scene::counts(st),
        "settings": settings_json(st),
        "build": st.build,
        "build_ms": st.build["total_ms"],
        "dynamic": dynamic,
    })
}

/// `POST /api/build` while holding the state (a scenario's settings, out of dynamic mode): the
/// rebuild and its answer ([`rebuilt`]).
pub(super) fn rebuild(st: &mut State, req: BuildRequest) -> Result<Value, Response> {
    build_into(st, req)?;
    Ok(rebuilt(st, None))
}

/// `POST /api/build`: the request checked and registered as the build in flight (cancelling
/// the one before, which then answers 409) under the lock ([`start_build`]); the build itself
/// off it, and in dynamic mode the tile cache with the new settings too, so every other request
/// is answered from the current navmesh meanwhile; the result put in under the lock again if
/// no later build (or scenario) replaced it ([`end_build`]), answered as [`rebuilt`].
pub(super) fn build_request(state: &Mutex<State>, v: &Value) -> Result<Value, Response> {
    let (geom, req, cache, id, budget) = {
        let mut st = super::lock(state);
        let req = settings_request(&st, v)?;
        let geom = geometry(&st)?;
        let cache = super::dynamic::rebuild_job(&st, &req.settings)?;
        let (id, budget) = start_build(&mut st, BuildKind::Navmesh, v.clone());
        (geom, req, cache, id, budget)
    };
    let built = build_navmesh(&geom, &req, budget.clone())
        .map(|nav| (nav, cache.map(|job| job.build(budget))));
    let mut st = super::lock(state);
    end_build(&mut st, id)?;
    let ((navmesh, report), cache) = built?;
    install(&mut st, navmesh, report, req);
    Ok(rebuilt(&mut st, cache))
}

/// A build request for `settings` (a scenario's), every field of the panel's table checked
/// against the viewer's ranges; the mode stays the current one.
pub(super) fn request_for(st: &State, settings: &BuildSettings) -> Result<BuildRequest, Response> {
    let mut m = Map::new();
    for f in BuildSettings::FIELDS {
        m.insert(f.name.to_string(), num32((f.get)(settings)));
    }
    let mut req = settings_request(st, &Value::Object(m))?;
    req.settings = settings.clone();
    req.settings
        .validate()
        .map_err(|e| Response::error(400, format!("invalid settings: {e}")))?;
    Ok(req)
}
