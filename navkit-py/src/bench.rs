//! The benchmark's Rust side (`navkit-py/bench/paths.py`): the same pairs through navkit's Rust
//! API as a Rust program would run them on every core (rayon, a query per task), timed here so
//! that both sides run in one process, interleaved. Not part of the public API.

use std::sync::Mutex;
use std::time::Instant;

use navkit::glam::Vec3;
use navkit::query::{PathOptions, QueryFilter};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays;
use crate::errors::IntoPy;
use crate::navmesh::NavMesh;
use crate::query_pool::CHUNK;

/// Seconds navkit's Rust API takes for the straight paths of every pair (the corridor and its
/// corners, RecastDemo's options, no smooth path) on `threads` threads (default: every core),
/// and how many were complete.
#[pyfunction]
#[pyo3(signature = (mesh, starts, goals, threads=None))]
pub fn _rust_find_paths_seconds(
    py: Python<'_>,
    mesh: &NavMesh,
    starts: &Bound<'_, PyAny>,
    goals: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<(f64, usize)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let s = arrays::points(starts, "starts")?;
    let g = arrays::points(goals, "goals")?;
    let pairs: Vec<(Vec3, Vec3)> = s.into_iter().zip(g).collect();
    let nav = mesh.nav();
    let options = PathOptions {
        smooth: None,
        ..PathOptions::default()
    };
    let filter = QueryFilter::default();
    py.detach(|| pool.install(|| time_paths(nav, &pairs, &filter, &options)))
        .py_err()
}

/// The timed loop of [`_rust_find_paths_seconds`]: one query per thread of the pool, made
/// before the clock starts, as a Rust program keeps its queries.
fn time_paths(
    nav: &navkit::NavMesh,
    pairs: &[(Vec3, Vec3)],
    filter: &QueryFilter,
    options: &PathOptions,
) -> navkit::Result<(f64, usize)> {
    let queries = (0..rayon::current_num_threads())
        .map(|_| nav.query().map(Mutex::new))
        .collect::<navkit::Result<Vec<_>>>()?;
    let t = Instant::now();
    let complete: navkit::Result<Vec<usize>> = pairs
        .par_chunks(CHUNK)
        .map(|chunk| {
            let slot = rayon::current_thread_index().unwrap_or(0) % queries.len();
            let mut q = queries[slot].lock().expect("no task panics holding it");
            let mut n = 0;
            for &(a, b) in chunk {
                n += usize::from(q.path(a, b, filter, options)?.is_complete());
            }
            Ok(n)
        })
        .collect();
    let complete = complete?.iter().sum();
    Ok((t.elapsed().as_secs_f64(), complete))
}
