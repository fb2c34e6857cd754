//! What `NavMesh.build` (and the tile cache's build) reads from its arguments: the geometry
//! (a file, or numpy arrays) and the builder's settings and limits.

use std::path::PathBuf;
use std::time::Duration;

use std::sync::mpsc::RecvTimeoutError;

use navkit::build::tiled::{Shard, TileStore};
use navkit::build::{Budget, CancelToken};
use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::arrays;
use crate::errors::IntoPy;
use crate::settings::BuildSettings;

/// A path argument (`str` or `os.PathLike`) as a path, or `None` if `obj` is not one.
fn as_path(obj: &Bound<'_, PyAny>) -> Option<PathBuf> {
    obj.extract::<PathBuf>().ok()
}

/// The geometry of `NavMesh.build`'s `source`, `triangles` and `areas` (an area id per
/// triangle, 0..=63, 0 ground).
pub fn geometry(
    source: &Bound<'_, PyAny>,
    triangles: Option<&Bound<'_, PyAny>>,
    areas: Option<&Bound<'_, PyAny>>,
) -> PyResult<InputGeometry> {
    let mut geom = source_geometry(source, triangles)?;
    if let Some(a) = areas.filter(|a| !a.is_none()) {
        let areas = arrays::area_ids(a, "areas", geom.mesh.tri_count())?;
        geom.triangle_areas = Some(areas);
    }
    Ok(geom)
}

/// The geometry of `source` and `triangles`, without areas.
fn source_geometry(
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

/// The memory a build may use unless `max_memory` says otherwise: a build that would need more
/// is refused before it starts, with a `BuildError` naming the estimate.
pub const DEFAULT_MAX_MEMORY: u64 = 8 << 30;

/// How often a build's waiting thread checks Python's signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// What the build keywords ask of the builder.
pub struct BuildRequest {
    settings: Option<navkit::BuildSettings>,
    tile_size: Option<u32>,
    threads: usize,
    budget: Budget,
    /// Cancels the build when Python gets a signal (Ctrl-C): see [`BuildRequest::run`].
    cancel: CancelToken,
    /// The tile store tiled builds reuse tiles from and keep them in.
    store: Option<TileStore>,
    /// The one shard a tiled build builds.
    shard: Option<Shard>,
}

impl BuildRequest {
    /// The request from the keywords: `settings` (else the geometry's, else RecastDemo's),
    /// `tile_size` (cells), `threads` (default every core), `max_memory` (bytes) and
    /// `timeout` (seconds).
    pub fn new(
        settings: Option<&BuildSettings>,
        tile_size: Option<u32>,
        threads: Option<usize>,
        max_memory: Option<u64>,
        timeout: Option<f64>,
    ) -> PyResult<Self> {
        let cancel = CancelToken::new();
        let mut budget = Budget::new().cancel_token(cancel.clone());
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
        Ok(BuildRequest {
            settings: settings.map(|s| s.inner.clone()),
            tile_size,
            threads: threads.unwrap_or(0),
            budget,
            cancel,
            store: None,
            shard: None,
        })
    }

    /// Tiled builds reuse tiles from the store in `tile_store` (a folder, created if need be)
    /// and keep theirs there; they build only `shard` (`(index, count)`) if given.
    pub fn reuse(
        mut self,
        tile_store: Option<PathBuf>,
        shard: Option<(u32, u32)>,
    ) -> PyResult<Self> {
        if let Some(dir) = tile_store {
            self.store = Some(TileStore::open(dir).py_err()?);
        }
        if let Some((i, n)) = shard {
            self.shard = Some(Shard::new(i, n).py_err()?);
        }
        Ok(self)
    }

    /// Runs `build` on a thread of its own with the GIL released, while this thread checks
    /// Python's signals every [`SIGNAL_CHECK`]: a signal (Ctrl-C, an alarm) cancels the build,
    /// which stops at its next check (between stages and tiles), and raises the signal's
    /// exception.
    pub fn run<T: Send>(
        &self,
        py: Python<'_>,
        build: impl FnOnce(&Self) -> navkit::Result<T> + Send,
    ) -> PyResult<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                // The receiver waits for this, or has gone after a signal.
                let _ = tx.send(build(self));
            });
            // In a mutex only so that the wait, GIL released, may borrow it (`Send`).
            let rx = std::sync::Mutex::new(rx);
            loop {
                let waited = py.detach(|| match rx.lock() {
                    Ok(r) => r.recv_timeout(SIGNAL_CHECK),
                    Err(_) => Err(RecvTimeoutError::Disconnected),
                });
                match waited {
                    Ok(result) => return result.py_err(),
                    Err(RecvTimeoutError::Timeout) => {
                        if let Err(signal) = py.check_signals() {
                            self.cancel.cancel();
                            return Err(signal);
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err(
                            "the build's thread ended without a result",
                        ));
                    }
                }
            }
        })
    }

    /// The builder for `geom`, as asked.
    fn builder<'a>(&self, geom: &'a InputGeometry) -> NavMeshBuilder<'a> {
        let mut b = NavMeshBuilder::new(geom);
        if let Some(s) = &self.settings {
            b = b.settings(s.clone());
        }
        if let Some(t) = self.tile_size {
            b = b.tile_size(t);
        }
        if let Some(shard) = self.shard {
            b = b.shard(shard);
        }
        self.limits(b)
    }

    /// `b` with the threads, budget and tile store asked for.
    pub fn limits<'a>(&self, b: NavMeshBuilder<'a>) -> NavMeshBuilder<'a> {
        let b = b.threads(self.threads).budget(self.budget.clone());
        match &self.store {
            Some(store) => b.tile_store(store),
            None => b,
        }
    }

    /// The settings asked for, over `s` (a level's own or RecastDemo's).
    pub fn adjust(&self, s: &mut navkit::BuildSettings) {
        if let Some(mine) = &self.settings {
            *s = mine.clone();
        }
        if let Some(t) = self.tile_size {
            s.tile_size = t;
        }
    }

    /// A tiled build (of the shard, if one was asked for), with its report.
    pub fn tiled(
        &self,
        geom: &InputGeometry,
    ) -> navkit::Result<navkit::build::tiled::TiledNavMesh> {
        self.builder(geom).tiled()
    }

    /// A solo navmesh (RecastDemo's Solo Mesh), or a tiled one (Tile Mesh).
    pub fn navmesh(&self, geom: &InputGeometry, tiled: bool) -> navkit::Result<navkit::NavMesh> {
        let b = self.builder(geom);
        if tiled {
            Ok(b.tiled()?.into_navmesh())
        } else {
            Ok(b.solo()?.into_navmesh())
        }
    }

    /// A tile cache (RecastDemo's Temp Obstacles).
    pub fn tile_cache(&self, geom: &InputGeometry) -> navkit::Result<navkit::TileCache> {
        self.builder(geom).tile_cache()
    }
}
