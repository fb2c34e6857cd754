//! `navkit view`'s dynamics: tile-cache obstacles, a live crowd, scenarios and saving.
//!
//! The first obstacle or agent (or `POST /api/dynamic {"enabled": true}`) builds a tile cache of
//! the geometry with the current settings ("dynamic mode"); a crowd owns it, so the agents keep
//! walking while obstacles are carved in and out, and [`State::navmesh`] is then the cache's
//! navmesh: layers, paths and hover follow the obstacles. That tile cache is built off the
//! state lock as the build in flight, as a navmesh is ([`with_cache`], [`rebuild_job`]). Routes (bodies are JSON; every bad
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
//!   ...}` sets RecastDemo's crowd tool options for every agent, and navkit's: `"behaviours"`
//!   (the crowd behaviours; `false`: plain DetourCrowd, to compare) and `"upstream_update"`
//!   (upstream's `dtCrowd::update`: the same results on one core, to compare step times);
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
    AgentHandle, AgentParams, AgentState, Crowd, CrowdBehaviours, CrowdEngine, TargetState,
    update_flags,
};
use navkit::build::Budget;
use navkit::debug_draw::{self, Color, Layer, Primitive};
use navkit::navmesh::NavMesh;
use navkit::tilecache::{
    Obstacle, ObstacleRef, ObstacleShape, TSET_MAGIC, TileCache, TileCacheSettings,
};
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::tools::simulation::{AgentBehaviour, AgentSpec, Scenario, ViewState};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};

use super::State;
use super::http::{self, Request, Response};
use super::settings::{BuildKind, end_build, start_build};
use crate::json::{num32, v3};

mod crowd;
mod files;
mod obstacles;

use crowd::{
    CrowdOptions, add_agents, agent_params, agent_radius, agents_request, apply_crowd_mode,
    bodies_layer, options_json, remove_agents, set_options, set_target, step, targets_layer,
};
use files::{load_scenario, populate, save, scenario, scenario_json};
use obstacles::{add_obstacle, obstacle_request, remove_obstacle};

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

/// What a tile cache is built from (taken from the state under the lock, built off it): the
/// geometry with the settings, or, for a viewer of a TSET file, that file's cache afresh.
pub(super) struct CacheJob {
    source: CacheSource,
    settings: BuildSettings,
    tile_size: u32,
}

enum CacheSource {
    Geometry(Arc<InputGeometry>),
    Tset(Arc<Vec<u8>>),
}

/// A tile cache built in a crowd, to be put in the state ([`enter`], [`after_rebuild`]).
pub(super) struct CacheBuilt {
    crowd: Crowd<TileCache>,
    tile_size: u32,
    ms: f64,
}

/// The job of a tile cache of the state's level with `settings` and `tiles` of that many cells;
/// the 422 of a viewer of a saved navmesh (nothing to make one from).
fn cache_job(st: &State, settings: &BuildSettings, tile_size: u32) -> Result<CacheJob, Response> {
    let source = match (&st.geometry, &st.dynamic.tset) {
        (Some(geom), _) => CacheSource::Geometry(Arc::clone(geom)),
        (None, Some(bytes)) => CacheSource::Tset(Arc::clone(bytes)),
        (None, None) => {
            return Err(unprocessable(
                "the viewer was started on a saved navmesh: obstacles and crowds need the \
                 geometry (or a TSET file) to make a tile cache from",
            ));
        }
    };
    Ok(CacheJob {
        source,
        settings: settings.clone(),
        tile_size,
    })
}

/// In dynamic mode, the job of its tile cache with the new `settings` of a rebuild.
pub(super) fn rebuild_job(
    st: &State,
    settings: &BuildSettings,
) -> Result<Option<CacheJob>, Response> {
    match st.dynamic.crowd {
        None => Ok(None),
        Some(_) => cache_job(st, settings, st.dynamic.tile_size).map(Some),
    }
}

