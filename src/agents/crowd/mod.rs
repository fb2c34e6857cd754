//! DetourCrowd, safely: many agents moving to targets on a navmesh, steering around each other.
//!
//! A [`Crowd`] either borrows its [`NavMesh`] (a `Crowd<&NavMesh>`, from [`Crowd::new`]: the
//! navmesh cannot change while the crowd lives), or owns a [`TileCache`] (a
//! `Crowd<TileCache>`, from [`Crowd::with_tile_cache`]): then obstacles can be added and
//! removed while agents walk, through [`Crowd::tile_cache_mut`] (the tile cache's own obstacle
//! calls), as in RecastDemo's Temp Obstacles sample. The two are different types, so asking a
//! crowd that borrows its navmesh for a tile cache does not compile:
//!
//! ```compile_fail,E0599
//! # fn f(navmesh: &navkit::NavMesh) -> navkit::Result<()> {
//! let mut crowd = navkit::Crowd::new(navmesh, 10, 0.6)?;
//! crowd.tile_cache_mut(); // error: no such method on Crowd<&NavMesh>
//! # Ok(()) }
//! ```
//!
//! Tiles are rebuilt
//! under the crowd; each update, DetourCrowd checks the next polygons of its agents' corridors
//! and their targets, and replans those that cross a rebuilt tile (a rebuilt tile's polygons
//! get new refs), so agents go around new obstacles and take ways that removed ones opened.
//!
//! [`Crowd::update`] runs navkit's own update over DetourCrowd's agents ([`CrowdEngine`]): the
//! phases of `dtCrowd::update` with its results to the bit, the per-agent ones on
//! [`Crowd::threads`] threads, the results the same for any thread count.
//!
//! Agents are added with [`AgentParams`] (RecastDemo's defaults) and named by [`AgentHandle`]s
//! that carry a generation: a handle of a removed agent, even if its slot has been reused, is
//! rejected with an error, never read as another agent. Targets and positions are snapped to
//! the navmesh (Detour's default half extents) and checked before Detour sees them.
//!
//! ```no_run
//! # fn f(navmesh: &navkit::navmesh::NavMesh) -> navkit::Result<()> {
//! use glam::Vec3;
//! use navkit::agents::crowd::{AgentParams, Crowd};
//! let mut crowd = Crowd::new(navmesh, 100, 0.6)?;
//! let a = crowd.add_agent(Vec3::new(1.0, 0.0, 1.0), AgentParams::default())?;
//! crowd.request_move_target(a, Vec3::new(20.0, 0.0, 5.0))?;
//! for _ in 0..300 {
//!     crowd.update(1.0 / 30.0)?;
//! }
//! println!("{:?}", crowd.agent(a)?.position);
//! # Ok(()) }
//! ```

use std::sync::Arc;

use glam::Vec3;

mod engine;
pub use engine::{CrowdEngine, Neighbour, UpdateTiming};
mod arrival;
mod aside;
mod behaviours;
mod detour;
mod give_way;
mod head_on;
mod lanes;
mod mind;
mod polyline;
mod queue;
mod replan;
mod separation;
mod stuck;
pub use behaviours::{Activity, CrowdBehaviours};
pub use stuck::StuckCause;

pub use crate::ffi::crowd::{AgentParams, AvoidanceParams};
use crate::ffi::crowd::{RawAgentState, RawCrowd};
use crate::navmesh::NavMesh;
use crate::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter};
use crate::status::{DetourCause, PathStatus, Status};
use crate::tilecache::{ObstacleRef, ObstacleShape, TileCache, UpdateReport};
use crate::{Error, Result};

/// `dtCrowd` update flags.
pub mod update_flags {
    /// Look ahead at the path's turns.
    pub const ANTICIPATE_TURNS: u8 = 1;
    /// Avoid other agents (velocity obstacles).
    pub const OBSTACLE_AVOIDANCE: u8 = 2;
    /// Keep apart from other agents.
    pub const SEPARATION: u8 = 4;
    /// Shortcut the path where visible.
    pub const OPTIMIZE_VIS: u8 = 8;
    /// Re-optimise the corridor's topology now and then.
    pub const OPTIMIZE_TOPO: u8 = 16;
    /// All of them (RecastDemo's default).
    pub const ALL: u8 = 31;
}

