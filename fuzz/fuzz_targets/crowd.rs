//! A crowd on the fixture level (or, for one input in eight, on a tile cache of it that the
//! crowd owns, with obstacles coming and going): agents added, moved, retargeted, re-parametered
//! and removed with fuzzed values between update steps with fuzzed time steps.
//!
//! Three twin crowds take every op: navkit's update on 1 thread, on 2 threads, and upstream's
//! `dtCrowd::update`; after every update all three must agree on every agent, to the bit (a
//! bulk op adds enough agents for the per-agent phases to go parallel). The crowd behaviours
//! run as they do by default but the lane rule, which needs navkit's update (give way, head-on,
//! queues, stuck detection, replanning, separation: they are
//! deterministic and run after either engine's step, so the twins still agree, activities and
//! stuck causes included); an op sets them to fuzzed options (any subset on, fuzzed tunables).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use navkit::agents::crowd::{
    AgentHandle, AgentParams, AvoidanceParams, Crowd, CrowdBehaviours, CrowdEngine,
    CrowdNavMesh,
};
use navkit::query::QueryFilter;
use navkit::tilecache::{ObstacleRef, ObstacleShape, TileCache};
use navkit::{BuildSettings, NavMesh, NavMeshBuilder};
use navkit_fuzz::{Count, F, P};
use std::sync::OnceLock;

#[derive(Debug)]
struct Params(AgentParams);

/// An agent parameter: usually near the default, sometimes any value.
fn near(u: &mut Unstructured, default: f32) -> arbitrary::Result<f32> {
    Ok(if u.arbitrary::<u8>()? % 4 == 0 {
        F::arbitrary(u)?.0
    } else {
        default * (1 + u.arbitrary::<u8>()? % 32) as f32 / 8.0
    })
}

impl<'a> Arbitrary<'a> for Params {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let d = AgentParams::default();
        Ok(Params(AgentParams {
            radius: near(u, d.radius)?,
            height: near(u, d.height)?,
            max_acceleration: near(u, d.max_acceleration)?,
            max_speed: near(u, d.max_speed)?,
            collision_query_range: near(u, d.collision_query_range)?,
            path_optimization_range: near(u, d.path_optimization_range)?,
            separation_weight: near(u, d.separation_weight)?,
            update_flags: u.arbitrary()?,
            obstacle_avoidance_type: u.arbitrary::<u8>()? % 10,
            query_filter_type: u.arbitrary::<u8>()? % 18,
        }))
    }
}

#[derive(Debug)]
struct Behaviours(CrowdBehaviours);

impl<'a> Arbitrary<'a> for Behaviours {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let d = CrowdBehaviours::default();
        let on: u8 = u.arbitrary()?;
        Ok(Behaviours(CrowdBehaviours {
            give_way: on & 1 != 0,
            head_on: on & 2 != 0,
            queue: on & 4 != 0,
            stuck_detection: on & 8 != 0,
            replan: on & 16 != 0,
            separation: on & 32 != 0,
            // Off: the lane rule turns desired velocities inside navkit's update, which
            // upstream's (the third twin) has no counterpart for; tests/crowd_engine.rs checks
            // it over thread counts.
            lanes: false,
            arrive_distance: near(u, d.arrive_distance)?,
            margin: near(u, d.margin)?,
            look_ahead: near(u, d.look_ahead)?,
            head_on_after: near(u, d.head_on_after)?,
            resume_after: near(u, d.resume_after)?,
            queue_gap: near(u, d.queue_gap)?,
            stuck_after: near(u, d.stuck_after)?,
            replan_after: near(u, d.replan_after)?,
        }))
    }
}

#[derive(Debug, Arbitrary)]
enum Shape {
    Cylinder(P, F, F),
    Box(P, P),
    Oriented(P, P, F),
}

