//! What a crowd did, measured the same way whatever moved it: navkit's [`crate::agents::crowd::Crowd`]
//! (`navkit simulate`), a raw `dtCrowd` or an ORCA crowd (the crowd suite's benchmark). Fed the
//! agents' positions and velocities after every update, with the update's time, it reports:
//!
//! - arrivals: an agent has arrived once its centre is within the arrival distance of its goal
//!   in xz (the first such frame's end is its arrival time), and the last arrival's time;
//! - stuck agents, by cause: the cause the crowd gives ([`StuckCause`], where it gives one), else
//!   navkit's own measure, "no progress": not arrived, and moved less than [`NO_PROGRESS_M`]
//!   over the last [`NO_PROGRESS_S`] seconds of the run;
//! - the mean speed of agents on their way (every frame of every agent until the frame it
//!   arrives, included);
//! - the smallest distance between two agents' centres (3D), overlaps (pair-frames closer than
//!   the sum of the two radii, counted once per pair and frame) and the deepest overlap (the
//!   largest sum of radii minus distance, metres);
//! - the update time per frame, mean and maximum.

use std::collections::VecDeque;
use std::time::Duration;

use glam::Vec3;

use crate::agents::crowd::StuckCause;

/// The no-progress measure's distance: an agent that moved less than this many metres over
/// the last [`NO_PROGRESS_S`] seconds is stuck, if the crowd gives no cause.
pub const NO_PROGRESS_M: f32 = 0.5;
/// The no-progress measure's window, seconds.
pub const NO_PROGRESS_S: f32 = 5.0;

/// Why an agent that has not arrived is stuck: the crowd's cause, or navkit's no-progress
/// fallback where the crowd gives none (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stuck {
    /// The cause the crowd gives ([`crate::agents::crowd::AgentState::stuck`]).
    Crowd(StuckCause),
    /// No cause from the crowd, but not arrived and moved less than [`NO_PROGRESS_M`] over the
    /// last [`NO_PROGRESS_S`] seconds.
    NoProgress,
}

