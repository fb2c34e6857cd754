//! A driver for profiling one side of the navmesh benchmark (`benches/navmesh.rs`): the smooth
//! path or `findStraightPath`, through navkit or through raw FFI (`common/raw_detour.rs`), on
//! one of RecastDemo's meshes and the benchmark's pairs (stuck pairs left out, as there). One
//! side per process gives `perf record` / `valgrind --tool=callgrind` a clean profile of it;
//! `ab` interleaves the two sides in one process and prints their ratio.
//!
//! ```text
//! cargo bench --bench navmesh_side --no-run   # then, with the binary it names:
//! navmesh_side-HASH <nk|raw|ab> <smooth|straight> <dungeon|nav_test|undulating> <rounds>
//! valgrind --tool=callgrind --toggle-collect='*smooth_path_into*' navmesh_side-HASH nk smooth nav_test 1
//! valgrind --tool=callgrind --toggle-collect='*raw_smooth_path*' navmesh_side-HASH raw smooth nav_test 1
//! ```
//!
//! Without arguments (as `cargo test --benches` runs it) it runs each side once on nav_test.

use std::hint::black_box;
use std::time::Instant;

use navkit::query::{NavMeshQuery, QueryFilter, SmoothPath, SmoothPathOptions, StraightPath};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};

#[allow(dead_code)]
#[path = "common/raw_detour.rs"]
mod raw_detour;
#[path = "common/raw_navmesh.rs"]
mod raw_navmesh;
use raw_detour::pairs::{PAIRS, stuck_pairs};
use raw_detour::{
    MAX_NODES, MAX_SMOOTH, Pair, RawNav, RawStraight, make_pairs, raw_smooth_path,
    raw_straight_path, straight_options,
};

/// Both sides' state and output buffers for one mesh.
struct Sides<'a> {
    q: NavMeshQuery<'a>,
    filter: QueryFilter,
    raw: RawNav,
    pairs: Vec<Pair>,
    nk_smooth: SmoothPath,
    nk_straight: StraightPath,
    raw_smooth: Box<[[f32; 3]; MAX_SMOOTH]>,
    raw_straight: Box<RawStraight>,
}

impl Sides<'_> {
    /// Runs `op` over every pair on one side; the seconds it took.
    fn run(&mut self, navkit: bool, op: &str) -> f64 {
        let opts = SmoothPathOptions::default();
        let so = straight_options();
        let t = Instant::now();
        for p in &self.pairs {
            let p = black_box(p);
            match (navkit, op) {
                (true, "smooth") => {
                    self.q
                        .smooth_path_into(
                            &p.corridor,
                            p.start,
                            p.end,
                            &self.filter,
                            &opts,
                            &mut self.nk_smooth,
                        )
                        .expect("smooth_path");
                    black_box(&self.nk_smooth);
                }
                (false, "smooth") => {
                    let n = raw_smooth_path(&self.raw, p, &mut self.raw_smooth);
                    black_box(&self.raw_smooth[..n]);
                }
                (true, "straight") => {
                    self.q
                        .find_straight_path_into(
                            p.start,
                            p.straight_end,
                            &p.corridor,
                            &so,
                            &mut self.nk_straight,
                        )
                        .expect("findStraightPath");
                    black_box(&self.nk_straight);
                }
                (false, "straight") => {
                    let n = raw_straight_path(&self.raw, p, &mut self.raw_straight);
                    black_box((&self.raw_straight, n));
                }
                _ => panic!("op is smooth or straight, not {op}"),
            }
        }
        t.elapsed().as_secs_f64()
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let (side, op, mesh) = (arg(0, "ab"), arg(1, "smooth"), arg(2, "nav_test"));
    let rounds: usize = arg(3, "1").parse().expect("rounds");
    let path = format!(
        "{}/../shared/meshes/recastdemo/{mesh}.obj",
        env!("CARGO_MANIFEST_DIR")
    );
    let geom = InputGeometry::load(path).expect("load mesh");
    let build = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .expect("build");
    let mut q = NavMeshQuery::new(build.navmesh(), MAX_NODES as usize).expect("query");
    let filter = QueryFilter::default();
    let mut pairs = make_pairs(&mesh, &mut q, &filter, PAIRS);
    pairs.drain(..stuck_pairs(&mesh).len());
    let mut s = Sides {
        q,
        filter,
        raw: RawNav::new(build.tile_data()),
        pairs,
        nk_smooth: SmoothPath::default(),
        nk_straight: StraightPath::default(),
        raw_smooth: Box::new([[0.0; 3]; MAX_SMOOTH]),
        raw_straight: Box::new(RawStraight::new()),
    };
    // Warm up both sides (first-touch page faults, cold caches) before timing.
    s.run(true, &op);
    s.run(false, &op);
    let per_query = |t: f64, n: usize| t * 1e6 / n as f64;
    let n = s.pairs.len();
    if side == "ab" {
        let (mut nk, mut raw) = (Vec::new(), Vec::new());
        for r in 0..rounds.max(1) {
            // Who goes first alternates.
            for k in 0..2 {
                if (r + k) % 2 == 0 {
                    nk.push(s.run(true, &op));
                } else {
                    raw.push(s.run(false, &op));
                }
            }
        }
        let (mn, mr) = (median(&mut nk), median(&mut raw));
        println!(
            "{op} {mesh}: navkit {:.3} us/query, raw {:.3}, median ratio {:.3}, min ratio {:.3}",
            per_query(mn, n),
            per_query(mr, n),
            mn / mr,
            nk[0] / raw[0]
        );
        return;
    }
    let navkit = match side.as_str() {
        "nk" => true,
        "raw" => false,
        _ => panic!("side is nk, raw or ab, not {side}"),
    };
    let t: f64 = (0..rounds.max(1)).map(|_| s.run(navkit, &op)).sum();
    println!(
        "{side} {op} {mesh}: {:.3} us/query",
        per_query(t, n * rounds.max(1))
    );
}
