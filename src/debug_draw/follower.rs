//! The turn-boundary path follower ([`crate::agents::follower`]): its turn boundaries (the
//! lines across the path where it starts turning toward the next waypoint, the finish line),
//! its look points, and the agent itself (heading, current look point and boundary). Its
//! trajectory is [`super::paths::trajectory`] of the positions it went through.

use glam::{Vec2, Vec3};

use super::agents::arrow;
use super::{Color, Dash, Layer};
use crate::agents::follower::{FollowPath, Follower, TurnBoundary};

/// Name of the layer of turn boundaries and look points.
pub const BOUNDARIES_LAYER: &str = "follower.boundaries";
/// Name of the layer of the agent (position, heading, look point).
pub const AGENT_LAYER: &str = "follower.agent";

/// A turn boundary before the slow-down point: blue `duRGBA(32,64,200,220)`, told apart from
/// the trajectory's green ([`super::paths::PathKind::Trajectory`]) it crosses, and from every
/// other path kind's colour.
pub const TURN_COLOR: Color = Color::rgba(32, 64, 200, 220);
/// A turn boundary from the slow-down point on (the agent brakes): orange
/// `duRGBA(255,128,0,220)`.
pub const SLOW_COLOR: Color = Color::rgba(255, 128, 0, 220);
/// The finish line: magenta `duRGBA(220,0,140,220)` (not red, which is the grid path's).
pub const FINISH_COLOR: Color = Color::rgba(220, 0, 140, 220);
/// The agent's circle and heading arrow: `duRGBA(0,0,0,192)`.
pub const AGENT_COLOR: Color = Color::rgba(0, 0, 0, 192);

/// The segment of `b` drawn `half_width` either side of its point, at height `y`.
pub fn boundary_segment(b: &TurnBoundary, y: f32, half_width: f32) -> (Vec3, Vec3) {
    let across = Vec2::new(-b.dir.y, b.dir.x) * half_width;
    let (l, r) = (b.point - across, b.point + across);
    (Vec3::new(l.x, y, l.y), Vec3::new(r.x, y, r.y))
}

/// The colour of boundary `i` of `path`: [`FINISH_COLOR`] for the last, [`SLOW_COLOR`] from the
/// slow-down index on, [`TURN_COLOR`] before.
pub fn boundary_color(path: &FollowPath, i: usize) -> Color {
    if i == path.finish_index() {
        FINISH_COLOR
    } else if i >= path.slow_down_index {
        SLOW_COLOR
    } else {
        TURN_COLOR
    }
}

/// One 2-pixel line per turn boundary (the finish line 3 pixels), `half_width` either side of
/// the path at its look point's height ([`boundary_segment`], [`boundary_color`]), then a
/// 5-pixel point at each look point in its boundary's colour.
pub fn boundaries(path: &FollowPath, half_width: f32) -> Layer {
    let mut l = Layer::new(BOUNDARIES_LAYER);
    let n = path.boundaries.len().min(path.look_points.len());
    for i in 0..n {
        let (a, b) = boundary_segment(&path.boundaries[i], path.look_points[i].y, half_width);
        let w = if i == path.finish_index() { 3.0 } else { 2.0 };
        l.line(a, b, boundary_color(path, i), w);
    }
    for i in 0..n {
        l.point(path.look_points[i], boundary_color(path, i), 5.0);
    }
    l
}

/// The agent now: a 16-segment circle of `radius` at its position and an arrow of length
/// `radius * 2` along its heading ([`AGENT_COLOR`]); unless it has finished, a dashed line to
/// the look point it steers toward and the boundary it must cross next, 4 pixels wide, in that
/// boundary's colour, `radius * 2` either side of the path.
pub fn agent(f: &Follower, radius: f32) -> Layer {
    let mut l = Layer::new(AGENT_LAYER);
    let p = f.position();
    let lift = Vec3::Y * 0.05;
    l.circle(p + lift, radius, AGENT_COLOR, 2.0, 16);
    let h = f.heading();
    arrow(
        &mut l,
        p + lift,
        p + lift + Vec3::new(h.x, 0.0, h.y) * radius * 2.0,
        AGENT_COLOR,
        2.0,
    );
    let path = f.path();
    let i = f.index();
    if !f.finished()
        && let (Some(b), Some(&look)) = (path.boundaries.get(i), path.look_points.get(i))
    {
        let c = boundary_color(path, i);
        l.dashed_line(p + lift, look + lift, c, 2.0, Dash::Dashed);
        let (a, e) = boundary_segment(b, look.y, radius * 2.0);
        l.line(a + lift, e + lift, c, 4.0);
    }
    l
}
