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

use navkit::BuildSettings;
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

use super::http::{self, Request, Response};
use super::{BUILD_MAX_CELLS, BUILD_TIME_LIMIT, State};
use crate::json::{num32, v3};

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
    crowd: Option<Crowd<'static>>,
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
            .map(|c| c.obstacles())
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

/// RecastDemo's crowd tool options: speed and acceleration, separation and its weight, the
/// update flags and the avoidance quality (preset 0..=3: low, medium, good, high).
#[derive(Clone, Copy, Debug, PartialEq)]
struct CrowdOptions {
    max_speed: f32,
    max_acceleration: f32,
    separation_weight: f32,
    update_flags: u8,
    avoidance_quality: u8,
}

impl Default for CrowdOptions {
    fn default() -> Self {
        let p = AgentParams::default();
        CrowdOptions {
            max_speed: p.max_speed,
            max_acceleration: p.max_acceleration,
            separation_weight: p.separation_weight,
            update_flags: p.update_flags,
            avoidance_quality: p.obstacle_avoidance_type,
        }
    }
}

/// The update flags by name, as the page and the answers name them.
const FLAGS: [(&str, u8); 5] = [
    ("anticipate_turns", update_flags::ANTICIPATE_TURNS),
    ("obstacle_avoidance", update_flags::OBSTACLE_AVOIDANCE),
    ("separation", update_flags::SEPARATION),
    ("optimize_vis", update_flags::OPTIMIZE_VIS),
    ("optimize_topo", update_flags::OPTIMIZE_TOPO),
];

fn options_json(o: &CrowdOptions) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("max_speed".into(), num32(o.max_speed));
    m.insert("max_acceleration".into(), num32(o.max_acceleration));
    m.insert("separation_weight".into(), num32(o.separation_weight));
    for (name, bit) in FLAGS {
        m.insert(name.into(), json!(o.update_flags & bit != 0));
    }
    m.insert("avoidance_quality".into(), json!(o.avoidance_quality));
    Value::Object(m)
}

