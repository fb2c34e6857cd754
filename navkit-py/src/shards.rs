//! Sharded tiled builds from Python: `build_shard` builds one shard's tiles (in this process,
//! through a tile store if given) and returns its part file's bytes with its figures;
//! `merge_parts` puts every shard's part together into the navmesh one build makes, checked
//! (navkit's `navkit::build::tiled::{Shard, merge_parts}`). A distributed engine runs
//! `build_shard` as its tasks: see `navkit.cluster`.

use std::path::PathBuf;
use std::time::Instant;

use navkit::build::tiled::{Part, Shard, ShardInput, merge_parts as merge};
use navkit::geometry::LoadOptions;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::build_request::{BuildRequest, DEFAULT_MAX_MEMORY, geometry};
use crate::errors::IntoPy;
use crate::navmesh::NavMesh;
use crate::settings::BuildSettings;

/// Builds shard `index` of `count` of a tiled build of `source` (a path or arrays, as
/// `NavMesh.build` takes them) and returns a dict: `part` (the part file's bytes: RecastDemo's
/// `MSET` with the whole navmesh's parameters and this shard's tiles, then navkit's shard
/// trailer), `shard` (`(index, count)`), `tiles` (tiles with polygons), `tiles_built`,
/// `tiles_reused` and `store_entries_refused` (with `tile_store`, a folder shared by every
/// worker), `data_hash` (of this shard's tiles), `build_ms` and `peak_rss_bytes` (the
/// process's peak so far, Linux; else `None`). The GIL is released while it
/// builds. From a level file, only the triangles near the shard's tiles are kept (every vertex
/// is), so a worker's memory grows with its shard.
///
/// >>> part = navkit.build_shard("world.gset", 0, 4, tile_store="/shared/tiles")
#[pyfunction]
#[pyo3(signature = (source, index, count, triangles=None, *, areas=None, settings=None, tile_size=None, threads=None, tile_store=None, max_memory=Some(DEFAULT_MAX_MEMORY), timeout=None))]
#[allow(clippy::too_many_arguments)] // Python's keywords, one each
pub fn build_shard<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    index: u32,
    count: u32,
    triangles: Option<&Bound<'py, PyAny>>,
    areas: Option<&Bound<'py, PyAny>>,
    settings: Option<BuildSettings>,
    tile_size: Option<u32>,
    threads: Option<usize>,
    tile_store: Option<PathBuf>,
    max_memory: Option<u64>,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let started = Instant::now();
    let request = BuildRequest::new(settings.as_ref(), tile_size, threads, max_memory, timeout)?
        .reuse(tile_store, Some((index, count)))?;
    let shard = Shard::new(index, count).py_err()?;
    let file = match (triangles, areas) {
        (None, None) => source.extract::<PathBuf>().ok(),
        _ => None,
    };
    let (part, report) = match file {
        // A level file: only the shard's part of it is kept (ShardInput).
        Some(path) => request.run(py, |r| {
            let input = ShardInput::load(&path, &LoadOptions::default(), shard, |s| r.adjust(s))?;
            let tiled = r.limits(input.builder()).tiled()?;
            Ok((tiled.part_bytes()?, tiled.report().clone()))
        })?,
        None => {
            let geom = geometry(source, triangles, areas)?;
            request.run(py, |r| {
                let tiled = r.tiled(&geom)?;
                Ok((tiled.part_bytes()?, tiled.report().clone()))
            })?
        }
    };
    let d = PyDict::new(py);
    d.set_item("part", PyBytes::new(py, &part))?;
    d.set_item("shard", (index, count))?;
    d.set_item("tiles", report.tile_count)?;
    d.set_item("tiles_built", report.tiles_built)?;
    d.set_item("tiles_reused", report.tiles_reused)?;
    d.set_item("store_entries_refused", report.store_entries_refused)?;
    d.set_item("data_hash", report.data_hash)?;
    d.set_item("build_ms", started.elapsed().as_secs_f64() * 1e3)?;
    d.set_item("peak_rss_bytes", peak_rss_bytes())?;
    Ok(d)
}

/// The process's peak resident memory so far (Linux's `VmHWM`), if known: a worker's peak
/// over every task it has run.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Merges the parts of every shard of one build (the `part` bytes of `build_shard`, in any
/// order) into the navmesh, and returns it with its data hash, which equals the unsharded
/// build's. Parts of different builds, a shard missing or given twice, a tile missing, doubled
/// or in the wrong shard raise `InvalidArgumentError`; a damaged part `CorruptFileError` or
/// `InvalidArgumentError`.
#[pyfunction]
pub fn merge_parts(py: Python<'_>, parts: Vec<Bound<'_, PyBytes>>) -> PyResult<(NavMesh, String)> {
    let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    let merged = py
        .detach(|| {
            let parts = bytes
                .iter()
                .map(|b| Part::from_bytes(b))
                .collect::<navkit::Result<Vec<_>>>()?;
            merge(&parts)
        })
        .py_err()?;
    Ok((NavMesh::new(merged.navmesh), merged.data_hash))
}
