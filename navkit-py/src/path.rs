//! Paths: `NavMesh.find_path` and `find_paths` (batches on every core, the GIL released) and
//! the `navkit.Path` they return.

use std::sync::atomic::{AtomicBool, Ordering};

use navkit::glam::Vec3;
use navkit::query::{
    NavPath, OptimalOptions, OptimalPath, PathOptions, PolyRef, SmoothPath, SmoothPathOptions,
    StraightPoint,
};
use navkit::status::PathStatus;
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays;
use crate::filter::QueryFilter;
use crate::query_pool::{CHUNK, QueryPool};

/// The options shared by `find_path` and `find_paths`, checked.
pub struct PathArgs {
    pub options: PathOptions,
    pub filter: navkit::query::QueryFilter,
}

impl PathArgs {
    /// The options from the keywords: `smooth` and `optimal` ask for those paths,
    /// `half_extents` is the box searched for the polygons nearest the ends.
    pub fn new(
        smooth: bool,
        optimal: bool,
        half_extents: Option<&Bound<'_, PyAny>>,
        filter: Option<QueryFilter>,
    ) -> PyResult<Self> {
        let half = arrays::half_extents(half_extents)?;
        let options = PathOptions {
            half_extents: half,
            smooth: smooth.then(SmoothPathOptions::default),
            optimal: optimal.then(OptimalOptions::default),
            ..PathOptions::default()
        };
        Ok(PathArgs {
            options,
            filter: QueryFilter::or_default(filter),
        })
    }

    /// One path.
    pub fn run(&self, pool: &QueryPool, start: Vec3, goal: Vec3) -> navkit::Result<Path> {
        pool.with(|q| q.path(start, goal, &self.filter, &self.options))
            .map(|p| self.make(p))
    }

    /// The path from `start` to the nearest of `goals` (see `NavMesh.find_path_to_nearest`):
    /// the shortest complete one, else the partial one ending nearest its goal.
    pub fn run_nearest(
        &self,
        pool: &QueryPool,
        start: Vec3,
        goals: &[Vec3],
    ) -> navkit::Result<(usize, Path)> {
        let found = pool.map(goals, |q, &g| {
            match q.path(start, g, &self.filter, &self.options) {
                Ok(p) => Ok(Some(p)),
                Err(navkit::Error::PointOffMesh {
                    argument: "goal", ..
                }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        let found = found.map_err(|(_, e)| e)?;
        // Complete paths by length first, then partial ones by how far they end from the goal.
        let rank = |(i, p): &(usize, &NavPath)| {
            let end = p.straight.points.last().map_or(start, |s| s.pos);
            match p.is_complete() {
                true => (0, p.straight.length()),
                false => (1, end.distance(goals[*i])),
            }
        };
        let best = found
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i, p.as_ref()?)))
            .min_by(|a, b| {
                rank(a)
                    .partial_cmp(&rank(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
        let Some((i, _)) = best else {
            return Err(navkit::Error::PointOffMesh {
                argument: "goals",
                point: goals.first().copied().unwrap_or(Vec3::NAN),
                half_extents: self.options.half_extents,
            });
        };
        let path = found
            .into_iter()
            .nth(i)
            .flatten()
            .expect("the best is found");
        Ok((i, self.make(path)))
    }

    /// The Python path of `p`.
    fn make(&self, p: NavPath) -> Path {
        Path::of(p, self.options.smooth.is_some())
    }

    /// A Python path per pair, in order, computed on every core (rayon's pool) while this
    /// thread, holding the GIL, turns each finished task's paths into Python objects. If pairs
    /// fail, the first of them in order raises, named by its index. A signal (Ctrl-C) stops
    /// the batch within a task's time and raises its exception.
    pub fn run_all(
        &self,
        py: Python<'_>,
        pool: &QueryPool,
        pairs: &[(Vec3, Vec3)],
    ) -> PyResult<Vec<Py<Path>>> {
        let chunks = pairs.len().div_ceil(CHUNK);
        let mut slots: Vec<Vec<Py<Path>>> = (0..chunks).map(|_| Vec::new()).collect();
        let mut failed: Option<(usize, navkit::Error)> = None;
        let stop = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel::<Done>();
        std::thread::scope(|scope| -> PyResult<()> {
            let stop = &stop;
            scope.spawn(move || {
                pairs
                    .par_chunks(CHUNK)
                    .enumerate()
                    .for_each_with(tx, |tx, (c, chunk)| {
                        if !stop.load(Ordering::Relaxed) {
                            // The receiver lives until every task has sent, or is stopped.
                            let _ = tx.send((
                                c,
                                pool.map_chunk(c * CHUNK, chunk, |q, &(s, g)| {
                                    q.path(s, g, &self.filter, &self.options)
                                        .map(|p| self.make(p))
                                }),
                            ));
                        }
                    });
            });
            // Told to stop on the way out, whether the batch ended or raised.
            let _stop_guard = StopOnDrop(stop);
            // In a mutex only so that the wait, GIL released, may borrow it (`Send`).
            let rx = std::sync::Mutex::new(rx);
            let next = || {
                rx.lock()
                    .map_err(|_| ())
                    .and_then(|r| r.recv().map_err(|_| ()))
            };
            while let Ok((c, done)) = py.detach(next) {
                py.check_signals()?;
                match done {
                    Ok(paths) => {
                        slots[c] = paths
                            .into_iter()
                            .map(|p| Py::new(py, p))
                            .collect::<PyResult<_>>()?
                    }
                    Err(e) if failed.as_ref().is_none_or(|f| e.0 < f.0) => failed = Some(e),
                    Err(_) => {}
                }
            }
            Ok(())
        })?;
        if let Some((i, e)) = failed {
            return Err(crate::errors::in_batch(i, e));
        }
        Ok(slots.into_iter().flatten().collect())
    }
}

/// A finished task of a batch: its index, and its paths or its first failing pair.
type Done = (usize, Result<Vec<Path>, (usize, navkit::Error)>);

/// Sets the flag when dropped: the batch's tasks not yet started then do nothing.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A path between two points.
///
/// `status` is `"complete"` when it reaches the goal, `"partial"` when the goal cannot be
/// reached (it then leads as near the goal as it can). `polys` is the polygon corridor,
/// `straight` its corners (Detour's straight path), `smooth` and `optimal` the smooth path and
/// the shortest path when asked for (else `None`). Each array property returns a new array.
#[pyclass(module = "navkit", name = "Path", frozen)]
pub struct Path {
    status: PathStatus,
    polys: Vec<PolyRef>,
    straight: Vec<StraightPoint>,
    smooth: Option<SmoothPath>,
    optimal: Option<OptimalPath>,
}

impl Path {
    /// The path `p`, whose smooth path counts if `smooth_asked`.
    fn of(p: NavPath, smooth_asked: bool) -> Path {
        Path {
            status: p.status(),
            polys: p.corridor.polys,
            straight: p.straight.points,
            smooth: smooth_asked.then_some(p.smooth),
            optimal: p.optimal,
        }
    }
}

/// A status as Python sees it.
pub fn status_name(s: PathStatus) -> &'static str {
    match s {
        PathStatus::Complete => "complete",
        PathStatus::Partial => "partial",
    }
}

#[pymethods]
impl Path {
    /// `"complete"` (the path reaches the goal) or `"partial"`.
    #[getter]
    fn status(&self) -> &'static str {
        status_name(self.status)
    }

    /// The polygon corridor: Detour's polygon references, start to end (uint64).
    #[getter]
    fn polys<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        arrays::to_array1(py, self.polys.iter().map(|r| r.to_u64()).collect())
    }

    /// The straight path: its corners, start to end, `(K, 3)` float32.
    #[getter]
    fn straight<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        let points: Vec<Vec3> = self.straight.iter().map(|p| p.pos).collect();
        arrays::to_array(py, &points)
    }

    /// Detour's flags of each straight-path point (1 start, 2 end, 4 off-mesh link), uint8.
    #[getter]
    fn straight_flags<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        arrays::to_array1(py, self.straight.iter().map(|p| p.flags).collect())
    }