/// The parameters of the viewer's agents: RecastDemo's, sized by the build settings, with the
/// crowd options.
fn agent_params(st: &State) -> AgentParams {
    let mut p = AgentParams::with_radius(st.settings.agent_radius.max(0.05));
    p.height = st.settings.agent_height.max(0.1);
    let o = &st.dynamic.options;
    p.max_speed = o.max_speed;
    p.max_acceleration = o.max_acceleration;
    p.separation_weight = o.separation_weight;
    p.update_flags = o.update_flags;
    p.obstacle_avoidance_type = o.avoidance_quality;
    p
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

/// `POST /api/crowd/options`: any of the options, applied to every agent and the new ones.
fn set_options(st: &mut State, v: &Value) -> Result<Value, Response> {
    let mut known = vec![
        "max_speed",
        "max_acceleration",
        "separation_weight",
        "avoidance_quality",
    ];
    known.extend(FLAGS.iter().map(|f| f.0));
    fields(v, "crowd options", &known)?;
    let mut o = st.dynamic.options;
    if let Some(x) = number(v, "max_speed", 0.01, 100.0)? {
        o.max_speed = x;
    }
    if let Some(x) = number(v, "max_acceleration", 0.01, 1000.0)? {
        o.max_acceleration = x;
    }
    if let Some(x) = number(v, "separation_weight", 0.0, 100.0)? {
        o.separation_weight = x;
    }
    if let Some(q) = whole(v, "avoidance_quality", 0, 3)? {
        o.avoidance_quality = q as u8;
    }
    for (name, bit) in FLAGS {
        if v.get(name).is_some() {
            if flag(v, name)? {
                o.update_flags |= bit;
            } else {
                o.update_flags &= !bit;
            }
        }
    }
    st.dynamic.options = o;
    let params = agent_params(st);
    if let Some(crowd) = st.dynamic.crowd.as_mut() {
        for &(_, h) in &st.dynamic.agents {
            crowd
                .set_agent_params(h, params)
                .map_err(|e| refused("the options were refused", e))?;
        }
    }
    Ok(status(st))
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
            let budget = Budget::new()
                .time_limit(BUILD_TIME_LIMIT)
                .max_cells(BUILD_MAX_CELLS);
            let cache = TileCache::build_with_budget(geom, &st.settings, &cache_settings, &budget)
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
        .and_then(|mut tc| tc.update_until_done())
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
        (method, _) => match ROUTES.iter().find(|(p, _)| *p == path) {
            Some((_, allowed)) => Response::error(
                405,
                format!(
                    "{} is not allowed on {} (use {allowed})",
                    http::clip(method),
                    http::clip(path)
                ),
            ),
            None => return None,
        },
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
        .and_then(|c| c.tile_cache())
        .map(|tc| tc.to_tset_bytes())
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

/// Every number of an obstacle shape finite and at most 1e7 in size.
fn check_shape(shape: &ObstacleShape) -> Result<(), Response> {
    let nums: Vec<f32> = match *shape {
        ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        } => vec![pos.x, pos.y, pos.z, radius, height],
        ObstacleShape::Box { bmin, bmax } => {
            bmin.to_array().into_iter().chain(bmax.to_array()).collect()
        }
        ObstacleShape::OrientedBox {
            center,
            half_extents,
            y_angle,
        } => center
            .to_array()
            .into_iter()
            .chain(half_extents.to_array())
            .chain([y_angle])
            .collect(),
    };
    if nums.iter().any(|x| !x.is_finite() || x.abs() > 1e7) {
        return Err(bad(
            "every number of an obstacle must be finite and at most 1e7 in size",
        ));
    }
    if let ObstacleShape::Box { bmin, bmax } = shape
        && bmin.cmpgt(*bmax).any()
    {
        return Err(bad(format!(
            "the box's bmin {bmin} is above its bmax {bmax} on some axis"
        )));
    }
    Ok(())
}

fn parse_shape(v: &Value) -> Result<ObstacleShape, Response> {
    let shape: ObstacleShape = serde_json::from_value(v.clone()).map_err(|e| {
        bad(format!(
            "not an obstacle ({e}); expected {{\"kind\": \"cylinder\", \"pos\", \"radius\", \
             \"height\"}}, {{\"kind\": \"box\", \"bmin\", \"bmax\"}} or {{\"kind\": \
             \"oriented_box\", \"center\", \"half_extents\", \"y_angle\"}}"
        ))
    })?;
    check_shape(&shape)?;
    Ok(shape)
}

/// Adds an obstacle to the crowd's tile cache (not settled).
fn add_to_cache(
    d: &mut Dynamic,
    shape: &ObstacleShape,
    what: &str,
) -> Result<ObstacleRef, Response> {
    let crowd = d.crowd.as_mut().expect("dynamic mode");
    // Detour finishes an obstacle (adding or removing it) only when it rebuilds a tile layer
    // it touches: one that touches none would stay "processing", then "removing", for ever
    // and keep its slot.
    if crowd
        .tile_cache()
        .is_some_and(|tc| tc.layers_touched(shape) == 0)
    {
        let (lo, hi) = shape.bounds();
        return Err(unprocessable(format!(
            "{what}: its box {lo} .. {hi} touches no tile layer of the navmesh (put it on the \
             navmesh)"
        )));
    }
    crowd.add_obstacle(shape).map_err(|e| refused(what, e))
}

fn add_obstacle(st: &mut State, v: &Value) -> Result<Value, Response> {
    let shape = parse_shape(v)?;
    if st.dynamic.obstacles().len() >= MAX_OBSTACLES {
        return Err(unprocessable(format!(
            "there are {MAX_OBSTACLES} obstacles already, the most the viewer keeps: remove some"
        )));
    }
    ensure_dynamic(st)?;
    let id = add_to_cache(&mut st.dynamic, &shape, "the obstacle was refused")?;
    settle(&mut st.dynamic)?;
    let mut out = status(st);
    out["added"] = json!(id.0);
    Ok(out)
}

/// True if `p` stands inside the obstacle's footprint (within its height, with 1 unit of
/// slack below and above).
fn contains(shape: &ObstacleShape, p: Vec3) -> bool {
    let (bmin, bmax) = shape.bounds();
    if p.y < bmin.y - 1.0 || p.y > bmax.y + 1.0 {
        return false;
    }
    match *shape {
        ObstacleShape::Cylinder { pos, radius, .. } => (p.x - pos.x).hypot(p.z - pos.z) <= radius,
        ObstacleShape::Box { bmin, bmax } => {
            p.x >= bmin.x && p.x <= bmax.x && p.z >= bmin.z && p.z <= bmax.z
        }
        ObstacleShape::OrientedBox {
            center,
            half_extents: h,
            y_angle,
        } => {
            // Back into the box's frame: the inverse of x' = c x + s z, z' = -s x + c z.
            let (s, c) = y_angle.sin_cos();
            let (dx, dz) = (p.x - center.x, p.z - center.z);
            let (lx, lz) = (c * dx - s * dz, s * dx + c * dz);
            lx.abs() <= h.x && lz.abs() <= h.z
        }
    }
}

fn shape_centre(shape: &ObstacleShape) -> Vec3 {
    let (a, b) = shape.bounds();
    (a + b) * 0.5
}

fn remove_obstacle(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "obstacle removal", &["id", "at", "all"])?;
    let given = ["id", "at", "all"]
        .iter()
        .filter(|k| v.get(**k).is_some())
        .count();
    if given != 1 {
        return Err(bad(
            "give exactly one of `id` (an obstacle id), `at` ([x, y, z]) and `all` (true)",
        ));
    }
    let obstacles = st.dynamic.obstacles();
    let live = |o: &&Obstacle| o.state != navkit::tilecache::ObstacleState::Removing;
    let targets: Vec<ObstacleRef> = if flag(v, "all")? {
        obstacles.iter().filter(live).map(|o| o.obstacle).collect()
    } else if v.get("all").is_some() {
        Vec::new()
    } else if let Some(id) = v.get("id") {
        let id = id
            .as_u64()
            .filter(|&n| n <= u64::from(u32::MAX))
            .ok_or_else(|| bad("`id` must be an obstacle id (a whole number)"))?;
        let Some(o) = obstacles
            .iter()
            .filter(live)
            .find(|o| u64::from(o.obstacle.0) == id)
        else {
            return Err(Response::error(
                404,
                format!("there is no obstacle {id} (GET /api/dynamic lists them)"),
            ));
        };
        vec![o.obstacle]
    } else {
        let p = super::paths::point(v, "at")?;
        let hit = obstacles
            .iter()
            .filter(live)
            .filter(|o| contains(&o.shape, p))
            .min_by(|a, b| {
                let d = |o: &Obstacle| shape_centre(&o.shape).distance(p);
                d(a).total_cmp(&d(b))
            });
        match hit {
            Some(o) => vec![o.obstacle],
            None => {
                return Err(Response::error(404, format!("no obstacle stands at {p}")));
            }
        }
    };
    for (i, r) in targets.iter().enumerate() {
        if let Some(crowd) = st.dynamic.crowd.as_mut() {
            crowd
                .remove_obstacle(*r)
                .map_err(|e| refused("the obstacle could not be removed", e))?;
        }
        // Detour queues at most 64 requests: settle as we go.
        if i % 32 == 31 {
            settle(&mut st.dynamic)?;
        }
    }
    settle(&mut st.dynamic)?;
    let mut out = status(st);
    out["removed"] = json!(targets.iter().map(|r| r.0).collect::<Vec<_>>());
    Ok(out)
}

