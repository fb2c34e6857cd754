//! A crowd on the fixture level (or, for one input in eight, on a tile cache of it that the
//! crowd owns, with obstacles coming and going): agents added, moved, retargeted, re-parametered
//! and removed with fuzzed values between update steps with fuzzed time steps.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use navkit::agents::crowd::{AgentHandle, AgentParams, AvoidanceParams, Crowd, CrowdNavMesh};
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
    Remove(u8),
    Target(u8, P),
    Velocity(u8, P),
    Reset(u8),
    SetParams(u8, Params),
    Avoidance(u8, F, F, F, F, F, F, u8, u8, u8, u8),
    Filter(u8, u16, u16),
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

fn run<N: CrowdNavMesh>(crowd: &mut Crowd<N>, ops: &[Op])
where
    Crowd<N>: Obstacles,
{
    let mut agents: Vec<AgentHandle> = Vec::new();
    let mut obstacles = Vec::new();
    let pick =
        |agents: &[AgentHandle], i: u8| agents.get(i as usize % agents.len().max(1)).copied();
    for op in ops.iter().take(64) {
        match op {
            Op::Add(p, params) => {
                if let Ok(h) = crowd.add_agent(p.0, params.0) {
                    agents.push(h);
                }
            }
            Op::Remove(i) => {
                // Removed handles stay in the list: using one later must be an error.
                if let Some(h) = pick(&agents, *i) {
                    let _ = crowd.remove_agent(h);
                }
            }
            Op::Target(i, p) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = crowd.request_move_target(h, p.0);
                }
            }
            Op::Velocity(i, v) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = crowd.request_move_velocity(h, v.0);
                }
            }
            Op::Reset(i) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = crowd.reset_move_target(h);
                }
            }
            Op::SetParams(i, params) => {
                if let Some(h) = pick(&agents, *i) {
                    let _ = crowd.set_agent_params(h, params.0);
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
                let _ = crowd.set_avoidance_params(*slot as usize % 10, p);
            }
            Op::Filter(i, inc, exc) => {
                let _ = crowd.set_filter(*i as usize % 18, &QueryFilter::with_flags(*inc, *exc));
            }
            Op::Update(dt) => {
                let _ = crowd.update(dt.0);
            }
            Op::Step => {
                let _ = crowd.update(0.1);
                for &h in &agents {
                    let _ = crowd.agent(h);
                }
            }
            Op::AddObstacle(_) | Op::RemoveObstacle(_) | Op::UpdateObstacles => {
                crowd.obstacle_op(op, &mut obstacles);
            }
        }
    }
    crowd.read_obstacles();
}

fuzz_target!(|input: Input| {
    // Crowds are sized by max_agents up front: keep that small.
    let max_agents = if input.max_agents.0 > 64 && input.max_agents.0 <= 65_536 {
        64
    } else {
        input.max_agents.0
    };
    if input.tile_cache.is_multiple_of(8) {
        let Ok(tc) = TileCache::from_tset_bytes(tset(), &[]) else {
            return;
        };
        if let Ok(mut crowd) = Crowd::with_tile_cache(tc, max_agents, input.max_radius.0) {
            run(&mut crowd, &input.ops);
        }
    } else if let Ok(mut crowd) =
        Crowd::new(navkit_fuzz::level_navmesh(), max_agents, input.max_radius.0)
    {
        run(&mut crowd, &input.ops);
    }
});
