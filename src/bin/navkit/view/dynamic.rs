//! `navkit view`'s dynamics: tile-cache obstacles, a live crowd, scenarios and saving.
//!
//! The first obstacle or agent (or `POST /api/dynamic {"enabled": true}`) builds a tile cache of
//! the geometry with the current settings ("dynamic mode"); a crowd owns it, so the agents keep
//! walking while obstacles are carved in and out, and [`State::navmesh`] is then the cache's
//! navmesh: layers, paths and hover follow the obstacles. Routes (bodies are JSON; every bad
//! request gets a 4xx with a message):
//!
//! - `GET /api/dynamic` the state: `dynamic`, `tile_size`, `obstacles`, `agents`, `time`, the
//!   counts, the limits and the overlay `layers` (obstacles and agents, in `/api/layers`' form);
//! - `POST /api/dynamic {"enabled": true, "tile_size": 48}` enters (or leaves) dynamic mode;
//! - `POST /api/obstacles/add` an obstacle in the scenario format (`{"kind": "cylinder", "pos":
//!   [x, y, z], "radius": r, "height": h}`, `{"kind": "box", "bmin", "bmax"}`, `{"kind":
//!   "oriented_box", "center", "half_extents", "y_angle"}`);
//! - `POST /api/obstacles/remove {"id": n}`, `{"at": [x, y, z]}` (the obstacle standing there)
//!   or `{"all": true}`; every obstacle change is followed by the tile rebuilds it needs;
//! - `POST /api/crowd/add {"pos": [x, y, z]}` or `{"random": n, "seed": s}` (random agents, each
//!   with a random reachable target); `POST /api/crowd/target {"pos": [x, y, z]}` (every agent,
//!   or the one of `"id"`); `POST /api/crowd/remove {"id": n}`, `{"at": [x, y, z]}` or
//!   `{"all": true}`;
//! - `POST /api/crowd/step {"dt": 0.033, "steps": 1}` advances the crowd;
//! - `POST /api/crowd/options {"max_speed": 3.5, "separation": true, "avoidance_quality": 3,
//!   ...}` sets RecastDemo's crowd tool options for every agent;
//! - `GET /api/scenario` the current scenario (`navkit simulate`'s format, with the viewer's
//!   part under `view`), `POST /api/scenario` loads one;
//! - `GET /api/navmesh.mset`, `GET /api/tilecache.tset` the navmesh (RecastDemo's MSET) and, in
//!   dynamic mode, the tile cache (RecastDemo's TSET);
//! - `POST /api/save {"what": "navmesh" | "tilecache" | "scenario", "path": "out.bin"}` writes
//!   one of them (atomically) under the working directory.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use glam::Vec3;
use serde_json::{Value, json};

use navkit::agents::crowd::{
    AgentHandle, AgentParams, AgentState, Crowd, TargetState, update_flags,
};
use navkit::build::Budget;
use navkit::debug_draw::{self, Color, Layer, Primitive};
use navkit::navmesh::NavMesh;
use navkit::tilecache::{
    Obstacle, ObstacleRef, ObstacleShape, TSET_MAGIC, TileCache, TileCacheSettings,
};
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::tools::simulation::{AgentBehaviour, AgentSpec, Scenario, ViewState};
use navkit::{BuildSettings, NavMeshBuilder};

use super::http::{self, Request, Response};
use super::{BUILD_MAX_CELLS, BUILD_TIME_LIMIT, State};
use crate::json::{num32, v3};

mod crowd;
mod files;
mod obstacles;

use crowd::{
    CrowdOptions, add_agents, agent_params, bodies_layer, options_json, remove_agents, set_options,
    set_target, step, targets_layer,
};
use files::{dynamic_from, load_scenario, save, scenario, scenario_json};
use obstacles::{add_obstacle, remove_obstacle};

/// The page's script for all of this, embedded at build time.
pub const SCRIPT: &str = include_str!("dynamic.js");

/// The most obstacles at once (the tile cache's `max_obstacles`).
pub const MAX_OBSTACLES: usize = 256;
/// The most agents at once (the crowd's capacity).
pub const MAX_AGENTS: usize = 256;
/// The most crowd updates one step request may ask for.
pub const MAX_STEPS: u64 = 300;
/// The longest crowd update.
pub const MAX_DT: f64 = 0.1;
/// The most random agents one request may add.
pub const MAX_RANDOM: u64 = 100;
/// Tile sizes (cells) dynamic mode accepts.
const TILE_SIZES: std::ops::RangeInclusive<u64> = 8..=255;

