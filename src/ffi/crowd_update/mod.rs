//! navkit's crowd update: the phases of `dtCrowd::update`, driven from Rust over the dtCrowd's
//! own storage (its agents, animations, filters, avoidance presets and path queue), with the
//! per-agent phases spread over threads.
//!
//! Each phase gives every agent exactly the float results `dtCrowd::update` gives it: Detour's
//! public calls (corridor, local boundary, path queue, navmesh query) are called as dtCrowd
//! calls them, and the rest (steering, separation, integration, collision resolution,
//! neighbour selection, the queues of the path and topology budgets, off-mesh animation) is
//! written here to do the same operations in the same order. The proximity grid
//! (`proximity`) and the obstacle-avoidance velocity sampling (`sampling`, vectorised over the
//! candidate velocities) are our own, with the same answers.
//!
//! Determinism: a per-agent phase reads only what earlier phases wrote (other agents' data is
//! read-only within it) and writes only its own agent, and every Detour query it makes clears
//! its state first (`scratch`), so the results do not depend on the thread count, on how the
//! agents are split into tasks, or on which worker runs which task. The budgeted parts (path
//! requests and their queue, topology optimisation, the grid) run on the calling thread in
//! agent order, as dtCrowd's.

mod avoidance;
mod collisions;
mod corners;
mod integrate;
pub(in crate::ffi) mod move_along;
mod move_requests;
mod neighbours;
mod offmesh;
mod path_validity;
pub(crate) mod proximity;
#[cfg(test)]
mod proximity_tests;
mod runner;
mod sampling;
#[cfg(test)]
mod sampling_tests;
mod scratch;
mod steering;
mod topology;
mod vecmath;

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use recastnavigation_sys as sys;

use proximity::ProximityGrid;
pub(crate) use runner::Runner;
use runner::Weight::{Heavy, Light};

/// `dtCrowdAgent::state` values.
const STATE_INVALID: u8 = sys::CrowdAgentState_DT_CROWDAGENT_STATE_INVALID as u8;
pub(in crate::ffi) const STATE_WALKING: u8 = sys::CrowdAgentState_DT_CROWDAGENT_STATE_WALKING as u8;
const STATE_OFFMESH: u8 = sys::CrowdAgentState_DT_CROWDAGENT_STATE_OFFMESH as u8;

/// `dtCrowdAgent::targetState` values.
const TARGET_NONE: u8 = sys::MoveRequestState_DT_CROWDAGENT_TARGET_NONE as u8;
const TARGET_FAILED: u8 = sys::MoveRequestState_DT_CROWDAGENT_TARGET_FAILED as u8;
const TARGET_VALID: u8 = sys::MoveRequestState_DT_CROWDAGENT_TARGET_VALID as u8;
const TARGET_REQUESTING: u8 = sys::MoveRequestState_DT_CROWDAGENT_TARGET_REQUESTING as u8;
const TARGET_WAITING_FOR_QUEUE: u8 =
    sys::MoveRequestState_DT_CROWDAGENT_TARGET_WAITING_FOR_QUEUE as u8;
const TARGET_WAITING_FOR_PATH: u8 =
    sys::MoveRequestState_DT_CROWDAGENT_TARGET_WAITING_FOR_PATH as u8;
const TARGET_VELOCITY: u8 = sys::MoveRequestState_DT_CROWDAGENT_TARGET_VELOCITY as u8;

/// `dtCrowdAgentParams::updateFlags` bits.
const ANTICIPATE_TURNS: u8 = sys::UpdateFlags_DT_CROWD_ANTICIPATE_TURNS as u8;
const OBSTACLE_AVOIDANCE: u8 = sys::UpdateFlags_DT_CROWD_OBSTACLE_AVOIDANCE as u8;
const SEPARATION: u8 = sys::UpdateFlags_DT_CROWD_SEPARATION as u8;
const OPTIMIZE_VIS: u8 = sys::UpdateFlags_DT_CROWD_OPTIMIZE_VIS as u8;
const OPTIMIZE_TOPO: u8 = sys::UpdateFlags_DT_CROWD_OPTIMIZE_TOPO as u8;

/// True for a move request that follows no path (none, or a velocity).
fn no_path(target_state: u8) -> bool {
    target_state == TARGET_NONE || target_state == TARGET_VELOCITY
}

/// Pointers into one dtCrowd, handed to the tasks of a phase.
#[derive(Clone, Copy)]
pub(super) struct CrowdView {
    crowd: *mut sys::dtCrowd,
    agents: *mut sys::dtCrowdAgent,
    anims: *mut sys::dtCrowdAgentAnimation,
}

