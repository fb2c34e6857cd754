//! Crowd scenario files: agents with their goals and behaviours, obstacles, timed obstacle
//! events and the viewer's state, read and checked. Run by [`crate::tools::simulation`].

use glam::Vec3;

use std::path::{Path, PathBuf};

use crate::agents::crowd::AgentParams;
use crate::geometry::LoadOptions;
use crate::tools::simulation::SimSettings;
use crate::{Error, Result};

/// How an agent of a scenario gets to its goal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum AgentBehaviour {
    /// Straight along its navmesh path.
    #[default]
    Direct,
    /// Through the wander-to-target walker's points.
    Wander,
}

/// One agent of a scenario.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AgentSpec {
    /// Where it starts.
    pub start: Vec3,
    /// Its goal.
    pub goal: Vec3,
    /// How it gets there.
    #[cfg_attr(feature = "serde", serde(default))]
    pub behaviour: AgentBehaviour,
    /// The walker's seed (for `wander`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub seed: u64,
}

/// A scenario file: agents and obstacles, both optional.
///
/// ```json
/// {
///   "agents": [{"start": [1, 0, 2], "goal": [20, 0, 5], "behaviour": "direct"}],
///   "obstacles": [
///     {"kind": "cylinder", "pos": [5, 0, 3], "radius": 1.0, "height": 2.0},
///     {"kind": "box", "bmin": [8, 0, 0], "bmax": [9, 2, 4]},
///     {"kind": "oriented_box", "center": [12, 1, 2], "half_extents": [2, 1, 0.3], "y_angle": 0.6}
///   ]
/// }
/// ```
///
/// A scenario may also name what it runs on and for how long (all optional; the crowd suite's
/// files in `scenarios/crowd/` do):
///
/// ```json
/// {
///   "level": "levels/corridor.obj",
///   "seconds": 120,
///   "random": {"agents": 100, "seeds": [1, 2, 3, 4, 5]},
///   "agent": {"radius": 0.6, "height": 2.0, "max_speed": 3.5, "max_acceleration": 8.0},
///   "arrive_distance": 1.0
/// }
/// ```
///
/// - `level`: a mesh, `.gset` or saved navmesh, relative to the scenario file's folder and, as a
///   `.gset`'s mesh, inside it unless outside paths are allowed ([`Scenario::level_file`]);
/// - `seconds`: simulated seconds (0 < s <= 3600);
/// - `random`: random agents instead of `agents` ([`RandomAgents`]), a run per seed;
/// - `agent`: agent parameters ([`AgentOverrides`]);
/// - `arrive_distance`: the arrival distance in metres (xz).
///
/// Obstacles are carved into a tile cache's navmesh ([`crate::tilecache::TileCache`]) as
/// given: the walkable area is not eroded around them, so give them the agents' radius of
/// clearance if agents' centres must stay that far away.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Scenario {
    /// The agents (none: random ones, for `navkit simulate`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub agents: Vec<AgentSpec>,
    /// Obstacles to place before anything moves.
    #[cfg_attr(feature = "serde", serde(default))]
    pub obstacles: Vec<crate::tilecache::ObstacleShape>,
    /// Obstacles added and removed while the agents walk ([`simulate_dynamic`](crate::tools::simulation::simulate_dynamic)).
    #[cfg_attr(feature = "serde", serde(default))]
    pub events: Vec<ObstacleEvent>,
    /// What `navkit view` saves with a scenario besides its agents and obstacles (the path's
    /// start and goal, the build settings, the tile cache's tile size). Other tools ignore it.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub view: Option<ViewState>,
    /// The level to run on (a mesh navkit reads, a `.gset` or a saved navmesh), by a path
    /// relative to the scenario file's folder; [`Scenario::level_file`] resolves it.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub level: Option<String>,
    /// Simulated seconds (0 < s <= 3600); the runner's default without.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub seconds: Option<f32>,
    /// Random agents instead of `agents`: drawn as `navkit simulate` draws them, one run per
    /// seed.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub random: Option<RandomAgents>,
    /// Every agent's parameters where they differ from RecastDemo's ([`AgentParams::default`](crate::agents::crowd::AgentParams::default)).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub agent: Option<AgentOverrides>,
    /// An agent within this distance (xz, metres) of its goal has arrived; the runner's default
    /// (1 m, [`SimSettings::arrive_radius`]) without.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub arrive_distance: Option<f32>,
}

