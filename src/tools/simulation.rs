//! Crowd simulations: agents with random goals on a navmesh, run with DetourCrowd, summarised.
//!
//! [`simulate`] puts `agents` agents at random navmesh points, each with a random goal it can
//! reach (pairs drawn as [`crate::tools::compare::Comparer::random_pairs`], reproducible from the
//! seed), runs the crowd for `seconds` at a fixed time step and reports what
//! [`crate::tools::crowd_metrics`] measures: how many arrived (came within `arrive_radius` of
//! their goal, in xz) and when, the last arrival, how many are stuck and why (the crowd's
//! [`crate::agents::crowd::StuckCause`], or where it gives none, not arrived and moved less than
//! 0.5 m over the last 5 seconds), the mean speed of agents still on their way, the smallest
//! distance between two agents' centres, collisions (pairs closer than the sum of their radii,
//! counted once per pair and frame) and the deepest overlap, and the time per crowd update
//! (mean and longest). Trajectories are sampled every `record_every` frames.
//!
//! Scenario files ([`Scenario`]) give agents, obstacles, timed obstacle events and, for the
//! crowd scenario suite, the level, the run's length and random agents over several seeds.

use glam::Vec3;

use crate::agents::crowd::{AgentParams, Crowd, CrowdBehaviours, CrowdNavMesh};
use crate::navmesh::NavMesh;
use crate::tools::compare::{CompareSettings, Comparer};
use crate::tools::crowd_metrics::{CrowdMetrics, Stuck, StuckCounts};
pub use crate::tools::scenario::{
    AgentBehaviour, AgentOverrides, AgentSpec, ObstacleEvent, RandomAgents, Scenario, ViewState,
    load_scenario,
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
    /// Run plain DetourCrowd, without navkit's crowd behaviours (`navkit simulate
    /// --plain-detour`); see [`configure_crowd`].
    pub plain_detour: bool,
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
            plain_detour: false,
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
    /// Agents not arrived at the end that are stuck ([`SimReport::stuck_causes`]'s total).
    pub stuck: usize,
    /// The stuck agents by cause: the crowd's ([`crate::agents::crowd::AgentState::stuck`]), or
    /// navkit's no-progress fallback where the crowd gives none.
    pub stuck_causes: StuckCounts,
    /// When the last agent to arrive did, seconds (none if none arrived).
    pub last_arrival: Option<f32>,
    /// Mean speed of agents on their way (before arriving), over all frames.
    pub mean_speed: f32,
    /// The smallest distance between two agents' centres seen.
    pub min_separation: f32,
    /// Pair-frames where two agents overlapped (closer than the sum of their radii).
    pub collisions: u64,
    /// The deepest overlap: the largest sum of two agents' radii minus their distance, metres
    /// (0 if none overlapped).
    pub deepest_overlap: f32,
    /// Mean time per crowd update, microseconds.
    pub update_us: f64,
    /// The longest crowd update, microseconds.
    pub update_max_us: f64,
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
    /// Why it is stuck at the end, if it is (not arrived): the crowd's cause, or no progress.
    pub stuck: Option<Stuck>,
    /// Its recorded positions.
    pub trajectory: Vec<Vec3>,
}

/// Runs a simulation on `navmesh` with random starts and goals (see the module docs).
pub fn simulate(navmesh: &NavMesh, s: &SimSettings) -> Result<SimReport> {
    let specs = random_specs(navmesh, s.agents, s.seed)?;
    simulate_scenario(navmesh, &specs, s)
}

/// `agents` random agents (1 to 10,000) on `navmesh` as [`simulate`] draws them: connected
/// start/goal pairs from [`Comparer::random_pairs`] with default settings, reproducible from
/// `seed`, each going [`AgentBehaviour::Direct`].
pub fn random_specs(navmesh: &NavMesh, agents: usize, seed: u64) -> Result<Vec<AgentSpec>> {
    if !(1..=10_000).contains(&agents) {
        return Err(Error::InvalidArgument(format!(
            "{agents} agents: must be 1 to 10000"
        )));
    }
    let pairs =
        Comparer::new(navmesh, None, CompareSettings::default())?.random_pairs(agents, seed)?;
    if pairs.len() < agents {
        return Err(Error::InvalidArgument(format!(
            "only {} connected start/goal pairs found on this navmesh",
            pairs.len()
        )));
    }
    Ok(pairs
        .into_iter()
        .map(|(start, goal)| AgentSpec {
            start,
            goal,
            behaviour: AgentBehaviour::Direct,
            seed: 0,
        })
        .collect())
}