// SAFETY: a `CrowdView` is only made by `update` for the duration of one update, which has the
// crowd exclusively (`&mut` on its owner). Within a phase, each task writes only the agent (and
// its animation) it was given, and reads other agents' fields only where no task of that phase
// writes them (each phase file says what it reads and writes); crowd-level data (filters,
// avoidance presets, placement extents) is read-only in the parallel phases.
unsafe impl Send for CrowdView {}
// SAFETY: as for `Send`.
unsafe impl Sync for CrowdView {}

impl CrowdView {
    /// Agent `i`'s pointer.
    ///
    /// # Safety
    /// `i` below the crowd's `m_maxAgents`.
    unsafe fn agent(self, i: usize) -> *mut sys::dtCrowdAgent {
        // SAFETY: in bounds of the agent array (the caller's contract).
        unsafe { self.agents.add(i) }
    }

    /// Agent `i`'s off-mesh animation.
    ///
    /// # Safety
    /// `i` below the crowd's `m_maxAgents`.
    unsafe fn anim(self, i: usize) -> *mut sys::dtCrowdAgentAnimation {
        // SAFETY: in bounds of the animation array (the caller's contract).
        unsafe { self.anims.add(i) }
    }

    /// The query filter of agent `ag` (its `queryFilterType`; navkit checks it is below 16).
    ///
    /// # Safety
    /// `ag` a live agent of this crowd.
    unsafe fn filter(self, ag: *const sys::dtCrowdAgent) -> *const sys::dtQueryFilter {
        // SAFETY: live agent and crowd; the filter array has 16 entries and the index is
        // clamped into it; filters are not written during an update.
        unsafe {
            let t = ((*ag).params.queryFilterType as usize).min(15);
            (&raw const (*self.crowd).m_filters)
                .cast::<sys::dtQueryFilter>()
                .add(t)
        }
    }

    /// The crowd's agent placement half extents.
    ///
    /// # Safety
    /// Live crowd.
    unsafe fn half_extents(self) -> [f32; 3] {
        // SAFETY: plain data of the live crowd, not written during an update.
        unsafe { (*self.crowd).m_agentPlacementHalfExtents }
    }
}

/// What the crowd update keeps between frames: the worker threads and their queries, the
/// proximity grid and the list of active agents.
pub(crate) struct Engine {
    runner: Runner,
    grid: Option<ProximityGrid>,
    active: Vec<usize>,
    /// By place in `active`: position and height, for the neighbour queries.
    candidates: Vec<[f32; 4]>,
    /// The last update's time in its sequential steps, and in all.
    timing: (Duration, Duration),
    /// By agent index: the angle (radians) its desired velocity is turned by in steering
    /// (`set_steer_bias`); missing or 0: not turned.
    bias: Vec<f32>,
}

impl Engine {
    /// An engine running on `threads` threads (`None`: rayon's global pool).
    pub(crate) fn new(threads: Option<usize>) -> Self {
        Engine {
            runner: Runner::new(threads),
            grid: None,
            active: Vec::new(),
            candidates: Vec::new(),
            timing: (Duration::ZERO, Duration::ZERO),
            bias: Vec::new(),
        }
    }

    /// Turns agent `idx`'s desired velocity by `angle` radians in the xz-plane (from +x
    /// towards +z, its length kept) in every update's steering from now on, after DetourCrowd's
    /// steering and separation, before obstacle avoidance; 0 (the default) leaves it as
    /// DetourCrowd computes it, bit for bit.
    pub(crate) fn set_steer_bias(&mut self, idx: usize, angle: f32) {
        if angle == 0.0 && idx >= self.bias.len() {
            return;
        }
        if idx >= self.bias.len() {
            self.bias.resize(idx + 1, 0.0);
        }
        self.bias[idx] = angle;
    }

    /// Every agent's steering bias back to none.
    pub(crate) fn clear_steer_bias(&mut self) {
        self.bias.clear();
    }

    /// The last update's time spent in its sequential steps (on the calling thread, between
    /// the parallel phases), and its whole time.
    pub(crate) fn timing(&self) -> (Duration, Duration) {
        self.timing
    }

    /// Runs on `threads` threads from now on (`None`: rayon's global pool).
    pub(crate) fn set_threads(&mut self, threads: Option<usize>) {
        self.runner.set_threads(threads);
    }

    /// The threads the per-agent phases run on.
    pub(crate) fn threads(&self) -> usize {
        self.runner.threads()
    }

