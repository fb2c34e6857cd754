//! `navkit.TileCache`: RecastDemo's Temp Obstacles, a navmesh whose tiles are rebuilt from
//! compressed layers when obstacles (cylinders, boxes, turned boxes) come and go.

use std::path::PathBuf;
use std::time::Duration;

use navkit::ObstacleShape;
use navkit::tilecache::ObstacleRef;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::arrays;
use crate::build_request::{BuildRequest, DEFAULT_MAX_MEMORY, geometry};
use crate::errors::IntoPy;
use crate::navmesh::NavMesh;
use crate::settings::BuildSettings;

/// A tile cache: a navmesh whose tiles are rebuilt from compressed heightfield layers when
/// obstacles are added or removed (RecastDemo's Temp Obstacles).
///
/// Obstacles take effect at the next `update()`. `navmesh()` gives a snapshot to query; a
/// `Crowd` made from the cache owns it and walks around obstacles as they change.
///
/// >>> cache = navkit.TileCache.build("dungeon.obj")
/// >>> barrel = cache.add_cylinder([1.0, 0.0, 2.0], radius=1.0, height=2.0)
/// >>> cache.update()
/// True
#[pyclass(module = "navkit", name = "TileCache")]
pub struct TileCache {
    /// `None` once a crowd has taken it.
    inner: Option<navkit::TileCache>,
}

impl TileCache {
    /// The cache to read, or an error if a crowd owns it now.
    fn cache_ref(&self) -> PyResult<&navkit::TileCache> {
        self.inner.as_ref().ok_or_else(moved)
    }

    /// The cache, or an error if a crowd owns it now.
    fn cache(&mut self) -> PyResult<&mut navkit::TileCache> {
        self.inner.as_mut().ok_or_else(moved)
    }

    /// The cache itself, for a crowd to own.
    pub fn take(&mut self) -> PyResult<navkit::TileCache> {
        self.inner.take().ok_or_else(moved)
    }
}

/// The error for a cache a crowd has taken.
fn moved() -> PyErr {
    PyRuntimeError::new_err(
        "this TileCache belongs to a Crowd now: use the crowd's obstacle methods",
    )
}

/// An obstacle handle from Python.
pub fn obstacle(handle: i64) -> PyResult<ObstacleRef> {
    u32::try_from(handle)
        .map(ObstacleRef)
        .map_err(|_| PyValueError::new_err(format!("{handle} is not an obstacle handle")))
}

/// Adds `shape` to `cache`, giving its handle.
fn add(cache: &mut navkit::TileCache, shape: &ObstacleShape) -> PyResult<i64> {
    cache.add(shape).map(|r| i64::from(r.0)).py_err()
}

/// The obstacle shapes, from Python's arguments.
pub mod shapes {
    use super::*;

    /// An upright cylinder standing at `pos`.
    pub fn cylinder(pos: &Bound<'_, PyAny>, radius: f32, height: f32) -> PyResult<ObstacleShape> {
        Ok(ObstacleShape::Cylinder {
            pos: arrays::point(pos, "pos")?,
            radius,
            height,
        })
    }

    /// An axis-aligned box.
    pub fn aabb(bmin: &Bound<'_, PyAny>, bmax: &Bound<'_, PyAny>) -> PyResult<ObstacleShape> {
        Ok(ObstacleShape::Box {
            bmin: arrays::point(bmin, "bmin")?,
            bmax: arrays::point(bmax, "bmax")?,
        })
    }

    /// A box turned `y_angle` radians about the y axis.
    pub fn turned(
        center: &Bound<'_, PyAny>,
        half_extents: &Bound<'_, PyAny>,
        y_angle: f32,
    ) -> PyResult<ObstacleShape> {
        Ok(ObstacleShape::OrientedBox {
            center: arrays::point(center, "center")?,
            half_extents: arrays::point(half_extents, "half_extents")?,
            y_angle,
        })
    }
}

/// Runs the cache's rebuilds for at most `seconds` (all of them if `None`); true when none is
/// left.
fn update(cache: &mut navkit::TileCache, seconds: Option<f64>) -> PyResult<bool> {
    let budget = match seconds {
        None => Duration::MAX,
        Some(s) => Duration::try_from_secs_f64(s).map_err(|_| {
            PyValueError::new_err(format!("`seconds` must be a number >= 0, not {s}"))
        })?,
    };
    Ok(cache.update(budget).py_err()?.up_to_date)
}