fn add_agents(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "adding agents", &["pos", "random", "seed", "target"])?;
    let random = whole(v, "random", 1, MAX_RANDOM)?;
    let seed = whole(v, "seed", 0, u64::MAX)?.unwrap_or(1);
    let target = if v.get("target").is_some() {
        Some(super::paths::point(v, "target")?)
    } else {
        None
    };
    let specs: Vec<(Vec3, Option<Vec3>)> = match (v.get("pos"), random) {
        (Some(_), None) => vec![(super::paths::point(v, "pos")?, target)],
        (None, Some(n)) => {
            if st.dynamic.agents.len() + n as usize > MAX_AGENTS {
                return Err(too_many_agents(st.dynamic.agents.len(), n as usize));
            }
            ensure_dynamic(st)?;
            let nav = st.navmesh();
            let mut cmp = Comparer::new(nav, None, CompareSettings::default())
                .map_err(|e| unprocessable(format!("no random points: {e}")))?;
            let pairs = cmp
                .random_pairs(n as usize, seed)
                .map_err(|e| unprocessable(format!("no random points: {e}")))?;
            if pairs.is_empty() {
                return Err(unprocessable(
                    "no connected random points were found on this navmesh",
                ));
            }
            pairs
                .into_iter()
                .map(|(a, b)| (a, Some(target.unwrap_or(b))))
                .collect()
        }
        _ => {
            return Err(bad(
                "give either `pos` ([x, y, z], one agent) or `random` (how many random agents)",
            ));
        }
    };
    if st.dynamic.agents.len() + specs.len() > MAX_AGENTS {
        return Err(too_many_agents(st.dynamic.agents.len(), specs.len()));
    }
    ensure_dynamic(st)?;
    let params = agent_params(st);
    let mut added = Vec::new();
    for (pos, target) in specs {
        let id = add_agent(&mut st.dynamic, pos, target, params)
            .map_err(|e| refused("the agent was refused", e))?;
        added.push(id);
    }
    let mut out = status(st);
    out["added"] = json!(added);
    Ok(out)
}

