//! Standing aside, from start to end: an agent asked to make way ([`super::give_way`]) walks to
//! its spot and waits there; when nobody of higher priority has needed it for
//! [`CrowdBehaviours::resume_after`](super::CrowdBehaviours::resume_after) it resumes: an agent
//! that yielded on its way goes on to its target, one that stood (arrived or idle) walks back
//! to its place (home) and stands there again.

use glam::Vec3;

use super::behaviours::{Action, CrowdBehaviours};
use super::give_way::{Request, choose_spot};
use super::mind::{AsideKind, Mind, Mode, Snap, base_rank};
use super::polyline::dist_xz;
use crate::Result;
use crate::navmesh::NavMesh;
use crate::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, RaycastOptions};

/// Seconds before an agent still asked to make way by the same agent picks its spot again.
const REPICK: f32 = 0.5;
/// Seconds an agent stands aside at most before it resumes anyway (and stuck detection may
/// report it).
const MAX_ASIDE: f32 = 8.0;
/// Seconds an agent walking home may stall near it before it counts as home.
const HOME_STALL: f32 = 1.0;

/// What the behaviours' navmesh work needs: the navmesh, a query made when first needed, the
/// frame's agents and options.
pub(super) struct Ctx<'a, 'n> {
    pub nav: &'n NavMesh,
    pub query: &'a mut Option<NavMeshQuery<'n>>,
    pub filter: &'a QueryFilter,
    pub snaps: &'a [Option<Snap>],
    pub b: &'a CrowdBehaviours,
    pub dt: f32,
}

impl<'n> Ctx<'_, 'n> {
    fn query(&mut self) -> Result<&mut NavMeshQuery<'n>> {
        if self.query.is_none() {
            *self.query = Some(NavMeshQuery::new(self.nav, 64)?);
        }
        Ok(self.query.as_mut().expect("made above"))
    }

    /// The navmesh point nearest `p` and its polygon (`None` off the navmesh).
    pub fn nearest(&mut self, p: Vec3) -> Result<Option<(PolyRef, Vec3)>> {
        let filter = self.filter.clone();
        let q = self.query()?;
        Ok(q.find_nearest_poly(p, DEFAULT_HALF_EXTENTS, &filter)
            .ok()
            .map(|n| (n.poly, n.point)))
    }

    /// How far towards `to` an agent at `from` (on `start`) walks straight on the navmesh: `to`,
    /// or a little short of the wall in the way; `None` when that is (nearly) nowhere.
    pub fn reach(&mut self, start: PolyRef, from: Vec3, to: Vec3) -> Result<Option<Vec3>> {
        let filter = self.filter.clone();
        let q = self.query()?;
        let opts = RaycastOptions {
            max_path: 32,
            ..RaycastOptions::default()
        };
        let Ok(hit) = q.raycast(start, from, to, &filter, &opts) else {
            return Ok(None);
        };
        let len = dist_xz(from, to).max(1e-6);
        let t = if hit.t > 1.0 {
            1.0
        } else {
            (hit.t - 0.05 / len).max(0.0)
        };
        let p = from + (to - from) * t;
        Ok((dist_xz(from, p) > 0.1).then_some(p))
    }
}

/// Starts, keeps and ends every agent's standing aside.
pub(super) fn update(
    ctx: &mut Ctx<'_, '_>,
    requests: &[Option<Request>],
    minds: &mut [Mind],
    actions: &mut Vec<Action>,
) -> Result<()> {
    // The spots agents stand aside at, so that no two pick the same.
    let mut claimed: Vec<(usize, Vec3)> = minds
        .iter()
        .enumerate()
        .filter_map(|(s, m)| match m.mode {
            Mode::Aside { spot, .. } => Some((s, spot)),
            _ => None,
        })
        .collect();
    for slot in 0..ctx.snaps.len() {
        let Some(me) = ctx.snaps[slot] else { continue };
        match (requests[slot], minds[slot].mode) {
            (Some(r), _) => {
                on_request(ctx, slot, &me, r, &mut minds[slot], &claimed, actions)?;
                if let Mode::Aside { spot, .. } = minds[slot].mode {
                    claimed.push((slot, spot));
                }
            }
            (None, Mode::Aside { .. }) => wait(ctx, slot, &me, &mut minds[slot], actions)?,
            (None, Mode::Returning { .. }) => returning(ctx, slot, &me, &mut minds[slot], actions),
            (None, Mode::Detour { .. }) => detour(ctx, slot, &me, &mut minds[slot], actions),
            (None, Mode::Normal) => {}
        }
    }
    Ok(())
}

