//! Owner of a `dtCrowd` and the calls over it.

use std::marker::PhantomData;

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::crowd_update::Engine;
use super::detour::{NavKeepAlive, RawFilter, RawNavMesh};
use super::owner::owner;

mod nudge;
mod steer_bias;
mod velocity;

// The parameter types are plain data defined here, at the bottom of the crate, so that this
// layer imports nothing from above it; `crate::agents::crowd` re-exports them and adds their
// methods (defaults, presets, checks).

/// One agent's parameters (`dtCrowdAgentParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AgentParams {
    /// Radius.
    pub radius: f32,
    /// Height.
    pub height: f32,
    /// Maximum acceleration.
    pub max_acceleration: f32,
    /// Maximum speed.
    pub max_speed: f32,
    /// How far around it other agents are considered.
    pub collision_query_range: f32,
    /// How far ahead the path is shortcut.
    pub path_optimization_range: f32,
    /// How strongly it keeps apart from others.
    pub separation_weight: f32,
    /// [`update_flags`](crate::agents::crowd::update_flags).
    pub update_flags: u8,
    /// The obstacle-avoidance preset (0..8, see [`AvoidanceQuality`](crate::agents::crowd::AvoidanceQuality)).
    pub obstacle_avoidance_type: u8,
    /// The query filter type (0..16, see [`Crowd::set_filter`](crate::agents::crowd::Crowd::set_filter)).
    pub query_filter_type: u8,
}

/// Obstacle-avoidance parameters (`dtObstacleAvoidanceParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AvoidanceParams {
    /// Velocity bias.
    pub vel_bias: f32,
    /// Weight of the desired velocity.
    pub weight_des_vel: f32,
    /// Weight of the current velocity.
    pub weight_cur_vel: f32,
    /// Weight of the side preference.
    pub weight_side: f32,
    /// Weight of the time of impact.
    pub weight_toi: f32,
    /// Time horizon.
    pub horiz_time: f32,
    /// Grid size (grid sampling).
    pub grid_size: u8,
    /// Adaptive divisions.
    pub adaptive_divs: u8,
    /// Adaptive rings.
    pub adaptive_rings: u8,
    /// Adaptive depth.
    pub adaptive_depth: u8,
}

/// `dtCrowdAgentParams` (without user data) of the safe layer's parameters.
fn to_sys(p: AgentParams) -> sys::dtCrowdAgentParams {
    sys::dtCrowdAgentParams {
        radius: p.radius,
        height: p.height,
        maxAcceleration: p.max_acceleration,
        maxSpeed: p.max_speed,
        collisionQueryRange: p.collision_query_range,
        pathOptimizationRange: p.path_optimization_range,
        separationWeight: p.separation_weight,
        updateFlags: p.update_flags,
        obstacleAvoidanceType: p.obstacle_avoidance_type,
        queryFilterType: p.query_filter_type,
        userData: std::ptr::null_mut(),
    }
}

/// A copy of the state of one crowd agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawAgentState {
    pub active: bool,
    pub state: u8,
    pub partial: bool,
    pub position: [f32; 3],
    pub velocity: [f32; 3],
    pub desired_velocity: [f32; 3],
    pub corners: [[f32; 3]; 4],
    pub ncorners: usize,
    pub target_state: u8,
    pub target_pos: [f32; 3],
    pub params: AgentParams,
}

/// Owner of a `dtCrowd` initialised over a navmesh ([`RawCrowd::owning`]), which keeps the
/// `dtNavMesh` alive and unchanged while any call here runs: it takes the navmesh's owner `O`
/// into the crowd (a shared borrow `&NavMesh`, which keeps the navmesh from being dropped or
/// changed while the crowd lives; or a tile cache), with a keep-alive handle of the
/// `dtNavMesh`. The owner is reachable only through the crowd (`owner_mut` takes `&mut self`),
/// so tiles change only between calls here, and even if the owner replaced its navmesh, the one
/// the `dtCrowd` points to stays allocated until the crowd is freed.
///
/// With a tile cache, tiles may be removed and added between calls: dtCrowd keeps only poly
/// refs (which it re-validates with `isValidPolyRef` every update and replans from) and copied
/// positions, never pointers into tile memory, across calls, as RecastDemo's Temp Obstacles
/// sample relies on. Refs that outlived their tile reach Detour only through checked lookups
/// (`getTileAndPolyByRef`, `isValidPolyRef`: tile index in range, salt equal, poly index below
/// the tile's poly count; sliced path queries fail when a polygon vanished mid-query), so even
/// a ref whose salt came round again after 2^salt-bits rebuilds of one tile names a polygon in
/// bounds (a wrong one, replanned from), never freed memory.
pub(crate) struct RawCrowd<'nav, O = ()> {
    // Fields drop in declaration order: the worker queries of our update and the dtCrowd
    // first, then what keeps their navmesh alive.
    engine: Engine,
    ptr: CrowdObj,
    max_agents: i32,
    _keep_alive: Option<NavKeepAlive>,
    owner: Box<O>,
    _nav: PhantomData<&'nav RawNavMesh>,
}