fn too_many_agents(have: usize, more: usize) -> Response {
    unprocessable(format!(
        "{have} agents and {more} more would pass the viewer's limit of {MAX_AGENTS} agents"
    ))
}

fn add_agent(
    d: &mut Dynamic,
    pos: Vec3,
    target: Option<Vec3>,
    params: AgentParams,
) -> navkit::Result<u32> {
    let crowd = d
        .crowd
        .as_mut()
        .ok_or_else(|| navkit::Error::InvalidArgument("not in dynamic mode".into()))?;
    let h = crowd.add_agent(pos, params)?;
    if let Some(t) = target
        && let Err(e) = crowd.request_move_target(h, t)
    {
        let _ = crowd.remove_agent(h);
        return Err(e);
    }
    let id = d.next_agent;
    d.next_agent += 1;
    d.agents.push((id, h));
    Ok(id)
}

fn agent_id(v: &Value, d: &Dynamic) -> Result<Option<(usize, AgentHandle)>, Response> {
    let Some(x) = v.get("id") else {
        return Ok(None);
    };
    let id = x
        .as_u64()
        .ok_or_else(|| bad("`id` must be an agent id (a whole number)"))?;
    d.agents
        .iter()
        .position(|(i, _)| u64::from(*i) == id)
        .map(|k| Some((k, d.agents[k].1)))
        .ok_or_else(|| {
            Response::error(
                404,
                format!("there is no agent {id} (GET /api/dynamic lists them)"),
            )
        })
}

fn set_target(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "crowd target", &["pos", "id"])?;
    let p = super::paths::point(v, "pos")?;
    let one = agent_id(v, &st.dynamic)?;
    let handles: Vec<AgentHandle> = match one {
        Some((_, h)) => vec![h],
        None => st.dynamic.agents.iter().map(|a| a.1).collect(),
    };
    if let Some(crowd) = st.dynamic.crowd.as_mut() {
        for h in handles {
            crowd
                .request_move_target(h, p)
                .map_err(|e| refused("the target was refused", e))?;
        }
    }
    Ok(status(st))
}