    /// The straight path's length in 3D (metres).
    #[getter]
    fn length(&self) -> f32 {
        self.straight
            .windows(2)
            .map(|w| w[0].pos.distance(w[1].pos))
            .sum()
    }

    /// The smooth path (RecastDemo's "Pathfind Follow"), `(K, 3)` float32, if asked for.
    #[getter]
    fn smooth<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f32>>> {
        self.smooth
            .as_ref()
            .map(|s| arrays::to_array(py, &s.points))
    }

    /// True if the smooth path stopped short, stuck as RecastDemo's loop gets stuck (it then
    /// ends where it stuck); False if it was not asked for.
    #[getter]
    fn smooth_stuck(&self) -> bool {
        self.smooth.as_ref().is_some_and(|s| s.stuck)
    }

    /// The shortest (any-angle) path on the navmesh, `(K, 3)` float32, if asked for.
    #[getter]
    fn optimal<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f32>>> {
        self.optimal.as_ref().map(|o| {
            let pts: Vec<Vec3> = o.points.iter().map(|p| p.pos).collect();
            arrays::to_array(py, &pts)
        })
    }

    /// The optimal path's 3D length, if asked for.
    #[getter]
    fn optimal_length(&self) -> Option<f32> {
        self.optimal.as_ref().map(|o| o.length)
    }

    /// The optimal path's length on the xz-plane (what it minimises), if asked for.
    #[getter]
    fn optimal_length_xz(&self) -> Option<f32> {
        self.optimal.as_ref().map(|o| o.length_xz)
    }

    /// Search nodes the optimal path's search expanded, if asked for.
    #[getter]
    fn optimal_expanded(&self) -> Option<usize> {
        self.optimal.as_ref().map(|o| o.expanded)
    }

    /// True if the optimal path is also the least-cost path under the filter (every area it
    /// may cross costs the same); if asked for.
    #[getter]
    fn optimal_exact(&self) -> Option<bool> {
        self.optimal.as_ref().map(|o| o.exact)
    }

    fn __len__(&self) -> usize {
        self.straight.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<navkit.Path {}: {} polys, {} corners, {:.2} m{}{}>",
            status_name(self.status),
            self.polys.len(),
            self.straight.len(),
            self.length(),
            self.smooth
                .as_ref()
                .map(|s| format!(", {} smooth points", s.points.len()))
                .unwrap_or_default(),
            self.optimal
                .as_ref()
                .map(|o| format!(", optimal {:.2} m", o.length))
                .unwrap_or_default(),
        )
    }
}