impl Shape {
    fn get(&self) -> ObstacleShape {
        match *self {
            Shape::Cylinder(p, r, h) => ObstacleShape::Cylinder {
                pos: p.0,
                radius: r.0,
                height: h.0,
            },
            Shape::Box(a, b) => ObstacleShape::Box {
                bmin: a.0,
                bmax: b.0,
            },
            Shape::Oriented(c, h, a) => ObstacleShape::OrientedBox {
                center: c.0,
                half_extents: h.0,
                y_angle: a.0,
            },
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Op {
    Add(P, Params),
    /// Up to 255 agents with default parameters in rows from a point, sent to another.
    Many(P, P, u8),
    Remove(u8),
    Target(u8, P),
    Velocity(u8, P),
    Reset(u8),
    SetParams(u8, Params),
    Avoidance(u8, F, F, F, F, F, F, u8, u8, u8, u8),
    Filter(u8, u16, u16),
    Behaviours(Behaviours),
    Update(F),
    Step,
    AddObstacle(Shape),
    RemoveObstacle(u8),
    UpdateObstacles,
}

#[derive(Debug, Arbitrary)]
struct Input {
    tile_cache: u8,
    max_agents: Count,
    max_radius: F,
    ops: Vec<Op>,
}

fn tset() -> &'static [u8] {
    static T: OnceLock<Vec<u8>> = OnceLock::new();
    T.get_or_init(|| {
        NavMeshBuilder::new(navkit_fuzz::level())
            .settings(BuildSettings::default())
            .tile_cache()
            .expect("the fixture level builds as a tile cache")
            .to_tset_bytes()
    })
}

/// The obstacle ops: on a crowd that owns its tile cache, through the cache; a crowd that
/// borrows its navmesh has no obstacle calls (they do not compile), so they are skipped.
trait Obstacles {
    /// Applies `op` if it is an obstacle op, keeping the added obstacles in `obstacles`.
    fn obstacle_op(&mut self, op: &Op, obstacles: &mut Vec<ObstacleRef>);
    /// Reads the obstacles back.
    fn read_obstacles(&self);
}

impl Obstacles for Crowd<&NavMesh> {
    fn obstacle_op(&mut self, _: &Op, _: &mut Vec<ObstacleRef>) {}
    fn read_obstacles(&self) {}
}

impl Obstacles for Crowd<TileCache> {
    fn obstacle_op(&mut self, op: &Op, obstacles: &mut Vec<ObstacleRef>) {
        match op {
            Op::AddObstacle(s) => {
                if let Ok(o) = self.tile_cache_mut().add(&s.get()) {
                    obstacles.push(o);
                }
            }
            Op::RemoveObstacle(i) => {
                if let Some(&o) = obstacles.get(*i as usize % obstacles.len().max(1)) {
                    let _ = self.tile_cache_mut().remove(o);
                }
            }
            Op::UpdateObstacles => {
                let _ = self
                    .tile_cache_mut()
                    .update(std::time::Duration::from_millis(5));
            }
            _ => {}
        }
    }

    fn read_obstacles(&self) {
        let _ = self.tile_cache().obstacles();
    }
}

/// Every agent's state, corridor and neighbours, as bits (NaN payloads included).
fn state<N: CrowdNavMesh>(crowd: &Crowd<N>) -> Vec<u64> {
    let mut out = Vec::new();
    for h in crowd.handles() {
        let a = crowd.agent(h).expect("a listed handle is live");
        let (corridor, planned) = crowd.corridor(h).expect("a listed handle is live");
        let mut v = vec![
            a.position,
            a.velocity,
            a.desired_velocity,
            a.target,
            planned,
        ];
        v.extend(&a.corners);
        out.push(h.index() as u64);
        out.extend(
            v.iter()
                .flat_map(|v| v.to_array())
                .map(|f| f.to_bits() as u64),
        );
        out.extend([
            a.target_state as u64,
            a.off_mesh as u64,
            a.path_status as u64,
            a.activity as u64,
            a.stuck.map_or(0, |c| c as u64 + 1),
            u64::from(a.params.max_speed.to_bits()),
        ]);
        out.extend(corridor.iter().map(|r| r.to_u64()));
        for n in crowd.neighbours(h).expect("a listed handle is live") {
            out.extend([n.agent.index() as u64, n.distance_squared.to_bits() as u64]);
        }
    }
    out
}

/// Applies `f` to every crowd; the results must agree (they are the same calls on twins).
fn all<N: CrowdNavMesh, T: PartialEq + std::fmt::Debug>(
    crowds: &mut [Crowd<N>],
    mut f: impl FnMut(&mut Crowd<N>) -> T,
) -> T {
    let mut results: Vec<T> = crowds.iter_mut().map(&mut f).collect();
    for r in &results[1..] {
        assert_eq!(r, &results[0], "twin crowds answered differently");
    }
    results.swap_remove(0)
}

/// Updates every crowd; all must then agree on every agent to the bit.
fn update_all<N: CrowdNavMesh>(crowds: &mut [Crowd<N>], dt: f32) {
    let ok = all(crowds, |c| c.update(dt).is_ok());
    if ok {
        let first = state(&crowds[0]);
        for (k, c) in crowds.iter().enumerate().skip(1) {
            assert!(
                state(c) == first,
                "crowd {k} ({:?}, {} threads) differs from navkit's on 1 thread",
                c.engine(),
                c.threads()
            );
        }
    }
}

fn run<N: CrowdNavMesh>(crowds: &mut [Crowd<N>], ops: &[Op])
where
    Crowd<N>: Obstacles,
{
    let mut agents: Vec<AgentHandle> = Vec::new();
    let mut obstacles: Vec<Vec<ObstacleRef>> = vec![Vec::new(); crowds.len()];
    let pick =
        |agents: &[AgentHandle], i: u8| agents.get(i as usize % agents.len().max(1)).copied();
    for op in ops.iter().take(64) {
        match op {
            Op::Add(p, params) => {
                if let Some(h) = all(crowds, |c| c.add_agent(p.0, params.0).ok()) {
                    agents.push(h);
                }
            }
            Op::Many(a, b, n) => {
                for k in 0..*n {
                    let row =
                        glam::Vec3::new(0.7 * f32::from(k % 16), 0.0, 0.7 * f32::from(k / 16));
                    let at = a.0 + row;
                    if let Some(h) = all(crowds, |c| c.add_agent(at, AgentParams::default()).ok()) {
                        agents.push(h);
                        let _ = all(crowds, |c| c.request_move_target(h, b.0).is_ok());
                    }
                }
            }
            Op::Remove(i) => {
                // Removed handles stay in the list: using one later must be an error.
                if let Some(h) = pick(&agents, *i) {
                    let _ = all(crowds, |c| c.remove_agent(h).is_ok());
                }
            }
            Op::Target(i, p) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = all(crowds, |c| c.request_move_target(h, p.0).is_ok());
                }
            }
            Op::Velocity(i, v) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = all(crowds, |c| c.request_move_velocity(h, v.0).is_ok());
                }
            }
            Op::Reset(i) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = all(crowds, |c| c.reset_move_target(h).is_ok());
                }
            }
            Op::SetParams(i, params) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = all(crowds, |c| c.set_agent_params(h, params.0).is_ok());
                }
            }
            Op::Avoidance(slot, a, b, c, d, e, f, g, h, i, j) => {
                let p = AvoidanceParams {
                    vel_bias: a.0,
                    weight_des_vel: b.0,
                    weight_cur_vel: c.0,
                    weight_side: d.0,
                    weight_toi: e.0,
                    horiz_time: f.0,
                    grid_size: *g,
                    adaptive_divs: *h,
                    adaptive_rings: *i,
                    adaptive_depth: *j,
                };
                let _ = all(crowds, |c| {
                    c.set_avoidance_params(*slot as usize % 10, p).is_ok()
                });
            }
            Op::Filter(i, inc, exc) => {
                let f = QueryFilter::with_flags(*inc, *exc);
                let _ = all(crowds, |c| c.set_filter(*i as usize % 18, &f).is_ok());
            }
            Op::Behaviours(b) => {
                let _ = all(crowds, |c| c.set_behaviours(b.0.clone()).is_ok());
            }
            Op::Update(dt) => update_all(crowds, dt.0),
            Op::Step => {
                update_all(crowds, 0.1);
                for &h in &agents {
                    let _ = all(crowds, |c| c.agent(h).is_ok());
                }
            }
            Op::AddObstacle(_) | Op::RemoveObstacle(_) | Op::UpdateObstacles => {
                for (c, o) in crowds.iter_mut().zip(&mut obstacles) {
                    c.obstacle_op(op, o);
                }
            }
        }
    }
    for c in crowds.iter() {
        c.read_obstacles();
    }
}

