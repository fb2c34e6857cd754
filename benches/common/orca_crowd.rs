//! An ORCA crowd for the crowd suite's benchmark (`benches/crowd_suite.rs`): the `dodgy_2d`
//! crate (RVO2's ORCA in Rust) used as the `landmass` crate uses it, on flat levels.
//!
//! - Each agent follows its navmesh path: navkit's `path` query from its start to its goal
//!   (the straight path's corners), heading for the next corner at its maximum speed and
//!   advancing to the corner after it once within [`CORNER_REACHED`] of it; at the last corner
//!   (the goal) it slows to arrive (preferred speed at most distance / time step).
//! - `Agent::compute_avoiding_velocity` with landmass's defaults for an agent radius r: other
//!   agents within 10 r (plus their radius) are neighbours, time horizons 1 s (agents) and 0.5 s
//!   (obstacles), avoidance responsibility 1, or 0.1 once arrived (landmass's
//!   `reached_destination_avoidance_responsibility`). landmass takes its obstacles from its
//!   navmesh's border near the agent, a border that already lies a radius in from the walls,
//!   with obstacle margin 0; here the obstacles are the level floor's outline
//!   ([`floor_outline`]) and the margin is the agent's radius (dodgy_2d keeps an agent's centre
//!   the margin, not its radius, away from obstacles), which keeps agents' centres where
//!   Recast's erosion by the same radius keeps Detour's.
//! - The new velocity is applied at once and integrated (no acceleration limit; ORCA has none).
//!
//! dodgy_2d brings its own glam (0.29), so points cross between it and navkit's glam as arrays.

use std::borrow::Cow;
use std::collections::HashMap;

use dodgy_2d::{Agent, AvoidanceOptions, Obstacle, Vec2};
use glam::Vec3;

use navkit::navmesh::NavMesh;
use navkit::query::{PathOptions, QueryFilter};

/// An agent heads for the corner after its next one once this near it (metres).
pub const CORNER_REACHED: f32 = 0.5;

/// An ORCA crowd following navmesh paths on a flat level.
pub struct OrcaCrowd {
    agents: Vec<Agent>,
    /// Per agent, its straight path's corners (xz) and the index of the next.
    paths: Vec<(Vec<Vec2>, usize)>,
    heights: Vec<f32>,
    obstacles: Vec<Obstacle>,
    max_speed: f32,
    neighbourhood: f32,
    arrive_distance: f32,
    options: AvoidanceOptions,
}

fn v2(p: Vec3) -> Vec2 {
    Vec2::new(p.x, p.z)
}

impl OrcaCrowd {
    /// Agents from each pair's start to its goal (both snapped to `navmesh` by the path
    /// query), of `radius` and `max_speed`, inside the floor of `triangles` (xz).
    pub fn new(
        navmesh: &NavMesh,
        triangles: &[[Vec3; 3]],
        pairs: &[(Vec3, Vec3)],
        radius: f32,
        max_speed: f32,
        arrive_distance: f32,
    ) -> OrcaCrowd {
        let mut q = navmesh.query().unwrap();
        let options = PathOptions {
            smooth: None,
            ..PathOptions::default()
        };
        let filter = QueryFilter::default();
        let (mut agents, mut paths, mut heights) = (Vec::new(), Vec::new(), Vec::new());
        for &(a, b) in pairs {
            let path = q.path(a, b, &filter, &options).unwrap();
            let corners: Vec<Vec2> = path.straight.positions().into_iter().map(v2).collect();
            agents.push(Agent {
                position: v2(path.start.point),
                velocity: Vec2::ZERO,
                radius,
                avoidance_responsibility: 1.0,
            });
            heights.push(path.start.point.y);
            paths.push((corners, 1));
        }
        OrcaCrowd {
            agents,
            paths,
            heights,
            obstacles: floor_outline(triangles),
            max_speed,
            neighbourhood: 10.0 * radius,
            arrive_distance,
            options: AvoidanceOptions {
                obstacle_margin: radius,
                time_horizon: 1.0,
                obstacle_time_horizon: 0.5,
            },
        }
    }

    /// Agent `i`'s preferred velocity: towards its next corner at full speed, slowing at the
    /// last; advances past corners within [`CORNER_REACHED`].
    fn preferred(&mut self, i: usize, dt: f32) -> Vec2 {
        let pos = self.agents[i].position;
        let (corners, next) = &mut self.paths[i];
        let last = corners.len().saturating_sub(1);
        while *next < last && corners[*next].distance(pos) < CORNER_REACHED {
            *next += 1;
        }
        let Some(&to) = corners.get(*next) else {
            return Vec2::ZERO;
        };
        let d = to - pos;
        let dist = d.length();
        if dist < 1e-3 {
            return Vec2::ZERO;
        }
        let speed = if *next == last {
            self.max_speed.min(dist / dt)
        } else {
            self.max_speed
        };
        d / dist * speed
    }