/// Sets up a new crowd for a run: with [`SimSettings::plain_detour`] the crowd behaviours are
/// off ([`CrowdBehaviours::detour_crowd`]: DetourCrowd's results, bit for bit), otherwise they
/// stay on (the library's default). Called by every `simulate_*` right after the crowd is
/// made, before agents are added.
pub fn configure_crowd<N: CrowdNavMesh>(crowd: &mut Crowd<N>, s: &SimSettings) -> Result<()> {
    if s.plain_detour {
        crowd.set_behaviours(CrowdBehaviours::detour_crowd())?;
    }
    Ok(())
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
    configure_crowd(&mut crowd, s)?;
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
        random_specs(tc.navmesh(), s.agents, s.seed)?
    } else {
        scenario.agents.clone()
    };
    check_run(specs.len(), s)?;
    let plans = plan(tc.navmesh(), &specs)?;
    let mut crowd = Crowd::with_tile_cache(tc, specs.len(), s.params.radius.max(0.1))?;
    configure_crowd(&mut crowd, s)?;
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
/// updates the crowd and records (the measures: [`CrowdMetrics`]).
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
            stuck: None,
            trajectory: vec![a.position],
        });
        handles.push(h);
    }
    let frames = (s.seconds / s.dt).ceil() as usize;
    let goals = detail.iter().map(|d| d.goal).collect();
    let mut metrics = CrowdMetrics::new(goals, vec![s.params.radius; n], s.arrive_radius, s.dt);
    let (mut positions, mut velocities) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    for frame in 1..=frames {
        before_update(crowd, (frame - 1) as f32 * s.dt)?;
        let t0 = std::time::Instant::now();
        crowd.update(s.dt)?;
        let took = t0.elapsed();
        for (i, &h) in handles.iter().enumerate() {
            let a = crowd.agent(h)?;
            (positions[i], velocities[i]) = (a.position, a.velocity);
            if frame % s.record_every == 0 || frame == frames {
                detail[i].trajectory.push(a.position);
            }
        }
        metrics.frame(&positions, &velocities, took);
        for (i, &h) in handles.iter().enumerate() {
            if metrics.arrived_at(i).is_none() && plans[i].0.len() > 1 {
                // A wander point reached: on to the next.
                let to = positions[i] - plans[i].0[0];
                if Vec3::new(to.x, 0.0, to.z).length() <= s.arrive_radius {
                    plans[i].0.pop_front();
                    crowd.request_move_target(h, plans[i].0[0])?;
                }
            }
        }
    }
    let causes = handles
        .iter()
        .map(|&h| Ok(crowd.agent(h)?.stuck))
        .collect::<Result<Vec<_>>>()?;
    let m = metrics.report(&causes);
    for ((d, at), stuck) in detail
        .iter_mut()
        .zip(metrics.arrivals())
        .zip(metrics.stuck(&causes))
    {
        (d.arrived_at, d.stuck) = (*at, stuck);
    }
    Ok(SimReport {
        agents: n,
        arrived: m.arrived,
        stuck: m.stuck.total(),
        stuck_causes: m.stuck,
        last_arrival: m.last_arrival,
        mean_speed: m.mean_speed,
        min_separation: m.min_separation,
        collisions: m.overlaps,
        deepest_overlap: m.deepest_overlap,
        update_us: m.update_mean_us,
        update_max_us: m.update_max_us,
        seconds: s.seconds,
        agents_detail: detail,
        obstacle_events: 0,
        tiles_rebuilt: 0,
        obstacle_settle_max: 0.0,
    })
}