/// The most agents a crowd may be made for.
pub const MAX_AGENTS: usize = 65_536;

impl Default for AgentParams {
    /// RecastDemo's: radius 0.6, height 2.0, max acceleration 8.0, max speed 3.5, collision
    /// query range 12 x radius, path optimisation range 30 x radius, separation weight 2.0, all
    /// update flags, the high-quality avoidance preset, filter 0.
    fn default() -> Self {
        AgentParams::with_radius(0.6)
    }
}

impl AgentParams {
    /// RecastDemo's defaults for an agent of radius `radius`.
    pub fn with_radius(radius: f32) -> Self {
        AgentParams {
            radius,
            height: 2.0,
            max_acceleration: 8.0,
            max_speed: 3.5,
            collision_query_range: radius * 12.0,
            path_optimization_range: radius * 30.0,
            separation_weight: 2.0,
            update_flags: update_flags::ALL,
            obstacle_avoidance_type: AvoidanceQuality::High as u8,
            query_filter_type: 0,
        }
    }

    /// The parameters as given (update flags masked to the known ones), if they are sane.
    fn check(&self, max_radius: f32) -> Result<AgentParams> {
        let positive = [
            ("radius", self.radius),
            ("height", self.height),
            ("max_acceleration", self.max_acceleration),
            ("max_speed", self.max_speed),
            ("collision_query_range", self.collision_query_range),
            ("path_optimization_range", self.path_optimization_range),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0 && v < 1e6) {
                return Err(Error::InvalidArgument(format!(
                    "agent parameter {name} = {v}: must be finite, positive and below 1e6"
                )));
            }
        }
        if self.radius > max_radius {
            return Err(Error::InvalidArgument(format!(
                "agent radius {} is larger than the crowd's maximum agent radius {max_radius}",
                self.radius
            )));
        }
        if !(self.separation_weight.is_finite() && self.separation_weight >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "separation_weight = {}: must be finite and not negative",
                self.separation_weight
            )));
        }
        if self.obstacle_avoidance_type >= 8 || self.query_filter_type >= 16 {
            return Err(Error::InvalidArgument(format!(
                "obstacle_avoidance_type {} (< 8) or query_filter_type {} (< 16) out of range",
                self.obstacle_avoidance_type, self.query_filter_type
            )));
        }
        Ok(AgentParams {
            update_flags: self.update_flags & update_flags::ALL,
            ..*self
        })
    }
}

/// RecastDemo's obstacle-avoidance presets, set in slots 0..4 of every new crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum AvoidanceQuality {
    /// 5 divisions, 2 rings, depth 1.
    Low = 0,
    /// 5 divisions, 2 rings, depth 2.
    Medium = 1,
    /// 7 divisions, 2 rings, depth 3.
    Good = 2,
    /// 7 divisions, 3 rings, depth 3.
    High = 3,
}

impl AvoidanceParams {
    /// RecastDemo's preset: Detour's defaults with velocity bias 0.5 and the preset's
    /// divisions, rings and depth.
    pub fn preset(q: AvoidanceQuality) -> Self {
        let (divs, rings, depth) = match q {
            AvoidanceQuality::Low => (5, 2, 1),
            AvoidanceQuality::Medium => (5, 2, 2),
            AvoidanceQuality::Good => (7, 2, 3),
            AvoidanceQuality::High => (7, 3, 3),
        };
        AvoidanceParams {
            vel_bias: 0.5,
            weight_des_vel: 2.0,
            weight_cur_vel: 0.75,
            weight_side: 0.75,
            weight_toi: 2.5,
            horiz_time: 2.5,
            grid_size: 33,
            adaptive_divs: divs,
            adaptive_rings: rings,
            adaptive_depth: depth,
        }
    }
}