impl CacheJob {
    /// The tile cache built within `budget` (no state needed: it runs off the lock), in a crowd.
    pub(super) fn build(self, budget: Budget) -> Result<CacheBuilt, Response> {
        let t = Instant::now();
        let (cache, tile_size) = match &self.source {
            CacheSource::Geometry(geom) => {
                let cache_settings = TileCacheSettings {
                    tile_size: self.tile_size,
                    max_obstacles: MAX_OBSTACLES as u32,
                    ..TileCacheSettings::default()
                };
                let cache = NavMeshBuilder::new(geom)
                    .settings(self.settings.clone())
                    .cache_settings(cache_settings)
                    .budget(budget)
                    .tile_cache()
                    .map_err(|e| unprocessable(format!("the tile cache build failed: {e}")))?;
                (cache, self.tile_size)
            }
            CacheSource::Tset(bytes) => {
                let cache = TileCache::from_tset_bytes(bytes, &[])
                    .map_err(|e| unprocessable(format!("the tile cache did not load: {e}")))?;
                let file_size = cache.params().width.max(0) as u32;
                if self.tile_size != file_size {
                    return Err(unprocessable(format!(
                        "the viewer was started on a TSET file: its tiles are {file_size} cells \
                         (there is no geometry to build others from)"
                    )));
                }
                (cache, file_size)
            }
        };
        let crowd = Crowd::with_tile_cache(cache, MAX_AGENTS, agent_radius(&self.settings))
            .map_err(|e| unprocessable(format!("the crowd could not be made: {e}")))?;
        Ok(CacheBuilt {
            crowd,
            tile_size,
            ms: t.elapsed().as_secs_f64() * 1e3,
        })
    }
}

/// The tile cache of the state's level with its settings, built holding the state (a
/// scenario's).
fn build_dynamic(st: &State, tile_size: u32) -> Result<CacheBuilt, Response> {
    cache_job(st, &st.settings, tile_size)?.build(super::settings::budget())
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
    let crowd = Crowd::with_tile_cache(cache, MAX_AGENTS, agent_radius(&settings))?;
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

/// Puts a built tile cache in the state as dynamic mode, with the obstacles, agents and kept
/// events there are (out of dynamic mode, only the events).
fn enter(st: &mut State, built: CacheBuilt) -> Result<(), Response> {
    let mut s = scenario(st);
    s.view = None;
    st.dynamic = populate(st, built, &s)?;
    st.navmesh_changed();
    Ok(())
}

/// The tile size of the tile cache a request needs first: `None` in dynamic mode.
fn entering(st: &State) -> Option<u32> {
    st.dynamic.crowd.is_none().then_some(st.dynamic.tile_size)
}

/// Refuses a request that needs dynamic mode out of it ([`with_cache`] enters it first).
fn ensure_dynamic(st: &State) -> Result<(), Response> {
    match st.dynamic.crowd {
        Some(_) => Ok(()),
        None => Err(unprocessable("not in dynamic mode")),
    }
}

/// A request's check giving the tile size of a tile cache it needs first ([`with_cache`]).
type Needs = dyn Fn(&State, &Value) -> Result<Option<u32>, Response>;
/// A request's answer, holding the state.
type Handler = dyn Fn(&mut State, &Value) -> Result<Value, Response>;

/// Answers a request that needs dynamic mode with `f`, holding the state. `needs` checks the
/// request and gives the tile size of a tile cache to build first (`None` if there is one):
/// that build is registered as the build in flight, runs off the lock (so every other request
/// is answered meanwhile) and is put in ([`enter`]) before `f` only if no later build (or
/// scenario) replaced it; else this request answers 409 ([`start_build`], [`end_build`]).
fn with_cache(
    state: &Mutex<State>,
    v: &Value,
    needs: &Needs,
    f: &Handler,
) -> Result<Value, Response> {
    let (job, id, budget) = {
        let mut st = super::lock(state);
        let Some(tile_size) = needs(&st, v)? else {
            return f(&mut st, v);
        };
        let job = cache_job(&st, &st.settings, tile_size)?;
        let shown = json!({"tile_size": tile_size});
        let (id, budget) = start_build(&mut st, BuildKind::TileCache, shown);
        (job, id, budget)
    };
    let built = job.build(budget);
    let mut st = super::lock(state);
    end_build(&mut st, id)?;
    enter(&mut st, built?)?;
    f(&mut st, v)
}

/// `r`, what was computed for the navmesh shown dropped if it is `Ok` (a request that may have
/// changed that navmesh).
fn changed(st: &mut State, r: Result<Value, Response>) -> Result<Value, Response> {
    if r.is_ok() {
        st.navmesh_changed();
    }
    r
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
            changed(st, r)
        })
    };
    // A request that needs dynamic mode, entered first off the lock ([`with_cache`]).
    let cached = |needs: &Needs, f: &Handler| match super::parse_body(&req.body)
        .and_then(|v| with_cache(state, &v, needs, f))
    {
        Ok(v) => Response::json(200, &v),
        Err(r) => r,
    };
    let r = match (req.method.as_str(), path) {
        ("GET", "/dynamic.js") => Response {
            status: 200,
            content_type: "text/javascript; charset=utf-8",
            body: SCRIPT.as_bytes().to_vec(),
        },
        ("GET", "/api/dynamic") => Response::json(200, &status(&lock())),
        ("POST", "/api/dynamic") => cached(&dynamic_needs, &|st, v| {
            let r = set_dynamic(st, v);
            changed(st, r)
        }),
        ("POST", "/api/obstacles/add") => cached(
            &|st, v| obstacle_request(st, v).map(|_| entering(st)),
            &|st, v| {
                let r = add_obstacle(st, v);
                changed(st, r)
            },
        ),
        ("POST", "/api/obstacles/remove") => changing(&remove_obstacle),
        ("POST", "/api/crowd/add") => cached(
            &|st, v| agents_request(st, v).map(|_| entering(st)),
            &add_agents,
        ),
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

/// What `POST /api/dynamic` asks for, checked: whether dynamic mode is on, and its tile size.
fn dynamic_request(st: &State, v: &Value) -> Result<(bool, u32), Response> {
    fields(v, "dynamic mode", &["enabled", "tile_size"])?;
    let enabled = match v.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("`enabled` must be true or false")),
    };
    let tile_size = whole(v, "tile_size", *TILE_SIZES.start(), *TILE_SIZES.end())?
        .map_or(st.dynamic.tile_size, |n| n as u32);
    Ok((enabled, tile_size))
}

