//! A raw `dtCrowd` (`recastnavigation_sys` FFI) set up as RecastDemo's `CrowdTool` sets up its
//! crowd, and twin crowds (navkit's `Crowd` and the raw one) with the same agents and targets,
//! shared by the crowd benchmark (`benches/crowd.rs`, which times both) and the test that checks
//! in CI that they move every agent to the same place, to the bit
//! (`tests/reference_parity.rs`); both include this file with `#[path]`.
//!
//! The raw side is written from RecastDemo and Detour, not from navkit: `dtCrowd::init` with the
//! agent radius 0.6, avoidance slots 0..4 made from Detour's defaults
//! (`getObstacleAvoidanceParams(0)` of a fresh crowd) with RecastDemo's velocity bias,
//! divisions, rings and depth (`CrowdToolState::init`), agents with `CrowdToolState::addAgent`'s
//! parameters (RecastDemo's tool defaults: every update flag, avoidance type 3, separation
//! weight 2), added at the nearest navmesh point of the start and sent to the nearest point of
//! the goal. Filter 0 is navkit's documented one (`Crowd::new`: the tester's filter, water 10,
//! grass 2, jump 1.5, disabled polygons excluded), written out here; RecastDemo's crowd keeps
//! Detour's unit costs, which on nav_test (all ground) is the same search.
//!
//! With `raw_detour.rs` and `raw_navmesh.rs`, the one place outside `src/ffi` with `unsafe`
//! code; every `unsafe` block carries a `// SAFETY:` comment.

use glam::Vec3;
use recastnavigation_sys as sys;

use navkit::agents::crowd::{AgentParams, Crowd, CrowdBehaviours};
use navkit::navmesh::NavMesh;
use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, QueryFilter};
use navkit::{area, flags};

// The includer includes `raw_navmesh.rs` too, as `raw_navmesh`.
use crate::raw_navmesh::raw_navmesh;

/// RecastDemo's agent radius and height (`Sample`'s defaults).
pub const AGENT_RADIUS: f32 = 0.6;
const AGENT_HEIGHT: f32 = 2.0;

/// A raw dtNavMesh (owning a copy of the tile data) and a dtCrowd over it.
pub struct RawCrowd {
    nav: *mut sys::dtNavMesh,
    crowd: *mut sys::dtCrowd,
}

impl RawCrowd {
    /// A crowd of at most `max_agents` over a navmesh of `tile_data`, set up as RecastDemo's.
    pub fn new(tile_data: &[u8], max_agents: i32) -> RawCrowd {
        let nav = raw_navmesh(tile_data);
        // SAFETY: constructed crowd or null; checked.
        let crowd = unsafe { sys::dtAllocCrowd() };
        assert!(!crowd.is_null());
        // SAFETY: live crowd and navmesh; the navmesh outlives the crowd (Drop frees the crowd
        // first).
        assert!(unsafe { sys::dtCrowd_init(crowd, max_agents, AGENT_RADIUS, nav) });
        // RecastDemo's four avoidance qualities: Detour's defaults with these changed.
        // SAFETY: live crowd; slot 0 exists after init; the params are copied at once.
        let mut params = unsafe { *sys::dtCrowd_getObstacleAvoidanceParams(crowd, 0) };
        for (slot, (divs, rings, depth)) in [(5, 2, 1), (5, 2, 2), (7, 2, 3), (7, 3, 3)]
            .into_iter()
            .enumerate()
        {
            params.velBias = 0.5;
            params.adaptiveDivs = divs;
            params.adaptiveRings = rings;
            params.adaptiveDepth = depth;
            // SAFETY: live crowd, slot 0..4, pointer to a local.
            unsafe { sys::dtCrowd_setObstacleAvoidanceParams(crowd, slot as i32, &params) };
        }
        // Filter 0: the tester's costs and flags (see the module's documentation).
        // SAFETY: live crowd; m_filters is a plain array in it.
        let f = unsafe { &mut (*crowd).m_filters[0] };
        f.m_areaCost = [1.0; 64];
        f.m_areaCost[area::WATER as usize] = 10.0;
        f.m_areaCost[area::GRASS as usize] = 2.0;
        f.m_areaCost[area::JUMP as usize] = 1.5;
        f.m_includeFlags = flags::ALL ^ flags::DISABLED;
        f.m_excludeFlags = 0;
        RawCrowd { nav, crowd }
    }