/// Names an agent of a [`Crowd`]: its slot and the generation of that slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AgentHandle {
    index: u32,
    generation: u32,
}

impl AgentHandle {
    /// The agent's slot in the crowd (reused after removal).
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

/// Where an agent is with its move request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TargetState {
    /// No request.
    None,
    /// The request failed.
    Failed,
    /// A path to the target is set.
    Valid,
    /// Asked for, not yet planned.
    Requesting,
    /// Waiting for the path queue.
    WaitingForQueue,
    /// Waiting for its path.
    WaitingForPath,
    /// Moving at a requested velocity.
    Velocity,
}

impl TargetState {
    fn from_raw(s: u8) -> Self {
        match s {
            1 => TargetState::Failed,
            2 => TargetState::Valid,
            3 => TargetState::Requesting,
            4 => TargetState::WaitingForQueue,
            5 => TargetState::WaitingForPath,
            6 => TargetState::Velocity,
            _ => TargetState::None,
        }
    }
}

/// A copy of an agent's state.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AgentState {
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// The velocity it wants.
    pub desired_velocity: Vec3,
    /// The next corners of its path (at most 4).
    pub corners: Vec<Vec3>,
    /// Its move request.
    pub target_state: TargetState,
    /// The requested target (or velocity).
    pub target: Vec3,
    /// True on an off-mesh connection.
    pub off_mesh: bool,
    /// Whether its path reaches the requested target ([`PathStatus::Partial`]: it leads as near
    /// as the target can be reached).
    pub path_status: PathStatus,
    /// Its parameters.
    pub params: AgentParams,
    /// Why it is stuck, if the crowd's stuck detection finds it stuck (`None` while it makes
    /// progress, has arrived, or has no target).
    pub stuck: Option<StuckCause>,
    /// What it is doing ([`CrowdBehaviours`]).
    pub activity: Activity,
}

/// Where a [`Crowd`]'s navmesh lives: borrowed (`&NavMesh`, [`Crowd::new`]), shared
/// (`Arc<NavMesh>`, [`Crowd::shared`]) or in a [`TileCache`] the crowd owns
/// ([`Crowd::with_tile_cache`]). Sealed: these three are all.
///
/// The crowd keeps it in its raw crowd (`ffi::crowd::RawCrowd`), which frees the `dtCrowd`
/// before it.
///
/// Why the owned case is sound (the `unsafe` is in `ffi::crowd`, whose contract this meets by
/// construction): `RawCrowd::owning` takes the tile cache into the crowd with a keep-alive handle
/// of its `dtNavMesh`, so the navmesh the `dtCrowd` points to stays allocated for the crowd's
/// life whatever happens to the cache; the cache is reachable only through `&mut Crowd`, so tiles
/// change only between crowd calls, and no Rust reference into navmesh memory (a `&NavMesh`, a
/// query borrowing it) can be alive meanwhile: every one is tied to a borrow of the crowd. The
/// snapping query is made afresh per call for that reason. The cache is still lent only as
/// `&TileCache` or as a [`TileCacheMut`], so that it stays the crowd's. Between calls the
/// `dtCrowd` keeps only poly refs and copied positions, never pointers into tile memory. A
/// rebuilt tile gets a new salt, so stale refs fail `isValidPolyRef` and the checked
/// `getTileAndPolyByRef` lookups (sliced path queries fail on a vanished polygon, corridors are
/// re-validated and replanned every update) rather than being dereferenced: what RecastDemo's
/// Temp Obstacles sample relies on. A shared navmesh (`Arc<NavMesh>`) cannot change at all while
/// the crowd holds its handle: changes take `&mut NavMesh`, which `Arc::get_mut` gives only to
/// the sole holder.
pub trait CrowdNavMesh: sealed::Sealed + Send {
    /// The navmesh the crowd walks on (for a tile cache, as it is now).
    fn navmesh(&self) -> &NavMesh;
}

