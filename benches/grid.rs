//! Benchmark: navkit's grid searches on the Moving AI scenario files in
//! `../shared/movingai` (one map per set: cities, dao ×2, mazes, random, rooms).
//!
//! What it measures, in one run:
//! 1. navkit's A* ([`astar::find_path`], on a reused [`SearchContext`]) against the
//!    `pathfinding` crate's `astar` given the same graph: 8-connected, straight cost 1,
//!    diagonal sqrt(2), no corner cutting (a diagonal move needs both cells beside it
//!    passable), octile heuristic, successors in the same order as navkit's;
//! 2. navkit's JPS ([`jps::find_path`]) and JPS+ ([`jps_plus::find_path`], jumps
//!    read from a [`JumpTable`] built per map) against navkit's A* on the same problems; JPS+
//!    is timed without its table (built once per round, its build timed apart: the `table ms`
//!    column) and with it (`JPS+ & table`: one build plus the round's queries, per query);
//! 3. a correctness check before any timing (asserted): on every checked problem the
//!    `pathfinding` length, the A* length and the JPS and JPS+ lengths agree within 5e-3 and each is
//!    within 5e-3 of the file's optimal length; the `pathfinding` path is re-costed with
//!    [`Grid::path_cost`]; the successor function is compared with
//!    `Grid::can_move(.., CornerCutting::Never)` for every passable cell and direction;
//! 4. a markdown table of times per query (medians of interleaved rounds: the four
//!    implementations alternate, the order rotating each round, since shared machines are
//!    noisy), the speed-ups pathfinding/A*, A*/JPS and A*/JPS+, and mean expanded nodes; then the
//!    geometric means of A*/JPS and A*/JPS+ over the two DAO maps and of pathfinding/A* over
//!    all maps;
//! 5. (normal mode only) a small criterion group: the median-length problem of each map,
//!    per implementation.
//!
//! Cost encoding for `pathfinding` (which needs `Ord` costs): fixed-point `u64` in
//! millionths, straight = 1_000_000 and diagonal = round(sqrt(2) * 1e6) = 1_414_214, with the
//! octile heuristic computed from the same two constants (so it stays consistent). The
//! rounding adds at most 4.4e-7 per diagonal move, i.e. a relative error below 3.2e-7 on any
//! length after dividing by 1e6 (far below the 1e-4 relative target), and integer costs are
//! what a `pathfinding` user would write for a grid (no extra dependency such as
//! `ordered_float`).
//!
//! The `pathfinding` side reuses nothing between queries (the crate has no context to
//! reuse); its successor closure reads a precomputed padded passable bitmap (`Vec<bool>`,
//! same node ids as navkit's padded grid) and returns a fixed-size array iterator, so it
//! allocates nothing per expansion.
//!
//! Timed problems: all problems of a file, or every k-th problem (files are sorted by bucket,
//! so this is a stratified subsample) when a file has more than the per-round cap (400
//! problems, 150 with `--quick`): 1895 of the 16900 problems normally, 754 with `--quick`.
//! The check covers the timed problems; `NAVKIT_BENCH_CHECK_ALL=1` checks every problem of
//! every file instead (several minutes: `pathfinding` alone needs ~12 ms per maze query).
//!
//! Run: `cargo bench --bench grid` (check, criterion group, ratio table), or
//! `cargo bench --bench grid -- --quick` / `NAVKIT_BENCH_QUICK=1 cargo bench --bench grid`
//! (check and ratio table only, fewer problems and rounds). `NAVKIT_BENCH_ROUNDS` sets the
//! number of interleaved rounds (default 5, 2 with `--quick`). In a round each implementation
//! goes through a map's timed problems as many times as it needs to take 20 ms
//! (`NAVKIT_BENCH_PASS_MS`; 0 for once), so that short runs are timed warm.
//! Without `--bench` (e.g. `cargo test --benches`) it runs a short smoke test.

#[path = "common/median.rs"]
mod median;
use median::median;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use glam::UVec2;

use navkit::PathStatus;
use navkit::grid::jps_plus::{self, JumpTable};
use navkit::grid::movingai::{load_map, load_scen};
use navkit::grid::{CornerCutting, Grid, SearchContext, SearchOptions, Terrain, astar, jps};

