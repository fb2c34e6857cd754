//! Crowd simulations: agents with random goals on a navmesh, run with DetourCrowd, summarised.
//!
//! [`simulate`] puts `agents` agents at random navmesh points, each with a random goal it can
//! reach (pairs drawn as [`crate::tools::compare::Comparer::random_pairs`], reproducible from the
//! seed), runs the crowd for `seconds` at a fixed time step and reports: how many arrived
//! (came within `arrive_radius` of their goal, in xz) and when, how many are stuck (not arrived
//! and moved less than 0.5 units over the last 5 seconds), the mean speed of agents still on
//! their way, the smallest distance between two agents' centres, collisions (pairs closer than
//! the sum of their radii, counted once per pair and frame), and the time per crowd update.
//! Trajectories are sampled every `record_every` frames.

use glam::Vec3;

use crate::agents::crowd::{AgentParams, Crowd, CrowdNavMesh};
use crate::navmesh::NavMesh;
use crate::tools::compare::{CompareSettings, Comparer};
pub use crate::tools::scenario::{
    AgentBehaviour, AgentSpec, ObstacleEvent, Scenario, ViewState, load_scenario,
};
use crate::{Error, Result};

/// How a simulation runs.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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
    /// Timed obstacle events applied ([`simulate_dynamic`]; 0 otherwise).
    pub obstacle_events: usize,
    /// Tiles rebuilt under the crowd after obstacle events.
    pub tiles_rebuilt: usize,
    /// The longest simulated time from an obstacle event's time until the tile cache had
    /// rebuilt every tile it touched, seconds (0 without events). Includes any wait for room
    /// in Detour's request queue when many obstacles change at once.
    pub obstacle_settle_max: f32,
}

/// One agent of a simulation.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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