/// The viewer's dynamic state: in dynamic mode, a crowd that owns the tile cache.
pub struct Dynamic {
    crowd: Option<Crowd<TileCache>>,
    tile_size: u32,
    /// Agents by id, in the order they were added.
    agents: Vec<(u32, AgentHandle)>,
    next_agent: u32,
    /// Simulated crowd seconds.
    time: f64,
    build_ms: f64,
    /// The last obstacle change: tiles rebuilt and its milliseconds.
    last_update: (usize, f64),
    /// The crowd tool's options, for every agent.
    options: CrowdOptions,
    /// The TSET file the viewer was started on (a fresh cache is loaded from it, there being
    /// no geometry to build one from).
    tset: Option<Arc<Vec<u8>>>,
    /// Timed obstacle events of a loaded scenario: kept for saving, not played here.
    events: Vec<navkit::tools::simulation::ObstacleEvent>,
}

impl Default for Dynamic {
    fn default() -> Self {
        Dynamic {
            crowd: None,
            tile_size: 48,
            agents: Vec::new(),
            next_agent: 1,
            time: 0.0,
            build_ms: 0.0,
            last_update: (0, 0.0),
            options: CrowdOptions::default(),
            tset: None,
            events: Vec::new(),
        }
    }
}

impl Dynamic {
    /// An empty state (no cache, no agents) that keeps the options and the TSET source.
    fn fresh(&self, tile_size: u32) -> Dynamic {
        Dynamic {
            tile_size,
            options: self.options,
            tset: self.tset.clone(),
            ..Dynamic::default()
        }
    }

    /// The tile cache's navmesh in dynamic mode.
    pub fn navmesh(&self) -> Option<&NavMesh> {
        self.crowd.as_ref().map(|c| c.navmesh())
    }

    fn agent_states(&self) -> Vec<(u32, AgentState)> {
        let Some(crowd) = &self.crowd else {
            return Vec::new();
        };
        self.agents
            .iter()
            .filter_map(|&(id, h)| crowd.agent(h).ok().map(|s| (id, s)))
            .collect()
    }

    fn obstacles(&self) -> Vec<Obstacle> {
        self.crowd
            .as_ref()
            .map(|c| c.tile_cache().obstacles())
            .unwrap_or_default()
    }
}

fn bad(message: impl Into<String>) -> Response {
    Response::error(400, message)
}

fn unprocessable(message: impl Into<String>) -> Response {
    Response::error(422, message)
}

/// A navkit error on a request's values: 400 for invalid values, 422 for full pools and queues.
fn refused(what: &str, e: navkit::Error) -> Response {
    match e {
        navkit::Error::InvalidArgument(_) | navkit::Error::Setting { .. } => {
            bad(format!("{what}: {e}"))
        }
        _ => unprocessable(format!("{what}: {e}")),
    }
}

/// A number field in `lo..=hi`.
fn number(v: &Value, key: &str, lo: f64, hi: f64) -> Result<Option<f32>, Response> {
    match v.get(key) {
        None => Ok(None),
        Some(x) => x
            .as_f64()
            .filter(|x| x.is_finite() && *x >= lo && *x <= hi)
            .map(|x| Some(x as f32))
            .ok_or_else(|| bad(format!("`{key}` must be a number from {lo} to {hi}"))),
    }
}

/// A tile cache of the geometry with the current settings (or, for a viewer of a TSET file,
/// that file's cache afresh), in a crowd.
fn build_dynamic(st: &State, tile_size: u32) -> Result<Dynamic, Response> {
    let t = Instant::now();
    let (cache, tile_size) = match (&st.geometry, &st.dynamic.tset) {
        (Some(geom), _) => {
            let cache_settings = TileCacheSettings {
                tile_size,
                max_obstacles: MAX_OBSTACLES as u32,
                ..TileCacheSettings::default()
            };
            let budget = crate::common::with_memory_limit(
                Budget::new()
                    .time_limit(BUILD_TIME_LIMIT)
                    .max_cells(BUILD_MAX_CELLS),
            );
            let cache = NavMeshBuilder::new(geom)
                .settings(st.settings.clone())
                .cache_settings(cache_settings)
                .budget(budget)
                .tile_cache()
                .map_err(|e| unprocessable(format!("the tile cache build failed: {e}")))?;
            (cache, tile_size)
        }
        (None, Some(bytes)) => {
            let cache = TileCache::from_tset_bytes(bytes, &[])
                .map_err(|e| unprocessable(format!("the tile cache did not load: {e}")))?;
            let file_size = cache.params().width.max(0) as u32;
            if tile_size != file_size {
                return Err(unprocessable(format!(
                    "the viewer was started on a TSET file: its tiles are {file_size} cells \
                     (there is no geometry to build others from)"
                )));
            }
            (cache, file_size)
        }
        (None, None) => {
            return Err(unprocessable(
                "the viewer was started on a saved navmesh: obstacles and crowds need the \
                 geometry (or a TSET file) to make a tile cache from",
            ));
        }
    };
    let params = agent_params(st);
    let crowd = Crowd::with_tile_cache(cache, MAX_AGENTS, params.radius)
        .map_err(|e| unprocessable(format!("the crowd could not be made: {e}")))?;
    Ok(Dynamic {
        crowd: Some(crowd),
        build_ms: t.elapsed().as_secs_f64() * 1e3,
        ..st.dynamic.fresh(tile_size)
    })
}