fn on_request(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    me: &Snap,
    r: Request,
    mind: &mut Mind,
    claimed: &[(usize, Vec3)],
    actions: &mut Vec<Action>,
) -> Result<()> {
    let dt = ctx.dt;
    if let Mode::Aside {
        to,
        rank,
        clear_for,
        age,
        total,
        ..
    } = &mut mind.mode
    {
        *total += dt;
        *age += dt;
        if *to == r.by && *age < REPICK {
            *clear_for = 0.0;
            *rank = r.rank;
            return Ok(());
        }
    }
    let (kind, want, total) = match mind.mode {
        Mode::Aside {
            kind, want, total, ..
        } => (kind, want, total),
        Mode::Returning { .. } => (AsideKind::GiveWay, Vec3::ZERO, 0.0),
        Mode::Normal | Mode::Detour { .. } if me.walking => (AsideKind::Yield, me.heading, 0.0),
        Mode::Normal | Mode::Detour { .. } => (AsideKind::GiveWay, Vec3::ZERO, 0.0),
    };
    let Some(mover) = ctx.snaps[r.by] else {
        return Ok(());
    };
    let Some((poly, spot)) = choose_spot(ctx, slot, me, r.by, &mover, claimed)? else {
        return Ok(());
    };
    if kind == AsideKind::GiveWay && mind.home.is_none() {
        mind.home = Some(match mind.goal {
            Some((_, g)) if mind.arrived => g,
            _ => me.pos,
        });
    }
    actions.push(Action::Target(slot, poly, spot));
    mind.mode = Mode::Aside {
        kind,
        to: r.by,
        rank: r.rank,
        spot,
        clear_for: 0.0,
        age: 0.0,
        total,
        want,
    };
    Ok(())
}

/// Waits aside until the way has been clear for `resume_after`, then resumes.
fn wait(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    me: &Snap,
    mind: &mut Mind,
    actions: &mut Vec<Action>,
) -> Result<()> {
    let clear = is_clear(ctx, slot, me, mind);
    let Mode::Aside {
        kind,
        clear_for,
        age,
        total,
        ..
    } = &mut mind.mode
    else {
        return Ok(());
    };
    *total += ctx.dt;
    *age += ctx.dt;
    *clear_for = if clear { *clear_for + ctx.dt } else { 0.0 };
    if *clear_for < ctx.b.resume_after && *total < MAX_ASIDE {
        return Ok(());
    }
    let kind = *kind;
    match (kind, mind.home) {
        (AsideKind::GiveWay, Some(home)) if !near_home(ctx, me, home) => {
            if let Some((poly, p)) = ctx.nearest(home)? {
                actions.push(Action::Target(slot, poly, p));
            }
            mind.mode = Mode::Returning { slow_for: 0.0 };
        }
        _ => home_again(slot, mind, actions, true),
    }
    Ok(())
}

fn near_home(ctx: &Ctx<'_, '_>, me: &Snap, home: Vec3) -> bool {
    dist_xz(me.pos, home) <= me.radius.max(ctx.b.arrive_distance)
}

/// Back to plain DetourCrowd towards the user's target (none for an idle agent); `retarget`:
/// the dtCrowd agent's target is a behaviour's, not already the user's.
fn home_again(slot: usize, mind: &mut Mind, actions: &mut Vec<Action>, retarget: bool) {
    mind.mode = Mode::Normal;
    mind.home = None;
    match mind.goal {
        Some((poly, p)) if retarget => actions.push(Action::Target(slot, poly, p)),
        Some(_) => {}
        None => actions.push(Action::Reset(slot)),
    }
}

/// Walking home: there, or stalled near it (someone else stands there) for [`HOME_STALL`].
fn returning(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    me: &Snap,
    mind: &mut Mind,
    actions: &mut Vec<Action>,
) {
    let Some(home) = mind.home else {
        home_again(slot, mind, actions, mind.goal.is_none());
        return;
    };
    let Mode::Returning { slow_for } = &mut mind.mode else {
        return;
    };
    let slow = me.vel.length() < 0.25 * me.max_speed;
    *slow_for = if slow { *slow_for + ctx.dt } else { 0.0 };
    let near = dist_xz(me.pos, home) <= 2.0 * me.radius + ctx.b.arrive_distance + 1.0;
    if near_home(ctx, me, home) || near && *slow_for >= HOME_STALL {
        // Walking home was walking to the user's target, if it has one.
        home_again(slot, mind, actions, false);
    }
}

/// On a way around blocking agents: at the waypoint (or after twice `replan_after`), on to
/// the user's target again.
fn detour(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    me: &Snap,
    mind: &mut Mind,
    actions: &mut Vec<Action>,
) {
    let Mode::Detour { waypoint, age } = &mut mind.mode else {
        return;
    };
    *age += ctx.dt;
    let there = dist_xz(me.pos, *waypoint) <= me.radius.max(ctx.b.arrive_distance) + 0.5;
    if there || *age > 2.0 * ctx.b.replan_after {
        home_again(slot, mind, actions, true);
    }
}

/// True when nobody of higher priority still needs `me` out of the way.
fn is_clear(ctx: &Ctx<'_, '_>, slot: usize, me: &Snap, mind: &Mind) -> bool {
    let Mode::Aside { kind, to, want, .. } = mind.mode else {
        return true;
    };
    let home = mind.home.unwrap_or(me.pos);
    let margin = ctx.b.margin;
    let blocks = |o: &Snap| match kind {
        AsideKind::GiveWay => {
            o.walking
                && super::polyline::flat(home - o.pos).dot(o.heading) > 0.0
                && o.path
                    .project(home)
                    .is_some_and(|p| p.dist < o.radius + me.radius + margin)
        }
        AsideKind::Yield => super::head_on::still_coming(
            me,
            o,
            base_rank(slot, mind.yielded),
            want,
            2.0 * ctx.b.look_ahead,
            margin,
        ),
    };
    !me.neighbours()
        .chain(std::iter::once(to))
        .filter_map(|s| ctx.snaps.get(s).and_then(Option::as_ref))
        .any(blocks)
}
