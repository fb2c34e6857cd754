//! Crowd scenario files: agents with their goals and behaviours, obstacles, timed obstacle
//! events and the viewer's state, read and checked. Run by [`crate::tools::simulation`].

use glam::Vec3;

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

/// Reads the agents of a scenario file (see [`Scenario`]). Errors name the file and, for
/// malformed JSON, the line.
pub fn load_scenario(path: impl AsRef<std::path::Path>) -> Result<Vec<AgentSpec>> {
    Ok(Scenario::load(path)?.agents)
}