fn remove_agents(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "agent removal", &["id", "at", "all"])?;
    let all = flag(v, "all")?;
    let by_id = agent_id(v, &st.dynamic)?;
    let at = match v.get("at") {
        Some(_) => Some(super::paths::point(v, "at")?),
        None => None,
    };
    if [all, by_id.is_some(), at.is_some()]
        .iter()
        .filter(|b| **b)
        .count()
        != 1
    {
        return Err(bad(
            "give exactly one of `id` (an agent id), `at` ([x, y, z]) and `all` (true)",
        ));
    }
    let one = match (by_id, at) {
        (Some(a), _) => Some(a),
        (None, Some(p)) => {
            // The agent whose body is under the point (half a metre of slack around it).
            let hit = st
                .dynamic
                .agent_states()
                .into_iter()
                .zip(0..)
                .filter(|((_, a), _)| {
                    let d = Vec3::new(a.position.x - p.x, 0.0, a.position.z - p.z).length();
                    d <= a.params.radius + 0.5
                        && p.y >= a.position.y - 1.0
                        && p.y <= a.position.y + a.params.height + 1.0
                })
                .min_by(|((_, a), _), ((_, b), _)| {
                    a.position.distance(p).total_cmp(&b.position.distance(p))
                });
            match hit {
                Some(((id, _), _)) => {
                    let k = st.dynamic.agents.iter().position(|x| x.0 == id);
                    k.map(|k| (k, st.dynamic.agents[k].1))
                }
                None => {
                    return Err(Response::error(404, format!("no agent stands at {p}")));
                }
            }
        }
        _ => None,
    };
    let d = &mut st.dynamic;
    let gone: Vec<(usize, AgentHandle)> = match one {
        Some(a) => vec![a],
        None => d.agents.iter().map(|a| a.1).enumerate().collect(),
    };
    if let Some(crowd) = d.crowd.as_mut() {
        for (_, h) in &gone {
            let _ = crowd.remove_agent(*h);
        }
    }
    match one {
        Some((k, _)) => {
            d.agents.remove(k);
        }
        None => d.agents.clear(),
    }
    Ok(status(st))
}

fn step(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "crowd step", &["dt", "steps"])?;
    let dt = match v.get("dt") {
        None => 1.0 / 30.0,
        Some(x) => x
            .as_f64()
            .filter(|d| d.is_finite() && *d > 0.0 && *d <= MAX_DT)
            .ok_or_else(|| {
                bad(format!(
                    "`dt` must be a number of seconds above 0 and at most {MAX_DT}"
                ))
            })?,
    };
    let steps = whole(v, "steps", 1, MAX_STEPS)?.unwrap_or(1);
    let d = &mut st.dynamic;
    let t = Instant::now();
    if let Some(crowd) = d.crowd.as_mut() {
        for _ in 0..steps {
            // Obstacle changes are settled when made; this keeps any leftover work moving.
            crowd
                .update_obstacles(std::time::Duration::from_millis(2))
                .map_err(|e| unprocessable(format!("the tile cache update failed: {e}")))?;
            crowd
                .update(dt as f32)
                .map_err(|e| bad(format!("the crowd update failed: {e}")))?;
            d.time += dt;
        }
    }
    let step_ms = t.elapsed().as_secs_f64() * 1e3;
    // Steps leave the navmesh as it is: no counts (they walk every tile), 30 times a second.
    let mut out = status_without_counts(st);
    out["step_ms"] = json!(step_ms);
    Ok(out)
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

/// Each agent's body, as RecastDemo's crowd tool fills it: a cylinder of its radius and height
/// (12 sides and a top cap) in its agent's colour (`duIntToCol(i + 1)`), see-through.
fn bodies_layer(agents: &[AgentState]) -> Layer {
    const N: usize = 12;
    let mut l = Layer::new("crowd.bodies");
    for (i, a) in agents.iter().enumerate() {
        let c = Color::from_int(i as u32 + 1, 255).to_array();
        let col = Color::rgba(c[0], c[1], c[2], 140);
        let (r, h) = (a.params.radius, a.params.height);
        let ring: Vec<Vec3> = (0..N)
            .map(|k| {
                let t = k as f32 / N as f32 * std::f32::consts::TAU;
                a.position + Vec3::new(t.cos() * r, 0.0, t.sin() * r)
            })
            .collect();
        let up = Vec3::Y * h;
        for k in 0..N {
            let (p, q) = (ring[k], ring[(k + 1) % N]);
            l.triangle([p, p + up, q + up], col.darken());
            l.triangle([p, q + up, q], col.darken());
            l.triangle([a.position + up, p + up, q + up], col);
        }
    }
    l
}