mod sealed {
    // Sealed on purpose: only the three implementations in this module exist.
    #[allow(unnameable_types)]
    pub trait Sealed {}
    impl Sealed for &crate::navmesh::NavMesh {}
    impl Sealed for std::sync::Arc<crate::navmesh::NavMesh> {}
    impl Sealed for crate::tilecache::TileCache {}
}

impl CrowdNavMesh for &NavMesh {
    fn navmesh(&self) -> &NavMesh {
        self
    }
}

impl CrowdNavMesh for Arc<NavMesh> {
    fn navmesh(&self) -> &NavMesh {
        self
    }
}

impl CrowdNavMesh for TileCache {
    fn navmesh(&self) -> &NavMesh {
        TileCache::navmesh(self)
    }
}

/// The tile cache of a [`Crowd`] that owns one, lent for changes ([`Crowd::tile_cache_mut`]):
/// the tile cache's obstacle calls ([`TileCache::add`], [`TileCache::remove`],
/// [`TileCache::update`], [`TileCache::update_until_done`]), and every read through `Deref`. The crowd cannot be used
/// while this lives; its next [`Crowd::update`] sees the rebuilt tiles.
pub struct TileCacheMut<'a> {
    // Private and never lent out as `&mut`: the cache (and its navmesh) cannot be swapped out
    // from under the dtCrowd.
    cache: &'a mut TileCache,
}

impl std::fmt::Debug for TileCacheMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("TileCacheMut").field(&*self.cache).finish()
    }
}

impl std::ops::Deref for TileCacheMut<'_> {
    type Target = TileCache;

    fn deref(&self) -> &TileCache {
        self.cache
    }
}

impl TileCacheMut<'_> {
    /// [`TileCache::add`].
    pub fn add(&mut self, shape: &ObstacleShape) -> Result<ObstacleRef> {
        self.cache.add(shape)
    }

    /// [`TileCache::remove`].
    pub fn remove(&mut self, obstacle: ObstacleRef) -> Result<()> {
        self.cache.remove(obstacle)
    }

    /// [`TileCache::update`]: rebuilds touched tiles for at most `budget`.
    pub fn update(&mut self, budget: std::time::Duration) -> Result<UpdateReport> {
        self.cache.update(budget)
    }

    /// [`TileCache::update_until_done`].
    pub fn update_until_done(&mut self) -> Result<UpdateReport> {
        self.cache.update_until_done()
    }
}

/// A crowd of agents on one navmesh.
pub struct Crowd<N: CrowdNavMesh> {
    /// The dtCrowd, with where its navmesh lives (freed before it).
    raw: RawCrowd<'static, N>,
    filter: QueryFilter,
    max_radius: f32,
    /// Per slot: its generation, and whether an agent lives there.
    slots: Vec<(u32, bool)>,
    /// The update [`Crowd::update`] runs.
    engine: CrowdEngine,
    /// Which behaviours run around DetourCrowd's step.
    behaviours: CrowdBehaviours,
    /// Per slot: the behaviours' memory of its agent.
    minds: Vec<mind::Mind>,
}

impl<N: CrowdNavMesh> std::fmt::Debug for Crowd<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crowd")
            .field("capacity", &self.slots.len())
            .field("agents", &self.len())
            .finish()
    }
}

impl<'nav> Crowd<&'nav NavMesh> {
    /// A crowd on `navmesh`, borrowed for the crowd's life, of at most `max_agents`
    /// (1..=[`MAX_AGENTS`]) agents no wider than `max_agent_radius`, with RecastDemo's avoidance
    /// presets in slots 0..4 and the default query filter ([`QueryFilter::default`]) as filter 0.
    pub fn new(navmesh: &'nav NavMesh, max_agents: usize, max_agent_radius: f32) -> Result<Self> {
        Self::init(navmesh, max_agents, max_agent_radius)
    }
}