/// The scenario sets, `<set>/<map name>`.
const SETS: [&str; 6] = [
    "cities/Berlin_0_256",
    "dao/arena",
    "dao/den312d",
    "mazes/maze512-1-0",
    "random/random512-10-0",
    "rooms/16room_000",
];
/// The maps over which the JPS speed-up is summarised.
const DAO: [&str; 2] = ["dao/arena", "dao/den312d"];
/// Absolute tolerance on lengths (as the scenario runner's).
const TOLERANCE: f64 = 5e-3;

/// Fixed-point scale of the `pathfinding` costs.
const SCALE: f64 = 1e6;
/// A straight move, in millionths.
const STRAIGHT: u64 = 1_000_000;
/// A diagonal move, round(sqrt(2) * 1e6).
const DIAGONAL: u64 = 1_414_214;

/// Timed problems per map and round: full mode, `--quick`, smoke test.
const CAP_FULL: usize = 400;
const CAP_QUICK: usize = 150;
const CAP_SMOKE: usize = 20;
const ROUNDS_FULL: usize = 5;
const ROUNDS_QUICK: usize = 2;

fn data_dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/movingai")
}

// ---------------------------------------------------------------------------------------------
// The `pathfinding` side: a padded passable bitmap and a successor function over it.
// ---------------------------------------------------------------------------------------------

/// A padded passable bitmap with navkit's node ids: cell (x, y) is node
/// `(y + 1) * stride + x + 1`, `stride = width + 2`, and the border is blocked.
struct PfGrid {
    stride: usize,
    open: Vec<bool>,
}

impl PfGrid {
    fn new(grid: &Grid) -> PfGrid {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        let stride = w + 2;
        let mut open = vec![false; stride * (h + 2)];
        for y in 0..h {
            for x in 0..w {
                let c = UVec2::new(x as u32, y as u32);
                // Only ground and blocked cells: with water a bitmap would not be the same
                // graph (moves between ground and water are not allowed).
                let t = grid.terrain(c);
                assert!(t != Terrain::Water, "water at {c}: not supported here");
                open[(y + 1) * stride + x + 1] = t == Terrain::Ground;
            }
        }
        PfGrid { stride, open }
    }

    fn node(&self, c: UVec2) -> u32 {
        ((c.y as usize + 1) * self.stride + c.x as usize + 1) as u32
    }

    fn cell(&self, n: u32) -> UVec2 {
        let n = n as usize;
        UVec2::new((n % self.stride - 1) as u32, (n / self.stride - 1) as u32)
    }

    /// The moves out of passable node `n`, in navkit's order (N, S, W, E, NE, NW, SE, SW).
    #[inline]
    fn successors(&self, n: u32) -> std::iter::Take<std::array::IntoIter<(u32, u64), 8>> {
        let o = &self.open[..];
        let n = n as usize;
        let s = self.stride;
        let (north, south, west, east) = (n - s, n + s, n - 1, n + 1);
        let (on, os, ow, oe) = (o[north], o[south], o[west], o[east]);
        let mut out = [(0u32, 0u64); 8];
        let mut k = 0;
        let mut push = |ok: bool, m: usize, c: u64| {
            if ok {
                out[k] = (m as u32, c);
                k += 1;
            }
        };
        push(on, north, STRAIGHT);
        push(os, south, STRAIGHT);
        push(ow, west, STRAIGHT);
        push(oe, east, STRAIGHT);
        push(on && oe && o[north + 1], north + 1, DIAGONAL);
        push(on && ow && o[north - 1], north - 1, DIAGONAL);
        push(os && oe && o[south + 1], south + 1, DIAGONAL);
        push(os && ow && o[south - 1], south - 1, DIAGONAL);
        out.into_iter().take(k)
    }

    /// `pathfinding::prelude::astar` from `start` to `goal` (node ids), octile heuristic.
    #[inline]
    fn find_path(&self, start: u32, goal: u32) -> Option<(Vec<u32>, u64)> {
        self.find_path_counting(start, goal, &mut |_| {})
    }

