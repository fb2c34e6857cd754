//! Builds a level solo, tiled or as a tile cache and prints the build's memory estimate next to
//! the process's measured peak (VmHWM from /proc/self/status), to check the estimate that
//! `Budget::max_memory` and `navkit --max-memory` refuse builds by.
//!
//! `cargo run --release --example memory_estimate -- solo|tiled|cache LEVEL [CELL_SIZE] [THREADS]`
use navkit::build::{BuildKind, estimate};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};

/// The peak resident memory in bytes, where /proc tells it.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
    kb.unwrap_or(0) * 1024
}

fn main() -> navkit::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: memory_estimate solo|tiled|cache LEVEL [CELL_SIZE] [THREADS]";
    let (mode, path) = (args.get(1).expect(usage), args.get(2).expect(usage));
    let geom = InputGeometry::load(path)?;
    let mut settings = geom.settings.clone().unwrap_or_else(BuildSettings::default);
    if let Some(cs) = args.get(3).filter(|c| !c.is_empty() && *c != "-") {
        settings.cell_size = cs.parse().expect("CELL_SIZE: a number");
    }
    let threads: usize = args
        .get(4)
        .map_or(1, |t| t.parse().expect("THREADS: a number"));
    let e = estimate(&geom, &settings)?;
    let before = peak_rss();
    let builder = NavMeshBuilder::new(&geom)
        .settings(settings)
        .threads(threads);
    let kind = match mode.as_str() {
        "solo" => {
            builder.solo()?;
            BuildKind::Solo
        }
        "tiled" => {
            builder.tiled()?;
            BuildKind::Tiled(threads)
        }
        "cache" => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            pool.expect("a thread pool")
                .install(|| builder.tile_cache())?;
            BuildKind::TileCache(threads)
        }
        other => panic!("{other}: {usage}"),
    };
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "{mode} {path} cs {}: {} x {} cells, {} spans ({} walkable): estimate {:.1} MB, \
         peak {:.1} MB (before the build {:.1} MB)",
        e.cell_size,
        e.width,
        e.depth,
        e.spans,
        e.walkable_spans,
        mb(kind.memory_bytes(&e)),
        mb(peak_rss()),
        mb(before),
    );
    Ok(())
}