/// A scenario's random agents: `agents` of them (1 to 10,000), random connected starts and goals
/// drawn as [`simulate`](crate::tools::simulation::simulate) draws them, once per seed: `seed`
/// (one run) or `seeds` (one run each, at least one), not both; seed 1 without either.
///
/// ```json
/// "random": {"agents": 100, "seeds": [1, 2, 3, 4, 5]}
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RandomAgents {
    /// How many agents.
    pub agents: usize,
    /// One seed.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub seed: Option<u64>,
    /// A run per seed.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub seeds: Option<Vec<u64>>,
}

impl RandomAgents {
    /// The seeds to run: `seeds`, or `seed`, or 1.
    pub fn seeds(&self) -> Vec<u64> {
        match (&self.seeds, self.seed) {
            (Some(v), _) => v.clone(),
            (None, Some(s)) => vec![s],
            (None, None) => vec![1],
        }
    }
}

/// A scenario's agent parameters that differ from RecastDemo's (each optional, finite, above 0
/// and at most 1000). A radius sets the ranges that scale with it as
/// [`AgentParams::with_radius`](crate::agents::crowd::AgentParams::with_radius) does. The
/// navmesh is built for the level's settings whatever the radius (eroded by 0.6 m by default).
///
/// ```json
/// "agent": {"radius": 0.4, "max_speed": 2.0}
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct AgentOverrides {
    /// Radius, metres.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub radius: Option<f32>,
    /// Height, metres.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub height: Option<f32>,
    /// Maximum speed, m/s.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub max_speed: Option<f32>,
    /// Maximum acceleration, m/s².
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub max_acceleration: Option<f32>,
}

impl AgentOverrides {
    /// `params` with these overrides applied.
    pub fn apply(&self, params: AgentParams) -> AgentParams {
        let mut p = params;
        if let Some(r) = self.radius {
            let scaled = AgentParams::with_radius(r);
            p.radius = r;
            p.collision_query_range = scaled.collision_query_range;
            p.path_optimization_range = scaled.path_optimization_range;
        }
        p.height = self.height.unwrap_or(p.height);
        p.max_speed = self.max_speed.unwrap_or(p.max_speed);
        p.max_acceleration = self.max_acceleration.unwrap_or(p.max_acceleration);
        p
    }

    fn named(&self) -> [(&'static str, Option<f32>); 4] {
        [
            ("radius", self.radius),
            ("height", self.height),
            ("max_speed", self.max_speed),
            ("max_acceleration", self.max_acceleration),
        ]
    }
}

/// `navkit view`'s part of a scenario file: every field optional.
///
/// ```json
/// "view": {"start": [1, 0, 2], "goal": [20, 0, 5], "tile_size": 48,
///          "settings": {"cell_size": 0.3, "agent_radius": 0.6}}
/// ```
///
/// `settings` holds [`crate::BuildSettings`] fields by name; those left out keep their
/// defaults. An agent whose `goal` equals its `start` has no move target.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ViewState {
    /// The path's start.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub start: Option<Vec3>,
    /// The path's goal.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub goal: Option<Vec3>,
    /// The build settings of the navmesh.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub settings: Option<crate::BuildSettings>,
    /// The tile cache's tile size in cells (the viewer's dynamic mode).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub tile_size: Option<u32>,
}

/// A timed obstacle change: at `at` seconds, `add` an obstacle (named `name`, so a later event
/// can remove it) or `remove` the obstacle of that name.
///
/// ```json
/// {"at": 4.0, "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 2, 6]}, "name": "gate"}
/// {"at": 20.0, "remove": "gate"}
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ObstacleEvent {
    /// When, in simulated seconds.
    pub at: f32,
    /// The obstacle to add.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub add: Option<crate::tilecache::ObstacleShape>,
    /// The name of the obstacle to remove.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub remove: Option<String>,
    /// The name of the added obstacle.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub name: Option<String>,
}

impl ObstacleEvent {
    /// A short description for messages: the time and what it adds or removes, names quoted
    /// (clipped, invisible characters escaped).
    fn describe(&self) -> String {
        let what = match (&self.add, &self.remove) {
            (Some(_), None) => "add".to_string(),
            (None, Some(n)) => format!("remove `{}`", crate::text::quote(n)),
            (Some(_), Some(_)) => "add and remove".to_string(),
            (None, None) => "neither add nor remove".to_string(),
        };
        let name = self.name.as_deref().map_or(String::new(), |n| {
            format!(" named `{}`", crate::text::quote(n))
        });
        format!("at {} s, {what}{name}", self.at)
    }
}