    /// As [`PfGrid::find_path`], calling `on_expand` for every node whose successors are
    /// asked for (every expanded node but the goal).
    #[inline]
    fn find_path_counting(
        &self,
        start: u32,
        goal: u32,
        on_expand: &mut impl FnMut(u32),
    ) -> Option<(Vec<u32>, u64)> {
        let s = self.stride as u32;
        let (gx, gy) = (goal % s, goal / s);
        pathfinding::prelude::astar(
            &start,
            |&n| {
                on_expand(n);
                self.successors(n)
            },
            |&n| {
                let (dx, dy) = ((n % s).abs_diff(gx), (n / s).abs_diff(gy));
                let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
                lo as u64 * DIAGONAL + (hi - lo) as u64 * STRAIGHT
            },
            |&n| n == goal,
        )
    }

    /// Asserts that the successors of every passable cell are exactly the moves
    /// `grid.can_move(.., CornerCutting::Never)` allows, with the right costs. Returns the
    /// number of (cell, direction) pairs compared.
    fn check_against(&self, grid: &Grid) -> usize {
        let mut compared = 0;
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let c = UVec2::new(x, y);
                if !grid.is_cell_passable(c) {
                    continue;
                }
                let n = self.node(c);
                assert_eq!(grid.node(c), Some(n), "node ids differ at {c}");
                let succ: Vec<(u32, u64)> = self.successors(n).collect();
                for dy in -1i64..=1 {
                    for dx in -1i64..=1 {
                        if dx == 0 && dy == 0 {
                            continue;
                        }
                        // Off-grid neighbours wrap to huge coordinates: outside the grid.
                        let to = UVec2::new((x as i64 + dx) as u32, (y as i64 + dy) as u32);
                        let allowed = grid.can_move(c, to, CornerCutting::Never);
                        let m = (n as i64 + dy * self.stride as i64 + dx) as u32;
                        let want = if dx != 0 && dy != 0 {
                            DIAGONAL
                        } else {
                            STRAIGHT
                        };
                        let got = succ.iter().find(|&&(s, _)| s == m).map(|&(_, c)| c);
                        assert_eq!(
                            got,
                            allowed.then_some(want),
                            "successor mismatch at {c} towards ({dx}, {dy})"
                        );
                        compared += 1;
                    }
                }
            }
        }
        compared
    }
}

// ---------------------------------------------------------------------------------------------
// One map and its problems.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Impl {
    Pathfinding,
    AStar,
    Jps,
    JpsPlus,
}

impl Impl {
    const ALL: [Impl; 4] = [Impl::Pathfinding, Impl::AStar, Impl::Jps, Impl::JpsPlus];
    /// The implementations in the criterion group (JPS+ needs its table kept across calls).
    const CRITERION: [Impl; 3] = [Impl::Pathfinding, Impl::AStar, Impl::Jps];