    /// One crowd update of `dt` seconds over `crowd`: `dtCrowd::update` without debug data.
    ///
    /// # Safety
    /// `crowd` must point to a live, initialised dtCrowd whose navmesh is live and unchanged
    /// during the call, used by nothing else during it; this engine must only ever be used
    /// with that crowd (its worker queries are made over the crowd's navmesh and freed before
    /// the crowd's navmesh is).
    pub(crate) unsafe fn update(&mut self, crowd: *mut sys::dtCrowd, dt: f32) {
        let start = Instant::now();
        // SAFETY: live crowd, used only here (the caller's contract); plain fields.
        let (max_agents, max_radius, nav) = unsafe {
            let c = &*crowd;
            (
                c.m_maxAgents.max(0) as usize,
                c.m_maxAgentRadius,
                (*c.m_navquery).m_nav,
            )
        };
        // SAFETY: as above.
        let view = unsafe {
            CrowdView {
                crowd,
                agents: (*crowd).m_agents,
                anims: (*crowd).m_agentAnims,
            }
        };
        self.active.clear();
        for i in 0..max_agents {
            // SAFETY: index below m_maxAgents.
            if unsafe { (*view.agent(i)).active } {
                self.active.push(i);
            }
        }
        let grid = self
            .grid
            .get_or_insert_with(|| ProximityGrid::new(max_agents * 4, max_radius * 3.0));
        self.runner.prepare(nav);
        let (active, candidates, runner) = (&self.active, &mut self.candidates, &self.runner);
        let bias = &self.bias[..];
        // The whole update runs on one thread (a pool worker, or this one) while this call
        // waits for it.
        let parallel = runner.install(active.len(), || {
            // SAFETY: the view is of the live crowd, which this call has to itself; `active`
            // holds indices of its agents, in order.
            unsafe { run_phases(view, (active, candidates), grid, (runner, bias), dt) }
        });
        let total = start.elapsed();
        self.timing = (total.saturating_sub(parallel), total);
    }
}

/// The phases of one update, in dtCrowd's order; the time spent in the parallel ones.
///
/// # Safety
/// `view` of a live crowd used by nothing else meanwhile; `active` its active agents' indices
/// in increasing order (`candidates` is refilled from them); `bias` the steering biases by
/// agent index.
unsafe fn run_phases(
    view: CrowdView,
    (active, candidates): (&[usize], &mut Vec<[f32; 4]>),
    grid: &mut ProximityGrid,
    (runner, bias): (&Runner, &[f32]),
    dt: f32,
) -> Duration {
    let mut parallel = Duration::ZERO;
    // SAFETY: no task runs; plain field of the live crowd.
    unsafe { (*view.crowd).m_velocitySampleCount = 0 };
    parallel += runner.for_each(Heavy, active, |s, i| {
        // SAFETY: agent `i` is this task's alone and the query this worker's (path_validity).
        unsafe { path_validity::check(view, i, s.nav_query(), dt) }
    });
    // SAFETY: sequential steps, no task alive; the crowd is this update's.
    unsafe {
        move_requests::update(view);
        topology::update(view, active, dt);
        neighbours::build_grid(view, active, grid, candidates);
    }
    let cands = neighbours::Candidates {
        grid,
        active,
        pos_height: candidates,
    };
    // Boundaries and neighbours, corners, off-mesh triggers and steering of one agent read
    // only its own data, the grid's copy of the positions and other agents' positions, which
    // none of them writes (an off-mesh trigger changes its agent's state, not its position):
    // one task does all four.
    parallel += runner.for_each(Heavy, active, |s, i| {
        // SAFETY: each writes only agent `i` (its boundary, neighbours, corridor, corners,
        // desired velocity, and its animation); other agents' positions are only read.
        unsafe {
            neighbours::update(view, cands, i, s);
            let query = s.nav_query();
            corners::update(view, i, query);
            offmesh::trigger(view, i, query);
            steering::update(view, i, bias.get(i).copied().unwrap_or(0.0));
        }
    });
    let samples = AtomicI32::new(0);
    parallel += runner.for_each(Heavy, active, |s, i| {
        // SAFETY: writes agent `i`'s planned velocity; neighbours only read (avoidance).
        let n = unsafe { avoidance::plan(view, i, s.avoid_query()) };
        samples.fetch_add(n, Ordering::Relaxed);
    });
    // SAFETY: no task runs; plain field of the live crowd.
    unsafe { (*view.crowd).m_velocitySampleCount = samples.into_inner() };
    parallel += runner.for_each(Light, active, |_, i| {
        // SAFETY: reads and writes agent `i` only.
        unsafe { integrate::integrate(view, i, dt) }
    });
    for _ in 0..collisions::ITERATIONS {
        parallel += runner.for_each(Light, active, |_, i| {
            // SAFETY: writes agent `i`'s displacement; neighbours' positions only read.
            unsafe { collisions::displacement(view, i) }
        });
        parallel += runner.for_each(Light, active, |_, i| {
            // SAFETY: reads and writes agent `i` only.
            unsafe { collisions::apply(view, i) }
        });
    }
    // Moving along the navmesh and off-mesh animation touch only their own agent.
    parallel += runner.for_each(Heavy, active, |s, i| {
        // SAFETY: reads and writes agent `i` and its animation only; the query is this
        // worker's.
        unsafe {
            move_along::update(view, i, s.nav_query());
            offmesh::animate(view, i, dt);
        }
    });
    parallel
}