/// A viewer's start on a TSET file (RecastDemo's tile cache): `None` for other files; else
/// the settings its parameters give, a copy of its navmesh (the static one) and the dynamic
/// state with the cache in a crowd.
pub fn load_tile_cache(input: &Path) -> navkit::Result<Option<(BuildSettings, NavMesh, Dynamic)>> {
    use std::io::Read;
    let mut magic = [0u8; 4];
    let is_tset = std::fs::File::open(input)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && i32::from_le_bytes(magic) == TSET_MAGIC;
    if !is_tset {
        return Ok(None);
    }
    let cache = TileCache::load(input, &[])?;
    let bytes = std::fs::read(input).map_err(|e| {
        navkit::Error::InvalidArgument(format!("cannot read {}: {e}", input.display()))
    })?;
    let p = cache.params();
    let settings = BuildSettings {
        cell_size: p.cell_size,
        cell_height: p.cell_height,
        agent_height: p.walkable_height,
        agent_radius: p.walkable_radius,
        agent_max_climb: p.walkable_climb,
        edge_max_error: p.max_simplification_error,
        tile_size: p.width.max(0) as u32,
        ..BuildSettings::default()
    };
    let navmesh = NavMesh::from_mset_bytes(&cache.navmesh().to_mset_bytes())?;
    let radius = settings.agent_radius.max(0.05);
    let crowd = Crowd::with_tile_cache(cache, MAX_AGENTS, radius)?;
    Ok(Some((
        settings.clone(),
        navmesh,
        Dynamic {
            crowd: Some(crowd),
            tile_size: settings.tile_size,
            tset: Some(Arc::new(bytes)),
            ..Dynamic::default()
        },
    )))
}

/// Enters dynamic mode if not in it.
fn ensure_dynamic(st: &mut State) -> Result<(), Response> {
    if st.dynamic.crowd.is_none() {
        let events = std::mem::take(&mut st.dynamic.events);
        st.dynamic = build_dynamic(st, st.dynamic.tile_size)?;
        st.dynamic.events = events;
    }
    Ok(())
}

/// Rebuilds the touched tiles until done; records what it did.
fn settle(d: &mut Dynamic) -> Result<(), Response> {
    let Some(crowd) = d.crowd.as_mut() else {
        return Ok(());
    };
    let r = crowd
        .tile_cache_mut()
        .update_until_done()
        .map_err(|e| unprocessable(format!("the tile cache update failed: {e}")))?;
    d.last_update = (r.tiles_rebuilt, r.elapsed.as_secs_f64() * 1e3);
    Ok(())
}

/// The routes of this module and the methods they answer.
pub const ROUTES: [(&str, &str); 13] = [
    ("/dynamic.js", "GET"),
    ("/api/dynamic", "GET or POST"),
    ("/api/obstacles/add", "POST"),
    ("/api/obstacles/remove", "POST"),
    ("/api/crowd/add", "POST"),
    ("/api/crowd/target", "POST"),
    ("/api/crowd/remove", "POST"),
    ("/api/crowd/step", "POST"),
    ("/api/crowd/options", "POST"),
    ("/api/scenario", "GET or POST"),
    ("/api/navmesh.mset", "GET"),
    ("/api/tilecache.tset", "GET"),
    ("/api/save", "POST"),
];

