//! Detour's search node pool (`dtNavMeshQuery::getNodePool`, what RecastDemo's
//! `duDebugDrawNavMeshNodes` draws), copied out through `glue/navkit_nodes.cpp`: `dtNodePool`
//! and `dtNode` are opaque in recastnavigation-sys's bindings.

use std::os::raw::c_int;

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::detour::RawQuery;

/// One node as the glue copies it (`navkit_search_node`): `parent` is the 1-based pool index
/// of the parent (0: none), as `dtNode::pidx`; `flags` are `dtNodeFlags`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RawSearchNode {
    pub pos: [f32; 3],
    pub cost: f32,
    pub total: f32,
    pub parent: u32,
    pub state: u32,
    pub flags: u32,
    pub id: RawPolyRef,
}

unsafe extern "C" {
    fn navkit_search_node_size() -> c_int;
    fn navkit_query_node_count(query: *const sys::dtNavMeshQuery) -> c_int;
    fn navkit_query_nodes(
        query: *const sys::dtNavMeshQuery,
        out: *mut RawSearchNode,
        max: c_int,
    ) -> c_int;
}

impl RawQuery<'_> {
    /// The nodes of the query's main node pool, in pool order (node `i` is pool index `i + 1`).
    /// Empty if the glue's node layout is not ours (never expected: both are built from the same
    /// definitions and ref width).
    pub(crate) fn search_nodes(&self) -> Vec<RawSearchNode> {
        // SAFETY: a constant of the glue.
        let size = unsafe { navkit_search_node_size() };
        if usize::try_from(size).ok() != Some(std::mem::size_of::<RawSearchNode>()) {
            return Vec::new();
        }
        // SAFETY: live, initialised query; the glue only reads the pool's count.
        let count = unsafe { navkit_query_node_count(self.q()) };
        let Ok(count) = usize::try_from(count) else {
            return Vec::new();
        };
        if count == 0 {
            return Vec::new();
        }
        let mut out = vec![RawSearchNode::default(); count];
        // SAFETY: live query; `out` holds `count` nodes of the glue's layout (size checked
        // above) and the glue writes at most `count` (`max`) of them.
        let n = unsafe { navkit_query_nodes(self.q(), out.as_mut_ptr(), count as c_int) };
        out.truncate(usize::try_from(n).unwrap_or(0).min(count));
        out
    }
}
