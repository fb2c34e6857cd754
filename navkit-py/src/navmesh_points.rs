//! `NavMesh`'s point queries: nearest points, is-navigable, distance to a wall, raycasts,
//! random points, islands and the top-down map, each on batches of points on every core.

use navkit::glam::Vec3;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::arrays;
use crate::errors::{self, IntoPy};
use crate::filter::QueryFilter;
use crate::navmesh::{NavMesh, navmesh_bounds};
use crate::spatial;

/// The most points one `random_points` call draws (a typo of a few zeros should not fill the
/// memory).
const MAX_RANDOM_POINTS: usize = 100_000_000;

/// A top-down map and the x and z of its first cell's corner.
type TopDown<'py> = (Bound<'py, numpy::PyArray2<bool>>, (f32, f32));

#[pymethods]
impl NavMesh {
    /// The nearest point on the navmesh to each of `points` (`(N, 3)`), within `half_extents`
    /// (default (2, 4, 2)): `(points, polys, found)`, float32 `(N, 3)` (NaN where nothing is
    /// that near), uint64 `(N,)` (0 there) and bool `(N,)`. On every core, the GIL released.
    #[pyo3(signature = (points, *, half_extents=None, filter=None))]
    fn nearest_points<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let pts = arrays::points(points, "points")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let found = py
            .detach(|| spatial::nearest(&self.pool, &pts, half, &filter))
            .map_err(|(i, e)| errors::in_batch(i, e))?;
        let nan = Vec3::splat(f32::NAN);
        let at: Vec<Vec3> = found.iter().map(|n| n.map_or(nan, |n| n.point)).collect();
        let polys = found
            .iter()
            .map(|n| n.map_or(0, |n| n.poly.to_u64()))
            .collect();
        let ok: Vec<bool> = found.iter().map(Option::is_some).collect();
        let (at, polys, ok) = (
            arrays::to_array(py, &at).into_any(),
            arrays::to_array1::<u64>(py, polys).into_any(),
            arrays::to_array1(py, ok).into_any(),
        );
        PyTuple::new(py, [at, polys, ok])
    }

    /// The nearest point on the navmesh to `point` within `half_extents` (default (2, 4, 2)),
    /// float32 `(3,)`; `None` if nothing is that near.
    #[pyo3(signature = (point, *, half_extents=None, filter=None))]
    fn nearest_point<'py>(
        &self,
        py: Python<'py>,
        point: &Bound<'py, PyAny>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Option<Bound<'py, numpy::PyArray1<f32>>>> {
        let p = arrays::point(point, "point")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let found = py
            .detach(|| spatial::nearest(&self.pool, &[p], half, &filter))
            .map_err(|(_, e)| errors::to_py(e))?;
        Ok(found[0].map(|n| arrays::to_array1(py, n.point.to_array().to_vec())))
    }

    /// Whether each point stands on the navmesh: over a polygon in x and z and at most
    /// `max_y_delta` above or below its surface (habitat-sim's `is_navigable`). One point gives
    /// a bool, `(N, 3)` points a bool array.
    #[pyo3(signature = (points, *, max_y_delta=0.5, filter=None))]
    fn is_navigable<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_y_delta: f32,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (pts, one) = arrays::one_or_many(points, "points")?;
        if !(max_y_delta.is_finite() && max_y_delta >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "`max_y_delta` must be a finite number >= 0, not {max_y_delta}"
            )));
        }
        let filter = QueryFilter::or_default(filter);
        let ok = py
            .detach(|| spatial::navigable(&self.pool, &pts, max_y_delta, &filter))
            .map_err(|(i, e)| errors::in_batch(i, e))?;
        if one {
            Ok(ok[0].into_pyobject(py)?.to_owned().into_any())
        } else {
            Ok(arrays::to_array1(py, ok).into_any())
        }
    }

    /// The distance from each point (snapped within `half_extents`) to the nearest wall, looked
    /// for within `max_radius` (`max_radius` if none is nearer; habitat-sim's
    /// `distance_to_closest_obstacle`). One point gives a float, `(N, 3)` points an array.
    #[pyo3(signature = (points, *, max_radius=2.0, half_extents=None, filter=None))]
    fn distance_to_wall<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_radius: f32,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (pts, one) = arrays::one_or_many(points, "points")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let hits = py
            .detach(|| spatial::distances_to_wall(&self.pool, &pts, max_radius, half, &filter))
            .map_err(|(i, e)| {
                if one {
                    errors::to_py(e)
                } else {
                    errors::in_batch(i, e)
                }
            })?;
        let d: Vec<f32> = hits.iter().map(|h| h.distance).collect();
        if one {
            Ok(d[0].into_pyobject(py)?.into_any())
        } else {
            Ok(arrays::to_array1(py, d).into_any())
        }
    }

    /// Rays along the surface from each of `starts` (snapped within `half_extents`) toward
    /// its row of `ends` (`(N, 3)` each; the walk is in x and z): a dict of arrays, `hit`
    /// (bool), `t` (the fraction of the way walked; 1 where nothing was hit), `points` (where
    /// each stopped), `normals` (the wall's, zero where nothing was hit). Every core.
    #[pyo3(signature = (starts, ends, *, half_extents=None, filter=None))]
    fn raycasts<'py>(
        &self,
        py: Python<'py>,
        starts: &Bound<'py, PyAny>,
        ends: &Bound<'py, PyAny>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pairs = arrays::pairs(starts, "starts", ends, "ends")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let hits = py
            .detach(|| spatial::raycasts(&self.pool, &pairs, half, &filter))
            .map_err(|(i, e)| errors::in_batch(i, e))?;
        let d = PyDict::new(py);
        d.set_item(
            "hit",
            arrays::to_array1(py, hits.iter().map(|h| h.hit()).collect()),
        )?;
        d.set_item(
            "t",
            arrays::to_array1(py, hits.iter().map(|h| h.t.min(1.0)).collect()),
        )?;
        let at: Vec<Vec3> = hits
            .iter()
            .zip(&pairs)
            .map(|(h, (s, e))| h.point(*s, *e))
            .collect();
        d.set_item("points", arrays::to_array(py, &at))?;
        let normals: Vec<Vec3> = hits.iter().map(|h| h.normal).collect();
        d.set_item("normals", arrays::to_array(py, &normals))?;
        Ok(d)
    }

    /// Steps from each of `starts` (snapped within `half_extents`) toward its row of `ends`
    /// (`(N, 3)` each) along the surface, sliding along walls (Detour's `moveAlongSurface`;
    /// habitat-sim's `try_step`): where each step ends, on the surface, `(N, 3)` float32.
    #[pyo3(signature = (starts, ends, *, half_extents=None, filter=None))]
    fn try_steps<'py>(
        &self,
        py: Python<'py>,
        starts: &Bound<'py, PyAny>,
        ends: &Bound<'py, PyAny>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        let pairs = arrays::pairs(starts, "starts", ends, "ends")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let at = py
            .detach(|| spatial::steps(&self.pool, &pairs, half, &filter))
            .map_err(|(i, e)| errors::in_batch(i, e))?;
        Ok(arrays::to_array(py, &at))
    }

    /// `n` random points on the navmesh (float32 `(n, 3)`), polygons weighted by area, from a
    /// generator seeded with `seed` (the same seed gives the same points). With `near` (a
    /// point) and `radius`, points reachable from `near` within about `radius` (Detour's
    /// `findRandomPointAroundCircle`); with `island`, uniform over that island's surface.
    #[pyo3(signature = (n, *, seed, near=None, radius=None, island=None, half_extents=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn random_points<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        seed: u64,
        near: Option<&Bound<'py, PyAny>>,
        radius: Option<f32>,
        island: Option<usize>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        let around = match (near, radius, island) {
            (None, None, None) => spatial::Around::Anywhere,
            (None, None, Some(k)) => spatial::Around::Island(self.islands_of(py), k),
            (Some(c), Some(r), None) if r.is_finite() && r > 0.0 => spatial::Around::Circle(
                arrays::point(c, "near")?,
                r,
                arrays::half_extents(half_extents)?,
            ),
            _ => {
                return Err(PyValueError::new_err(
                    "`near` and `radius` go together (a point and a finite radius > 0), and not with `island`",
                ));
            }
        };
        if n > MAX_RANDOM_POINTS {
            return Err(PyValueError::new_err(format!(
                "`n` = {n}: at most {MAX_RANDOM_POINTS} points per call"
            )));
        }
        let filter = QueryFilter::or_default(filter);
        let pts = py
            .detach(|| spatial::random_points(&self.pool, n, seed, &around, &filter))
            .py_err()?;
        Ok(arrays::to_array(py, &pts))
    }

    /// The navmesh's islands (parts joined by links, which no path leaves; off-mesh links
    /// join both ways), largest first: a dict of arrays, `area` (m2, float32), `polys` (ground
    /// polygons), `centre` (float32 `(K, 3)`, area-weighted), `radius` (the farthest corner
    /// from the centre: habitat-sim's island radius), `bounds_min` and `bounds_max`.
    fn islands<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let islands = self.islands_of(py);
        let d = PyDict::new(py);
        d.set_item(
            "area",
            arrays::to_array1(py, islands.iter().map(|i| i.area).collect()),
        )?;
        let polys = islands.iter().map(|i| i.polys as u64).collect();
        d.set_item("polys", arrays::to_array1::<u64>(py, polys))?;
        let lo: Vec<Vec3> = islands.iter().map(|i| i.bounds.min).collect();
        let hi: Vec<Vec3> = islands.iter().map(|i| i.bounds.max).collect();
        let centres: Vec<Vec3> = islands.iter().map(|i| i.centre).collect();
        d.set_item("centre", arrays::to_array(py, &centres))?;
        d.set_item(
            "radius",
            arrays::to_array1(py, islands.iter().map(|i| i.radius).collect()),
        )?;
        d.set_item("bounds_min", arrays::to_array(py, &lo))?;
        d.set_item("bounds_max", arrays::to_array(py, &hi))?;
        Ok(d)
    }

    /// The island each point stands on (its nearest polygon within `half_extents`), `-1` where
    /// no polygon is that near: an int for one point, an int64 array for `(N, 3)` points.
    #[pyo3(signature = (points, *, half_extents=None, filter=None))]
    fn island_of<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        half_extents: Option<&Bound<'py, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (pts, one) = arrays::one_or_many(points, "points")?;
        let half = arrays::half_extents(half_extents)?;
        let filter = QueryFilter::or_default(filter);
        let islands = self.islands_of(py);
        let ids = py
            .detach(|| spatial::island_of(&self.pool, &islands, &pts, half, &filter))
            .map_err(|(i, e)| errors::in_batch(i, e))?;
        if one {
            Ok(ids[0].into_pyobject(py)?.into_any())
        } else {
            Ok(arrays::to_array1(py, ids).into_any())
        }
    }

    /// A top-down map of where an agent can stand at `height` (one floor; habitat-sim's
    /// `get_topdown_view`): a bool array of rows along z and columns along x, a cell every
    /// `meters_per_pixel`, each cell's centre tested with `is_navigable` (`max_y_delta` above
    /// or below the surface). Returns `(grid, origin)`, `origin` the x and z of cell (0, 0)'s
    /// corner. The map covers the navmesh's bounds (or `bounds`, `((x0, z0), (x1, z1))`).
    #[pyo3(signature = (meters_per_pixel, height, *, max_y_delta=0.5, bounds=None, filter=None))]
    fn topdown<'py>(
        &self,
        py: Python<'py>,
        meters_per_pixel: f32,
        height: f32,
        max_y_delta: f32,
        bounds: Option<((f32, f32), (f32, f32))>,
        filter: Option<QueryFilter>,
    ) -> PyResult<TopDown<'py>> {
        let (lo, hi) = match bounds {
            Some(b) => b,
            None => {
                let Some(b) = navmesh_bounds(&self.nav().polys()) else {
                    return Err(PyValueError::new_err("the navmesh has no polygons to map"));
                };
                ((b.0[0], b.0[2]), (b.1[0], b.1[2]))
            }
        };
        let grid = spatial::Grid::new(lo, hi, meters_per_pixel, height, max_y_delta)
            .map_err(PyValueError::new_err)?;
        let filter = QueryFilter::or_default(filter);
        let cells = py
            .detach(|| spatial::navigable(&self.pool, &grid.centres(), max_y_delta, &filter))
            .map_err(|(_, e)| errors::to_py(e))?;
        let array = numpy::ndarray::Array2::from_shape_vec((grid.rows, grid.cols), cells)
            .expect("a cell per row and column");
        Ok((numpy::IntoPyArray::into_pyarray(array, py), lo))
    }
}