/// Routes of this module; `None` for the others.
pub fn route(state: &Mutex<State>, req: &Request) -> Option<Response> {
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    let path = req.path.as_str();
    let post = |f: &dyn Fn(&mut State, &Value) -> Result<Value, Response>| match super::parse_body(
        &req.body,
    )
    .and_then(|v| f(&mut lock(), &v))
    {
        Ok(v) => Response::json(200, &v),
        Err(r) => r,
    };
    // A request that may change the navmesh shown: what was computed for it is dropped.
    let changing = |f: &dyn Fn(&mut State, &Value) -> Result<Value, Response>| {
        post(&|st: &mut State, v: &Value| {
            let r = f(st, v);
            if r.is_ok() {
                st.navmesh_changed();
            }
            r
        })
    };
    let r = match (req.method.as_str(), path) {
        ("GET", "/dynamic.js") => Response {
            status: 200,
            content_type: "text/javascript; charset=utf-8",
            body: SCRIPT.as_bytes().to_vec(),
        },
        ("GET", "/api/dynamic") => Response::json(200, &status(&lock())),
        ("POST", "/api/dynamic") => changing(&set_dynamic),
        ("POST", "/api/obstacles/add") => changing(&add_obstacle),
        ("POST", "/api/obstacles/remove") => changing(&remove_obstacle),
        ("POST", "/api/crowd/add") => post(&add_agents),
        ("POST", "/api/crowd/target") => post(&set_target),
        ("POST", "/api/crowd/remove") => post(&remove_agents),
        ("POST", "/api/crowd/step") => post(&step),
        ("POST", "/api/crowd/options") => post(&set_options),
        ("GET", "/api/scenario") => Response::json(200, &scenario_json(&lock())),
        ("POST", "/api/scenario") => {
            let text = match std::str::from_utf8(&req.body) {
                Ok(t) => t,
                Err(_) => return Some(bad("the scenario is not UTF-8 text")),
            };
            let mut st = lock();
            match load_scenario(&mut st, text) {
                Ok(v) => {
                    st.navmesh_changed();
                    Response::json(200, &v)
                }
                Err(r) => r,
            }
        }
        ("GET", "/api/navmesh.mset") => binary(lock().navmesh().to_mset_bytes()),
        ("GET", "/api/tilecache.tset") => match tset_bytes(&lock()) {
            Ok(b) => binary(b),
            Err(r) => r,
        },
        ("POST", "/api/save") => post(&save),
        // Another method on one of these paths: the viewer's 405 (view/mod.rs knows ROUTES).
        _ => return None,
    };
    Some(r)
}

fn binary(body: Vec<u8>) -> Response {
    Response {
        status: 200,
        content_type: "application/octet-stream",
        body,
    }
}

fn tset_bytes(st: &State) -> Result<Vec<u8>, Response> {
    st.dynamic
        .crowd
        .as_ref()
        .map(|c| c.tile_cache().to_tset_bytes())
        .ok_or_else(|| {
            unprocessable("there is no tile cache: add an obstacle or turn dynamic mode on first")
        })
}

/// The fields of an object body, refusing unknown ones.
fn fields<'a>(
    v: &'a Value,
    what: &str,
    known: &[&str],
) -> Result<&'a serde_json::Map<String, Value>, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| bad(format!("{what}: the body must be a JSON object")))?;
    if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(bad(format!(
            "{what}: unknown field `{}` (expected {})",
            http::clip(k),
            known.join(", ")
        )));
    }
    Ok(obj)
}

/// A whole number field in `lo..=hi`.
fn whole(v: &Value, key: &str, lo: u64, hi: u64) -> Result<Option<u64>, Response> {
    match v.get(key) {
        None => Ok(None),
        Some(x) => match x.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
            _ => Err(bad(format!(
                "`{key}` must be a whole number from {lo} to {hi}, not {}",
                http::clip(&x.to_string())
            ))),
        },
    }
}

fn flag(v: &Value, key: &str) -> Result<bool, Response> {
    match v.get(key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(bad(format!("`{key}` must be true or false"))),
    }
}

fn set_dynamic(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "dynamic mode", &["enabled", "tile_size"])?;
    let enabled = match v.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("`enabled` must be true or false")),
    };
    let tile_size = whole(v, "tile_size", *TILE_SIZES.start(), *TILE_SIZES.end())?
        .map_or(st.dynamic.tile_size, |n| n as u32);
    if !enabled {
        let events = std::mem::take(&mut st.dynamic.events);
        st.dynamic = Dynamic {
            events,
            ..st.dynamic.fresh(tile_size)
        };
    } else if st.dynamic.crowd.is_none() || tile_size != st.dynamic.tile_size {
        // Keep what there is: the scenario is carried over to the new cache.
        let mut s = scenario(st);
        s.view = None;
        st.dynamic = dynamic_from(st, &s, tile_size, true)?;
    }
    Ok(status(st))
}