impl Scenario {
    /// Reads a scenario file. Errors name the file and, for malformed JSON, the line; points
    /// must be finite.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Scenario> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_json_str(&text, path)
    }

    /// Parses scenario JSON as [`Scenario::load`] does (a byte-order mark at the start is
    /// skipped); `path` only names the text in errors.
    pub fn from_json_str(text: &str, path: &std::path::Path) -> Result<Scenario> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let f: Scenario =
            serde_json::from_str(text).map_err(|e| Error::parse(path, e.line(), e.to_string()))?;
        for (i, a) in f.agents.iter().enumerate() {
            if !a.start.is_finite() || !a.goal.is_finite() {
                return Err(Error::parse(
                    path,
                    0,
                    format!("agent {i}: start and goal must be finite"),
                ));
            }
        }
        f.check_events()
            .map_err(|e| Error::parse(path, 0, e.to_string()))?;
        f.check_run_fields().map_err(|e| Error::parse(path, 0, e))?;
        if let Some(v) = &f.view {
            if v.start.iter().chain(&v.goal).any(|p| !p.is_finite()) {
                return Err(Error::parse(
                    path,
                    0,
                    "view: start and goal must be finite".to_string(),
                ));
            }
            if let Some(s) = &v.settings {
                s.validate()
                    .map_err(|e| Error::parse(path, 0, format!("view.settings: {e}")))?;
            }
        }
        Ok(f)
    }

    /// Checks the events: finite times from 0, each adds or removes (not both), names unique,
    /// and every removal names an obstacle added by an earlier event.
    /// Runs in O(n log n) time for n events (the sort; the names are kept in a hash set).
    pub fn check_events(&self) -> Result<()> {
        let mut added: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut order: Vec<(usize, &ObstacleEvent)> = self.events.iter().enumerate().collect();
        order.sort_by(|a, b| a.1.at.total_cmp(&b.1.at));
        for &(i, e) in &order {
            let bad = |why: &str| {
                Error::InvalidArgument(format!("events[{i}] ({}): {why}", e.describe()))
            };
            if !(e.at.is_finite() && e.at >= 0.0) {
                return Err(bad("`at` must be a finite time >= 0"));
            }
            match (&e.add, &e.remove) {
                (Some(_), None) => {
                    if let Some(n) = &e.name {
                        if !added.insert(n) {
                            return Err(bad("the name is used twice"));
                        }
                    }
                }
                (None, Some(n)) => {
                    if e.name.is_some() {
                        return Err(bad("a removal has no `name` of its own"));
                    }
                    if !added.remove(n.as_str()) {
                        return Err(bad("removes an obstacle no earlier event added"));
                    }
                }
                _ => return Err(bad("needs exactly one of `add` and `remove`")),
            }
        }
        Ok(())
    }

    /// A tile cache of `geom` (default [`crate::tilecache::TileCacheSettings`], with
    /// `max_obstacles` raised to fit the obstacles and every obstacle the events add) with this
    /// scenario's obstacles carved in.
    pub fn tile_cache(
        &self,
        geom: &crate::InputGeometry,
        settings: &crate::BuildSettings,
    ) -> Result<crate::tilecache::TileCache> {
        self.tile_cache_within(geom, settings, &crate::build::Budget::default())
    }

    /// [`tile_cache`](Self::tile_cache) within `budget` (its memory limit checked against the
    /// estimate before building, its time limit and token while building).
    pub fn tile_cache_within(
        &self,
        geom: &crate::InputGeometry,
        settings: &crate::BuildSettings,
        budget: &crate::build::Budget,
    ) -> Result<crate::tilecache::TileCache> {
        let mut cache_settings = crate::tilecache::TileCacheSettings::default();
        let most = self.obstacles.len() + self.events.iter().filter(|e| e.add.is_some()).count();
        cache_settings.max_obstacles = cache_settings
            .max_obstacles
            .max(u32::try_from(most).unwrap_or(u32::MAX));
        let mut tc = crate::tilecache::TileCache::build(geom, settings, &cache_settings, budget)?;
        for (i, o) in self.obstacles.iter().enumerate() {
            tc.add(o).map_err(|e| {
                Error::InvalidArgument(format!("scenario obstacle {i} ({o:?}): {e}"))
            })?;
            // Detour queues at most 64 requests: settle as we go.
            if i % 32 == 31 {
                tc.update_until_done()?;
            }
        }
        tc.update_until_done()?;
        Ok(tc)
    }
}