    /// Adds an agent at `pos` with `CrowdToolState::addAgent`'s parameters; its index.
    pub fn add(&mut self, pos: Vec3) -> i32 {
        let raw = sys::dtCrowdAgentParams {
            radius: AGENT_RADIUS,
            height: AGENT_HEIGHT,
            maxAcceleration: 8.0,
            maxSpeed: 3.5,
            collisionQueryRange: AGENT_RADIUS * 12.0,
            pathOptimizationRange: AGENT_RADIUS * 30.0,
            separationWeight: 2.0,
            updateFlags: (sys::UpdateFlags_DT_CROWD_ANTICIPATE_TURNS
                | sys::UpdateFlags_DT_CROWD_OPTIMIZE_VIS
                | sys::UpdateFlags_DT_CROWD_OPTIMIZE_TOPO
                | sys::UpdateFlags_DT_CROWD_OBSTACLE_AVOIDANCE
                | sys::UpdateFlags_DT_CROWD_SEPARATION) as u8,
            obstacleAvoidanceType: 3,
            queryFilterType: 0,
            userData: std::ptr::null_mut(),
        };
        // SAFETY: live crowd; pointers to locals.
        unsafe { sys::dtCrowd_addAgent(self.crowd, pos.to_array().as_ptr(), &raw) }
    }

    /// Sends agent `idx` to `pos` on polygon `poly`.
    pub fn target(&mut self, idx: i32, poly: sys::dtPolyRef, pos: Vec3) {
        // SAFETY: live crowd, index returned by addAgent, pointer to a local.
        assert!(unsafe {
            sys::dtCrowd_requestMoveTarget(self.crowd, idx, poly, pos.to_array().as_ptr())
        });
    }

    /// Agent `idx`'s position and velocity.
    pub fn agent(&self, idx: i32) -> (Vec3, Vec3) {
        // SAFETY: live crowd, index returned by addAgent; the agent is read and copied at once.
        let a = unsafe { &*sys::dtCrowd_getAgent(self.crowd, idx) };
        (Vec3::from_array(a.npos), Vec3::from_array(a.vel))
    }

    /// One `dtCrowd::update` of `dt` seconds.
    pub fn update(&mut self, dt: f32) {
        // SAFETY: live crowd; null debug info allowed.
        unsafe { sys::dtCrowd_update(self.crowd, dt, std::ptr::null_mut()) }
    }
}

impl Drop for RawCrowd {
    fn drop(&mut self) {
        // SAFETY: both allocated by Detour in `new`, freed once, the crowd first.
        unsafe {
            sys::dtFreeCrowd(self.crowd);
            sys::dtFreeNavMesh(self.nav);
        }
    }
}

/// navkit's `Crowd` (default agent parameters, `AgentParams::default`, crowd behaviours off:
/// `CrowdBehaviours::detour_crowd`) and the raw crowd over
/// `navmesh` (made from `tile_data`), with one agent per pair, from its start to its goal, in
/// the same slots.
pub fn twin_crowds<'a>(
    navmesh: &'a NavMesh,
    tile_data: &[u8],
    pairs: &[(Vec3, Vec3)],
) -> (Crowd<&'a NavMesh>, RawCrowd) {
    let n = pairs.len();
    let crowd = navkit_crowd(navmesh, pairs);
    let handles = crowd.handles();
    let mut raw = RawCrowd::new(tile_data, n as i32);
    let mut q = NavMeshQuery::new(navmesh, 2048).unwrap();
    let filter = QueryFilter::default();
    for (&(a, b), h) in pairs.iter().zip(handles) {
        let start = q
            .find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let goal = q
            .find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let idx = raw.add(start.point);
        assert_eq!(idx as usize, h.index());
        raw.target(idx, goal.poly.0, goal.point);
    }
    (crowd, raw)
}

/// navkit's `Crowd` over `navmesh` with one agent per pair (default parameters), from its
/// start to its goal, in slot order.
pub fn navkit_crowd<'a>(navmesh: &'a NavMesh, pairs: &[(Vec3, Vec3)]) -> Crowd<&'a NavMesh> {
    let mut crowd = Crowd::new(navmesh, pairs.len(), AGENT_RADIUS).unwrap();
    // Exactly DetourCrowd: the crowd behaviours (on by default) off.
    crowd
        .set_behaviours(CrowdBehaviours::detour_crowd())
        .unwrap();
    for &(a, b) in pairs {
        let h = crowd.add_agent(a, AgentParams::default()).unwrap();
        crowd.request_move_target(h, b).unwrap();
    }
    crowd
}

/// How many agents of the twins are at the same position with the same velocity, to the bit.
pub fn agents_alike(crowd: &Crowd<&NavMesh>, raw: &RawCrowd) -> usize {
    let bits = |v: Vec3| v.to_array().map(f32::to_bits);
    crowd
        .handles()
        .iter()
        .filter(|h| {
            let ours = crowd.agent(**h).unwrap();
            let (pos, vel) = raw.agent(h.index() as i32);
            bits(ours.position) == bits(pos) && bits(ours.velocity) == bits(vel)
        })
        .count()
}
