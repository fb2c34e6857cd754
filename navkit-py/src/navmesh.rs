//! `navkit.NavMesh`: building (from a file or numpy arrays), loading, saving and pickling a
//! navmesh, and its polygons and detail mesh as arrays. Its paths are in `navmesh_paths.rs`,
//! its point queries in `navmesh_points.rs`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use navkit::navmesh::Islands;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::arrays;
use crate::build_request::{BuildRequest, DEFAULT_MAX_MEMORY, geometry};
use crate::errors::IntoPy;
use crate::query_pool::QueryPool;
use crate::settings::BuildSettings;

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
    pub fn islands_of(&self, py: Python<'_>) -> Arc<Islands> {
        self.islands
            .get_or_init(|| Arc::new(py.detach(|| self.nav().islands())))
            .clone()
    }
}

#[pymethods]
impl NavMesh {
    /// Builds a navmesh, as RecastDemo's Solo Mesh (or, with `tiled=True`, Tile Mesh) does.
    ///
    /// `source` is a path to an OBJ, glTF (`.gltf`/`.glb`) or RecastDemo `.gset` file, or an
    /// `(N, 3)` array of vertices with `triangles` an `(M, 3)` integer array of vertex indices.
    /// `areas` (optional, `(M,)` integers 0..=63) gives each triangle's walkable surface an area
    /// id (0 ground, `AREA_WATER` ...; slopes still decide what is walkable), which filters and
    /// area costs then see.
    /// `settings` defaults to the `.gset`'s own, else RecastDemo's (`BuildSettings()`).
    /// `threads` (tiled builds) defaults to every core; `max_memory` (bytes) refuses a build
    /// whose estimate is larger (default 8 GiB); `timeout` (seconds) stops a longer one. The
    /// GIL is released while it builds; a signal (Ctrl-C) stops the build and raises.
    ///
    /// >>> mesh = navkit.NavMesh.build("dungeon.obj")
    #[staticmethod]
    #[pyo3(signature = (source, triangles=None, *, areas=None, settings=None, tiled=false, tile_size=None, threads=None, max_memory=Some(DEFAULT_MAX_MEMORY), timeout=None))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn build(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        triangles: Option<&Bound<'_, PyAny>>,
        areas: Option<&Bound<'_, PyAny>>,
        settings: Option<BuildSettings>,
        tiled: bool,
        tile_size: Option<u32>,
        threads: Option<usize>,
        max_memory: Option<u64>,
        timeout: Option<f64>,
    ) -> PyResult<NavMesh> {
        let geom = geometry(source, triangles, areas)?;
        let request =
            BuildRequest::new(settings.as_ref(), tile_size, threads, max_memory, timeout)?;
        let nav = request.run(py, |r| r.navmesh(&geom, tiled))?;
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
pub fn navmesh_bounds(polys: &[navkit::navmesh::PolyInfo]) -> Option<([f32; 3], [f32; 3])> {
    let mut it = polys.iter().flat_map(|p| p.verts.iter().copied());
    let first = it.next()?;
    let (lo, hi) = it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)));
    Some((lo.to_array(), hi.to_array()))
}