impl Stuck {
    /// A short lower-case name: the crowd cause's ([`StuckCause::name`]) or `no_progress`.
    ///
    /// ```
    /// use navkit::agents::crowd::StuckCause;
    /// use navkit::tools::crowd_metrics::Stuck;
    /// assert_eq!(Stuck::Crowd(StuckCause::Unreachable).name(), "unreachable");
    /// assert_eq!(Stuck::NoProgress.name(), "no_progress");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Stuck::Crowd(cause) => cause.name(),
            Stuck::NoProgress => "no_progress",
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Stuck {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Stuck agents (not arrived at the end) by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StuckCounts {
    /// [`StuckCause::BlockedByAgents`], as the crowd reports it.
    pub blocked_by_agents: usize,
    /// [`StuckCause::BlockedByObstacle`], as the crowd reports it.
    pub blocked_by_obstacle: usize,
    /// [`StuckCause::Unreachable`], as the crowd reports it.
    pub unreachable: usize,
    /// No cause from the crowd, but navkit's own fallback measure: not arrived, and moved less
    /// than [`NO_PROGRESS_M`] over the last [`NO_PROGRESS_S`] seconds.
    pub no_progress: usize,
}

impl StuckCounts {
    /// Every stuck agent, whatever the cause.
    pub fn total(&self) -> usize {
        self.blocked_by_agents + self.blocked_by_obstacle + self.unreachable + self.no_progress
    }

    /// The counts with their names (`blocked_by_agents`, `blocked_by_obstacle`,
    /// `unreachable`, `no_progress`), in that order.
    pub fn named(&self) -> [(&'static str, usize); 4] {
        [
            (StuckCause::BlockedByAgents.name(), self.blocked_by_agents),
            (
                StuckCause::BlockedByObstacle.name(),
                self.blocked_by_obstacle,
            ),
            (StuckCause::Unreachable.name(), self.unreachable),
            (Stuck::NoProgress.name(), self.no_progress),
        ]
    }

    /// Counts the agents' reasons (`None`: not stuck).
    pub fn count(reasons: &[Option<Stuck>]) -> Self {
        let mut n = StuckCounts::default();
        for r in reasons.iter().flatten() {
            match r {
                Stuck::Crowd(StuckCause::BlockedByAgents) => n.blocked_by_agents += 1,
                Stuck::Crowd(StuckCause::BlockedByObstacle) => n.blocked_by_obstacle += 1,
                Stuck::Crowd(StuckCause::Unreachable) => n.unreachable += 1,
                Stuck::NoProgress => n.no_progress += 1,
            }
        }
        n
    }
}

/// The measures of a run (see the module docs).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CrowdMetricsReport {
    /// Agents measured.
    pub agents: usize,
    /// Agents that arrived.
    pub arrived: usize,
    /// When the last agent to arrive did, seconds from the start (none if none arrived).
    pub last_arrival: Option<f32>,
    /// Agents not arrived at the end that are stuck, by cause.
    pub stuck: StuckCounts,
    /// The mean speed of agents on their way, m/s (0 without frames).
    pub mean_speed: f32,
    /// The smallest distance between two agents' centres seen, metres (0 with fewer than two
    /// agents).
    pub min_separation: f32,
    /// Pair-frames where two agents were closer than the sum of their radii.
    pub overlaps: u64,
    /// The deepest overlap seen: the largest sum of radii minus distance, metres (0 if none).
    pub deepest_overlap: f32,
    /// The mean update time per frame, microseconds.
    pub update_mean_us: f64,
    /// The longest update of a frame, microseconds.
    pub update_max_us: f64,
    /// Frames measured.
    pub frames: u64,
}

/// Measures a crowd frame by frame (see the module docs).
#[derive(Clone, Debug)]
pub struct CrowdMetrics {
    goals: Vec<Vec3>,
    radii: Vec<f32>,
    max_radius: f32,
    arrive_distance: f32,
    dt: f32,
    frames: u64,
    arrived_at: Vec<Option<f32>>,
    /// Per agent, the positions of the last `window` frames.
    history: Vec<VecDeque<Vec3>>,
    window: usize,
    speed_sum: f64,
    speed_n: u64,
    min_separation: f32,
    overlaps: u64,
    deepest_overlap: f32,
    update_total: Duration,
    update_max: Duration,
    order: Vec<usize>,
}

impl CrowdMetrics {
    /// Measures agents going to `goals`, of `radii` (one each), arriving within
    /// `arrive_distance` (xz) of their goal, updated every `dt` seconds.
    ///
    /// # Panics
    /// If `goals` and `radii` differ in length or `dt` is not positive.
    pub fn new(goals: Vec<Vec3>, radii: Vec<f32>, arrive_distance: f32, dt: f32) -> Self {
        assert_eq!(goals.len(), radii.len(), "one radius per goal");
        assert!(dt > 0.0, "dt {dt} must be positive");
        let n = goals.len();
        CrowdMetrics {
            max_radius: radii.iter().copied().fold(0.0, f32::max),
            goals,
            radii,
            arrive_distance,
            dt,
            frames: 0,
            arrived_at: vec![None; n],
            history: vec![VecDeque::new(); n],
            window: ((NO_PROGRESS_S / dt).ceil() as usize).max(1),
            speed_sum: 0.0,
            speed_n: 0,
            min_separation: f32::INFINITY,
            overlaps: 0,
            deepest_overlap: 0.0,
            update_total: Duration::ZERO,
            update_max: Duration::ZERO,
            order: (0..n).collect(),
        }
    }

    /// The end of the last frame measured, seconds.
    pub fn now(&self) -> f32 {
        self.frames as f32 * self.dt
    }

    /// When agent `i` arrived, if it has.
    pub fn arrived_at(&self, i: usize) -> Option<f32> {
        self.arrived_at[i]
    }

    /// Every agent's arrival time (none if not arrived).
    pub fn arrivals(&self) -> &[Option<f32>] {
        &self.arrived_at
    }

    /// Measures one frame: the agents' positions and velocities after an update that took
    /// `update`.
    ///
    /// # Panics
    /// If `positions` or `velocities` do not have one entry per agent.
    pub fn frame(&mut self, positions: &[Vec3], velocities: &[Vec3], update: Duration) {
        let n = self.goals.len();
        assert!(
            positions.len() == n && velocities.len() == n,
            "one per agent"
        );
        self.frames += 1;
        self.update_total += update;
        self.update_max = self.update_max.max(update);
        let now = self.now();
        for i in 0..n {
            if self.arrived_at[i].is_none() {
                self.speed_sum += velocities[i].length() as f64;
                self.speed_n += 1;
                let gap = positions[i] - self.goals[i];
                if Vec3::new(gap.x, 0.0, gap.z).length() <= self.arrive_distance {
                    self.arrived_at[i] = Some(now);
                }
            }
            let h = &mut self.history[i];
            h.push_back(positions[i]);
            if h.len() > self.window {
                h.pop_front();
            }
        }
        self.separation(positions);
    }

    /// Separation and overlaps: a sweep over the agents sorted by x, pairs within reach in x.
    fn separation(&mut self, positions: &[Vec3]) {
        let reach = 2.0 * self.max_radius;
        self.order
            .sort_by(|&a, &b| positions[a].x.total_cmp(&positions[b].x));
        for (k, &i) in self.order.iter().enumerate() {
            for &j in &self.order[k + 1..] {
                if positions[j].x - positions[i].x > reach.max(self.min_separation.min(10.0)) {
                    break;
                }
                let d = positions[i].distance(positions[j]);
                self.min_separation = self.min_separation.min(d);
                let depth = self.radii[i] + self.radii[j] - d;
                if depth > 0.0 {
                    self.overlaps += 1;
                    self.deepest_overlap = self.deepest_overlap.max(depth);
                }
            }
        }
    }

    /// True if agent `i` has not arrived and moved less than [`NO_PROGRESS_M`] over the last
    /// [`NO_PROGRESS_S`] seconds (a full window of frames measured).
    pub fn no_progress(&self, i: usize) -> bool {
        let h = &self.history[i];
        self.arrived_at[i].is_none()
            && h.len() == self.window
            && h.front()
                .zip(h.back())
                .is_some_and(|(a, b)| a.distance(*b) < NO_PROGRESS_M)
    }

    /// Per agent, why it is stuck now (`None`: arrived, or not stuck), with the causes the
    /// crowd gives for its agents (`causes[i]` for agent `i`; an empty slice, or `None`, where
    /// it gives none).
    pub fn stuck(&self, causes: &[Option<StuckCause>]) -> Vec<Option<Stuck>> {
        (0..self.goals.len())
            .map(|i| match causes.get(i).copied().flatten() {
                _ if self.arrived_at[i].is_some() => None,
                Some(cause) => Some(Stuck::Crowd(cause)),
                None => self.no_progress(i).then_some(Stuck::NoProgress),
            })
            .collect()
    }

    /// The report, with the causes the crowd gives for its agents (as in
    /// [`CrowdMetrics::stuck`]).
    pub fn report(&self, causes: &[Option<StuckCause>]) -> CrowdMetricsReport {
        let stuck = StuckCounts::count(&self.stuck(causes));
        let frames = self.frames.max(1) as f64;
        CrowdMetricsReport {
            agents: self.goals.len(),
            arrived: self.arrived_at.iter().flatten().count(),
            last_arrival: self.arrived_at.iter().flatten().copied().reduce(f32::max),
            stuck,
            mean_speed: if self.speed_n > 0 {
                (self.speed_sum / self.speed_n as f64) as f32
            } else {
                0.0
            },
            min_separation: if self.min_separation.is_finite() {
                self.min_separation
            } else {
                0.0
            },
            overlaps: self.overlaps,
            deepest_overlap: self.deepest_overlap,
            update_mean_us: self.update_total.as_secs_f64() * 1e6 / frames,
            update_max_us: self.update_max.as_secs_f64() * 1e6,
            frames: self.frames,
        }
    }
}
