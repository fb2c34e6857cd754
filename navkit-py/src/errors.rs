//! navkit's errors as Python exceptions: one base class, `navkit.NavkitError`, and a subclass
//! per kind of mistake, mapped from [`navkit::Error`] in one place ([`to_py`]).
//!
//! Argument mistakes that Python code makes before navkit sees the data (a wrong dtype, shape or
//! a NaN) are Python's own `TypeError` and `ValueError`, raised by `arrays.rs`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    navkit,
    NavkitError,
    PyException,
    "Every error navkit raises."
);
create_exception!(
    navkit,
    PointOffMeshError,
    NavkitError,
    "A point with no walkable polygon near it (within the query's half extents)."
);
create_exception!(
    navkit,
    CorruptFileError,
    NavkitError,
    "A file (navmesh, tile cache, mesh, geometry set) that is malformed, truncated or of another version."
);
create_exception!(
    navkit,
    SettingError,
    NavkitError,
    "A build setting out of its range, or settings that cannot build together."
);
create_exception!(
    navkit,
    GeometryError,
    NavkitError,
    "Input geometry that cannot be built: empty, out of range, or inconsistent."
);
create_exception!(
    navkit,
    BuildError,
    NavkitError,
    "A build that failed, was refused by its budget, was cancelled or timed out."
);
create_exception!(
    navkit,
    InvalidArgumentError,
    NavkitError,
    "An argument navkit refuses: a point beyond the coordinate range, a stale polygon or handle, a blocked cell."
);
create_exception!(
    navkit,
    NavkitIOError,
    NavkitError,
    "A file that could not be read or written."
);
create_exception!(
    navkit,
    DetourError,
    NavkitError,
    "Detour refused an operation (out of memory, out of search nodes, a full pool)."
);

/// The Python exception for a navkit error: its class says the kind, its message is navkit's.
pub fn to_py(err: navkit::Error) -> PyErr {
    use navkit::Error as E;
    let msg = err.to_string();
    match err {
        E::PointOffMesh { .. } => PointOffMeshError::new_err(msg),
        E::Parse { .. } | E::NavMeshData { .. } | E::VersionMismatch { .. } => {
            CorruptFileError::new_err(msg)
        }
        E::Setting { .. } => SettingError::new_err(msg),
        E::Geometry(_) => GeometryError::new_err(msg),
        E::Build { .. }
        | E::OverBudget { .. }
        | E::Cancelled { .. }
        | E::TimedOut { .. }
        | E::Panicked { .. } => BuildError::new_err(msg),
        E::Io { .. } => NavkitIOError::new_err(msg),
        E::InvalidArgument(_)
        | E::NonFinite { .. }
        | E::PointOutOfRange { .. }
        | E::BlockedCell { .. }
        | E::InvalidPolyRef { .. }
        | E::StaleHandle { .. } => InvalidArgumentError::new_err(msg),
        _ => DetourError::new_err(msg),
    }
}

/// `?` on a navkit result in a `#[pyfunction]`: `.map_err(to_py)` in one word.
pub trait IntoPy<T> {
    /// The result with navkit's error as its Python exception.
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for navkit::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NavkitError", py.get_type::<NavkitError>())?;
    m.add("PointOffMeshError", py.get_type::<PointOffMeshError>())?;
    m.add("CorruptFileError", py.get_type::<CorruptFileError>())?;
    m.add("SettingError", py.get_type::<SettingError>())?;
    m.add("GeometryError", py.get_type::<GeometryError>())?;
    m.add("BuildError", py.get_type::<BuildError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("NavkitIOError", py.get_type::<NavkitIOError>())?;
    m.add("DetourError", py.get_type::<DetourError>())?;
    Ok(())
}

/// The exception for pair `index` of a batch: the error's own class, its message prefixed with
/// the pair.
pub fn in_batch(index: usize, err: navkit::Error) -> PyErr {
    let py_err = to_py(err);
    Python::attach(|py| {
        let msg = format!("pair {index}: {}", py_err.value(py));
        PyErr::from_type(py_err.get_type(py), msg)
    })
}
