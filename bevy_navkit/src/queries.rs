//! [`NavQueries`]: paths (Detour's, smooth, optimal), nearest points and raycasts on the
//! scene's navmesh, from any system.

use std::sync::Arc;

use bevy::ecs::system::{Res, SystemParam};
use glam::Vec3;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, DEFAULT_MAX_NODES, NearestPoly, RaycastHit, RaycastOptions,
};
use navkit::{NavMesh, NavMeshQuery, NavPath, PathOptions, QueryFilter};

use crate::error::QueryError;
use crate::scene_navmesh::SceneNavMesh;

/// Queries on the scene's navmesh ([`SceneNavMesh`]) for systems: a path as navkit's path query
/// gives it (corridor, straight, smooth and optimal paths as [`PathOptions`] asks), the nearest
/// point on the navmesh, a raycast along it; or any of navkit's queries through
/// [`NavQueries::with`].
///
/// Each call makes a Detour query with RecastDemo's 2048-node pool (an allocation of about
/// 100 KB); many queries in one system go faster through one [`NavQueries::with`]. For paths
/// off the frame's thread, see [`PathRequests`](crate::PathRequests).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_navkit::NavQueries;
/// use bevy_navkit::navkit::PathOptions;
/// use bevy_navkit::navkit::query::OptimalOptions;
/// fn plan(nav: NavQueries) {
///     let options = PathOptions { optimal: Some(OptimalOptions::default()), ..default() };
///     if let Ok(path) = nav.path(Vec3::new(1.0, 0.0, 1.0), Vec3::new(9.0, 0.0, 9.0), &options) {
///         info!("{} m", path.optimal.map_or(0.0, |o| o.length));
///     }
/// }
/// # let _ = plan;
/// ```
#[derive(SystemParam)]
pub struct NavQueries<'w> {
    navmesh: Res<'w, SceneNavMesh>,
}

impl NavQueries<'_> {
    /// The navmesh, or `None` before the first build.
    pub fn navmesh(&self) -> Option<&Arc<NavMesh>> {
        self.navmesh.get()
    }

    /// Runs `f` with a query on the navmesh (one query for many calls).
    pub fn with<T>(
        &self,
        f: impl FnOnce(&mut NavMeshQuery<'_>) -> navkit::Result<T>,
    ) -> Result<T, QueryError> {
        let nav = self.navmesh.get().ok_or(QueryError::NoNavMesh)?;
        let mut q = NavMeshQuery::new(nav, DEFAULT_MAX_NODES)?;
        Ok(f(&mut q)?)
    }

    /// The path from `start` to `goal` (each snapped to the navmesh within
    /// `options.half_extents`) with the default filter: what navkit's
    /// [`NavMeshQuery::path`] gives.
    pub fn path(
        &self,
        start: Vec3,
        goal: Vec3,
        options: &PathOptions,
    ) -> Result<NavPath, QueryError> {
        self.with(|q| q.path(start, goal, &QueryFilter::default(), options))
    }

    /// The nearest point of the navmesh to `point` within `half_extents` (Detour's default:
    /// [`DEFAULT_HALF_EXTENTS`], 2 x 4 x 2 m), with its polygon.
    pub fn nearest(&self, point: Vec3, half_extents: Vec3) -> Result<NearestPoly, QueryError> {
        self.with(|q| q.find_nearest_poly(point, half_extents, &QueryFilter::default()))
    }

    /// Walks a straight line from `start` (snapped to the navmesh within Detour's default half
    /// extents) toward `end` along the navmesh: where it stops (at a wall, or at `end`) and
    /// what it crossed.
    pub fn raycast(&self, start: Vec3, end: Vec3) -> Result<(Vec3, RaycastHit), QueryError> {
        self.with(|q| {
            let f = QueryFilter::default();
            let s = q.find_nearest_poly(start, DEFAULT_HALF_EXTENTS, &f)?;
            let hit = q.raycast(s.poly, s.point, end, &f, &RaycastOptions::default())?;
            Ok((hit.point(s.point, end), hit))
        })
    }
}