impl Crowd<Arc<NavMesh>> {
    /// A crowd on a shared navmesh, which it keeps alive: for programs that keep the navmesh
    /// and the crowd apart, such as a game engine's resources (bevy_navkit's crowd), or that
    /// replace the navmesh while the old one still has users. Otherwise as [`Crowd::new`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use navkit::{AgentParams, Crowd, InputGeometry, NavMeshBuilder};
    /// let geom = InputGeometry::load("meshes/demo_level.gset")?;
    /// let navmesh = Arc::new(NavMeshBuilder::new(&geom).solo()?.into_navmesh());
    /// let mut crowd = Crowd::shared(Arc::clone(&navmesh), 8, 0.6)?;
    /// let start = navkit::glam::Vec3::new(1.0, 0.0, 1.0);
    /// let agent = crowd.add_agent(start, AgentParams::default())?;
    /// assert_eq!(crowd.len(), 1);
    /// drop(navmesh); // the crowd keeps its own handle
    /// crowd.update(0.1)?;
    /// assert!(crowd.agent(agent)?.position.is_finite());
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn shared(navmesh: Arc<NavMesh>, max_agents: usize, max_agent_radius: f32) -> Result<Self> {
        Self::init(navmesh, max_agents, max_agent_radius)
    }
}

impl Crowd<TileCache> {
    /// A crowd that owns `cache`: obstacles can be added and removed while its agents walk
    /// ([`Crowd::tile_cache_mut`]; see the module docs). Otherwise as [`Crowd::new`].
    pub fn with_tile_cache(
        cache: TileCache,
        max_agents: usize,
        max_agent_radius: f32,
    ) -> Result<Self> {
        Self::init(cache, max_agents, max_agent_radius)
    }

    /// The tile cache the crowd owns.
    pub fn tile_cache(&self) -> &TileCache {
        self.raw.owner()
    }

    /// Changes to the tile cache while the agents live: obstacles added and removed, tiles
    /// rebuilt ([`TileCacheMut`]). Call its `update` every frame before [`Crowd::update`].
    ///
    /// This is not a `&mut TileCache`: with one, `std::mem::swap` or `std::mem::replace` could
    /// move the cache, and with it the navmesh the `dtCrowd` points to, out of the crowd.
    pub fn tile_cache_mut(&mut self) -> TileCacheMut<'_> {
        TileCacheMut {
            cache: self.raw.owner_mut(),
        }
    }

    /// Gives the tile cache back (the agents go with the crowd).
    pub fn into_tile_cache(self) -> TileCache {
        // The dtCrowd is freed before the cache is given back.
        self.raw.into_owner()
    }
}

impl<N: CrowdNavMesh> Crowd<N> {
    /// The crowd over `nav`'s navmesh, which it keeps (see [`CrowdNavMesh`]).
    fn init(nav: N, max_agents: usize, max_agent_radius: f32) -> Result<Self> {
        Self::check_sizes(max_agents, max_agent_radius)?;
        let raw = RawCrowd::owning(max_agents as i32, max_agent_radius, nav, |n| {
            Some(n.navmesh().raw())
        })
        .ok_or_else(|| {
            Error::OutOfMemory(format!("dtCrowd::init for {max_agents} agents failed"))
        })?;
        Self::finish(raw, max_agents, max_agent_radius)
    }

    fn check_sizes(max_agents: usize, max_agent_radius: f32) -> Result<()> {
        if !(1..=MAX_AGENTS).contains(&max_agents) {
            return Err(Error::InvalidArgument(format!(
                "crowd of {max_agents} agents: must be 1 to {MAX_AGENTS}"
            )));
        }
        if !(max_agent_radius.is_finite() && max_agent_radius > 0.0 && max_agent_radius < 1e4) {
            return Err(Error::InvalidArgument(format!(
                "maximum agent radius {max_agent_radius}: must be finite and positive"
            )));
        }
        Ok(())
    }