#[pymethods]
impl TileCache {
    /// Builds a tile cache of a level (RecastDemo's Temp Obstacles), with the arguments of
    /// `NavMesh.build` (`tile_size` default 48 cells). The GIL is released while it builds; a
    /// signal (Ctrl-C) stops the build and raises.
    #[staticmethod]
    #[pyo3(signature = (source, triangles=None, *, areas=None, settings=None, tile_size=None, threads=None, max_memory=Some(DEFAULT_MAX_MEMORY), timeout=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn build(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        triangles: Option<&Bound<'_, PyAny>>,
        areas: Option<&Bound<'_, PyAny>>,
        settings: Option<BuildSettings>,
        tile_size: Option<u32>,
        threads: Option<usize>,
        max_memory: Option<u64>,
        timeout: Option<f64>,
    ) -> PyResult<TileCache> {
        let geom = geometry(source, triangles, areas)?;
        let request =
            BuildRequest::new(settings.as_ref(), tile_size, threads, max_memory, timeout)?;
        let cache = request.run(py, |r| r.tile_cache(&geom))?;
        Ok(TileCache { inner: Some(cache) })
    }

    /// Reads a cache RecastDemo or navkit saved (`TSET`, FastLZ or LZ4 layers), checked
    /// before Detour sees it. A `TSET` file holds no off-mesh links: `links_from` (a `.gset`
    /// file) gives the level's.
    #[staticmethod]
    #[pyo3(signature = (path, *, links_from=None))]
    fn load(py: Python<'_>, path: PathBuf, links_from: Option<PathBuf>) -> PyResult<TileCache> {
        let cache = py
            .detach(|| {
                let links = match &links_from {
                    Some(gset) => navkit::InputGeometry::load(gset)?.off_mesh_connections,
                    None => Vec::new(),
                };
                navkit::TileCache::load(&path, &links)
            })
            .py_err()?;
        Ok(TileCache { inner: Some(cache) })
    }

    /// Saves the cache (its layers and obstacles' effect to come) as a `TSET` file, atomically.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let cache = self.cache_ref()?;
        py.detach(|| cache.save(&path)).py_err()
    }

    /// The cache as the bytes of a `TSET` file.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let cache = self.cache_ref()?;
        Ok(PyBytes::new(py, &cache.to_tset_bytes()))
    }

    /// Adds an upright cylinder standing at `pos`; returns its handle. Carved at `update()`.
    #[pyo3(signature = (pos, radius, height))]
    fn add_cylinder(&mut self, pos: &Bound<'_, PyAny>, radius: f32, height: f32) -> PyResult<i64> {
        add(self.cache()?, &shapes::cylinder(pos, radius, height)?)
    }

    /// Adds an axis-aligned box from `bmin` to `bmax`; returns its handle.
    fn add_box(&mut self, bmin: &Bound<'_, PyAny>, bmax: &Bound<'_, PyAny>) -> PyResult<i64> {
        add(self.cache()?, &shapes::aabb(bmin, bmax)?)
    }

    /// Adds a box centred at `center`, `half_extents` in size, turned `y_angle` radians about
    /// the y axis; returns its handle.
    fn add_oriented_box(
        &mut self,
        center: &Bound<'_, PyAny>,
        half_extents: &Bound<'_, PyAny>,
        y_angle: f32,
    ) -> PyResult<i64> {
        add(
            self.cache()?,
            &shapes::turned(center, half_extents, y_angle)?,
        )
    }

    /// Removes an obstacle (its tiles are rebuilt at `update()`).
    fn remove(&mut self, handle: i64) -> PyResult<()> {
        let r = obstacle(handle)?;
        self.cache()?.remove(r).py_err()
    }

    /// Rebuilds the tiles obstacles changed, for at most `seconds` (every one if `None`);
    /// True when nothing is left to rebuild.
    #[pyo3(signature = (seconds=None))]
    fn update(&mut self, py: Python<'_>, seconds: Option<f64>) -> PyResult<bool> {
        let cache = self.cache()?;
        py.detach(|| update(cache, seconds))
    }

    /// A snapshot of the navmesh as it is now, to query (take another after updates).
    fn navmesh(&self, py: Python<'_>) -> PyResult<NavMesh> {
        let cache = self.cache_ref()?;
        let bytes = py.detach(|| cache.navmesh().to_mset_bytes());
        let nav = py
            .detach(|| navkit::NavMesh::from_mset_bytes(&bytes))
            .py_err()?;
        Ok(NavMesh::new(nav))
    }

    /// Tiles, layers, obstacles and whether rebuilds are pending.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let cache = self.cache_ref()?;
        let d = PyDict::new(py);
        d.set_item("tiles", cache.navmesh().tile_count())?;
        d.set_item("obstacles", cache.obstacles().len())?;
        d.set_item("up_to_date", cache.is_up_to_date())?;
        d.set_item("polygons", cache.navmesh().polys().len())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        match &self.inner {
            None => "<navkit.TileCache (in a Crowd)>".to_string(),
            Some(c) => format!(
                "<navkit.TileCache: {} tiles, {} obstacles{}>",
                c.navmesh().tile_count(),
                c.obstacles().len(),
                if c.is_up_to_date() {
                    ""
                } else {
                    ", updates pending"
                }
            ),
        }
    }
}