    /// One step of `dt` seconds: every agent's avoiding velocity from the same state, then all
    /// move.
    pub fn update(&mut self, dt: f32) {
        let n = self.agents.len();
        for i in 0..n {
            let goal = self.paths[i]
                .0
                .last()
                .copied()
                .unwrap_or(self.agents[i].position);
            let arrived = goal.distance(self.agents[i].position) <= self.arrive_distance;
            self.agents[i].avoidance_responsibility = if arrived { 0.1 } else { 1.0 };
        }
        let preferred: Vec<Vec2> = (0..n).map(|i| self.preferred(i, dt)).collect();
        let obstacles: Vec<Cow<'_, Obstacle>> = self.obstacles.iter().map(Cow::Borrowed).collect();
        let mut velocities = Vec::with_capacity(n);
        for (i, &pref) in preferred.iter().enumerate() {
            let me = &self.agents[i];
            let neighbours: Vec<Cow<'_, Agent>> = self
                .agents
                .iter()
                .enumerate()
                .filter(|&(j, o)| {
                    j != i && o.position.distance(me.position) < self.neighbourhood + o.radius
                })
                .map(|(_, o)| Cow::Borrowed(o))
                .collect();
            velocities.push(me.compute_avoiding_velocity(
                &neighbours,
                &obstacles,
                pref,
                self.max_speed,
                dt,
                &self.options,
            ));
        }
        for (a, v) in self.agents.iter_mut().zip(velocities) {
            a.velocity = v;
            a.position += v * dt;
        }
    }

    /// Every agent's position (3D: xz as moved, y as at the start) and velocity.
    pub fn state(&self, positions: &mut [Vec3], velocities: &mut [Vec3]) {
        for (i, a) in self.agents.iter().enumerate() {
            positions[i] = Vec3::new(a.position.x, self.heights[i], a.position.y);
            velocities[i] = Vec3::new(a.velocity.x, 0.0, a.velocity.y);
        }
    }
}

/// The outline of the floor made of `triangles` (projected on xz), as closed ORCA obstacles
/// with the floor inside: the edges that only one triangle has, split where another triangle's
/// corner lies on them (floors made of rectangles meet in T-junctions), oriented with the
/// floor on their right (dodgy_2d's solid side is the left), chained into loops, collinear
/// corners dropped.
pub fn floor_outline(triangles: &[[Vec3; 3]]) -> Vec<Obstacle> {
    // A point rounded to the tolerance.
    type Key = (i64, i64);
    const EPS: f32 = 1e-4;
    let key = |p: Vec2| -> Key { ((p.x / EPS).round() as i64, (p.y / EPS).round() as i64) };
    let mut corners: Vec<Vec2> = triangles.iter().flatten().map(|&p| v2(p)).collect();
    corners.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    corners.dedup_by(|a, b| key(*a) == key(*b));
    // Every piece of every edge: (from, to, the triangle's third corner).
    // A piece by its ends' keys: one end, the other, the triangle's third corner, how many
    // triangles have it.
    type Piece = (Vec2, Vec2, Vec2, usize);
    let mut pieces: HashMap<(Key, Key), Piece> = HashMap::new();
    for t in triangles {
        let t = t.map(v2);
        for k in 0..3 {
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            let len = a.distance(b);
            let mut cuts: Vec<f32> = corners
                .iter()
                .filter_map(|&p| {
                    let s = (p - a).dot(b - a) / (len * len);
                    let off = (p - (a + (b - a) * s)).length();
                    (s > EPS && s < 1.0 - EPS && off < EPS).then_some(s)
                })
                .collect();
            cuts.sort_by(f32::total_cmp);
            let stops: Vec<Vec2> = std::iter::once(a)
                .chain(cuts.iter().map(|&s| a + (b - a) * s))
                .chain(std::iter::once(b))
                .collect();
            for w in stops.windows(2) {
                let (p, q) = (w[0], w[1]);
                let id = if key(p) < key(q) {
                    (key(p), key(q))
                } else {
                    (key(q), key(p))
                };
                pieces.entry(id).or_insert((p, q, c, 0)).3 += 1;
            }
        }
    }
    // Outline pieces, from -> to, with the floor (the third corner) on the right.
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut next: HashMap<Key, Vec2> = HashMap::new();
    for &(p, q, c, count) in pieces.values() {
        if count == 1 {
            let (from, to) = if cross(p, q, c) > 0.0 { (q, p) } else { (p, q) };
            next.insert(key(from), to);
        }
    }
    let mut loops = Vec::new();
    while let Some(&start) = next.keys().min() {
        let mut ring: Vec<Vec2> = Vec::new();
        let mut at = start;
        while let Some(to) = next.remove(&at) {
            ring.push(to);
            at = key(to);
        }
        // Drop corners on a straight run.
        let n = ring.len();
        let kept: Vec<Vec2> = (0..n)
            .filter(|&i| {
                let (a, b, c) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
                cross(a, b, c).abs() > EPS
            })
            .map(|i| ring[i])
            .collect();
        loops.push(Obstacle::Closed { vertices: kept });
    }
    loops
}