owner!(
    /// The `dtCrowd` allocation, freed on drop: before the navmesh it points to (see
    /// `RawCrowd`'s field order and `into_owner`).
    CrowdObj(sys::dtCrowd),
    free: sys::dtFreeCrowd
);

// `RawCrowd` is `Send` when its owner `O` is, and not `Sync`: the dtCrowd is heap data owned by
// this value (`CrowdObj` is `Send`); every call takes `&self` for reads of plain agent data or
// `&mut self` for anything that changes it; and the navmesh it reads is `Sync` and only read
// (borrowed shared, or reachable only through this value).

impl<'nav, O> RawCrowd<'nav, O> {
    /// Allocates and initialises the crowd over the `dtNavMesh` at `nav`.
    ///
    /// # Safety
    /// `nav` must point to a live, initialised `dtNavMesh` that stays allocated, and is not
    /// changed while any call of the crowd runs, for as long as the crowd lives: kept alive by
    /// `keep_alive` (and reachable only through the crowd's owner), or borrowed for `'nav`.
    unsafe fn init(
        max_agents: i32,
        max_agent_radius: f32,
        nav: *const sys::dtNavMesh,
        keep_alive: Option<NavKeepAlive>,
        owner: Box<O>,
    ) -> Option<Self> {
        // SAFETY: dtAllocCrowd returns a new crowd (freed by dtFreeCrowd) or null.
        let ptr = unsafe { CrowdObj::from_raw(sys::dtAllocCrowd()) }?;
        let crowd = RawCrowd {
            engine: Engine::new(None),
            ptr,
            max_agents,
            _keep_alive: keep_alive,
            owner,
            _nav: PhantomData,
        };
        // SAFETY: live crowd; the navmesh stays allocated for the crowd's life (the caller's
        // contract) and Detour only reads it (init takes a mutable pointer but the crowd's query
        // never writes to the navmesh).
        let ok = unsafe {
            sys::dtCrowd_init(
                crowd.ptr.as_ptr(),
                max_agents,
                max_agent_radius,
                nav as *mut sys::dtNavMesh,
            )
        };
        // On failure `crowd` is dropped, which frees it.
        ok.then_some(crowd)
    }

    /// The value this crowd keeps ([`RawCrowd::owning`]).
    pub(crate) fn owner(&self) -> &O {
        &self.owner
    }

    /// The value this crowd keeps, mutably: no call of the crowd runs while it is borrowed.
    pub(crate) fn owner_mut(&mut self) -> &mut O {
        &mut self.owner
    }

    /// Frees the crowd and gives back the value it kept.
    pub(crate) fn into_owner(self) -> O {
        let RawCrowd {
            engine,
            ptr,
            _keep_alive,
            owner,
            ..
        } = self;
        // The worker queries and the dtCrowd go before what they point to.
        drop(engine);
        drop(ptr);
        drop(_keep_alive);
        *owner
    }
}

impl<O> RawCrowd<'static, O> {
    /// A crowd over the navmesh `nav_of(&owner)`, taking `owner` with it (see the type's docs);
    /// `None` if `nav_of` gives no navmesh or allocation or `init` fails.
    pub(crate) fn owning(
        max_agents: i32,
        max_agent_radius: f32,
        owner: O,
        nav_of: fn(&O) -> Option<&RawNavMesh>,
    ) -> Option<Self> {
        let owner = Box::new(owner);
        let nav = nav_of(&owner)?;
        let (ptr, keep_alive) = (nav.as_ptr(), nav.keep_alive());
        // SAFETY: `keep_alive` keeps the `dtNavMesh` at `ptr` allocated for as long as the crowd
        // holds it (its field drops after the dtCrowd), and the navmesh's owner, boxed into the
        // crowd, is reachable only through `owner_mut(&mut self)`, so the navmesh changes only
        // between calls of the crowd (see the type's docs).
        unsafe { Self::init(max_agents, max_agent_radius, ptr, Some(keep_alive), owner) }
    }
}

