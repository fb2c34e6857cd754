//! `NavMesh`'s paths: `find_path`, `find_paths` (every core) and `find_path_to_nearest`.

use pyo3::prelude::*;

use crate::arrays;
use crate::errors::IntoPy;
use crate::filter::QueryFilter;
use crate::navmesh::NavMesh;
use crate::path::{Path, PathArgs};

#[pymethods]
impl NavMesh {
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
        if goals.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "`goals` is empty: give at least one goal",
            ));
        }
        let args = PathArgs::new(smooth, optimal, half_extents, filter)?;
        py.detach(|| args.run_nearest(&self.pool, s, &goals))
            .py_err()
    }
}
