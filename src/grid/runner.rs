//! Running a Moving AI scenario file and reporting per bucket and in total.

use super::movingai::{Problem, Scenario};
use super::{Grid, SearchContext, SearchOptions, SearchResult, astar, jps};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The absolute tolerance on path lengths when comparing with a scenario's optimal length.
pub const LENGTH_TOLERANCE: f64 = 5e-3;

/// At most this many failures are listed in a [`ScenarioReport`].
pub const MAX_LISTED_FAILURES: usize = 100;

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Algorithm {
    /// A* ([`astar::find_path`]).
    #[default]
    AStar,
    /// Jump Point Search ([`jps::find_path`]).
    Jps,
}

impl Algorithm {
    /// The name used on the command line and in reports: `astar` or `jps`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::AStar => "astar",
            Algorithm::Jps => "jps",
        }
    }

    /// Runs one search between two cells of `grid` with this algorithm (Moving AI costs:
    /// straight 1, diagonal sqrt(2), no corner cutting). An unsupported grid for JPS (a
    /// weighted one) is reported as an error.
    pub fn find_path(
        self,
        ctx: &mut SearchContext,
        grid: &Grid,
        start: glam::UVec2,
        goal: glam::UVec2,
    ) -> crate::Result<SearchResult> {
        let options = SearchOptions::default();
        match self {
            Algorithm::AStar => astar::find_path(ctx, grid, start, goal, &options),
            Algorithm::Jps => jps::find_path(ctx, grid, start, goal, &options),
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "astar" | "a*" => Ok(Algorithm::AStar),
            "jps" => Ok(Algorithm::Jps),
            other => Err(format!(
                "unknown algorithm `{other}` (expected astar or jps)"
            )),
        }
    }
}

/// Counts for a set of problems.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stats {
    /// Problems run.
    pub problems: u64,
    /// Problems for which a path was found.
    pub solved: u64,
    /// Solved problems whose length differs from the optimal one by more than
    /// [`LENGTH_TOLERANCE`].
    pub mismatches: u64,
    /// The largest `|length - optimal|` over the solved problems.
    pub max_abs_error: f64,
    /// Nodes expanded, summed over the problems.
    pub expanded: u64,
    /// Mean wall time per problem, in microseconds.
    pub us_per_query: f64,
}

/// [`Stats`] for one bucket.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BucketReport {
    /// The bucket number.
    pub bucket: u32,
    /// Its counts.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub stats: Stats,
}

/// A problem that was not solved, or solved with a wrong length.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Failure {
    /// The line of the problem in the scenario file.
    pub line: usize,
    /// Its bucket.
    pub bucket: u32,
    /// Start cell.
    pub start: glam::UVec2,
    /// Goal cell.
    pub goal: glam::UVec2,
    /// The optimal length from the file.
    pub expected: f64,
    /// The length found, if any.
    pub found: Option<f64>,
    /// What went wrong.
    pub reason: String,
}

/// The outcome of [`run_scenarios`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ScenarioReport {
    /// The algorithm run.
    pub algo: Algorithm,
    /// Per bucket, in increasing bucket order.
    pub buckets: Vec<BucketReport>,
    /// All problems.
    pub total: Stats,
    /// The first [`MAX_LISTED_FAILURES`] failures, in file order.
    pub failures: Vec<Failure>,
}

impl ScenarioReport {
    /// True if every problem was solved with its optimal length.
    pub fn all_optimal(&self) -> bool {
        self.total.solved == self.total.problems && self.total.mismatches == 0
    }
}

#[derive(Default)]
struct Acc {
    stats: Stats,
    time: Duration,
}

impl Acc {
    fn add(&mut self, found: Option<f64>, expected: f64, expanded: u32, time: Duration) -> bool {
        let s = &mut self.stats;
        s.problems += 1;
        s.expanded += expanded as u64;
        self.time += time;
        match found {
            Some(len) => {
                s.solved += 1;
                let e = (len - expected).abs();
                s.max_abs_error = s.max_abs_error.max(e);
                let bad = e > LENGTH_TOLERANCE;
                s.mismatches += bad as u64;
                !bad
            }
            None => false,
        }
    }

