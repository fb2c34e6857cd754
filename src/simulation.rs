//! Crowd simulations: agents with random goals on a navmesh, run with DetourCrowd, summarised.
//!
//! [`simulate`] puts `agents` agents at random navmesh points, each with a random goal it can
//! reach (pairs drawn as [`crate::compare::Comparer::random_pairs`], reproducible from the
//! seed), runs the crowd for `seconds` at a fixed time step and reports: how many arrived
//! (came within `arrive_radius` of their goal, in xz) and when, how many are stuck (not arrived
//! and moved less than 0.5 units over the last 5 seconds), the mean speed of agents still on
//! their way, the smallest distance between two agents' centres, collisions (pairs closer than
//! the sum of their radii, counted once per pair and frame), and the time per crowd update.
//! Trajectories are sampled every `record_every` frames.

use glam::Vec3;
use serde::Serialize;

use crate::compare::{CompareSettings, Comparer};
use crate::crowd::{AgentParams, Crowd};
use crate::navmesh::NavMesh;
use crate::{Error, Result};

/// How a simulation runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimSettings {
    /// Number of agents (1 to 10,000).
    pub agents: usize,
    /// Simulated seconds.
    pub seconds: f32,
    /// Seed for the starts and goals.
    pub seed: u64,
    /// Time step.
    pub dt: f32,
    /// Every agent's parameters.
    pub params: AgentParams,
    /// An agent within this distance (xz) of its goal has arrived.
    pub arrive_radius: f32,
    /// Record positions every this many frames.
    pub record_every: usize,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            agents: 50,
            seconds: 60.0,
            seed: 1,
            dt: 1.0 / 30.0,
            params: AgentParams::default(),
            arrive_radius: 1.0,
            record_every: 3,
        }
    }
}

/// What a simulation did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    /// Agents simulated.
    pub agents: usize,
    /// Agents that reached their goal.
    pub arrived: usize,
    /// Agents neither arrived nor making progress at the end.
    pub stuck: usize,
    /// Mean speed of agents on their way (before arriving), over all frames.
    pub mean_speed: f32,
    /// The smallest distance between two agents' centres seen.
    pub min_separation: f32,
    /// Pair-frames where two agents overlapped (closer than the sum of their radii).
    pub collisions: u64,
    /// Mean time per crowd update, microseconds.
    pub update_us: f64,
    /// Simulated seconds.
    pub seconds: f32,
    /// Per agent: start, goal, arrival time if it arrived.
    pub agents_detail: Vec<SimAgent>,
}

/// One agent of a simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimAgent {
    /// Where it started.
    pub start: Vec3,
    /// Its goal.
    pub goal: Vec3,
    /// When it arrived (seconds), if it did.
    pub arrived_at: Option<f32>,
    /// Its recorded positions.
    pub trajectory: Vec<Vec3>,
}

/// Runs a simulation on `navmesh` (see the module docs).
pub fn simulate(navmesh: &NavMesh, s: &SimSettings) -> Result<SimReport> {
    if !(1..=10_000).contains(&s.agents) {
        return Err(Error::InvalidArgument(format!(
            "{} agents: must be 1 to 10000",
            s.agents
        )));
    }
    if !(s.seconds.is_finite() && s.seconds > 0.0 && s.seconds <= 3600.0) {
        return Err(Error::InvalidArgument(format!(
            "{} seconds: must be positive and at most 3600",
            s.seconds
        )));
    }
    if !(s.dt.is_finite() && s.dt > 0.0 && s.dt <= 0.5) || s.record_every == 0 {
        return Err(Error::InvalidArgument(format!(
            "time step {} (0 < dt <= 0.5) and record_every {} (> 0)",
            s.dt, s.record_every
        )));
    }
    let pairs =
        Comparer::new(navmesh, None, CompareSettings::default())?.random_pairs(s.agents, s.seed)?;
    if pairs.len() < s.agents {
        return Err(Error::InvalidArgument(format!(
            "only {} connected start/goal pairs found on this navmesh",
            pairs.len()
        )));
    }
    let mut crowd = Crowd::new(navmesh, s.agents, s.params.radius.max(0.1))?;
    let mut detail = Vec::with_capacity(s.agents);
    let mut handles = Vec::with_capacity(s.agents);
    for &(start, goal) in &pairs {
        let h = crowd.add_agent(start, s.params)?;
        crowd.request_move_target(h, goal)?;
        let a = crowd.agent(h)?;
        detail.push(SimAgent {
            start: a.position,
            goal: a.target,
            arrived_at: None,
            trajectory: vec![a.position],
        });
        handles.push(h);
    }
    let frames = (s.seconds / s.dt).ceil() as usize;
    let window = ((5.0 / s.dt).ceil() as usize).max(1);
    let mut history: Vec<std::collections::VecDeque<Vec3>> = vec![Default::default(); s.agents];
    let (mut speed_sum, mut speed_n) = (0.0f64, 0u64);
    let mut min_sep = f32::INFINITY;
    let mut collisions = 0u64;
    let mut update_time = 0.0f64;
    let mut positions = vec![Vec3::ZERO; s.agents];
    for frame in 1..=frames {
        let t0 = std::time::Instant::now();
        crowd.update(s.dt)?;
        update_time += t0.elapsed().as_secs_f64();
        let now = frame as f32 * s.dt;
        for (i, &h) in handles.iter().enumerate() {
            let a = crowd.agent(h)?;
            positions[i] = a.position;
            let d = &mut detail[i];
            if d.arrived_at.is_none() {
                speed_sum += a.velocity.length() as f64;
                speed_n += 1;
                let gap = a.position - d.goal;
                if Vec3::new(gap.x, 0.0, gap.z).length() <= s.arrive_radius {
                    d.arrived_at = Some(now);
                }
            }
            if frame % s.record_every == 0 || frame == frames {
                d.trajectory.push(a.position);
            }
            let hist = &mut history[i];
            hist.push_back(a.position);
            if hist.len() > window {
                hist.pop_front();
            }
        }
        // Separation: sweep over x-sorted agents, pairs within the collision distance in x.
        let reach = 2.0 * s.params.radius;
        let mut order: Vec<usize> = (0..s.agents).collect();
        order.sort_by(|&a, &b| positions[a].x.total_cmp(&positions[b].x));
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if positions[j].x - positions[i].x > reach.max(min_sep.min(10.0)) {
                    break;
                }
                let d = positions[i].distance(positions[j]);
                min_sep = min_sep.min(d);
                if d < reach {
                    collisions += 1;
                }
            }
        }
    }
    let arrived = detail.iter().filter(|d| d.arrived_at.is_some()).count();
    let stuck = detail
        .iter()
        .zip(&history)
        .filter(|(d, h)| {
            d.arrived_at.is_none()
                && h.len() == window
                && h.front()
                    .zip(h.back())
                    .is_some_and(|(a, b)| a.distance(*b) < 0.5)
        })
        .count();
    Ok(SimReport {
        agents: s.agents,
        arrived,
        stuck,
        mean_speed: if speed_n > 0 {
            (speed_sum / speed_n as f64) as f32
        } else {
            0.0
        },
        min_separation: if min_sep.is_finite() { min_sep } else { 0.0 },
        collisions,
        update_us: update_time * 1e6 / frames as f64,
        seconds: s.seconds,
        agents_detail: detail,
    })
}
