//! The search nodes a query's last search left in its node pool: what RecastDemo draws as
//! "nodes" (`duDebugDrawNavMeshNodes`), read with [`NavMeshQuery::search_nodes`].

use glam::Vec3;

use super::{NavMeshQuery, PolyRef};

/// One node of Detour's search node pool (`dtNode`).
///
/// A polygon may have more than one node: Detour keeps one per side a search entered it from
/// when it crosses tile borders ([`SearchNode::state`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SearchNode {
    /// The polygon.
    pub poly: PolyRef,
    /// Where the search entered it (the start point for the start node; the middle of the
    /// portal crossed for the others).
    pub pos: Vec3,
    /// The cost from the start, for [`NavMeshQuery::find_path`] and the sliced search.
    /// The Dijkstra searches (polys around a circle or shape, distance to wall, random point
    /// around a circle) keep their cost in [`SearchNode::total`] and leave this 0.
    pub cost: f32,
    /// The cost from the start plus the heuristic to the goal (A*), or the cost from the start
    /// (Dijkstra searches): the key of Detour's open list.
    pub total: f32,
    /// The index of the parent node in the list [`NavMeshQuery::search_nodes`] returned;
    /// `None` for the start.
    pub parent: Option<usize>,
    /// Detour's extra state (`dtNode::state`, 0..4): the side a tile-border link was crossed.
    pub state: u8,
    /// On the open list (`DT_NODE_OPEN`): reached but not expanded.
    pub open: bool,
    /// Expanded (`DT_NODE_CLOSED`): its neighbours were visited.
    pub closed: bool,
    /// The parent is not adjacent (`DT_NODE_PARENT_DETACHED`: reached by an any-angle raycast).
    pub parent_detached: bool,
}

impl NavMeshQuery<'_> {
    /// The nodes this query's last search left in its node pool, in pool order: those of the
    /// last [`NavMeshQuery::find_path`], sliced search, search around a circle or shape,
    /// distance-to-wall or random point around a circle (the searches that use Detour's main
    /// node pool; queries that do not search leave it as it was). Empty before any search.
    ///
    /// Every node Detour keeps is returned; a parent index Detour would not resolve (beyond the
    /// pool) is `None`. As many nodes are closed as the search expanded; the closed ones are
    /// those [`NavMeshQuery::is_in_closed_list`] reports.
    ///
    /// ```
    /// # fn main() -> navkit::Result<()> {
    /// use glam::Vec3;
    /// use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
    /// let floor = navkit::TriMesh::new(
    ///     vec![0.0, 0.0, 0.0, 0.0, 0.0, 30.0, 30.0, 0.0, 30.0, 30.0, 0.0, 0.0],
    ///     vec![0, 1, 2, 0, 2, 3],
    /// )?;
    /// let geom = navkit::InputGeometry::from_mesh(floor);
    /// let nav = navkit::NavMeshBuilder::new(&geom).solo()?.into_navmesh();
    /// let mut q = NavMeshQuery::new(&nav, 2048)?;
    /// assert!(q.search_nodes().is_empty());
    /// let f = QueryFilter::default();
    /// let (a, b) = (Vec3::new(1.0, 0.0, 1.0), Vec3::new(29.0, 0.0, 29.0));
    /// let path = q.path(a, b, &f, &PathOptions::corridor_only())?.corridor;
    /// let nodes = q.search_nodes();
    /// // The start node has no parent; every corridor poly was reached.
    /// assert!(nodes.iter().any(|n| n.parent.is_none() && n.poly == path.polys[0]));
    /// assert!(path.polys.iter().all(|p| nodes.iter().any(|n| n.poly == *p)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn search_nodes(&self) -> Vec<SearchNode> {
        let raw = self.raw.search_nodes();
        let n = raw.len();
        raw.iter()
            .map(|r| SearchNode {
                poly: PolyRef(r.id),
                pos: Vec3::from(r.pos),
                cost: r.cost,
                total: r.total,
                parent: (r.parent as usize).checked_sub(1).filter(|&i| i < n),
                state: (r.state & 3) as u8,
                open: r.flags & 1 != 0,
                closed: r.flags & 2 != 0,
                parent_detached: r.flags & 4 != 0,
            })
            .collect()
    }
}
