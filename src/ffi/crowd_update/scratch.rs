//! What one worker thread of the crowd update keeps between frames: its own Detour navmesh
//! query and obstacle-avoidance query (as many nodes, circles and segments as dtCrowd gives its
//! own), and the stamps that de-duplicate proximity-grid answers.
//!
//! Every Detour call the per-agent phases make clears the query state it uses (node pools,
//! the sliced-search state, the avoidance query's obstacles) before reading it, so an answer
//! never depends on which agents a worker served before: that is what lets any thread serve
//! any agent with the same result.

use recastnavigation_sys as sys;

use super::super::owner::owner;
use super::proximity::Stamps;

/// The node pool dtCrowd gives its own navmesh query (`MAX_COMMON_NODES`).
const COMMON_NODES: i32 = 512;
/// The circles and segments dtCrowd's obstacle-avoidance query holds (`init(6, 8)`).
const AVOID_CIRCLES: i32 = 6;
const AVOID_SEGMENTS: i32 = 8;

owner!(
    /// A worker's `dtNavMeshQuery`, freed on drop.
    NavQuery(sys::dtNavMeshQuery),
    free: sys::dtFreeNavMeshQuery
);

owner!(
    /// A worker's `dtObstacleAvoidanceQuery`, freed on drop.
    AvoidQuery(sys::dtObstacleAvoidanceQuery),
    free: sys::dtFreeObstacleAvoidanceQuery
);

/// One worker's queries and stamps.
pub(super) struct Scratch {
    nav_query: NavQuery,
    avoid: AvoidQuery,
    /// The proximity-grid query stamps.
    pub(super) stamps: Stamps,
}

impl Scratch {
    /// Queries over the navmesh at `nav`; `None` if Detour runs out of memory.
    ///
    /// # Safety
    /// `nav` must point to a live, initialised `dtNavMesh` that outlives the scratch (the
    /// crowd's: scratches are freed before it).
    pub(super) unsafe fn new(nav: *const sys::dtNavMesh) -> Option<Scratch> {
        // SAFETY: the allocators return fresh objects (freed by the owners) or null.
        let nav_query = unsafe { NavQuery::from_raw(sys::dtAllocNavMeshQuery()) }?;
        // SAFETY: as above.
        let avoid = unsafe { AvoidQuery::from_raw(sys::dtAllocObstacleAvoidanceQuery()) }?;
        // SAFETY: live query; `nav` is live and outlives it (the caller's contract).
        let status = unsafe { sys::dtNavMeshQuery_init(nav_query.as_ptr(), nav, COMMON_NODES) };
        if status & sys::DT_FAILURE != 0 {
            return None;
        }
        // SAFETY: live avoidance query.
        let ok = unsafe {
            sys::dtObstacleAvoidanceQuery_init(avoid.as_ptr(), AVOID_CIRCLES, AVOID_SEGMENTS)
        };
        ok.then_some(Scratch {
            nav_query,
            avoid,
            stamps: Stamps::default(),
        })
    }

    /// The worker's navmesh query, for Detour calls.
    pub(super) fn nav_query(&self) -> *mut sys::dtNavMeshQuery {
        self.nav_query.as_ptr()
    }

    /// The worker's obstacle-avoidance query, for Detour calls.
    pub(super) fn avoid_query(&self) -> *mut sys::dtObstacleAvoidanceQuery {
        self.avoid.as_ptr()
    }
}