/// `layer`'s primitives as `/api/layers` entries, one per kind (named `name` when the layer has
/// one kind, `name:tris`, `name:lines`, `name:points` otherwise).
pub fn layer_entries(layer: &Layer) -> Vec<Value> {
    let mut kinds: [(Vec<Value>, Vec<Value>); 3] = Default::default();
    for p in &layer.primitives {
        let k = match p {
            Primitive::Triangle { .. } => 0,
            Primitive::Line { .. } => 1,
            Primitive::Point { .. } => 2,
        };
        let c = p.color().to_array();
        for v in p.vertices() {
            kinds[k].0.extend([num32(v.x), num32(v.y), num32(v.z)]);
            kinds[k].1.extend(c.map(|x| json!(x)));
        }
    }
    let present = kinds.iter().filter(|k| !k.0.is_empty()).count();
    let mut out = Vec::new();
    for (k, (pos, col)) in kinds.into_iter().enumerate() {
        if pos.is_empty() {
            continue;
        }
        let kind = ["tris", "lines", "points"][k];
        let name = if present > 1 {
            format!("{}:{kind}", layer.name)
        } else {
            layer.name.clone()
        };
        out.push(json!({"name": name, "kind": kind, "positions": pos, "colors": col}));
    }
    out
}

fn obstacle_json(o: &Obstacle) -> Value {
    json!({
        "id": o.obstacle.0,
        "shape": crate::json::to_json(&o.shape),
        "state": crate::json::to_json(&o.state),
    })
}

fn agent_json(id: u32, a: &AgentState) -> Value {
    json!({
        "id": id,
        "pos": v3(a.position),
        "vel": v3(a.velocity),
        "desired_vel": v3(a.desired_velocity),
        "corners": a.corners.iter().map(|&c| v3(c)).collect::<Vec<_>>(),
        "target": v3(a.target),
        "target_state": crate::json::to_json(&a.target_state),
        "partial": !a.path_status.is_complete(),
        "radius": num32(a.params.radius),
        "height": num32(a.params.height),
    })
}

/// The dynamic state, with its overlay layers and the navmesh's counts.
fn status(st: &State) -> Value {
    let mut out = status_without_counts(st);
    out["counts"] = super::scene::counts(st);
    out
}

/// The dynamic state and its overlay layers.
fn status_without_counts(st: &State) -> Value {
    let d = &st.dynamic;
    let obstacles = d.obstacles();
    let agents = d.agent_states();
    let states: Vec<AgentState> = agents.iter().map(|a| a.1.clone()).collect();
    let mut layers = Vec::new();
    for l in [
        debug_draw::geometry::obstacles(&obstacles),
        bodies_layer(&states),
        debug_draw::agents::agents(&states),
        debug_draw::agents::corners(&states),
        debug_draw::agents::velocities(&states),
        targets_layer(&states),
    ] {
        layers.extend(layer_entries(&l));
    }
    json!({
        "dynamic": d.crowd.is_some(),
        "tile_size": d.tile_size,
        "tile_cache_ms": d.build_ms,
        "obstacles": obstacles.iter().map(obstacle_json).collect::<Vec<_>>(),
        "agents": agents.iter().map(|(id, a)| agent_json(*id, a)).collect::<Vec<_>>(),
        "time": d.time,
        "tiles_rebuilt": d.last_update.0,
        "update_ms": d.last_update.1,
        "events": d.events.len(),
        "options": options_json(&d.options),
        "limits": {
            "obstacles": MAX_OBSTACLES,
            "agents": MAX_AGENTS,
            "steps": MAX_STEPS,
            "dt": MAX_DT,
            "random": MAX_RANDOM,
        },
        "layers": layers,
    })
}

/// After a rebuild with new settings: dynamic mode is made again with them, its obstacles and
/// agents carried over. Returns what happened, for the rebuild's answer.
pub fn after_rebuild(st: &mut State) -> Value {
    if st.dynamic.crowd.is_none() {
        return json!({"dynamic": false});
    }
    let mut s = scenario(st);
    s.view = None;
    let tile_size = st.dynamic.tile_size;
    st.dynamic.crowd = None;
    match dynamic_from(st, &s, tile_size, true) {
        Ok(d) => {
            st.dynamic = d;
            json!({"dynamic": true, "obstacles": s.obstacles.len(), "agents": s.agents.len()})
        }
        Err(r) => {
            let message = String::from_utf8_lossy(&r.body).into_owned();
            st.dynamic = st.dynamic.fresh(tile_size);
            json!({"dynamic": false, "warning": format!("dynamic mode was left: {message}")})
        }
    }
}
