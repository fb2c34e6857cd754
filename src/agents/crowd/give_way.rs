//! Who must step aside for whom this frame, and where to.
//!
//! A walking agent looks along its path (its next corners, [`CrowdBehaviours::look_ahead`]
//! metres) at the neighbours DetourCrowd found for it: one of lower priority standing
//! (arrived, idle, or waiting aside) within the sum of their radii plus
//! [`CrowdBehaviours::margin`] of that path, ahead of it, must give way at once; one walking
//! must yield by the head-on rule ([`super::head_on`]). Each agent answers the request of
//! highest priority.
//!
//! The spot: candidates beside the mover's path, on the side the agent already is first, at the
//! sum of the radii plus the margin from it, level with the agent or a little ahead (in the
//! mover's direction); each reached by a navmesh raycast from the agent (cut at a wall), kept
//! if it is still clear of the path and of other agents; the nearest wins, sideways before
//! ahead. Where none is clear (a single-file passage), the agent walks ahead along the mover's
//! path until one is.

use glam::Vec3;

use super::aside::Ctx;
use super::behaviours::CrowdBehaviours;
use super::mind::{Mind, Mode, Snap};
use super::polyline::{dist_xz, flat};
use crate::Result;
use crate::query::PolyRef;

/// A request to step aside: from agent slot `by`, of priority `rank`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub by: usize,
    pub rank: u64,
}

/// Per slot, the request of highest priority it must answer this frame.
pub(super) fn requests(
    snaps: &[Option<Snap>],
    minds: &[Mind],
    b: &CrowdBehaviours,
) -> Vec<Option<Request>> {
    let mut req: Vec<Option<Request>> = vec![None; snaps.len()];
    for (ai, sa) in snaps.iter().enumerate() {
        let Some(sa) = sa else { continue };
        // An agent walking home after giving way asks no one to make way for it (else arrived
        // agents with goals close together would keep stepping aside for each other).
        if !sa.walking || sa.path.is_point() || matches!(minds[ai].mode, Mode::Returning { .. }) {
            continue;
        }
        for bi in sa.neighbours() {
            let Some(sb) = snaps.get(bi).and_then(Option::as_ref) else {
                continue;
            };
            if sb.rank >= sa.rank || !in_way(sa, sb, b.margin) {
                continue;
            }
            let needed = if sb.walking {
                b.head_on && super::head_on::must_yield(sa, sb, &minds[ai], &minds[bi], b)
            } else {
                b.give_way
            };
            if needed && req[bi].is_none_or(|r| sa.rank > r.rank) {
                req[bi] = Some(Request {
                    by: ai,
                    rank: sa.rank,
                });
            }
        }
    }
    req
}

/// True when `b` stands within the sum of the radii plus `margin` of `a`'s look-ahead path,
/// ahead of `a`.
pub(super) fn in_way(a: &Snap, b: &Snap, margin: f32) -> bool {
    flat(b.pos - a.pos).dot(a.heading) > 0.0
        && a.path
            .project(b.pos)
            .is_some_and(|p| p.dist < a.radius + b.radius + margin)
}

/// Where agent `me` (slot `me_slot`) steps aside for `mover` (see the module docs), snapped to
/// the navmesh; `None` when it cannot tell.
pub(super) fn choose_spot(
    ctx: &mut Ctx<'_, '_>,
    me_slot: usize,
    me: &Snap,
    mover_slot: usize,
    mover: &Snap,
    claimed: &[(usize, Vec3)],
) -> Result<Option<(PolyRef, Vec3)>> {
    let Some(pr) = mover.full.project(me.pos) else {
        return Ok(None);
    };
    let Some((start, _)) = ctx.nearest(me.pos)? else {
        return Ok(None);
    };
    let need = me.radius + mover.radius;
    let c = need + ctx.b.margin;
    let (u, n) = (pr.dir, Vec3::new(-pr.dir.z, 0.0, pr.dir.x));
    let side0 = if flat(me.pos - pr.point).dot(n) < -0.05 {
        -1.0
    } else {
        1.0
    };
    let others: Vec<&Snap> = me
        .neighbours()
        .chain(mover.neighbours())
        .filter(|&s| s != me_slot && s != mover_slot)
        .filter_map(|s| ctx.snaps.get(s).and_then(Option::as_ref))
        .collect();
    // Off the path and clear of others first; off the path next to others (they move) next.
    let mut best: Option<(f32, Vec3)> = None;
    for (si, side) in [side0, -side0].into_iter().enumerate() {
        for f in [0.0, 0.5, 1.0, 2.0] {
            let mut cand = pr.point + n * (side * c) + u * (f * c);
            cand.y = me.pos.y;
            let Some(reach) = ctx.reach(start, me.pos, cand)? else {
                continue;
            };
            if !mover.full.project(reach).is_some_and(|p| p.dist >= need) {
                continue;
            }
            // Next to another agent, on another spot chosen aside, or in another walker's way.
            let crowded = others
                .iter()
                .any(|o| dist_xz(reach, o.pos) < me.radius + o.radius + 0.05)
                || claimed
                    .iter()
                    .any(|&(s, p)| s != me_slot && dist_xz(reach, p) < 2.0 * me.radius + 0.05);
            let in_way = others.iter().any(|o| {
                o.walking
                    && o.path
                        .project(reach)
                        .is_some_and(|p| p.dist < me.radius + o.radius)
            });
            let score = dist_xz(me.pos, reach)
                + 0.5 * f * c
                + 0.3 * si as f32
                + if crowded { 10.0 } else { 0.0 }
                + if in_way { 5.0 } else { 0.0 };
            if best.is_none_or(|(s, _)| score < s) {
                best = Some((score, reach));
            }
        }
    }
    let spot = match best {
        Some((_, p)) => p,
        // Single file (walls on both sides): on ahead along the mover's way.
        None => mover.full.point_at(pr.along + c + 1.0),
    };
    ctx.nearest(spot)
}