    fn finish(raw: RawCrowd<'static, N>, max_agents: usize, max_agent_radius: f32) -> Result<Self> {
        let mut crowd = Crowd {
            raw,
            filter: QueryFilter::default(),
            max_radius: max_agent_radius,
            slots: vec![(0, false); max_agents],
            engine: CrowdEngine::default(),
            behaviours: CrowdBehaviours::default(),
            minds: vec![mind::Mind::default(); max_agents],
        };
        for q in [
            AvoidanceQuality::Low,
            AvoidanceQuality::Medium,
            AvoidanceQuality::Good,
            AvoidanceQuality::High,
        ] {
            crowd.set_avoidance_params(q as usize, AvoidanceParams::preset(q))?;
        }
        crowd.set_filter(0, &QueryFilter::default())?;
        Ok(crowd)
    }

    /// Sets obstacle-avoidance preset `slot` (0..8). `adaptive_divs` must be odd, at most 31;
    /// `adaptive_rings` in 1..=4 and `adaptive_depth` in 1..=10 (Detour's limits).
    pub fn set_avoidance_params(&mut self, slot: usize, p: AvoidanceParams) -> Result<()> {
        let finite = [
            p.vel_bias,
            p.weight_des_vel,
            p.weight_cur_vel,
            p.weight_side,
            p.weight_toi,
            p.horiz_time,
        ];
        if slot >= 8 || finite.iter().any(|v| !v.is_finite()) || p.grid_size == 0 {
            return Err(Error::InvalidArgument(format!(
                "avoidance slot {slot} (< 8) with finite weights and a grid size > 0: {p:?}"
            )));
        }
        // Detour's adaptive sampling (dtObstacleAvoidanceQuery::sampleVelocityAdaptive) builds
        // its pattern for an even division count one sample off: it leaves a sample unset and
        // writes one past the ring, beyond its stack buffer at 32 divisions and 4 rings (found
        // by fuzzing, under AddressSanitizer). Odd counts, as RecastDemo's presets use, are
        // exact.
        if p.adaptive_divs.is_multiple_of(2) || p.adaptive_divs > 31 {
            return Err(Error::InvalidArgument(format!(
                "adaptive_divs {} must be odd and at most 31 (Detour's adaptive sampling \
                 mishandles even counts and overflows its pattern at 32)",
                p.adaptive_divs
            )));
        }
        if !(1..=4).contains(&p.adaptive_rings) || !(1..=10).contains(&p.adaptive_depth) {
            return Err(Error::InvalidArgument(format!(
                "adaptive_rings {} must be in 1..=4 and adaptive_depth {} in 1..=10",
                p.adaptive_rings, p.adaptive_depth
            )));
        }
        self.raw.set_obstacle_avoidance_params(slot, p);
        Ok(())
    }

    /// Sets query filter type `index` (0..16) used by agents whose `query_filter_type` is it.
    /// Filter 0 is also used to snap positions and targets.
    pub fn set_filter(&mut self, index: usize, filter: &QueryFilter) -> Result<()> {
        if index >= 16 {
            return Err(Error::InvalidArgument(format!(
                "query filter type {index}: must be < 16"
            )));
        }
        self.raw.set_filter(index, NavMeshQuery::raw_filter(filter));
        if index == 0 {
            self.filter = filter.clone();
        }
        Ok(())
    }

