//! What `NavMesh.build` (and the tile cache's build) reads from its arguments: the geometry
//! (a file, or numpy arrays) and the builder's settings and limits.

use std::path::PathBuf;

use navkit::build::Budget;
use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::arrays;
use crate::errors::IntoPy;

/// A path argument (`str` or `os.PathLike`) as a path, or `None` if `obj` is not one.
fn as_path(obj: &Bound<'_, PyAny>) -> Option<PathBuf> {
    obj.extract::<PathBuf>().ok()
}

/// The geometry of `NavMesh.build`'s `source` and `triangles`.
pub fn geometry(
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
pub struct BuildRequest {
    pub settings: Option<navkit::BuildSettings>,
    pub tiled: bool,
    pub tile_size: Option<u32>,
    pub threads: usize,
    pub budget: Budget,
}

impl BuildRequest {
    /// Builds the navmesh.
    pub fn run(self, geom: &InputGeometry) -> navkit::Result<navkit::NavMesh> {
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
