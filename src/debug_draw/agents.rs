//! Crowd agents, as RecastDemo's crowd tool draws them: a circle of the agent's radius and an
//! upright of its height, the corners it steers toward, and arrows for its velocity and
//! desired velocity.

use glam::Vec3;

use super::{Color, Dash, Layer};
use crate::agents::crowd::AgentState;

/// Name of the agents layer.
pub const AGENTS_LAYER: &str = "crowd.agents";
/// Name of the corners layer.
pub const CORNERS_LAYER: &str = "crowd.corners";
/// Name of the velocities layer.
pub const VELOCITIES_LAYER: &str = "crowd.velocities";

/// An arrow from `a` to `b`: the shaft and two head lines (3 lines).
pub fn arrow(l: &mut Layer, a: Vec3, b: Vec3, color: Color, width: f32) {
    l.line(a, b, color, width);
    let d = b - a;
    let len = d.length();
    let head = (len * 0.3).min(0.4);
    let dir = if len > 1e-6 { d / len } else { Vec3::X };
    let side = Vec3::new(-dir.z, 0.0, dir.x) * head * 0.5;
    l.line(b, b - dir * head + side, color, width);
    l.line(b, b - dir * head - side, color, width);
}

/// Each agent: a 16-segment circle of its radius in `duIntToCol(i + 1, 220)` (agent `i` in
/// `agents`), and an upright of its height (17 lines per agent).
pub fn agents(agents: &[AgentState]) -> Layer {
    let mut l = Layer::new(AGENTS_LAYER);
    for (i, a) in agents.iter().enumerate() {
        let col = Color::from_int(i as u32 + 1, 220);
        l.circle(a.position + Vec3::Y * 0.05, a.params.radius, col, 2.0, 16);
        l.line(
            a.position,
            a.position + Vec3::Y * a.params.height,
            col.darken(),
            2.0,
        );
    }
    l
}

/// Each agent's corners: dashed lines from the agent through them, RecastDemo's
/// `duRGBA(128,0,0,192)`, and a 4-pixel point at each (as many lines and points as corners).
pub fn corners(agents: &[AgentState]) -> Layer {
    let mut l = Layer::new(CORNERS_LAYER);
    let col = Color::rgba(128, 0, 0, 192);
    for a in agents {
        let mut prev = a.position;
        for &c in &a.corners {
            l.dashed_line(prev, c, col, 2.0, Dash::Dashed);
            prev = c;
        }
        for &c in &a.corners {
            l.point(c, col, 4.0);
        }
    }
    l
}

/// Each agent's desired velocity (`duRGBA(220,220,220,192)`) and velocity
/// (`duRGBA(0,0,0,160)`) as arrows from its position, lifted by its height (6 lines per agent).
pub fn velocities(agents: &[AgentState]) -> Layer {
    let mut l = Layer::new(VELOCITIES_LAYER);
    for a in agents {
        let p = a.position + Vec3::Y * a.params.height;
        arrow(
            &mut l,
            p,
            p + a.desired_velocity,
            Color::rgba(220, 220, 220, 192),
            2.0,
        );
        arrow(&mut l, p, p + a.velocity, Color::rgba(0, 0, 0, 160), 2.0);
    }
    l
}