impl Scenario {
    /// Checks the fields of a run (`level`, `seconds`, `random`, `agent`, `arrive_distance`);
    /// the message names the field.
    fn check_run_fields(&self) -> std::result::Result<(), String> {
        if self.level.as_deref().is_some_and(str::is_empty) {
            return Err("level: empty path".into());
        }
        if let Some(t) = self.seconds {
            if !(t.is_finite() && t > 0.0 && t <= 3600.0) {
                return Err(format!("seconds: {t}: must be above 0 and at most 3600"));
            }
        }
        if let Some(r) = &self.random {
            if !self.agents.is_empty() {
                return Err("random: a scenario has `agents` or `random`, not both".into());
            }
            if !(1..=10_000).contains(&r.agents) {
                return Err(format!("random.agents: {}: must be 1 to 10000", r.agents));
            }
            match (&r.seed, &r.seeds) {
                (Some(_), Some(_)) => {
                    return Err("random: `seed` or `seeds`, not both".into());
                }
                (_, Some(v)) if v.is_empty() => {
                    return Err("random.seeds: empty: give at least one seed".into());
                }
                (_, Some(v)) if v.len() > 1000 => {
                    return Err(format!("random.seeds: {} seeds: at most 1000", v.len()));
                }
                _ => {}
            }
        }
        for (name, v) in self.agent.iter().flat_map(AgentOverrides::named) {
            if let Some(v) = v {
                if !(v.is_finite() && v > 0.0 && v <= 1000.0) {
                    return Err(format!(
                        "agent.{name}: {v}: must be above 0 and at most 1000"
                    ));
                }
            }
        }
        if let Some(d) = self.arrive_distance {
            if !(d.is_finite() && d > 0.0 && d <= 1000.0) {
                return Err(format!(
                    "arrive_distance: {d}: must be above 0 and at most 1000"
                ));
            }
        }
        Ok(())
    }

    /// The file `level` names, if any: `scenario_file`'s folder joined with it, which must be
    /// an existing file. As a `.gset`'s mesh: unless `options` allow paths outside
    /// ([`LoadOptions::allow_outside_paths`], the CLI's `--allow-outside-paths`), the path must be
    /// relative without `..` and resolve (symbolic links followed) inside that folder. Errors
    /// ([`Error::Parse`]) name the scenario file and the field.
    pub fn level_file(
        &self,
        scenario_file: &Path,
        options: &LoadOptions,
    ) -> Result<Option<PathBuf>> {
        let Some(name) = &self.level else {
            return Ok(None);
        };
        let bad = |why: String| Error::parse(scenario_file, 0, format!("level: {why}"));
        let folder = crate::geometry::folder_of(scenario_file);
        let file = crate::geometry::resolve_named_file(name, &[(folder.clone(), folder)], options)
            .map_err(bad)?;
        let shown = crate::text::quote(name);
        match std::fs::metadata(&file) {
            Ok(m) if m.is_dir() => Err(bad(format!(
                "`{shown}` ({}) is a folder, not a level file",
                file.display()
            ))),
            Ok(_) => Ok(Some(file)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(bad(format!("`{shown}` ({}) not found", file.display())))
            }
            Err(e) => Err(bad(format!("`{shown}` ({}): {e}", file.display()))),
        }
    }

    /// `base` with this scenario's `seconds`, agent parameters, arrival distance and random
    /// agents' count applied (the seed is the runner's: one run per [`RandomAgents::seeds`]).
    pub fn settings(&self, base: &SimSettings) -> SimSettings {
        let mut s = base.clone();
        s.seconds = self.seconds.unwrap_or(s.seconds);
        s.arrive_radius = self.arrive_distance.unwrap_or(s.arrive_radius);
        if let Some(a) = &self.agent {
            s.params = a.apply(s.params);
        }
        if let Some(r) = &self.random {
            s.agents = r.agents;
        }
        s
    }

    /// The seeds to run: the random agents' ([`RandomAgents::seeds`]), or none for a scenario
    /// without random agents (one run).
    pub fn seeds(&self) -> Vec<u64> {
        self.random
            .as_ref()
            .map_or_else(Vec::new, RandomAgents::seeds)
    }
}

/// Reads the agents of a scenario file (see [`Scenario`]). Errors name the file and, for
/// malformed JSON, the line.
pub fn load_scenario(path: impl AsRef<std::path::Path>) -> Result<Vec<AgentSpec>> {
    Ok(Scenario::load(path)?.agents)
}
