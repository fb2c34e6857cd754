//! The common tasks in one call: a query with a sensible node pool ([`NavMesh::query`]), and
//! every kind of path between two points ([`NavMeshQuery::path`]).

use glam::Vec3;

use super::smooth::{self, CorridorPath, FullPath, SmoothPathOptions};
use super::{NavMeshQuery, QueryFilter};
use crate::Result;
use crate::navmesh::NavMesh;

/// The search node pool of [`NavMesh::query`]: RecastDemo's 2048.
pub const DEFAULT_MAX_NODES: usize = 2048;

impl NavMesh {
    /// A query over this navmesh with RecastDemo's node pool ([`DEFAULT_MAX_NODES`]); use
    /// [`NavMeshQuery::new`] for another size (long paths over big tiled worlds may want up to
    /// 65,535 nodes).
    ///
    /// ```no_run
    /// # fn f(navmesh: &navkit::navmesh::NavMesh) -> navkit::Result<()> {
    /// use glam::Vec3;
    /// use navkit::query::QueryFilter;
    /// let mut query = navmesh.query()?;
    /// let p = query.path(Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0), &QueryFilter::default())?;
    /// println!("{:?}: {:.1} m", p.path.status, p.straight.length());
    /// # Ok(()) }
    /// ```
    pub fn query(&self) -> Result<NavMeshQuery<'_>> {
        NavMeshQuery::new(self, DEFAULT_MAX_NODES)
    }
}

impl NavMeshQuery<'_> {
    /// Everything RecastDemo's tester tool computes between two points, in one call: the nearest
    /// polygons (half extents (2, 4, 2)), the polygon corridor, the straight path and the smooth
    /// path (RecastDemo's defaults). The same as [`smooth::full_path`].
    ///
    /// A partial path (the goal cannot be reached) is not an error: see
    /// [`FullPath::path`]`.status`. No polygon near `start` or `goal` is
    /// [`crate::Error::PointOffMesh`].
    pub fn path(&mut self, start: Vec3, goal: Vec3, filter: &QueryFilter) -> Result<FullPath> {
        smooth::full_path(self, start, goal, filter, &SmoothPathOptions::default())
    }

    /// [`NavMeshQuery::path`] with other smooth-path options (step size, point budget).
    pub fn path_with(
        &mut self,
        start: Vec3,
        goal: Vec3,
        filter: &QueryFilter,
        opts: &SmoothPathOptions,
    ) -> Result<FullPath> {
        smooth::full_path(self, start, goal, filter, opts)
    }

    /// The corridor and straight path only (no smooth path): cheaper when an agent follows
    /// corners ([`smooth::corridor_path`]).
    pub fn corridor(
        &mut self,
        start: Vec3,
        goal: Vec3,
        filter: &QueryFilter,
    ) -> Result<CorridorPath> {
        smooth::corridor_path(self, start, goal, filter)
    }
}
