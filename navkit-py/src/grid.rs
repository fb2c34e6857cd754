//! `navkit.Grid`: 8-connected grid pathfinding (A* and Jump Point Search) on Moving AI maps or
//! boolean numpy arrays, one search or batches on every core; and Moving AI scenario files.

use std::path::PathBuf;
use std::sync::Arc;

use navkit::glam::UVec2;
use navkit::grid::{CornerCutting, Grid as NavGrid, SearchContext, SearchOptions, Terrain};
use navkit::grid::{astar, jps, movingai};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use crate::arrays;
use crate::errors::IntoPy;
use crate::path::status_name;
use crate::query_pool::CHUNK;

/// A grid of cells, passable or blocked (Moving AI's water too), for A* and JPS.
///
/// Cells are `(x, y)`: column `x` of row `y`, as Moving AI numbers them; a boolean array is
/// indexed `[y, x]`. Moves: straight 1, diagonal sqrt(2), no corner cutting unless asked.
///
/// >>> grid = navkit.Grid(np.ones((64, 64), dtype=bool))
/// >>> grid.find_path((0, 0), (63, 40)).cost
#[pyclass(module = "navkit", name = "Grid", frozen)]
pub struct Grid {
    grid: Arc<NavGrid>,
}

/// One grid search's answer.
#[pyclass(module = "navkit", name = "GridPath", frozen, get_all)]
pub struct GridPath {
    /// `"complete"` or `"partial"`.
    status: &'static str,
    /// The path's cost (moves of 1 and sqrt(2)).
    cost: f64,
    /// Nodes expanded.
    expanded: u32,
    /// The cells from start to goal, `(K, 2)` int64 `(x, y)`.
    cells: Py<PyArray2<i64>>,
}

#[pymethods]
impl GridPath {
    fn __repr__(&self) -> String {
        format!(
            "<navkit.GridPath {}: cost {:.3}, {} expanded>",
            self.status, self.cost, self.expanded
        )
    }
}

/// The search options from Python's `corner_cutting`.
fn options(corner_cutting: &str) -> PyResult<SearchOptions> {
    let c = match corner_cutting {
        "never" => CornerCutting::Never,
        "if_one_side_free" => CornerCutting::IfOneSideFree,
        "always" => CornerCutting::Always,
        other => {
            return Err(PyValueError::new_err(format!(
                "`corner_cutting` {other:?}: 'never' (Moving AI's rule), 'if_one_side_free' or 'always'"
            )));
        }
    };
    Ok(SearchOptions::default().with_corner_cutting(c))
}

/// A search algorithm by name.
#[derive(Clone, Copy)]
enum Algorithm {
    AStar,
    Jps,
}

impl Algorithm {
    fn parse(name: &str) -> PyResult<Self> {
        match name {
            "astar" => Ok(Algorithm::AStar),
            "jps" => Ok(Algorithm::Jps),
            other => Err(PyValueError::new_err(format!(
                "`algorithm` {other:?}: 'astar' or 'jps'"
            ))),
        }
    }

    fn run(
        self,
        ctx: &mut SearchContext,
        grid: &NavGrid,
        s: UVec2,
        g: UVec2,
        o: &SearchOptions,
    ) -> navkit::Result<navkit::grid::SearchResult> {
        match self {
            Algorithm::AStar => astar::find_path(ctx, grid, s, g, o),
            Algorithm::Jps => jps::find_path(ctx, grid, s, g, o),
        }
    }
}