/// The tile cache `POST /api/dynamic` needs first: entering dynamic mode, or another tile
/// size (the obstacles and agents there are are carried over to it, [`enter`]).
fn dynamic_needs(st: &State, v: &Value) -> Result<Option<u32>, Response> {
    let (enabled, tile_size) = dynamic_request(st, v)?;
    let new = st.dynamic.crowd.is_none() || tile_size != st.dynamic.tile_size;
    Ok((enabled && new).then_some(tile_size))
}

/// `POST /api/dynamic` with its tile cache in place ([`dynamic_needs`]): leaving dynamic mode
/// (a tile cache in flight cancelled too), or the state.
fn set_dynamic(st: &mut State, v: &Value) -> Result<Value, Response> {
    let (enabled, tile_size) = dynamic_request(st, v)?;
    if !enabled {
        super::settings::cancel_build(st, Some(BuildKind::TileCache));
        let events = std::mem::take(&mut st.dynamic.events);
        st.dynamic = Dynamic {
            events,
            ..st.dynamic.fresh(tile_size)
        };
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
        "activity": crate::json::to_json(&a.activity),
        "stuck": a.stuck.map(|c| c.name()),
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

/// After a rebuild with new settings: dynamic mode is made again with `built` (its tile cache
/// built with them, [`rebuild_job`]), its obstacles and agents carried over. Returns what
/// happened, for the rebuild's answer.
pub fn after_rebuild(st: &mut State, built: Option<Result<CacheBuilt, Response>>) -> Value {
    if st.dynamic.crowd.is_none() {
        return json!({"dynamic": false});
    }
    let mut s = scenario(st);
    s.view = None;
    let tile_size = st.dynamic.tile_size;
    st.dynamic.crowd = None;
    let built = built.unwrap_or_else(|| {
        Err(unprocessable(
            "no tile cache was built with the new settings",
        ))
    });
    match built.and_then(|b| populate(st, b, &s)) {
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