/// Each agent's target: a small cross and an upright, in its agent's colour.
fn targets_layer(agents: &[AgentState]) -> Layer {
    let mut l = Layer::new("crowd.targets");
    for (i, a) in agents.iter().enumerate() {
        if matches!(
            a.target_state,
            TargetState::None | TargetState::Failed | TargetState::Velocity
        ) {
            continue;
        }
        let col = Color::from_int(i as u32 + 1, 220);
        let r = a.params.radius;
        let t = a.target;
        l.line(t - Vec3::X * r, t + Vec3::X * r, col, 2.0);
        l.line(t - Vec3::Z * r, t + Vec3::Z * r, col, 2.0);
        l.line(t, t + Vec3::Y * a.params.height * 0.5, col, 2.0);
    }
    l
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
        "partial": a.partial,
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

/// The current scenario: obstacles, agents (an agent without a target has its goal at its
/// start), kept events, and the viewer's settings (the page adds the path's start and goal).
fn scenario(st: &State) -> Scenario {
    let d = &st.dynamic;
    let agents = d
        .agent_states()
        .into_iter()
        .map(|(_, a)| {
            let moving = !matches!(
                a.target_state,
                TargetState::None | TargetState::Failed | TargetState::Velocity
            );
            AgentSpec {
                start: a.position,
                goal: if moving { a.target } else { a.position },
                behaviour: AgentBehaviour::Direct,
                seed: 0,
            }
        })
        .collect();
    Scenario {
        agents,
        obstacles: d
            .obstacles()
            .into_iter()
            .filter(|o| o.state != navkit::tilecache::ObstacleState::Removing)
            .map(|o| o.shape)
            .collect(),
        events: d.events.clone(),
        view: Some(ViewState {
            start: None,
            goal: None,
            settings: st.geometry.as_ref().map(|_| st.settings.clone()),
            tile_size: Some(d.tile_size),
        }),
    }
}

fn scenario_json(st: &State) -> Value {
    crate::json::to_json(&scenario(st))
}

/// A new dynamic state with `s`'s obstacles and agents (in dynamic mode if it has any, or if
/// `force`).
fn dynamic_from(
    st: &State,
    s: &Scenario,
    tile_size: u32,
    force: bool,
) -> Result<Dynamic, Response> {
    let wanted = force || !s.obstacles.is_empty() || !s.agents.is_empty();
    if !wanted {
        return Ok(Dynamic {
            events: s.events.clone(),
            ..st.dynamic.fresh(tile_size)
        });
    }
    let mut d = build_dynamic(st, tile_size)?;
    d.events = s.events.clone();
    for (i, o) in s.obstacles.iter().enumerate() {
        check_shape(o).map_err(|_| {
            bad(format!(
                "obstacle {i}: every number must be finite and at most 1e7 in size"
            ))
        })?;
        add_to_cache(&mut d, o, &format!("obstacle {i} ({o:?}) was refused"))?;
        if i % 32 == 31 {
            settle(&mut d)?;
        }
    }
    settle(&mut d)?;
    let params = agent_params(st);
    for (i, a) in s.agents.iter().enumerate() {
        let target = (a.goal != a.start).then_some(a.goal);
        add_agent(&mut d, a.start, target, params)
            .map_err(|e| refused(&format!("agent {i} was refused"), e))?;
    }
    Ok(d)
}

/// Loads a scenario: the settings first (a rebuild if they differ), then a new dynamic state
/// with its obstacles and agents. Nothing changes if any of it is refused.
fn load_scenario(st: &mut State, text: &str) -> Result<Value, Response> {
    let s =
        Scenario::from_json_str(text, Path::new("the scenario")).map_err(|e| bad(e.to_string()))?;
    if s.obstacles.len() > MAX_OBSTACLES {
        return Err(Response::error(
            413,
            format!(
                "the scenario has {} obstacles; the viewer keeps at most {MAX_OBSTACLES}",
                s.obstacles.len()
            ),
        ));
    }
    if s.agents.len() > MAX_AGENTS {
        return Err(Response::error(
            413,
            format!(
                "the scenario has {} agents; the viewer keeps at most {MAX_AGENTS}",
                s.agents.len()
            ),
        ));
    }
    let view = s.view.clone().unwrap_or_default();
    let tile_size = match view.tile_size {
        None => st.dynamic.tile_size,
        Some(t) if TILE_SIZES.contains(&u64::from(t)) => t,
        Some(t) => {
            return Err(bad(format!(
                "view.tile_size {t} must be from {} to {} cells",
                TILE_SIZES.start(),
                TILE_SIZES.end()
            )));
        }
    };
    let new_settings = match &view.settings {
        Some(ns) if *ns != st.settings => {
            if st.geometry.is_none() {
                return Err(unprocessable(
                    "the scenario has build settings, but the viewer was started on a saved \
                     navmesh: there is no geometry to rebuild from",
                ));
            }
            // The viewer's own ranges for the settings the page can change.
            Some(super::settings::request_for(st, ns)?)
        }
        _ => None,
    };
    // The new dynamic state is made (with the scenario's settings) before anything changes.
    let old_settings = st.settings.clone();
    if let Some(ns) = &new_settings {
        st.settings = ns.settings.clone();
    }
    let keep_on = st.dynamic.crowd.is_some();
    let made = dynamic_from(st, &s, tile_size, keep_on);
    st.settings = old_settings;
    let d = made?;
    let mut rebuilt = Value::Null;
    if let Some(ns) = new_settings {
        // The static navmesh with the new settings; the new dynamic state goes in after it.
        let keep = std::mem::take(&mut st.dynamic);
        match super::settings::rebuild(st, ns) {
            Ok(v) => rebuilt = v,
            Err(r) => {
                st.dynamic = keep;
                return Err(r);
            }
        }
    }
    st.dynamic = d;
    let mut out = status(st);
    out["view"] = crate::json::to_json(&view);
    out["rebuilt"] = rebuilt;
    out["warnings"] = json!(if s.events.is_empty() {
        Vec::<String>::new()
    } else {
        vec![format!(
            "{} timed obstacle events are kept for saving but not played by the viewer \
             (navkit simulate --scenario plays them)",
            s.events.len()
        )]
    });
    Ok(out)
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

/// A path under the working directory: relative, no `..`, its folder an existing one inside.
fn confined(path: &str) -> Result<PathBuf, Response> {
    if path.is_empty() || path.len() > 255 {
        return Err(bad("`path` must be a file name of 1 to 255 bytes"));
    }
    let p = Path::new(path);
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => {
                return Err(bad(format!(
                    "`{}`: `..` is not allowed; files are saved under the working directory",
                    http::clip(path)
                )));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad(format!(
                    "`{}`: absolute paths are not allowed; files are saved under the working \
                     directory",
                    http::clip(path)
                )));
            }
        }
    }
    if p.file_name().is_none() || path.ends_with('/') {
        return Err(bad(format!("`{}` does not name a file", http::clip(path))));
    }
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .map_err(|e| unprocessable(format!("no working directory: {e}")))?;
    let parent = cwd.join(p.parent().unwrap_or(Path::new("")));
    let parent = parent.canonicalize().map_err(|_| {
        bad(format!(
            "`{}`: its folder does not exist under the working directory",
            http::clip(path)
        ))
    })?;
    // A symbolic link could lead out: the real folder must be inside.
    if !parent.starts_with(&cwd) {
        return Err(bad(format!(
            "`{}` leads outside the working directory",
            http::clip(path)
        )));
    }
    let target = parent.join(p.file_name().unwrap_or_default());
    if target.is_dir() {
        return Err(bad(format!("`{}` is a folder", http::clip(path))));
    }
    Ok(target)
}

fn save(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "saving", &["what", "path"])?;
    let what = v.get("what").and_then(Value::as_str).unwrap_or("");
    let path = v
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`path` must be a file name (a string)"))?;
    let bytes = match what {
        "navmesh" => st.navmesh().to_mset_bytes(),
        "tilecache" => tset_bytes(st)?,
        "scenario" => {
            let mut text = serde_json::to_string_pretty(&scenario_json(st))
                .map_err(|e| unprocessable(e.to_string()))?;
            text.push('\n');
            text.into_bytes()
        }
        _ => {
            return Err(bad(
                "`what` must be \"navmesh\", \"tilecache\" or \"scenario\"",
            ));
        }
    };
    let target = confined(path)?;
    navkit::atomic_file::write(&target, &bytes)
        .map_err(|e| unprocessable(format!("saving failed: {e}")))?;
    Ok(json!({"saved": target.display().to_string(), "bytes": bytes.len(), "what": what}))
}