/// An `(N, 2)` integer array of cells.
fn cells(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<UVec2>> {
    let a: PyReadonlyArray2<i64> = obj
        .call_method1("astype", ("int64",))
        .or_else(|_| {
            obj.py()
                .import("numpy")?
                .call_method1("asarray", (obj, "int64"))
        })?
        .extract()
        .map_err(|_| PyValueError::new_err(format!("`{name}` must have shape (N, 2)")))?;
    let v = a.as_array();
    if v.ncols() != 2 {
        return Err(PyValueError::new_err(format!(
            "`{name}` must have shape (N, 2), not {:?}",
            v.shape()
        )));
    }
    v.rows()
        .into_iter()
        .enumerate()
        .map(|(i, r)| match (u32::try_from(r[0]), u32::try_from(r[1])) {
            (Ok(x), Ok(y)) => Ok(UVec2::new(x, y)),
            _ => Err(PyValueError::new_err(format!(
                "`{name}[{i}]` = ({}, {}) is not a cell",
                r[0], r[1]
            ))),
        })
        .collect()
}

#[pymethods]
impl Grid {
    /// A grid from a boolean array, `True` where passable, indexed `[y, x]`.
    #[new]
    fn new(passable: PyReadonlyArray2<'_, bool>) -> PyResult<Self> {
        let a = passable.as_array();
        let (h, w) = (a.nrows(), a.ncols());
        let (Ok(w32), Ok(h32)) = (u32::try_from(w), u32::try_from(h)) else {
            return Err(PyValueError::new_err("the grid is too large"));
        };
        let mut grid = NavGrid::new(w32, h32).py_err()?;
        for ((y, x), &open) in a.indexed_iter() {
            if !open {
                grid.set_terrain(UVec2::new(x as u32, y as u32), Terrain::Blocked);
            }
        }
        Ok(Grid {
            grid: Arc::new(grid),
        })
    }

    /// A Moving AI `.map` file.
    #[staticmethod]
    fn load_movingai(py: Python<'_>, path: PathBuf) -> PyResult<Grid> {
        let grid = py.detach(|| movingai::load_map(&path)).py_err()?;
        Ok(Grid {
            grid: Arc::new(grid),
        })
    }

    /// Columns.
    #[getter]
    fn width(&self) -> u32 {
        self.grid.width()
    }

    /// Rows.
    #[getter]
    fn height(&self) -> u32 {
        self.grid.height()
    }

    /// The passable cells as a boolean array, `[y, x]`.
    fn to_array<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        let (w, h) = (self.grid.width() as usize, self.grid.height() as usize);
        let cells: Vec<bool> = (0..h * w)
            .map(|i| {
                self.grid
                    .is_cell_passable(UVec2::new((i % w) as u32, (i / w) as u32))
            })
            .collect();
        PyArray1::from_vec(py, cells)
            .reshape([h, w])
            .expect("h x w cells")
    }

    /// The cheapest path from cell `start` to cell `goal` (`(x, y)` each) by `algorithm`
    /// (`"astar"` or `"jps"`, the same costs). A blocked or outside cell is an
    /// `InvalidArgumentError`; an unreachable goal gives a `"partial"` path.
    #[pyo3(signature = (start, goal, *, algorithm="astar", corner_cutting="never"))]
    fn find_path(
        &self,
        py: Python<'_>,
        start: (u32, u32),
        goal: (u32, u32),
        algorithm: &str,
        corner_cutting: &str,
    ) -> PyResult<GridPath> {
        let (alg, o) = (Algorithm::parse(algorithm)?, options(corner_cutting)?);
        let (s, g) = (UVec2::from(start), UVec2::from(goal));
        let grid = &*self.grid;
        let (r, path) = py
            .detach(|| {
                let mut ctx = SearchContext::new();
                let r = alg.run(&mut ctx, grid, s, g, &o)?;
                Ok((r, ctx.path_cells(grid)))
            })
            .py_err()?;
        let flat: Vec<i64> = path.iter().flat_map(|c| [c.x as i64, c.y as i64]).collect();
        let cells = PyArray1::from_vec(py, flat).reshape([path.len(), 2])?;
        Ok(GridPath {
            status: status_name(r.status),
            cost: r.cost,
            expanded: r.expanded,
            cells: cells.unbind(),
        })
    }

    /// `find_path` for each row of `starts` and `goals` (`(N, 2)` cells), on every core:
    /// a dict of arrays, `cost` (float64), `complete` (bool) and `expanded` (uint32).
    #[pyo3(signature = (starts, goals, *, algorithm="astar", corner_cutting="never"))]
    fn find_paths<'py>(
        &self,
        py: Python<'py>,
        starts: &Bound<'py, PyAny>,
        goals: &Bound<'py, PyAny>,
        algorithm: &str,
        corner_cutting: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (alg, o) = (Algorithm::parse(algorithm)?, options(corner_cutting)?);
        let (s, g) = (cells(starts, "starts")?, cells(goals, "goals")?);
        if s.len() != g.len() {
            return Err(PyValueError::new_err(format!(
                "`starts` has {} rows and `goals` {}: one row of each per query",
                s.len(),
                g.len()
            )));
        }
        let pairs: Vec<(UVec2, UVec2)> = s.into_iter().zip(g).collect();
        let grid = &*self.grid;
        let results = py
            .detach(|| {
                pairs
                    .par_chunks(CHUNK)
                    .enumerate()
                    .map(|(c, chunk)| {
                        let mut ctx = SearchContext::new();
                        chunk
                            .iter()
                            .enumerate()
                            .map(|(i, &(a, b))| {
                                alg.run(&mut ctx, grid, a, b, &o)
                                    .map_err(|e| (c * CHUNK + i, e))
                            })
                            .collect::<Result<Vec<_>, _>>()
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|(i, e)| crate::errors::in_batch(i, e))?;
        let all: Vec<_> = results.into_iter().flatten().collect();
        let d = PyDict::new(py);
        d.set_item(
            "cost",
            arrays::to_array1(py, all.iter().map(|r| r.cost).collect()),
        )?;
        let complete = all.iter().map(|r| r.is_complete()).collect();
        d.set_item("complete", arrays::to_array1::<bool>(py, complete))?;
        d.set_item(
            "expanded",
            arrays::to_array1(py, all.iter().map(|r| r.expanded).collect()),
        )?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "<navkit.Grid {} x {}, {} passable>",
            self.grid.width(),
            self.grid.height(),
            self.grid.passable_count()
        )
    }
}

/// A Moving AI scenario file (`.scen`) as arrays: `starts` and `goals` (`(N, 2)` int64 cells),
/// `optimal_length` (float64, the benchmark's optimal costs) and `bucket` (uint32).
#[pyfunction]
pub fn load_movingai_scenario<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let scen = py.detach(|| movingai::load_scen(&path)).py_err()?;
    let p = &scen.problems;
    let pairs = |f: fn(&movingai::Problem) -> UVec2| -> PyResult<Bound<'py, PyArray2<i64>>> {
        let flat: Vec<i64> = p
            .iter()
            .flat_map(|q| [f(q).x as i64, f(q).y as i64])
            .collect();
        PyArray1::from_vec(py, flat).reshape([p.len(), 2])
    };
    let d = PyDict::new(py);
    d.set_item("starts", pairs(|q| q.start)?)?;
    d.set_item("goals", pairs(|q| q.goal)?)?;
    let lengths = p.iter().map(|q| q.optimal_length).collect();
    d.set_item("optimal_length", arrays::to_array1::<f64>(py, lengths))?;
    d.set_item(
        "bucket",
        arrays::to_array1(py, p.iter().map(|q| q.bucket).collect()),
    )?;
    Ok(d)
}