impl<O> RawCrowd<'_, O> {
    fn valid(&self, idx: i32) -> bool {
        (0..self.max_agents).contains(&idx)
    }

    /// `addAgent`: the new index, or `None` when the crowd is full.
    pub(crate) fn add_agent(&mut self, pos: [f32; 3], params: AgentParams) -> Option<i32> {
        let p = to_sys(params);
        // SAFETY: live crowd, exclusively borrowed; both pointers are to locals read during the
        // call only.
        let idx = unsafe { sys::dtCrowd_addAgent(self.ptr.as_ptr(), pos.as_ptr(), &p) };
        (idx >= 0).then_some(idx)
    }

    /// `updateAgentParameters` (ignored for an index out of range).
    pub(crate) fn update_agent_parameters(&mut self, idx: i32, params: AgentParams) {
        if self.valid(idx) {
            let p = to_sys(params);
            // SAFETY: live crowd, index in range, pointer to a local.
            unsafe { sys::dtCrowd_updateAgentParameters(self.ptr.as_ptr(), idx, &p) }
        }
    }

    /// `removeAgent` (ignored for an index out of range).
    pub(crate) fn remove_agent(&mut self, idx: i32) {
        if self.valid(idx) {
            // SAFETY: live crowd, index in range.
            unsafe { sys::dtCrowd_removeAgent(self.ptr.as_ptr(), idx) }
        }
    }

    /// `requestMoveTarget`.
    pub(crate) fn request_move_target(&mut self, idx: i32, r: RawPolyRef, pos: [f32; 3]) -> bool {
        // SAFETY: live crowd, index in range, pointer to a local; Detour checks the ref.
        self.valid(idx)
            && unsafe { sys::dtCrowd_requestMoveTarget(self.ptr.as_ptr(), idx, r, pos.as_ptr()) }
    }

    /// `requestMoveVelocity`.
    pub(crate) fn request_move_velocity(&mut self, idx: i32, vel: [f32; 3]) -> bool {
        // SAFETY: live crowd, index in range, pointer to a local.
        self.valid(idx)
            && unsafe { sys::dtCrowd_requestMoveVelocity(self.ptr.as_ptr(), idx, vel.as_ptr()) }
    }

    /// `resetMoveTarget`.
    pub(crate) fn reset_move_target(&mut self, idx: i32) -> bool {
        // SAFETY: live crowd, index in range.
        self.valid(idx) && unsafe { sys::dtCrowd_resetMoveTarget(self.ptr.as_ptr(), idx) }
    }

    /// Upstream's `dtCrowd::update` without debug info.
    pub(crate) fn update_upstream(&mut self, dt: f32) {
        // SAFETY: live crowd, exclusively borrowed; a null debug pointer is allowed.
        unsafe { sys::dtCrowd_update(self.ptr.as_ptr(), dt, std::ptr::null_mut()) }
    }

    /// navkit's update (`crowd_update`): the same results as [`RawCrowd::update_upstream`],
    /// with the per-agent phases on the engine's threads (and, where set, the steering biases
    /// of `set_steer_bias`, which upstream's update does not know).
    pub(crate) fn update(&mut self, dt: f32) {
        // SAFETY: live crowd, exclusively borrowed for the call; its navmesh is kept alive and
        // unchanged while the crowd lives (the type's invariant); the engine is this crowd's
        // alone and is freed before the navmesh (field order, `into_owner`).
        unsafe { self.engine.update(self.ptr.as_ptr(), dt) }
    }

    /// Runs navkit's update on `threads` threads (`None`: rayon's global pool, all cores).
    pub(crate) fn set_threads(&mut self, threads: Option<usize>) {
        self.engine.set_threads(threads);
    }

    /// The last navkit update's time in its sequential steps, and in all.
    pub(crate) fn timing(&self) -> (std::time::Duration, std::time::Duration) {
        self.engine.timing()
    }

    /// The threads navkit's update runs on.
    pub(crate) fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// Agent `idx`'s corridor (its path's polygons) and planned velocity (`nvel`); `None` out
    /// of range.
    pub(crate) fn corridor(&self, idx: i32) -> Option<(Vec<RawPolyRef>, [f32; 3])> {
        if !self.valid(idx) {
            return None;
        }
        // SAFETY: live crowd, index in range; the corridor's path holds `m_npath` refs, read
        // and copied at once (`&self`).
        unsafe {
            let a = &*sys::dtCrowd_getAgent(self.ptr.as_ptr(), idx);
            let c = &a.corridor;
            let path = if c.m_path.is_null() || c.m_npath <= 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(c.m_path, c.m_npath as usize).to_vec()
            };
            Some((path, a.nvel))
        }
    }

    /// A copy of agent `idx`'s state, `None` out of range.
    pub(crate) fn agent(&self, idx: i32) -> Option<RawAgentState> {
        if !self.valid(idx) {
            return None;
        }
        // SAFETY: live crowd; `getAgent` only reads (it is non-const in the C++ API but returns
        // a const pointer into the agent array, valid while the crowd lives and is not
        // mutated, which `&self` guarantees); the index is in range.
        let a = unsafe { sys::dtCrowd_getAgent(self.ptr.as_ptr(), idx).as_ref()? };
        let n = (a.ncorners.clamp(0, 4)) as usize;
        let mut corners = [[0.0; 3]; 4];
        for (i, c) in corners.iter_mut().enumerate().take(n) {
            c.copy_from_slice(&a.cornerVerts[i * 3..i * 3 + 3]);
        }
        let p = a.params;
        Some(RawAgentState {
            active: a.active,
            state: a.state,
            partial: a.partial,
            position: a.npos,
            velocity: a.vel,
            desired_velocity: a.dvel,
            corners,
            ncorners: n,
            target_state: a.targetState,
            target_pos: a.targetPos,
            params: AgentParams {
                radius: p.radius,
                height: p.height,
                max_acceleration: p.maxAcceleration,
                max_speed: p.maxSpeed,
                collision_query_range: p.collisionQueryRange,
                path_optimization_range: p.pathOptimizationRange,
                separation_weight: p.separationWeight,
                update_flags: p.updateFlags,
                obstacle_avoidance_type: p.obstacleAvoidanceType,
                query_filter_type: p.queryFilterType,
            },
        })
    }

    /// `setObstacleAvoidanceParams` for preset slot `idx` (0..8; others ignored).
    pub(crate) fn set_obstacle_avoidance_params(&mut self, idx: usize, p: AvoidanceParams) {
        if idx >= sys::DT_CROWD_MAX_OBSTAVOIDANCE_PARAMS as usize {
            return;
        }
        let raw = sys::dtObstacleAvoidanceParams {
            velBias: p.vel_bias,
            weightDesVel: p.weight_des_vel,
            weightCurVel: p.weight_cur_vel,
            weightSide: p.weight_side,
            weightToi: p.weight_toi,
            horizTime: p.horiz_time,
            gridSize: p.grid_size,
            adaptiveDivs: p.adaptive_divs,
            adaptiveRings: p.adaptive_rings,
            adaptiveDepth: p.adaptive_depth,
        };
        // SAFETY: live crowd, slot in range, pointer to a local copied by Detour.
        unsafe { sys::dtCrowd_setObstacleAvoidanceParams(self.ptr.as_ptr(), idx as i32, &raw) }
    }

    /// Sets query filter type `idx` (0..16; others ignored): `getEditableFilter(idx)` is inline
    /// in the C++ header and not bound, so the filter array is written directly.
    pub(crate) fn set_filter(&mut self, idx: usize, filter: &RawFilter) {
        // SAFETY: live crowd, exclusively borrowed; `m_filters` is a plain array of plain-data
        // filters inside the crowd, and the index is checked by `get_mut`.
        let filters = unsafe { &mut (*self.ptr.as_ptr()).m_filters };
        if let Some(f) = filters.get_mut(idx) {
            f.m_areaCost = filter.0.m_areaCost;
            f.m_includeFlags = filter.0.m_includeFlags;
            f.m_excludeFlags = filter.0.m_excludeFlags;
        }
    }
}

impl<O> RawCrowd<'_, O> {
    /// The neighbours the last update gathered for agent `idx` (`dtCrowdAgent::neis`): at most
    /// 6 (agent index, squared distance), nearest first, and how many; none out of range. No
    /// allocation: the crowd behaviours read them for every agent every frame.
    pub(crate) fn neighbours(&self, idx: i32) -> ([(i32, f32); 6], usize) {
        let mut out = [(0i32, 0f32); 6];
        if !self.valid(idx) {
            return (out, 0);
        }
        // SAFETY: live crowd, index in range; `getAgent` returns a const pointer into the agent
        // array, only read here while `&self` keeps the crowd unchanged.
        let Some(a) = (unsafe { sys::dtCrowd_getAgent(self.ptr.as_ptr(), idx).as_ref() }) else {
            return (out, 0);
        };
        let n = a.nneis.clamp(0, a.neis.len() as i32) as usize;
        for (o, nei) in out.iter_mut().zip(&a.neis[..n]) {
            *o = (nei.idx, nei.dist);
        }
        (out, n)
    }
}
