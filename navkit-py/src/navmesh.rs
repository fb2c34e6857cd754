//! `navkit.NavMesh`: building (from a file or numpy arrays), loading, saving and pickling a
//! navmesh. Its queries are in `path.rs`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use navkit::build::Budget;
use navkit::navmesh::Islands;
use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::arrays;
use crate::errors::{self, IntoPy};
use crate::filter::QueryFilter;
use crate::path::{Path, PathArgs};
use crate::query_pool::QueryPool;
use crate::settings::BuildSettings;
use crate::spatial;
use navkit::glam::Vec3;

/// The memory a build may use unless `max_memory` says otherwise: a build that would need more
/// is refused before it starts, with a `BuildError` naming the estimate.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;

/// The most points one `random_points` call draws (a typo of a few zeros should not fill the
/// memory).
const MAX_RANDOM_POINTS: usize = 100_000_000;

/// A top-down map and the x and z of its first cell's corner.
type TopDown<'py> = (Bound<'py, numpy::PyArray2<bool>>, (f32, f32));

/// A navigation mesh (Detour's `dtNavMesh`) and a pool of queries over it.
///
/// Build one with `NavMesh.build`, or read a file RecastDemo or navkit wrote with
/// `NavMesh.load`. A navmesh is immutable; any number of Python threads may query it at once.
#[pyclass(module = "navkit", name = "NavMesh", frozen)]
pub struct NavMesh {
    pub pool: QueryPool,
    /// Its islands, found on first use.
    islands: OnceLock<Arc<Islands>>,
}

impl NavMesh {
    /// Wraps a navkit navmesh.
    pub fn new(nav: navkit::NavMesh) -> Self {
        NavMesh {
            pool: QueryPool::new(Arc::new(nav)),
            islands: OnceLock::new(),
        }
    }

    /// The navkit navmesh.
    pub fn nav(&self) -> &navkit::NavMesh {
        self.pool.navmesh()
    }

    /// Its islands (found once, GIL released).
    fn islands_of(&self, py: Python<'_>) -> Arc<Islands> {
        self.islands
            .get_or_init(|| Arc::new(py.detach(|| self.nav().islands())))
            .clone()
    }
}

/// A path argument (`str` or `os.PathLike`) as a path, or `None` if `obj` is not one.
fn as_path(obj: &Bound<'_, PyAny>) -> Option<PathBuf> {
    obj.extract::<PathBuf>().ok()
}

/// The geometry of `NavMesh.build`'s `source` and `triangles`.
fn geometry(
    source: &Bound<'_, PyAny>,
    triangles: Option<&Bound<'_, PyAny>>,
) -> PyResult<InputGeometry> {
    match triangles {
        None => {
            let Some(path) = as_path(source) else {
                return Err(PyTypeError::new_err(
                    "`source` must be a path (OBJ, glTF, .gset), or an (N, 3) vertex array with `triangles`",
                ));
            };
            let py = source.py();
            py.detach(|| InputGeometry::load(&path)).py_err()
        }
        Some(tris) => {
            let verts = arrays::points(source, "source")?;
            let tris = arrays::triangles(tris, "triangles", verts.len())?;
            if tris.is_empty() {
                return Err(PyValueError::new_err(
                    "`triangles` is empty: nothing to build",
                ));
            }
            let flat = verts.iter().flat_map(|v| v.to_array()).collect();
            Ok(InputGeometry::from_mesh(TriMesh::new(flat, tris).py_err()?))
        }
    }
}

/// What a build keyword asks of the builder.
struct BuildRequest {
    settings: Option<navkit::BuildSettings>,
    tiled: bool,
    tile_size: Option<u32>,
    threads: usize,
    budget: Budget,
}

impl BuildRequest {
    fn run(self, geom: &InputGeometry) -> navkit::Result<navkit::NavMesh> {
        let mut b = NavMeshBuilder::new(geom)
            .threads(self.threads)
            .budget(self.budget);
        if let Some(s) = self.settings {
            b = b.settings(s);
        }
        if let Some(t) = self.tile_size {
            b = b.tile_size(t);
        }
        if self.tiled {
            Ok(b.tiled()?.into_navmesh())
        } else {
            Ok(b.solo()?.into_navmesh())
        }
    }
}