/// Runs a simulation on `navmesh` with random starts and goals (see the module docs).
pub fn simulate(navmesh: &NavMesh, s: &SimSettings) -> Result<SimReport> {
    if !(1..=10_000).contains(&s.agents) {
        return Err(Error::InvalidArgument(format!(
            "{} agents: must be 1 to 10000",
            s.agents
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
    let specs: Vec<AgentSpec> = pairs
        .into_iter()
        .map(|(start, goal)| AgentSpec {
            start,
            goal,
            behaviour: AgentBehaviour::Direct,
            seed: 0,
        })
        .collect();
    simulate_scenario(navmesh, &specs, s)
}

fn check_run(n: usize, s: &SimSettings) -> Result<()> {
    if !(1..=10_000).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "{n} agents: must be 1 to 10000"
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
    Ok(())
}

/// Per agent: the points still to visit (the goal last) and the goal snapped to the navmesh.
type Plan = (std::collections::VecDeque<Vec3>, Vec3);

fn plan(navmesh: &NavMesh, specs: &[AgentSpec]) -> Result<Vec<Plan>> {
    let mut q = crate::query::NavMeshQuery::new(navmesh, 2048)?;
    let filter = crate::query::QueryFilter::default();
    specs
        .iter()
        .map(|spec| {
            let points: std::collections::VecDeque<Vec3> = match spec.behaviour {
                AgentBehaviour::Direct => [spec.goal].into(),
                AgentBehaviour::Wander => {
                    let w = crate::agents::walker::WanderWalker::new(Default::default(), spec.seed)
                        .walk_on_navmesh(&mut q, &filter, spec.start, spec.goal, 10_000)?;
                    w.points.into_iter().skip(1).collect()
                }
            };
            let goal = q
                .find_nearest_poly(spec.goal, crate::query::DEFAULT_HALF_EXTENTS, &filter)?
                .point;
            Ok((points, goal))
        })
        .collect()
}

/// Runs the agents of `specs` (`s.agents` and `s.seed` are not used).
pub fn simulate_scenario(
    navmesh: &NavMesh,
    specs: &[AgentSpec],
    s: &SimSettings,
) -> Result<SimReport> {
    check_run(specs.len(), s)?;
    let plans = plan(navmesh, specs)?;
    let mut crowd = Crowd::new(navmesh, specs.len(), s.params.radius.max(0.1))?;
    run(&mut crowd, specs, plans, s, |_, _| Ok(()))
}

/// The tile cache's budget per frame for rebuilding tiles in [`simulate_dynamic`].
pub const OBSTACLE_BUDGET: std::time::Duration = std::time::Duration::from_millis(2);

/// True for the tile cache's "request queue full: call update first" error.
fn queue_full(e: &Error) -> bool {
    matches!(e, Error::QueueFull { .. })
}

/// Runs `scenario` on a tile cache of `geom`, its obstacles carved in first, with its timed
/// obstacle events applied while the agents walk: at each event's time the obstacle is added
/// or removed, and every frame the crowd's tile cache rebuilds touched tiles for at most
/// [`OBSTACLE_BUDGET`] before the crowd update ([`Crowd::with_tile_cache`]), so a change is
/// carved in over the next frames while agents keep moving. Agents replan around new obstacles
/// and through removed ones by themselves: DetourCrowd re-validates the next polygons of every
/// corridor each update (a rebuilt tile's polygons get new refs) and replans, and replans a
/// partial path every second once near its end. Events that find Detour's request queue full
/// (many at once) wait for the next frames, in order. Without agents in the scenario,
/// `s.agents` random connected pairs are used (drawn before any event). Event times must be
/// before the end of the run (`s.seconds`).
pub fn simulate_dynamic(
    geom: &crate::InputGeometry,
    settings: &crate::BuildSettings,
    scenario: &Scenario,
    s: &SimSettings,
) -> Result<SimReport> {
    simulate_dynamic_within(
        geom,
        settings,
        scenario,
        s,
        &crate::build::Budget::default(),
    )
}

/// [`simulate_dynamic`] with the tile cache built within `budget` (see
/// [`Scenario::tile_cache_within`]).
pub fn simulate_dynamic_within(
    geom: &crate::InputGeometry,
    settings: &crate::BuildSettings,
    scenario: &Scenario,
    s: &SimSettings,
    budget: &crate::build::Budget,
) -> Result<SimReport> {
    scenario.check_events()?;
    if let Some(e) = scenario.events.iter().find(|e| e.at >= s.seconds) {
        return Err(Error::InvalidArgument(format!(
            "obstacle event at {} s is not before the end of the {} s run",
            e.at, s.seconds
        )));
    }
    let tc = scenario.tile_cache_within(geom, settings, budget)?;
    let specs: Vec<AgentSpec> = if scenario.agents.is_empty() {
        Comparer::new(tc.navmesh(), None, CompareSettings::default())?
            .random_pairs(s.agents, s.seed)?
            .into_iter()
            .map(|(start, goal)| AgentSpec {
                start,
                goal,
                behaviour: AgentBehaviour::Direct,
                seed: 0,
            })
            .collect()
    } else {
        scenario.agents.clone()
    };
    check_run(specs.len(), s)?;
    let plans = plan(tc.navmesh(), &specs)?;
    let mut crowd = Crowd::with_tile_cache(tc, specs.len(), s.params.radius.max(0.1))?;
    let mut events: Vec<&ObstacleEvent> = scenario.events.iter().collect();
    events.sort_by(|a, b| a.at.total_cmp(&b.at));
    let mut next = 0;
    // The obstacles added under a name and not removed yet (names are unique among them).
    let mut named: std::collections::HashMap<&str, crate::tilecache::ObstacleRef> =
        std::collections::HashMap::new();
    let (mut applied, mut rebuilt) = (0usize, 0usize);
    // The time of the earliest event whose tiles are not all rebuilt yet, and the longest wait.
    let (mut unsettled, mut settle_max) = (None::<f32>, 0.0f32);
    let mut report = run(&mut crowd, &specs, plans, s, |crowd, now| {
        while let Some(e) = events.get(next).filter(|e| e.at <= now) {
            let done = if let Some(shape) = &e.add {
                crowd.tile_cache_mut().add(shape).map(|r| {
                    if let Some(n) = &e.name {
                        named.insert(n, r);
                    }
                })
            } else if let Some((n, r)) = e
                .remove
                .as_deref()
                .and_then(|n| named.get(n).map(|&r| (n, r)))
            {
                crowd.tile_cache_mut().remove(r).map(|()| {
                    named.remove(n);
                })
            } else {
                Ok(())
            };
            match done {
                // Detour's queue is full: this event and the later ones wait for the next frame.
                Err(err) if queue_full(&err) => break,
                Err(err) => return Err(err),
                Ok(()) => {}
            }
            unsettled.get_or_insert(e.at);
            applied += 1;
            next += 1;
        }
        let u = crowd.tile_cache_mut().update(OBSTACLE_BUDGET)?;
        rebuilt += u.tiles_rebuilt;
        if u.up_to_date {
            if let Some(at) = unsettled.take() {
                settle_max = settle_max.max(now - at);
            }
        }
        Ok(())
    })?;
    report.obstacle_events = applied;
    report.tiles_rebuilt = rebuilt;
    report.obstacle_settle_max = match unsettled {
        // Still rebuilding at the end: as long as the run lasted.
        Some(at) => settle_max.max(s.seconds - at),
        None => settle_max,
    };
    Ok(report)
}

/// The simulation loop: adds the agents, then every frame calls `before_update(crowd, now)`,
/// updates the crowd and records.
fn run<N: CrowdNavMesh>(
    crowd: &mut Crowd<N>,
    specs: &[AgentSpec],
    mut plans: Vec<Plan>,
    s: &SimSettings,
    mut before_update: impl FnMut(&mut Crowd<N>, f32) -> Result<()>,
) -> Result<SimReport> {
    let n = specs.len();
    let mut detail = Vec::with_capacity(n);
    let mut handles = Vec::with_capacity(n);
    for (spec, (points, goal)) in specs.iter().zip(&plans) {
        let h = crowd.add_agent(spec.start, s.params)?;
        crowd.request_move_target(h, *points.front().unwrap_or(goal))?;
        let a = crowd.agent(h)?;
        detail.push(SimAgent {
            start: a.position,
            goal: *goal,
            arrived_at: None,
            trajectory: vec![a.position],
        });
        handles.push(h);
    }
    let frames = (s.seconds / s.dt).ceil() as usize;
    let window = ((5.0 / s.dt).ceil() as usize).max(1);
    let mut history: Vec<std::collections::VecDeque<Vec3>> = vec![Default::default(); n];
    let (mut speed_sum, mut speed_n) = (0.0f64, 0u64);
    let mut min_sep = f32::INFINITY;
    let mut collisions = 0u64;
    let mut update_time = 0.0f64;
    let mut positions = vec![Vec3::ZERO; n];
    for frame in 1..=frames {
        before_update(crowd, (frame - 1) as f32 * s.dt)?;
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
                } else if plans[i].0.len() > 1 {
                    // A wander point reached: on to the next.
                    let to = a.position - plans[i].0[0];
                    if Vec3::new(to.x, 0.0, to.z).length() <= s.arrive_radius {
                        plans[i].0.pop_front();
                        crowd.request_move_target(h, plans[i].0[0])?;
                    }
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
        let mut order: Vec<usize> = (0..n).collect();
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
        agents: n,
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
        obstacle_events: 0,
        tiles_rebuilt: 0,
        obstacle_settle_max: 0.0,
    })
}
