//! Benchmark: navkit's OBJ reader (`TriMesh::from_obj`) against RecastDemo's own C++ loader
//! (`rcMeshLoaderObj`), side by side in one run.
//!
//! The benchmark compiles, with `c++ -O2`, RecastDemo's `MeshLoaderObj.cpp` from the
//! recastnavigation-sys sources in place (the folder navkit's build script found) together with
//! our driver `benches/obj_loader_driver.cpp`, into `target/tmp` (`common/recastdemo_obj.rs`,
//! shared with the test that checks the same equality in CI, `tests/reference_parity.rs`).
//! Nothing of RecastDemo is copied.
//!
//! Files: RecastDemo's meshes (`../shared/meshes/recastdemo`), the repository's demo level, and
//! two generated terrains of about 1M and 4M triangles (quads and triangle pairs, `v/vt/vn`
//! corners, relative indices; `tests/common/obj_gen.rs`) written to a temporary folder.
//!
//! Each load runs in a child process of its own (this benchmark again, with `--child FILE`, or
//! the C++ driver), navkit and C++ alternating for several rounds (the first side swapped every
//! round), since shared machines are noisy. Each child prints the load's wall time, its
//! resident memory before the load and its peak (`VmRSS`, `VmHWM` of `/proc/self/status`), the
//! counts and a hash of the arrays: the benchmark asserts both loaders give the same arrays,
//! then prints best and median times, the time ratio of the medians, peak memories, their
//! ratio, and the growth of each peak over the memory before the load against the size of the
//! final vertex and index arrays (`12 * (verts + tris)` bytes). RecastDemo's loader also holds
//! the whole file while it parses and computes per-triangle normals (another `12 * tris`).
//!
//! Run: `cargo bench --bench obj_loader`. `NAVKIT_BENCH_ROUNDS` sets the rounds (default 7);
//! `NAVKIT_BENCH_QUICK=1` only the small files and a 100k-triangle terrain, 3 rounds.

#[path = "common/median.rs"]
mod median;
use median::median;
#[path = "../tests/common/obj_gen.rs"]
mod obj_gen;
#[path = "common/recastdemo_obj.rs"]
mod recastdemo_obj;
use recastdemo_obj::{Run, build_driver, mesh_hash, run};

use navkit::TriMesh;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One line of `/proc/self/status` in KiB.
fn status_kib(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The child: loads `file` once and prints what the C++ driver prints.
fn child(file: &Path) {
    let before = status_kib("VmRSS:");
    let t = Instant::now();
    let mesh = TriMesh::from_obj(file).unwrap_or_else(|e| panic!("{e}"));
    let secs = t.elapsed().as_secs_f64();
    let hwm = status_kib("VmHWM:");
    println!(
        "time_s={secs:.6} rss_before_kib={before} hwm_kib={hwm} verts={} tris={} hash={}",
        mesh.vert_count(),
        mesh.tri_count(),
        mesh_hash(&mesh)
    );
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(Path::new(&args[i + 1]));
        return;
    }
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let quick = std::env::var_os("NAVKIT_BENCH_QUICK").is_some();
    let rounds: usize = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if quick { 3 } else { 7 });
    let driver = build_driver(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let me = std::env::current_exe().unwrap();

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<(String, PathBuf)> = ["dungeon.obj", "nav_test.obj", "undulating.obj"]
        .iter()
        .map(|n| {
            let p = root.join("../shared/meshes/recastdemo").join(n);
            (n.to_string(), p)
        })
        .collect();
    files.push(("demo_level.obj".into(), root.join("meshes/demo_level.obj")));
    let dir = std::env::temp_dir().join(format!("navkit-obj-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grids: &[(&str, usize)] = if quick {
        &[("grid 100k", 224)]
    } else {
        &[("grid 1M", 708), ("grid 4M", 1415)]
    };
    for &(name, cells) in grids {
        let p = dir.join(format!("grid{cells}.obj"));
        let t = Instant::now();
        obj_gen::write_grid_obj(&p, cells).unwrap();
        eprintln!(
            "wrote {} in {:.1} s",
            p.display(),
            t.elapsed().as_secs_f64()
        );
        files.push((name.into(), p));
    }

    println!(
        "{:<15} {:>9} {:>8} {:>8} | {:>9} {:>9} {:>9} {:>9} {:>6} | {:>8} {:>8} {:>6} | {:>9} {:>9}",
        "file",
        "tris",
        "file MB",
        "arr MB",
        "nk best",
        "nk med",
        "C++ best",
        "C++ med",
        "t nk/C",
        "nk peak",
        "C++ peak",
        "m nk/C",
        "nk grow/a",
        "C++ grow/a"
    );
    for (name, path) in &files {
        let (mut nk, mut cc) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            let mut ours = || nk.push(run(Command::new(&me).arg("--child").arg(path)));
            let mut theirs = || cc.push(run(Command::new(&driver).arg(path)));
            if r % 2 == 0 {
                ours();
                theirs();
            } else {
                theirs();
                ours();
            }
        }
        let (a, b) = (&nk[0], &cc[0]);
        assert_eq!(
            (a.verts, a.tris, &a.hash),
            (b.verts, b.tris, &b.hash),
            "{name}: navkit and RecastDemo read different arrays"
        );
        assert!(nk.iter().chain(&cc).all(|r| r.hash == a.hash), "{name}");
        let arrays_mib = (a.verts + a.tris) as f64 * 12.0 / (1024.0 * 1024.0);
        let file_mib = std::fs::metadata(path).unwrap().len() as f64 / (1024.0 * 1024.0);
        let best = |v: &[Run]| v.iter().map(|r| r.secs).fold(f64::INFINITY, f64::min);
        let med = |v: &[Run]| median(&v.iter().map(|r| r.secs).collect::<Vec<_>>());
        let peak = |v: &[Run]| v.iter().map(|r| r.hwm_kib).max().unwrap();
        let grow = |v: &[Run]| {
            v.iter()
                .map(|r| r.hwm_kib.saturating_sub(r.before_kib))
                .max()
                .unwrap()
        };
        println!(
            "{:<15} {:>9} {:>8.1} {:>8.1} | {:>7.1}ms {:>7.1}ms {:>7.1}ms {:>7.1}ms {:>6.2} | {:>6.1}MB {:>6.1}MB {:>6.2} | {:>9.2} {:>9.2}",
            name,
            a.tris,
            file_mib,
            arrays_mib,
            best(&nk) * 1e3,
            med(&nk) * 1e3,
            best(&cc) * 1e3,
            med(&cc) * 1e3,
            med(&nk) / med(&cc),
            mib(peak(&nk)),
            mib(peak(&cc)),
            peak(&nk) as f64 / peak(&cc) as f64,
            mib(grow(&nk)) / arrays_mib,
            mib(grow(&cc)) / arrays_mib,
        );
    }
    println!(
        "nk = navkit TriMesh::from_obj, C++ = RecastDemo rcMeshLoaderObj (c++ -O2), {rounds} interleaved rounds, \
         one process per load; arr = final vertex + index arrays (12 B per vertex and per triangle); \
         peak = VmHWM of the loading process; grow/a = (peak - RSS before the load) / arr"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