#[pymethods]
impl NavMesh {
    /// Builds a navmesh, as RecastDemo's Solo Mesh (or, with `tiled=True`, Tile Mesh) does.
    ///
    /// `source` is a path to an OBJ, glTF (`.gltf`/`.glb`) or RecastDemo `.gset` file, or an
    /// `(N, 3)` array of vertices with `triangles` an `(M, 3)` integer array of vertex indices.
    /// `settings` defaults to the `.gset`'s own, else RecastDemo's (`BuildSettings()`).
    /// `threads` (tiled builds) defaults to every core; `max_memory` (bytes) refuses a build
    /// whose estimate is larger (default 8 GiB); `timeout` (seconds) stops a longer one. The
    /// GIL is released while it builds.
    ///
    /// >>> mesh = navkit.NavMesh.build("dungeon.obj")
    #[staticmethod]
    #[pyo3(signature = (source, triangles=None, *, settings=None, tiled=false, tile_size=None, threads=None, max_memory=Some(DEFAULT_MAX_MEMORY), timeout=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn build(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        triangles: Option<&Bound<'_, PyAny>>,
        settings: Option<BuildSettings>,
        tiled: bool,
        tile_size: Option<u32>,
        threads: Option<usize>,
        max_memory: Option<u64>,
        timeout: Option<f64>,
    ) -> PyResult<NavMesh> {
        let geom = geometry(source, triangles)?;
        let mut budget = Budget::new();
        if let Some(m) = max_memory {
            budget = budget.max_memory(m);
        }
        if let Some(t) = timeout {
            let limit = Duration::try_from_secs_f64(t).map_err(|_| {
                PyValueError::new_err(format!(
                    "`timeout` must be a number of seconds >= 0, not {t}"
                ))
            })?;
            budget = budget.time_limit(limit);
        }
        let request = BuildRequest {
            settings: settings.map(|s| s.inner),
            tiled,
            tile_size,
            threads: threads.unwrap_or(0),
            budget,
        };
        let nav = py.detach(|| request.run(&geom)).py_err()?;
        Ok(NavMesh::new(nav))
    }

    /// Reads a navmesh file (RecastDemo's `MSET`, 32- or 64-bit refs); every byte is checked
    /// before Detour sees it, so a corrupt file is a `CorruptFileError`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<NavMesh> {
        let nav = py.detach(|| navkit::NavMesh::load(&path)).py_err()?;
        Ok(NavMesh::new(nav))
    }

    /// Saves the navmesh as RecastDemo's `MSET` file, atomically: a crash mid-write leaves any
    /// previous file whole.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| self.nav().save(&path)).py_err()
    }

    /// The navmesh as the bytes of an `MSET` file.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.detach(|| self.nav().to_mset_bytes());
        PyBytes::new(py, &bytes)
    }

    /// A navmesh from the bytes of an `MSET` file (checked as `load` checks a file).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<NavMesh> {
        let nav = py
            .detach(|| navkit::NavMesh::from_mset_bytes(data))
            .py_err()?;
        Ok(NavMesh::new(nav))
    }

    /// What the navmesh holds: tiles, polygons, vertices, bounds, its parameters.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let nav = self.nav();
        let polys = nav.polys();
        let p = nav.params();
        let d = PyDict::new(py);
        d.set_item("tiles", nav.tile_count())?;
        d.set_item("polygons", polys.len())?;
        d.set_item(
            "vertices",
            polys.iter().map(|p| p.verts.len()).sum::<usize>(),
        )?;
        d.set_item("data_bytes", nav.data_size())?;
        d.set_item("origin", p.origin)?;
        d.set_item("tile_width", p.tile_width)?;
        d.set_item("tile_height", p.tile_height)?;
        d.set_item("max_tiles", p.max_tiles)?;
        d.set_item("max_polys_per_tile", p.max_polys)?;
        if let Some(b) = navmesh_bounds(&polys) {
            d.set_item("bounds", (b.0, b.1))?;
        }
        Ok(d)
    }

    /// A path from `start` to `goal` (each three numbers): the polygon corridor, its corners
    /// (the straight path) and, when asked, the smooth path and the optimal (shortest) path.
    ///
    /// The ends snap to the nearest polygon within `half_extents` (default (2, 4, 2)); no
    /// polygon there is a `PointOffMeshError`. An unreachable goal is not an error: the path is
    /// `"partial"`. `filter` (a `QueryFilter`) defaults to RecastDemo's. The GIL is released.
    ///
    /// >>> path = mesh.find_path([1.0, 0.0, 2.0], [30.0, 0.0, 8.0], smooth=True)
    #[pyo3(signature = (start, goal, *, smooth=false, optimal=false, half_extents=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn find_path(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        goal: &Bound<'_, PyAny>,
        smooth: bool,
        optimal: bool,
        half_extents: Option<&Bound<'_, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Path> {
        let (s, g) = (arrays::point(start, "start")?, arrays::point(goal, "goal")?);
        let args = PathArgs::new(smooth, optimal, half_extents, filter)?;
        py.detach(|| args.run(&self.pool, s, g)).py_err()
    }

    /// `find_path` for every pair of rows of `starts` and `goals` (`(N, 3)` arrays), on every
    /// core with the GIL released: a list of `Path` in the order given. A pair that fails
    /// raises, naming its index.
    #[pyo3(signature = (starts, goals, *, smooth=false, optimal=false, half_extents=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn find_paths(
        &self,
        py: Python<'_>,
        starts: &Bound<'_, PyAny>,
        goals: &Bound<'_, PyAny>,
        smooth: bool,
        optimal: bool,
        half_extents: Option<&Bound<'_, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Vec<Py<Path>>> {
        let pairs = arrays::pairs(starts, "starts", goals, "goals")?;
        let args = PathArgs::new(smooth, optimal, half_extents, filter)?;
        args.run_all(py, &self.pool, &pairs)
    }

    /// The polygons as arrays: `vertices` (`(V, 3)` float32, every polygon's in turn),
    /// `offsets` (`(P + 1,)`: polygon `i` is `vertices[offsets[i]:offsets[i + 1]]`), `refs`
    /// (uint64), `areas` (uint8), `flags` (uint16) and `off_mesh` (bool: an off-mesh link's
    /// two ends, not a surface).
    fn polygons<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let polys = py.detach(|| self.nav().polys());
        let mut offsets = Vec::with_capacity(polys.len() + 1);
        offsets.push(0i64);
        let mut verts = Vec::new();
        for p in &polys {
            verts.extend_from_slice(&p.verts);
            offsets.push(verts.len() as i64);
        }
        let d = PyDict::new(py);
        d.set_item("vertices", arrays::to_array(py, &verts))?;
        d.set_item("offsets", arrays::to_array1(py, offsets))?;
        let refs = polys.iter().map(|p| p.poly.to_u64()).collect();
        d.set_item("refs", arrays::to_array1(py, refs))?;
        d.set_item(
            "areas",
            arrays::to_array1(py, polys.iter().map(|p| p.area).collect()),
        )?;
        d.set_item(
            "flags",
            arrays::to_array1(py, polys.iter().map(|p| p.flags).collect()),
        )?;
        let off: Vec<bool> = polys.iter().map(|p| p.off_mesh).collect();
        d.set_item("off_mesh", arrays::to_array1(py, off))?;
        Ok(d)
    }

    /// Each polygon reference split into Detour's `(salt, tile, poly)` fields, `(N, 3)` uint32
    /// (the bit layout depends on the navmesh's tile and polygon counts).
    fn decode_polys<'py>(
        &self,
        py: Python<'py>,
        refs: Vec<u64>,
    ) -> Bound<'py, numpy::PyArray2<u32>> {
        let layout = self.nav().params().ref_layout();
        let flat: Vec<u32> = refs
            .iter()
            .flat_map(|&r| {
                let (salt, tile, poly) = layout.decode(r);
                [salt, tile, poly]
            })
            .collect();
        let n = refs.len();
        numpy::IntoPyArray::into_pyarray(
            numpy::ndarray::Array2::from_shape_vec((n, 3), flat).expect("3 per ref"),
            py,
        )
    }

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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
        let pts = py
            .detach(|| spatial::random_points(&self.pool, n, seed, &around, &filter))
            .py_err()?;
        Ok(arrays::to_array(py, &pts))
    }

    /// The navmesh's islands (parts joined by links, which no path leaves; off-mesh links
    /// join both ways), largest first: a dict of arrays, `area` (m2, float32), `polys` (ground
    /// polygons), `bounds_min` and `bounds_max` (float32 `(K, 3)`).
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
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

    /// The path from `start` to the nearest of `goals` (`(N, 3)`): the shortest complete
    /// straight path among them (habitat-sim's multi-goal path), as `(index, path)`; when no
    /// goal can be reached, the partial path that ends nearest its goal. Every goal's path is
    /// found, on every core. A goal off the mesh is skipped; none on the mesh is a
    /// `PointOffMeshError`.
    #[pyo3(signature = (start, goals, *, smooth=false, optimal=false, half_extents=None, filter=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn find_path_to_nearest(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        goals: &Bound<'_, PyAny>,
        smooth: bool,
        optimal: bool,
        half_extents: Option<&Bound<'_, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<(usize, Path)> {
        let s = arrays::point(start, "start")?;
        let goals = arrays::points(goals, "goals")?;
        let args = PathArgs::new(smooth, optimal, half_extents, filter)?;
        py.detach(|| args.run_nearest(&self.pool, s, &goals))
            .py_err()
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
        let filter = filter.map(|f| f.inner).unwrap_or_default();
        let cells = py
            .detach(|| spatial::navigable(&self.pool, &grid.centres(), max_y_delta, &filter))
            .map_err(|(_, e)| errors::to_py(e))?;
        let array = numpy::ndarray::Array2::from_shape_vec((grid.rows, grid.cols), cells)
            .expect("a cell per row and column");
        Ok((numpy::IntoPyArray::into_pyarray(array, py), lo))
    }

    /// The detail mesh (the surface paths lie on) as arrays: `vertices` (float32 `(3T, 3)`,
    /// three per triangle), `triangles` (int64 `(T, 3)` indices into `vertices`) and `polys`
    /// (uint64 `(T,)`, each triangle's polygon).
    fn detail_mesh<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let nav = self.nav();
        let (verts, polys) = py.detach(|| {
            let mut verts = Vec::new();
            let mut polys = Vec::new();
            for p in nav.polys() {
                let Some(d) = nav.poly(p.poly).and_then(|v| v.detail()) else {
                    continue;
                };
                for t in d.triangles() {
                    verts.extend(t.verts);
                    polys.push(p.poly.to_u64());
                }
            }
            (verts, polys)
        });
        let tris: Vec<i64> = (0..verts.len() as i64).collect();
        let n = polys.len();
        let d = PyDict::new(py);
        d.set_item("vertices", arrays::to_array(py, &verts))?;
        let tris = numpy::ndarray::Array2::from_shape_vec((n, 3), tris).expect("3 per triangle");
        d.set_item("triangles", numpy::IntoPyArray::into_pyarray(tris, py))?;
        d.set_item("polys", arrays::to_array1::<u64>(py, polys))?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let nav = self.nav();
        format!(
            "<navkit.NavMesh: {} tiles, {} polygons, {} bytes>",
            nav.tile_count(),
            nav.polys().len(),
            nav.data_size()
        )
    }

    /// Pickles as the `MSET` bytes (for multiprocessing, Ray, Dask).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let from_bytes = py.get_type::<NavMesh>().getattr("from_bytes")?;
        let bytes = slf.get().to_bytes(py);
        PyTuple::new(py, [from_bytes, PyTuple::new(py, [bytes])?.into_any()])
    }
}

/// The bounds of every polygon's vertices, as `([x, y, z], [x, y, z])`.
fn navmesh_bounds(polys: &[navkit::navmesh::PolyInfo]) -> Option<([f32; 3], [f32; 3])> {
    let mut it = polys.iter().flat_map(|p| p.verts.iter().copied());
    let first = it.next()?;
    let (lo, hi) = it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)));
    Some((lo.to_array(), hi.to_array()))
}