    fn finish(mut self) -> Stats {
        if self.stats.problems > 0 {
            self.stats.us_per_query = self.time.as_secs_f64() * 1e6 / self.stats.problems as f64;
        }
        self.stats
    }
}

/// Runs every problem of `scen` on `map` with `algo` (Moving AI costs: straight 1, diagonal
/// sqrt(2), no corner cutting) and compares each length with the file's optimal length
/// (absolute tolerance [`LENGTH_TOLERANCE`]). Never panics on bad problems: a problem whose
/// declared map size differs from `map`, whose start or goal is blocked, or that has no path
/// counts as unsolved and is listed in [`ScenarioReport::failures`].
pub fn run_scenarios(map: &Grid, scen: &Scenario, algo: Algorithm) -> ScenarioReport {
    run_scenarios_with(&mut SearchContext::with_capacity(0), map, scen, algo)
}

/// [`run_scenarios`] with a caller-provided search context.
pub fn run_scenarios_with(
    ctx: &mut SearchContext,
    map: &Grid,
    scen: &Scenario,
    algo: Algorithm,
) -> ScenarioReport {
    let mut buckets: std::collections::BTreeMap<u32, Acc> = Default::default();
    let mut total = Acc::default();
    let mut failures = Vec::new();
    let mut fail = |p: &Problem, found: Option<f64>, reason: String| {
        if failures.len() < MAX_LISTED_FAILURES {
            failures.push(Failure {
                line: p.line,
                bucket: p.bucket,
                start: p.start,
                goal: p.goal,
                expected: p.optimal_length,
                found,
                reason,
            });
        }
    };
    for p in &scen.problems {
        let (found, expanded, time) = if (p.map_width, p.map_height) != (map.width(), map.height())
        {
            fail(
                p,
                None,
                format!(
                    "the problem is for a {}x{} map, the map is {}x{}",
                    p.map_width,
                    p.map_height,
                    map.width(),
                    map.height()
                ),
            );
            (None, 0, Duration::ZERO)
        } else {
            let t0 = Instant::now();
            let r = algo.find_path(ctx, map, p.start, p.goal);
            let time = t0.elapsed();
            match r {
                Ok(r) if r.is_complete() => (Some(r.cost), r.expanded, time),
                Ok(r) => {
                    fail(p, None, format!("{:?}", r.status));
                    (None, r.expanded, time)
                }
                Err(e) => {
                    fail(p, None, e.to_string());
                    (None, 0, time)
                }
            }
        };
        let ok_b =
            buckets
                .entry(p.bucket)
                .or_default()
                .add(found, p.optimal_length, expanded, time);
        total.add(found, p.optimal_length, expanded, time);
        if let (Some(len), false) = (found, ok_b) {
            fail(
                p,
                Some(len),
                format!("length {len} differs from the optimal {}", p.optimal_length),
            );
        }
    }
    ScenarioReport {
        algo,
        buckets: buckets
            .into_iter()
            .map(|(bucket, acc)| BucketReport {
                bucket,
                stats: acc.finish(),
            })
            .collect(),
        total: total.finish(),
        failures,
    }
}

/// Renders a report as a text table: one row per bucket and a total row (the `expanded`
/// column is the mean per problem), then the listed failures.
pub fn render_table(report: &ScenarioReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "algorithm: {}", report.algo);
    let _ = writeln!(
        out,
        "{:>6} {:>9} {:>7} {:>10} {:>13} {:>12} {:>10}",
        "bucket", "problems", "solved", "mismatches", "max_abs_error", "expanded/q", "us/query"
    );
    let row = |out: &mut String, label: &str, s: &Stats| {
        let avg = if s.problems > 0 {
            s.expanded as f64 / s.problems as f64
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "{:>6} {:>9} {:>7} {:>10} {:>13.6} {:>12.1} {:>10.2}",
            label, s.problems, s.solved, s.mismatches, s.max_abs_error, avg, s.us_per_query
        );
    };
    for b in &report.buckets {
        row(&mut out, &b.bucket.to_string(), &b.stats);
    }
    row(&mut out, "total", &report.total);
    for f in &report.failures {
        let _ = writeln!(
            out,
            "line {}: ({}, {}) -> ({}, {}): {}",
            f.line, f.start.x, f.start.y, f.goal.x, f.goal.y, f.reason
        );
    }
    out
}
