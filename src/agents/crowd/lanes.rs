//! Lanes: two agents walking at each other pass on an agreed side instead of both braking
//! and side-stepping (often the same way) as DetourCrowd's avoidance alone has them do.
//!
//! A walking agent with an oncoming walking neighbour ahead (headings more than
//! [`ONCOMING_DEG`] apart, nearer than the look-ahead, their lateral offset below the sum of
//! their radii plus the margin) turns its desired velocity towards one side by an angle that
//! grows as they close ([`MIN_DEG`] to [`MAX_DEG`]): to the side away from the other where
//! it already stands clearly to one side (more than half the sum of their radii off), else to
//! its right (y up: walking towards +x, its right is +z; the same rule for every agent). Both
//! see the same offset, so both turn to
//! opposite sides in the world and pass without braking, as pedestrians form lanes (Helbing's
//! social-force lanes; the side bias RVO crowds add against the "reciprocal dance"). No turn
//! where the navmesh has no room on that side (a raycast from the agent sideways). The turn is
//! handed to navkit's crowd update, which applies it after DetourCrowd's steering and before
//! obstacle avoidance (upstream's `dtCrowd::update` has no such hook:
//! [`CrowdEngine::Upstream`](super::CrowdEngine::Upstream) runs without lanes).

use glam::Vec3;

use super::aside::Ctx;
use super::mind::{Mind, Mode, Snap};
use super::polyline::{dist_xz, flat};
use crate::Result;

/// Headings further apart than this (degrees) meet head-on.
const ONCOMING_DEG: f32 = 110.0;
/// The turn at the look-ahead distance, and at contact (degrees).
const MIN_DEG: f32 = 10.0;
const MAX_DEG: f32 = 25.0;
/// The room an agent needs on the side it turns to: this many radii plus the margin.
const ROOM: f32 = 3.0;
/// A neighbour this far off its line (share of the sum of their radii) is clearly to one side.
const KEEP_OFF: f32 = 0.5;

/// The nearest oncoming neighbour of `me` that lanes concern: its along-track gap (between
/// edges), lateral offset (positive: on the side of a positive turn) and the sum of the radii.
fn oncoming(snaps: &[Option<Snap>], me: &Snap, ctx: &Ctx<'_, '_>) -> Option<(f32, f32, f32)> {
    let cos_on = ONCOMING_DEG.to_radians().cos();
    let side = Vec3::new(-me.heading.z, 0.0, me.heading.x);
    let mut best: Option<(f32, f32, f32)> = None;
    for n in me.neighbours() {
        let Some(o) = snaps.get(n).and_then(Option::as_ref) else {
            continue;
        };
        if !o.walking || o.heading.dot(me.heading) >= cos_on {
            continue;
        }
        let d = flat(o.pos - me.pos);
        let radii = me.radius + o.radius;
        let gap = d.dot(me.heading) - radii;
        let lateral = d.dot(side);
        if d.dot(me.heading) <= 0.0
            || gap > ctx.b.look_ahead
            || lateral.abs() >= radii + ctx.b.margin
            || best.is_some_and(|(g, _, _)| g <= gap)
        {
            continue;
        }
        best = Some((gap.max(0.0), lateral, radii));
    }
    best
}

/// Every walking agent's turn for the next update (radians, by slot; 0: none).
pub(super) fn update(ctx: &mut Ctx<'_, '_>, minds: &[Mind]) -> Result<Vec<(usize, f32)>> {
    let mut turns = Vec::new();
    let snaps = ctx.snaps;
    for (slot, (s, mind)) in snaps.iter().zip(minds).enumerate() {
        let Some(me) = s else { continue };
        if !me.walking
            || me.path.is_point()
            || !matches!(mind.mode, Mode::Normal | Mode::Detour { .. })
        {
            continue;
        }
        let Some((gap, lateral, radii)) = oncoming(snaps, me, ctx) else {
            continue;
        };
        // Positive turn: towards `side`; keep to the side the other is not on when it is
        // clearly on one, else to the agreed one.
        let sign = if lateral.abs() > KEEP_OFF * radii {
            -lateral.signum()
        } else {
            1.0
        };
        let side = Vec3::new(-me.heading.z, 0.0, me.heading.x) * sign;
        let Some((poly, from)) = ctx.nearest(me.pos)? else {
            continue;
        };
        let to = from + side * (ROOM * me.radius + ctx.b.margin);
        let room = ctx
            .reach(poly, from, to)?
            .is_some_and(|p| dist_xz(p, to) < 0.01);
        if !room {
            continue;
        }
        let close = 1.0 - (gap / ctx.b.look_ahead.max(1e-3)).clamp(0.0, 1.0);
        let deg = MIN_DEG + (MAX_DEG - MIN_DEG) * close;
        turns.push((slot, sign * deg.to_radians()));
    }
    Ok(turns)
}
