//! The point queries of `NavMesh` (nearest point, is-navigable, raycast, distance to the
//! nearest wall, random points), each on a batch of points on every core; `navmesh.rs` turns
//! their results into numpy arrays.

use std::sync::Arc;

use navkit::glam::Vec3;
use navkit::navmesh::Islands;
use navkit::query::{NavMeshQuery, QueryFilter, RaycastHit, RaycastOptions};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use crate::query_pool::QueryPool;

/// What a batch failed on: the index of the first failing item, and why.
pub type BatchError = (usize, navkit::Error);

/// The polygon nearest each point within `half_extents`, and the point on it; `None` where
/// no polygon is that near.
pub fn nearest(
    pool: &QueryPool,
    points: &[Vec3],
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Result<Vec<Option<navkit::query::NearestPoly>>, BatchError> {
    pool.map(points, |q, &p| {
        match q.find_nearest_poly(p, half_extents, filter) {
            Ok(n) => Ok(Some(n)),
            Err(navkit::Error::PointOffMesh { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    })
}

/// Whether each point stands on the navmesh: over a polygon in x and z, at most `max_y_delta`
/// above or below its surface (habitat-sim's `is_navigable`).
pub fn navigable(
    pool: &QueryPool,
    points: &[Vec3],
    max_y_delta: f32,
    filter: &QueryFilter,
) -> Result<Vec<bool>, BatchError> {
    // A thin box: polygons under or over the point, none beside it.
    let half = Vec3::new(1e-3, max_y_delta.max(1e-3), 1e-3);
    let found = nearest(pool, points, half, filter)?;
    Ok(found
        .iter()
        .zip(points)
        .map(|(n, p)| n.is_some_and(|n| n.over_poly && (n.point.y - p.y).abs() <= max_y_delta))
        .collect())
}

/// A ray along the surface from each start (snapped within `half_extents`) toward its end.
pub fn raycasts(
    pool: &QueryPool,
    pairs: &[(Vec3, Vec3)],
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Result<Vec<RaycastHit>, BatchError> {
    let options = RaycastOptions::default();
    pool.map(pairs, |q, &(s, e)| {
        let start = q.find_nearest_poly(s, half_extents, filter)?;
        q.raycast(start.poly, start.point, e, filter, &options)
    })
}

/// The distance from each point (snapped within `half_extents`) to the nearest wall, looked
/// for within `max_radius` (`max_radius` where none is nearer), with the wall point and normal.
pub fn distances_to_wall(
    pool: &QueryPool,
    points: &[Vec3],
    max_radius: f32,
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Result<Vec<navkit::query::WallHit>, BatchError> {
    pool.map(points, |q, &p| {
        let n = q.find_nearest_poly(p, half_extents, filter)?;
        q.find_distance_to_wall(n.poly, n.point, max_radius, filter)
    })
}

/// Where random points are drawn.
pub enum Around {
    /// Anywhere on the navmesh, polygons weighted by area (Detour's `findRandomPoint`).
    Anywhere,
    /// Reachable from the point, within the radius (`findRandomPointAroundCircle`).
    Circle(Vec3, f32, Vec3),
    /// On an island, uniform over its surface.
    Island(Arc<Islands>, usize),
}

/// `n` random points from a PCG generator seeded with `seed`: the same seed, the same points.
pub fn random_points(
    pool: &QueryPool,
    n: usize,
    seed: u64,
    around: &Around,
    filter: &QueryFilter,
) -> navkit::Result<Vec<Vec3>> {
    let mut rng = Pcg32::seed_from_u64(seed);
    pool.with(|q| {
        let start = match around {
            Around::Circle(c, _, half) => Some(q.find_nearest_poly(*c, *half, filter)?),
            _ => None,
        };
        (0..n)
            .map(|_| random_point(q, start, around, filter, &mut rng))
            .collect()
    })
}

/// One random point.
fn random_point(
    q: &mut NavMeshQuery<'_>,
    start: Option<navkit::query::NearestPoly>,
    around: &Around,
    filter: &QueryFilter,
    rng: &mut Pcg32,
) -> navkit::Result<Vec3> {
    let random = || rng.r#gen::<f32>();
    let (_, p) = match (around, start) {
        (Around::Circle(_, radius, _), Some(s)) => {
            q.find_random_point_around_circle_with(s.poly, s.point, *radius, filter, random)?
        }
        (Around::Island(islands, k), _) => islands.random_point(*k, random)?,
        _ => q.find_random_point_with(filter, random)?,
    };
    Ok(p)
}

/// The island each point stands on (snapped within `half_extents`), `-1` where no polygon is
/// that near.
pub fn island_of(
    pool: &QueryPool,
    islands: &Islands,
    points: &[Vec3],
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Result<Vec<i64>, BatchError> {
    let found = nearest(pool, points, half_extents, filter)?;
    Ok(found
        .iter()
        .map(|n| {
            n.and_then(|n| islands.island_of(n.poly))
                .map_or(-1, |i| i as i64)
        })
        .collect())
}

/// The cells of a top-down map.
pub struct Grid {
    /// The x and z of cell (0, 0)'s corner.
    origin: (f32, f32),
    size: f32,
    height: f32,
    /// Cells along z.
    pub rows: usize,
    /// Cells along x.
    pub cols: usize,
}

/// The most cells of one top-down map (a 10,000 x 10,000 map; more is a mistake of units).
const MAX_CELLS: usize = 100_000_000;

impl Grid {
    /// Cells of `size` covering `lo` to `hi` (x and z), at `height`; the error says what is
    /// wrong with the arguments.
    pub fn new(
        lo: (f32, f32),
        hi: (f32, f32),
        size: f32,
        height: f32,
        max_y_delta: f32,
    ) -> Result<Grid, String> {
        let finite = [lo.0, lo.1, hi.0, hi.1, height]
            .iter()
            .all(|v| v.is_finite());
        if !finite || hi.0 < lo.0 || hi.1 < lo.1 {
            return Err(format!(
                "the map's bounds {lo:?}..{hi:?} and height {height} must be finite, min <= max"
            ));
        }
        if !(size.is_finite() && size > 0.0) {
            return Err(format!("`meters_per_pixel` must be > 0, not {size}"));
        }
        if !(max_y_delta.is_finite() && max_y_delta >= 0.0) {
            return Err(format!("`max_y_delta` must be >= 0, not {max_y_delta}"));
        }
        let cols = (((hi.0 - lo.0) / size).ceil() as usize).max(1);
        let rows = (((hi.1 - lo.1) / size).ceil() as usize).max(1);
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(format!(
                "{cols} x {rows} cells at {size} m per pixel: at most {MAX_CELLS} per map"
            ));
        }
        Ok(Grid {
            origin: lo,
            size,
            height,
            rows,
            cols,
        })
    }

    /// Each cell's centre at the map's height, row by row.
    pub fn centres(&self) -> Vec<Vec3> {
        let mut out = Vec::with_capacity(self.rows * self.cols);
        for r in 0..self.rows {
            for c in 0..self.cols {
                let x = self.origin.0 + (c as f32 + 0.5) * self.size;
                let z = self.origin.1 + (r as f32 + 0.5) * self.size;
                out.push(Vec3::new(x, self.height, z));
            }
        }
        out
    }
}

/// From each start (snapped within `half_extents`) toward its end along the surface, sliding
/// along walls (Detour's `moveAlongSurface`, habitat-sim's `try_step`); the height is the
/// surface's where the move ends.
pub fn steps(
    pool: &QueryPool,
    pairs: &[(Vec3, Vec3)],
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Result<Vec<Vec3>, BatchError> {
    pool.map(pairs, |q, &(s, e)| {
        let start = q.find_nearest_poly(s, half_extents, filter)?;
        let m = q.move_along_surface(start.poly, start.point, e, filter, MAX_STEP_POLYS)?;
        let mut at = m.position;
        if let Some(&last) = m.visited.last()
            && let Ok(y) = q.poly_height(last, at)
        {
            at.y = y;
        }
        Ok(at)
    })
}

/// The polygons one step may cross (RecastDemo's crowd uses 16; a step is short).
const MAX_STEP_POLYS: usize = 64;