/// The three twins' engines and threads.
const TWINS: [(CrowdEngine, usize); 3] = [
    (CrowdEngine::Navkit, 1),
    (CrowdEngine::Navkit, 2),
    (CrowdEngine::Upstream, 1),
];

/// Sets each twin's engine and threads.
fn setup<N: CrowdNavMesh>(crowds: &mut [Crowd<N>]) {
    for (c, &(engine, threads)) in crowds.iter_mut().zip(&TWINS) {
        c.set_engine(engine);
        c.set_threads(threads).expect("1 or 2 threads");
        // The default behaviours but the lane rule (see `Behaviours`).
        let b = CrowdBehaviours {
            lanes: false,
            ..CrowdBehaviours::default()
        };
        c.set_behaviours(b).expect("valid behaviours");
    }
}

fuzz_target!(|input: Input| {
    // Crowds are sized by max_agents up front: keep that small (but room for the per-agent
    // phases to go parallel, from 256 agents).
    let max_agents = if input.max_agents.0 > 320 && input.max_agents.0 <= 65_536 {
        320
    } else {
        input.max_agents.0
    };
    let radius = input.max_radius.0;
    if input.tile_cache.is_multiple_of(8) {
        let twin = || {
            let tc = TileCache::from_tset_bytes(tset(), &[]).ok()?;
            Crowd::with_tile_cache(tc, max_agents, radius).ok()
        };
        if let Some(mut crowds) = TWINS.iter().map(|_| twin()).collect::<Option<Vec<_>>>() {
            setup(&mut crowds);
            run(&mut crowds, &input.ops);
        }
    } else {
        let twin = || Crowd::new(navkit_fuzz::level_navmesh(), max_agents, radius).ok();
        if let Some(mut crowds) = TWINS.iter().map(|_| twin()).collect::<Option<Vec<_>>>() {
            setup(&mut crowds);
            run(&mut crowds, &input.ops);
        }
    }
});
