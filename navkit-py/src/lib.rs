//! navkit for Python: the extension module `navkit._navkit`, which the package `navkit`
//! (`python/navkit/`) re-exports.
//!
//! A thin layer, as in PyO3's well-known projects: each `#[pyclass]` holds a navkit value and
//! converts at the edge (numpy arrays in and out, checked once in `arrays`), heavy work runs with
//! the GIL released, and navkit's errors map to one exception hierarchy (`errors`).
#![forbid(unsafe_code)]

mod arrays;
mod bench;
mod build_request;
mod crowd;
mod errors;
mod filter;
mod grid;
mod navmesh;
mod navmesh_paths;
mod navmesh_points;
mod path;
mod query_pool;
mod settings;
mod shards;
mod spatial;
mod tilecache;

use pyo3::prelude::*;

/// mimalloc for the extension's Rust allocations (see Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The extension module.
#[pymodule]
fn _navkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<settings::BuildSettings>()?;
    m.add_class::<filter::QueryFilter>()?;
    m.add_class::<navmesh::NavMesh>()?;
    m.add_class::<path::Path>()?;
    m.add_class::<tilecache::TileCache>()?;
    m.add_class::<crowd::Crowd>()?;
    m.add_class::<grid::Grid>()?;
    m.add_class::<grid::GridPath>()?;
    m.add_function(wrap_pyfunction!(grid::load_movingai_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(shards::build_shard, m)?)?;
    m.add_function(wrap_pyfunction!(shards::merge_parts, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rust_find_paths_seconds, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    for (name, value) in [
        ("AREA_GROUND", navkit::area::GROUND),
        ("AREA_WATER", navkit::area::WATER),
        ("AREA_ROAD", navkit::area::ROAD),
        ("AREA_DOOR", navkit::area::DOOR),
        ("AREA_GRASS", navkit::area::GRASS),
        ("AREA_JUMP", navkit::area::JUMP),
    ] {
        m.add(name, value)?;
    }
    Ok(())
}