    fn name(self) -> &'static str {
        match self {
            Impl::Pathfinding => "pathfinding",
            Impl::AStar => "astar",
            Impl::Jps => "jps",
            Impl::JpsPlus => "jps+",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Query {
    start: UVec2,
    goal: UVec2,
    start_node: u32,
    goal_node: u32,
    optimal: f64,
}

struct MapBench {
    name: &'static str,
    grid: Grid,
    pf: PfGrid,
    /// Every problem of the file.
    all: Vec<Query>,
    /// The timed problems.
    sample: Vec<Query>,
    ctx: SearchContext,
    opts: SearchOptions,
    /// Mean expanded nodes per timed problem, per implementation.
    expanded: [f64; 3],
    /// How long the last [`MapBench::run`] of JPS+ took to build its table.
    last_build: Duration,
    /// How many times a run of each implementation (in [`Impl::ALL`]'s order) goes through
    /// the timed problems ([`MapBench::set_passes`]).
    passes: [usize; 4],
}

impl MapBench {
    fn load(name: &'static str, cap: usize) -> MapBench {
        let dir = data_dir();
        let grid = load_map(format!("{dir}/maps/{name}.map")).expect("load map");
        let scen = load_scen(format!("{dir}/scenarios/{name}.map.scen")).expect("load scen");
        let pf = PfGrid::new(&grid);
        let all: Vec<Query> = scen
            .problems
            .iter()
            .map(|p| {
                assert_eq!(
                    (p.map_width, p.map_height),
                    (grid.width(), grid.height()),
                    "{name} line {}: map size",
                    p.line
                );
                Query {
                    start: p.start,
                    goal: p.goal,
                    start_node: pf.node(p.start),
                    goal_node: pf.node(p.goal),
                    optimal: p.optimal_length,
                }
            })
            .collect();
        assert!(!all.is_empty(), "{name}: no problems");
        let step = all.len().div_ceil(cap);
        let sample = all.iter().copied().step_by(step).collect();
        MapBench {
            name,
            grid,
            pf,
            all,
            sample,
            ctx: SearchContext::new(),
            opts: SearchOptions::default(),
            expanded: [0.0; 3],
            last_build: Duration::ZERO,
            passes: [1; 4],
        }
    }

    /// Sets [`MapBench::passes`] so that one run of each implementation takes at least
    /// `at_least` (at least one pass): a map whose timed problems take a fraction of a
    /// millisecond (arena: 160 problems in 0.03 ms with JPS+) is then timed warm, not by the
    /// caches the other implementations and maps left cold.
    fn set_passes(&mut self, at_least: Duration) {
        for (k, imp) in Impl::ALL.into_iter().enumerate() {
            self.passes[k] = 1;
            let t = Instant::now();
            black_box(self.run(imp));
            let once = (t.elapsed() - self.last_build_if(imp))
                .as_secs_f64()
                .max(1e-9);
            self.passes[k] = (at_least.as_secs_f64() / once).ceil().max(1.0) as usize;
        }
    }

    /// JPS+'s last table build if `imp` is JPS+, else zero.
    fn last_build_if(&self, imp: Impl) -> Duration {
        if imp == Impl::JpsPlus {
            self.last_build
        } else {
            Duration::ZERO
        }
    }

    /// Runs the timed problems [`MapBench::passes`] times with `imp`; returns the summed
    /// lengths (so nothing is optimised away). JPS+ first builds its table (once), timed into
    /// `last_build`.
    fn run(&mut self, imp: Impl) -> f64 {
        let mut total = 0.0;
        let passes = self.passes[imp as usize];
        match imp {
            Impl::JpsPlus => {
                let t = Instant::now();
                let table = JumpTable::new(&self.grid).expect("jump table");
                self.last_build = t.elapsed();
                for q in self.sample.iter().cycle().take(self.sample.len() * passes) {
                    let r = jps_plus::find_path(
                        &mut self.ctx,
                        black_box(&table),
                        black_box(q.start),
                        black_box(q.goal),
                        &self.opts,
                    )
                    .expect("jps+");
                    total += black_box(r).cost;
                }
            }
            Impl::Pathfinding => {
                for q in self.sample.iter().cycle().take(self.sample.len() * passes) {
                    let r = self
                        .pf
                        .find_path(black_box(q.start_node), black_box(q.goal_node));
                    total += black_box(r).map_or(0, |(_, c)| c) as f64;
                }
                total /= SCALE;
            }
            Impl::AStar => {
                for q in self.sample.iter().cycle().take(self.sample.len() * passes) {
                    let r = astar::find_path(
                        &mut self.ctx,
                        &self.grid,
                        black_box(q.start),
                        black_box(q.goal),
                        &self.opts,
                    )
                    .expect("astar");
                    total += black_box(r).cost;
                }
            }
            Impl::Jps => {
                for q in self.sample.iter().cycle().take(self.sample.len() * passes) {
                    let r = jps::find_path(
                        &mut self.ctx,
                        &self.grid,
                        black_box(q.start),
                        black_box(q.goal),
                        &self.opts,
                    )
                    .expect("jps");
                    total += black_box(r).cost;
                }
            }
        }
        total
    }

    /// One query with `imp` (for criterion).
    fn one(&mut self, imp: Impl, q: &Query) -> f64 {
        match imp {
            Impl::Pathfinding => self
                .pf
                .find_path(black_box(q.start_node), black_box(q.goal_node))
                .map_or(0.0, |(_, c)| c as f64 / SCALE),
            Impl::AStar => {
                astar::find_path(&mut self.ctx, &self.grid, q.start, q.goal, &self.opts)
                    .expect("astar")
                    .cost
            }
            Impl::Jps => {
                jps::find_path(&mut self.ctx, &self.grid, q.start, q.goal, &self.opts)
                    .expect("jps")
                    .cost
            }
            Impl::JpsPlus => unreachable!("JPS+ is not in the criterion group"),
        }
    }

    /// The check (asserted) on every problem (`all`) or the timed ones; records the mean
    /// expanded nodes over the timed problems and prints the counts.
    fn check(&mut self, all: bool) {
        let name = self.name;
        let moves = self.pf.check_against(&self.grid);
        let problems = if all { &self.all } else { &self.sample };
        let (mut max_pf_astar, mut max_rel_pf_astar) = (0.0f64, 0.0f64);
        let (mut max_astar_opt, mut max_jps_astar, mut max_pf_opt) = (0.0f64, 0.0f64, 0.0f64);
        let mut sample_expanded = [0u64; 3];
        let table = JumpTable::new(&self.grid).expect("jump table");
        let mut jctx = SearchContext::new();
        let mut ok = 0;
        let mut next_sample = 0;
        for q in problems {
            let a = astar::find_path(&mut self.ctx, &self.grid, q.start, q.goal, &self.opts)
                .expect("astar");
            assert_eq!(a.status, PathStatus::Complete, "{name} {q:?}: A* {a:?}");
            let j = jps::find_path(&mut self.ctx, &self.grid, q.start, q.goal, &self.opts)
                .expect("jps");
            assert_eq!(j.status, PathStatus::Complete, "{name} {q:?}: JPS {j:?}");
            // JPS+ finds the same jump points as JPS: the same result.
            let jp =
                jps_plus::find_path(&mut jctx, &table, q.start, q.goal, &self.opts).expect("jps+");
            assert_eq!(jp, j, "{name} {q:?}: JPS+ vs JPS");
            let mut pf_expanded = 1u64; // the goal, as navkit counts it
            let (path, cost) = self
                .pf
                .find_path_counting(q.start_node, q.goal_node, &mut |_| pf_expanded += 1)
                .unwrap_or_else(|| panic!("{name} {q:?}: pathfinding found no path"));
            let pf_len = cost as f64 / SCALE;

            let cells: Vec<UVec2> = path.iter().map(|&n| self.pf.cell(n)).collect();
            assert_eq!(
                (cells.first(), cells.last()),
                (Some(&q.start), Some(&q.goal))
            );
            let recost = self
                .grid
                .path_cost(&cells, &self.opts)
                .unwrap_or_else(|| panic!("{name} {q:?}: pathfinding path has a bad move"));
            assert!(
                (recost - pf_len).abs() <= 1e-4 * recost.max(1.0),
                "{name} {q:?}: pathfinding cost {pf_len} vs its path's {recost}"
            );

            let d_pf_astar = (pf_len - a.cost).abs();
            let d_pf_opt = (pf_len - q.optimal).abs();
            let d_astar_opt = (a.cost - q.optimal).abs();
            let d_jps_astar = (j.cost - a.cost).abs();
            let d_jps_opt = (j.cost - q.optimal).abs();
            assert!(
                d_pf_astar <= TOLERANCE
                    && d_pf_opt <= TOLERANCE
                    && d_astar_opt <= TOLERANCE
                    && d_jps_astar <= TOLERANCE
                    && d_jps_opt <= TOLERANCE,
                "{name} {q:?}: lengths pathfinding {pf_len}, A* {}, JPS {}, optimal {}",
                a.cost,
                j.cost,
                q.optimal
            );
            max_pf_astar = max_pf_astar.max(d_pf_astar);
            max_rel_pf_astar = max_rel_pf_astar.max(d_pf_astar / a.cost.max(1.0));
            max_pf_opt = max_pf_opt.max(d_pf_opt);
            max_astar_opt = max_astar_opt.max(d_astar_opt);
            max_jps_astar = max_jps_astar.max(d_jps_astar);
            ok += 1;

            // Expansions over the timed problems (a subsequence of `problems`).
            if self.sample.get(next_sample).is_some_and(|s| {
                (s.start, s.goal, s.optimal.to_bits()) == (q.start, q.goal, q.optimal.to_bits())
            }) {
                next_sample += 1;
                sample_expanded[0] += pf_expanded;
                sample_expanded[1] += a.expanded as u64;
                sample_expanded[2] += j.expanded as u64;
            }
        }
        assert_eq!(next_sample, self.sample.len(), "{name}: sample not covered");
        let n = self.sample.len() as f64;
        self.expanded = sample_expanded.map(|e| e as f64 / n);
        let total = problems.len();
        println!(
            "check {name:<22} {moves} moves = can_move; {ok}/{total} problems: pathfinding = A* \
             = JPS = JPS+ = optimal within {TOLERANCE} (max |pf-A*| {max_pf_astar:.2e} (rel \
             {max_rel_pf_astar:.1e}), |pf-opt| {max_pf_opt:.2e}, |A*-opt| {max_astar_opt:.2e}, \
             |JPS-A*| {max_jps_astar:.2e})"
        );
    }

    /// The problem of median optimal length.
    fn median_problem(&self) -> Query {
        let mut v = self.all.clone();
        v.sort_by(|a, b| a.optimal.total_cmp(&b.optimal));
        v[v.len() / 2]
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement.
// ---------------------------------------------------------------------------------------------

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// Timed columns: pathfinding, A*, JPS, JPS+ (queries only), JPS+'s table build, JPS+ with
/// its table (build + queries).
const COLUMNS: usize = 6;

/// Interleaved rounds: per round and map the four implementations run the timed problems
/// (each [`MapBench::passes`] times), the order rotating from round to round. Returns
/// `times[map][column][round]`, seconds for one pass over the sample (see [`COLUMNS`]; JPS+
/// with its table: one build and one pass).
fn measure(maps: &mut [MapBench], rounds: usize) -> Vec<[Vec<f64>; COLUMNS]> {
    let mut times = vec![[const { Vec::new() }; COLUMNS]; maps.len()];
    let mut sink = 0.0;
    let k_all = Impl::ALL.len();
    for round in 0..rounds {
        for (mi, m) in maps.iter_mut().enumerate() {
            for k in 0..k_all {
                let ii = (round + k) % k_all;
                let t = Instant::now();
                sink += m.run(Impl::ALL[ii]);
                let dt = t.elapsed().as_secs_f64();
                let passes = m.passes[ii] as f64;
                if Impl::ALL[ii] == Impl::JpsPlus {
                    let build = m.last_build.as_secs_f64();
                    times[mi][3].push((dt - build) / passes);
                    times[mi][4].push(build);
                    times[mi][5].push(build + (dt - build) / passes);
                } else {
                    times[mi][ii].push(dt / passes);
                }
            }
        }
    }
    black_box(sink);
    times
}

/// Runs the interleaved rounds and prints the table.
fn interleaved(maps: &mut [MapBench], rounds: usize) {
    let times = measure(maps, rounds);
    println!();
    println!(
        "navkit A* vs pathfinding {}, navkit JPS and JPS+ vs A*: {rounds} interleaved rounds, \
         medians; speed-up = slower/faster time per query; JPS+ without its table, and with \
         one table build per round's sample (\"& table\"); passes over each map's problems per \
         run (pathfinding, A*, JPS, JPS+): {}",
        pathfinding_version(),
        maps.iter()
            .map(|m| format!("{} {:?}", m.name, m.passes))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!();
    println!(
        "| map | timed / problems | pathfinding us/q | A* us/q | JPS us/q | JPS+ us/q | table ms | \
         pathfinding/A* | A*/JPS | A*/JPS+ | A*/(JPS+ & table) | expanded/q pathfinding | \
         expanded/q A* | expanded/q JPS |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut pf_astar = Vec::new();
    let mut dao = [Vec::new(), Vec::new(), Vec::new()];
    let mut round_totals = [const { Vec::new() }; COLUMNS];
    round_totals.iter_mut().for_each(|t| *t = vec![0.0; rounds]);
    let (mut timed, mut problems) = (0, 0);
    let mut expanded_sum = [0.0; 3];
    for (mi, m) in maps.iter().enumerate() {
        let n = m.sample.len() as f64;
        let med: [f64; COLUMNS] = std::array::from_fn(|i| median(&times[mi][i]));
        for (i, tot) in round_totals.iter_mut().enumerate() {
            for (r, t) in tot.iter_mut().enumerate() {
                *t += times[mi][i][r];
            }
        }
        timed += m.sample.len();
        problems += m.all.len();
        for (sum, e) in expanded_sum.iter_mut().zip(m.expanded) {
            *sum += e * n;
        }
        pf_astar.push(med[0] / med[1]);
        if DAO.contains(&m.name) {
            for (d, col) in dao.iter_mut().zip([2, 3, 5]) {
                d.push(med[1] / med[col]);
            }
        }
        print_row(m.name, (m.sample.len(), m.all.len()), &med, &m.expanded);
    }
    let med: [f64; COLUMNS] = std::array::from_fn(|i| median(&round_totals[i]));
    print_row(
        "**all**",
        (timed, problems),
        &med,
        &expanded_sum.map(|e| e / timed as f64),
    );
    println!();
    for (what, d) in ["JPS", "JPS+", "JPS+ & table"].iter().zip(&dao) {
        println!(
            "geometric mean speed-up, {what} vs A* over the DAO maps ({}): {:.2}x",
            DAO.join(", "),
            geomean(d)
        );
    }
    println!(
        "geometric mean speed-up, navkit A* vs pathfinding over all {} maps: {:.2}x",
        pf_astar.len(),
        geomean(&pf_astar)
    );
}

/// One row of the table: `med` the median sample times per column, `expanded` per query.
fn print_row(name: &str, (timed, all): (usize, usize), med: &[f64; COLUMNS], expanded: &[f64; 3]) {
    let n = timed as f64;
    let us = |t: f64| t / n * 1e6;
    println!(
        "| {name} | {timed} / {all} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | \
         {:.2} | {:.2} | {:.0} | {:.0} | {:.0} |",
        us(med[0]),
        us(med[1]),
        us(med[2]),
        us(med[3]),
        med[4] * 1e3,
        med[0] / med[1],
        med[1] / med[2],
        med[1] / med[3],
        med[1] / med[5],
        expanded[0],
        expanded[1],
        expanded[2],
    );
}

/// The `pathfinding` version in the repository's Cargo.lock ("4.x" if it cannot be read).
fn pathfinding_version() -> String {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"))
        .unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"pathfinding\"" {
            if let Some(v) = lines
                .next()
                .and_then(|v| v.trim().strip_prefix("version = "))
            {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "4.x".to_string()
}

fn main() {
    let t0 = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var("NAVKIT_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    // `cargo bench` passes --bench; without it (e.g. `cargo test --benches`) run a smoke test.
    let bench_mode = args.iter().any(|a| a == "--bench");
    let (cap, default_rounds) = match (bench_mode, quick) {
        (false, _) => (CAP_SMOKE, 1),
        (true, true) => (CAP_QUICK, ROUNDS_QUICK),
        (true, false) => (CAP_FULL, ROUNDS_FULL),
    };
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(default_rounds);
    let check_all =
        std::env::var("NAVKIT_BENCH_CHECK_ALL").is_ok_and(|v| !v.is_empty() && v != "0");

    let mut maps: Vec<MapBench> = SETS.iter().map(|&s| MapBench::load(s, cap)).collect();
    for m in maps.iter_mut() {
        m.check(check_all);
    }
    println!("check done in {:.1} s", t0.elapsed().as_secs_f64());

    if bench_mode && !quick {
        let mut c = Criterion::default()
            .sample_size(10)
            .measurement_time(Duration::from_secs(1))
            .warm_up_time(Duration::from_millis(300))
            .configure_from_args();
        for m in maps.iter_mut() {
            let q = m.median_problem();
            let mut g = c.benchmark_group(format!("grid/{}", m.name));
            g.sampling_mode(SamplingMode::Flat);
            for imp in Impl::CRITERION {
                g.bench_function(imp.name(), |b| b.iter(|| m.one(imp, black_box(&q))));
            }
            g.finish();
        }
        c.final_summary();
    }

    if bench_mode {
        // `NAVKIT_BENCH_PASS_MS=0`: one pass per run, as cold as the other maps leave it.
        let ms = std::env::var("NAVKIT_BENCH_PASS_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20);
        for m in maps.iter_mut() {
            m.set_passes(Duration::from_millis(ms));
        }
    }
    interleaved(&mut maps, rounds);
    println!();
    println!("total {:.1} s", t0.elapsed().as_secs_f64());
}