    /// Room for this many agents.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Agents in the crowd.
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.1).count()
    }

    /// True if no agent is in the crowd.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The handles of every agent, by slot.
    pub fn handles(&self) -> Vec<AgentHandle> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.1)
            .map(|(i, s)| AgentHandle {
                index: i as u32,
                generation: s.0,
            })
            .collect()
    }

    /// The navmesh point nearest `p` (the caller's argument `argument`), with filter 0 and
    /// Detour's default half extents. A fresh small query each time: for a tile cache the
    /// tiles may have changed since the last call (snapping is per request, not per frame).
    fn snap(&self, argument: &'static str, p: Vec3) -> Result<(PolyRef, Vec3)> {
        let mut q = NavMeshQuery::new(self.navmesh(), 64)?;
        let n = q.nearest_poly(argument, p, DEFAULT_HALF_EXTENTS, &self.filter)?;
        Ok((n.poly, n.point))
    }

    /// The navmesh the crowd walks on (for an owned tile cache, as it is now).
    pub fn navmesh(&self) -> &NavMesh {
        self.raw.owner().navmesh()
    }

    fn slot(&self, h: AgentHandle) -> Result<i32> {
        match self.slots.get(h.index as usize) {
            Some(&(generation, true)) if generation == h.generation => Ok(h.index as i32),
            _ => Err(Error::StaleHandle {
                what: "agent handle",
                handle: format!("{h:?}"),
            }),
        }
    }

    /// Adds an agent at the navmesh point nearest `position`. Errors if the point is not finite
    /// or off the navmesh, the parameters are absurd, or the crowd is full.
    pub fn add_agent(&mut self, position: Vec3, params: AgentParams) -> Result<AgentHandle> {
        let raw = params.check(self.max_radius)?;
        let (_, p) = self.snap("position", position)?;
        let idx = self
            .raw
            .add_agent(p.to_array(), raw)
            .ok_or_else(|| Error::PoolFull {
                what: "crowd agent",
                capacity: self.capacity(),
            })?;
        let slot = self
            .slots
            .get_mut(idx as usize)
            .ok_or_else(|| Error::InvalidArgument(format!("dtCrowd returned slot {idx}")))?;
        slot.0 = slot.0.wrapping_add(1);
        slot.1 = true;
        self.minds[idx as usize] = mind::Mind::with_goal(None);
        Ok(AgentHandle {
            index: idx as u32,
            generation: slot.0,
        })
    }

    /// Removes an agent; its handle (and any copy) becomes stale. Removing twice is an error.
    pub fn remove_agent(&mut self, h: AgentHandle) -> Result<()> {
        let idx = self.slot(h)?;
        self.raw.remove_agent(idx);
        self.slots[idx as usize].1 = false;
        self.minds[idx as usize] = mind::Mind::default();
        Ok(())
    }

    /// Changes an agent's parameters.
    pub fn set_agent_params(&mut self, h: AgentHandle, params: AgentParams) -> Result<()> {
        let idx = self.slot(h)?;
        let raw = params.check(self.max_radius)?;
        self.raw.update_agent_parameters(idx, raw);
        // The user's speed now; a queue caps it again next frame if it must.
        self.minds[idx as usize].user_max_speed = None;
        Ok(())
    }

    /// Asks the agent to move to the navmesh point nearest `target` (cancelling any behaviour
    /// in progress for it). Errors for a stale handle, a non-finite target, or a target with
    /// no polygon near.
    pub fn request_move_target(&mut self, h: AgentHandle, target: Vec3) -> Result<()> {
        let idx = self.slot(h)?;
        let (poly, p) = self.snap("target", target)?;
        if self.raw.request_move_target(idx, poly.0, p.to_array()) {
            self.forget_behaviour(idx as usize, Some((poly, p)));
            Ok(())
        } else {
            Err(refused("dtCrowd::requestMoveTarget"))
        }
    }

    /// Asks the agent to move at `velocity` (no path; cancels any behaviour in progress for
    /// it).
    pub fn request_move_velocity(&mut self, h: AgentHandle, velocity: Vec3) -> Result<()> {
        let idx = self.slot(h)?;
        if !velocity.is_finite() {
            return Err(Error::NonFinite {
                argument: "velocity",
                value: velocity,
            });
        }
        if self.raw.request_move_velocity(idx, velocity.to_array()) {
            self.forget_behaviour(idx as usize, None);
            Ok(())
        } else {
            Err(refused("dtCrowd::requestMoveVelocity"))
        }
    }

    /// Sets the agent's current velocity: what it moves at before the next update's steering
    /// and acceleration change it, as if it had been walking. For an agent carried over from
    /// another crowd (on a rebuilt navmesh), so that it keeps its pace instead of starting
    /// from rest. The velocity must be finite; it is not clamped (an agent faster than its
    /// `max_speed` slows down at its `max_acceleration`).
    ///
    /// ```
    /// # use navkit::{Crowd, InputGeometry, NavMeshBuilder};
    /// # use navkit::agents::crowd::AgentParams;
    /// # use glam::Vec3;
    /// # let geom = InputGeometry::load("meshes/demo_level.gset")?;
    /// # let navmesh = NavMeshBuilder::new(&geom).solo()?.into_navmesh();
    /// let mut crowd = Crowd::new(&navmesh, 8, 0.6)?;
    /// let h = crowd.add_agent(Vec3::new(2.0, 0.0, 5.0), AgentParams::default())?;
    /// crowd.set_agent_velocity(h, Vec3::new(3.5, 0.0, 0.0))?;
    /// assert_eq!(crowd.agent(h)?.velocity, Vec3::new(3.5, 0.0, 0.0));
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn set_agent_velocity(&mut self, h: AgentHandle, velocity: Vec3) -> Result<()> {
        let idx = self.slot(h)?;
        if !velocity.is_finite() {
            return Err(Error::NonFinite {
                argument: "velocity",
                value: velocity,
            });
        }
        if self.raw.set_velocity(idx, velocity.to_array()) {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "no active agent in slot {idx}"
            )))
        }
    }

    /// Cancels the agent's move request (and any behaviour in progress for it).
    pub fn reset_move_target(&mut self, h: AgentHandle) -> Result<()> {
        let idx = self.slot(h)?;
        self.raw.reset_move_target(idx);
        self.forget_behaviour(idx as usize, None);
        Ok(())
    }

    /// Advances every agent by `dt` seconds (finite, positive, at most 1): the chosen engine's
    /// step ([`Crowd::set_engine`]: navkit's by default, on [`Crowd::threads`] threads), then
    /// the crowd behaviours' ([`CrowdBehaviours`]).
    pub fn update(&mut self, dt: f32) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0 && dt <= 1.0) {
            return Err(Error::InvalidArgument(format!(
                "time step {dt}: must be finite, positive and at most 1 s"
            )));
        }
        self.step(dt);
        self.behaviours_after(dt)
    }

    /// A copy of an agent's state.
    pub fn agent(&self, h: AgentHandle) -> Result<AgentState> {
        let idx = self.slot(h)?;
        let a: RawAgentState = self
            .raw
            .agent(idx)
            .ok_or_else(|| Error::InvalidArgument(format!("no agent in slot {idx}")))?;
        let v = Vec3::from_array;
        let mind = &self.minds[idx as usize];
        let mut params = a.params;
        params.max_speed = mind.user_max_speed.unwrap_or(params.max_speed);
        // The user's target, whatever a behaviour steers the dtCrowd agent to meanwhile.
        let (target_state, target) = match (mind.goal, mind.overrides_target()) {
            (Some((_, g)), _) => (TargetState::from_raw(a.target_state), g),
            (None, true) => (TargetState::None, mind.home.unwrap_or(v(a.target_pos))),
            (None, false) => (TargetState::from_raw(a.target_state), v(a.target_pos)),
        };
        Ok(AgentState {
            position: v(a.position),
            velocity: v(a.velocity),
            desired_velocity: v(a.desired_velocity),
            corners: a.corners[..a.ncorners].iter().map(|&c| v(c)).collect(),
            target_state,
            target,
            off_mesh: a.state == 2,
            path_status: if a.partial {
                PathStatus::Partial
            } else {
                PathStatus::Complete
            },
            params,
            stuck: mind.stuck,
            activity: self.activity_of(idx as usize, &a),
        })
    }
}

/// The error for a `bool`-returning dtCrowd call that refused.
fn refused(operation: &'static str) -> Error {
    Error::Detour {
        operation,
        cause: DetourCause::Refused,
        status: Status(Status::FAILURE),
    }
}
