//! The smooth path: RecastDemo's "Pathfind Follow" loop, in Rust over the query API.
//!
//! Starting on the corridor's first polygon, the loop repeatedly
//! 1. finds a steer target: the first straight-path corner (of at most 3) farther than `slop`,
//!    or an off-mesh connection's start (`getSteerTarget`);
//! 2. moves `step_size` toward it along the surface (`moveAlongSurface`), merging the visited
//!    polygons into the corridor (`dtMergeCorridorStartMoved`, then `fixupShortcuts`);
//! 3. snaps the new point to the detail surface (`getPolyHeight`);
//! 4. at the end of the corridor adds the target and stops; at an off-mesh connection adds its
//!    start point (twice when the count is odd, as RecastDemo does) and jumps to its end.
//!
//! For the same navmesh, corridor and end points the points are exactly RecastDemo's, bit for bit,
//! including RecastDemo's height of 0 where the height lookup fails. Where RecastDemo gets stuck
//! (the loop reaches a state it has been in before and would repeat one point up to the cap),
//! this stops at once and reports [`SmoothPath::stuck`].

use glam::Vec3;

use crate::query::{NavMeshQuery, PolyRef, QueryFilter, StraightPath, check_point, straight_flags};
use crate::{Error, Result};

/// Parameters of the smooth-path loop; the defaults are RecastDemo's.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SmoothPathOptions {
    /// Distance moved per iteration (0.5).
    pub step_size: f32,
    /// How close counts as "at" a corner (0.01).
    pub slop: f32,
    /// The most points produced (2048, RecastDemo's `MAX_SMOOTH`; at most
    /// [`MAX_BUFFER`](crate::query::MAX_BUFFER)).
    pub max_points: usize,
    /// The most polygons kept in the corridor (256, RecastDemo's `MAX_POLYS`; at most
    /// [`MAX_BUFFER`](crate::query::MAX_BUFFER)).
    pub max_polys: usize,
}

impl Default for SmoothPathOptions {
    fn default() -> Self {
        SmoothPathOptions {
            step_size: 0.5,
            slop: 0.01,
            max_points: 2048,
            max_polys: 256,
        }
    }
}

/// A smooth path along the detail surface.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SmoothPath {
    /// The points, start first.
    pub points: Vec<Vec3>,
    /// True if the loop reached the end of the corridor.
    pub reached_end: bool,
    /// True if the loop got stuck (RecastDemo would repeat a point until `max_points`).
    pub stuck: bool,
    /// True if `max_points` ran out before the end.
    pub truncated: bool,
    /// Off-mesh connections traversed.
    pub off_mesh_jumps: usize,
}

impl SmoothPath {
    /// Length of the polyline (off-mesh jumps included).
    pub fn length(&self) -> f32 {
        self.points.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

fn in_range(a: [f32; 3], b: [f32; 3], r: f32, h: f32) -> bool {
    let dx = b[0] - a[0];
    let dy = b[1] - a[1];
    let dz = b[2] - a[2];
    (dx * dx + dz * dz) < r * r && dy.abs() < h
}

/// The buffers the smooth-path loop reuses between calls, kept by the query
/// ([`NavMeshQuery::smooth_scratch`]).
#[derive(Default)]
pub(crate) struct SmoothScratch {
    /// The corridor being walked.
    polys: Vec<PolyRef>,
    /// The corridor at the last saved state (cycle detection).
    saved: Vec<PolyRef>,
    /// Neighbours of the corridor's first polygon.
    neis: Vec<PolyRef>,
    /// The straight path to the steer target.
    steer: StraightPath,
}

struct Steer {
    pos: [f32; 3],
    flag: u8,
    poly: PolyRef,
}

/// `getSteerTarget`: the first of (at most 3) straight-path corners beyond `min_dist`, stopping at
/// an off-mesh connection.
fn steer_target(
    q: &mut NavMeshQuery<'_>,
    start: [f32; 3],
    end: [f32; 3],
    min_dist: f32,
    path: &[PolyRef],
    out: &mut StraightPath,
) -> Option<Steer> {
    if !q.straight_corners(start, end, path, 3, out) {
        // Detour wrote no corner (RecastDemo's loop finds no steer target and stops).
        return None;
    }
    let corners = &out.points;
    let n = corners.len();
    let mut ns = 0;
    while ns < n {
        if corners[ns].flags & straight_flags::OFFMESH_CONNECTION != 0
            || !in_range(corners[ns].pos.to_array(), start, min_dist, 1000.0)
        {
            break;
        }
        ns += 1;
    }
    if ns >= n {
        return None;
    }
    let mut pos = corners[ns].pos.to_array();
    pos[1] = start[1];
    Some(Steer {
        pos,
        flag: corners[ns].flags,
        poly: corners[ns].poly,
    })
}

/// `getPolyHeight` of `poly` at `pos`, or 0 where the lookup fails (as RecastDemo's loop, which
/// keeps its initial 0).
fn height_or_zero(q: &mut NavMeshQuery<'_>, poly: PolyRef, pos: [f32; 3]) -> f32 {
    q.poly_height_or_zero(poly, pos)
}

/// `fixupShortcuts`: if a polygon within the next few of the corridor neighbours the first,
/// cut the U-turn.
fn fixup_shortcuts(q: &NavMeshQuery<'_>, path: &mut Vec<PolyRef>, neis: &mut Vec<PolyRef>) {
    if path.len() < 3 {
        return;
    }
    const MAX_NEIS: usize = 16;
    const MAX_LOOK_AHEAD: usize = 6;
    if !q.navmesh().neighbours_into(path[0], neis) {
        return;
    }
    neis.truncate(MAX_NEIS);
    let mut cut = 0;
    let mut i = MAX_LOOK_AHEAD.min(path.len()) - 1;
    while i > 1 && cut == 0 {
        if neis.contains(&path[i]) {
            cut = i;
        }
        i -= 1;
    }
    if cut > 1 {
        path.drain(1..cut);
    }
}

/// Walks the corridor `corridor` (from [`NavMeshQuery::find_path`]) from `start_pos` to
/// `end_pos` in small steps on the detail surface, as RecastDemo's "Pathfind Follow" tool.
///
/// ```no_run
/// # fn f(q: &mut navkit::query::NavMeshQuery, a: glam::Vec3, b: glam::Vec3) -> navkit::Result<()> {
/// use navkit::query::{QueryFilter, smooth::{smooth_path, SmoothPathOptions}};
/// let filter = QueryFilter::default();
/// let path = q.find_path_between(a, b, &filter)?;
/// let smooth = smooth_path(q, &path.polys, a, b, &filter, &SmoothPathOptions::default())?;
/// assert!(!smooth.stuck);
/// # Ok(()) }
/// ```
pub fn smooth_path(
    q: &mut NavMeshQuery<'_>,
    corridor: &[PolyRef],
    start_pos: Vec3,
    end_pos: Vec3,
    filter: &QueryFilter,
    opts: &SmoothPathOptions,
) -> Result<SmoothPath> {
    let mut out = SmoothPath::default();
    smooth_path_into(q, corridor, start_pos, end_pos, filter, opts, &mut out)?;
    Ok(out)
}

/// [`smooth_path`] writing into `out`, reusing its buffer and the query's scratch buffers (no
/// allocation once warm).
pub fn smooth_path_into(
    q: &mut NavMeshQuery<'_>,
    corridor: &[PolyRef],
    start_pos: Vec3,
    end_pos: Vec3,
    filter: &QueryFilter,
    opts: &SmoothPathOptions,
    out: &mut SmoothPath,
) -> Result<()> {
    out.points.clear();
    out.reached_end = false;
    out.stuck = false;
    out.truncated = false;
    out.off_mesh_jumps = 0;
    let spos = check_point("start_pos", start_pos)?;
    let epos = check_point("end_pos", end_pos)?;
    if !(opts.step_size.is_finite()
        && opts.step_size > 0.0
        && opts.slop.is_finite()
        && opts.slop >= 0.0)
    {
        return Err(Error::InvalidArgument(format!(
            "step size {} and slop {} must be finite and positive",
            opts.step_size, opts.slop
        )));
    }
    // The corridor buffer is reserved up front and handed to Detour with an `int` length.
    let most = crate::query::MAX_BUFFER;
    if !(1..=most).contains(&opts.max_polys) || !(1..=most).contains(&opts.max_points) {
        return Err(Error::InvalidArgument(format!(
            "max_polys {} and max_points {} must be in 1..={most}",
            opts.max_polys, opts.max_points
        )));
    }
    if corridor.is_empty() {
        return Ok(());
    }
    for &r in corridor {
        if !q.navmesh().is_valid(r) {
            return Err(Error::InvalidArgument(format!(
                "corridor poly {r} is not a polygon of this navmesh"
            )));
        }
    }
    let SmoothScratch {
        mut polys,
        saved: mut saved_polys,
        mut neis,
        steer: mut straight,
    } = std::mem::take(q.smooth_scratch());
    polys.clear();
    polys.extend(corridor.iter().take(opts.max_polys));
    // As RecastDemo, which ignores the status: (0, 0, 0) if the lookup fails (the corridor's
    // polygons were checked above, so it does not).
    let closest = |q: &mut NavMeshQuery<'_>, poly: PolyRef, pos: [f32; 3]| {
        q.closest_point_on_poly(poly, Vec3::from_array(pos))
            .map_or([0.0; 3], |(c, _)| c.to_array())
    };
    let mut iter_pos = closest(q, polys[0], spos);
    let target_pos = closest(q, polys[polys.len() - 1], epos);
    let max = opts.max_points;
    out.points.push(Vec3::from_array(iter_pos));

    // Cycle detection (Brent): the state (corridor, position) saved at power-of-two steps.
    saved_polys.clear();
    let mut saved_pos = [u32::MAX; 3];
    let (mut power, mut lambda) = (1usize, 0usize);

    while !polys.is_empty() && out.points.len() < max {
        let Some(steer) = steer_target(q, iter_pos, target_pos, opts.slop, &polys, &mut straight)
        else {
            break;
        };
        let end_of_path = steer.flag & straight_flags::END != 0;
        let off_mesh = steer.flag & straight_flags::OFFMESH_CONNECTION != 0;

        let delta = [
            steer.pos[0] - iter_pos[0],
            steer.pos[1] - iter_pos[1],
            steer.pos[2] - iter_pos[2],
        ];
        let mut len = (delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]).sqrt();
        if (end_of_path || off_mesh) && len < opts.step_size {
            len = 1.0;
        } else {
            len = opts.step_size / len;
        }
        let move_tgt = [
            iter_pos[0] + delta[0] * len,
            iter_pos[1] + delta[1] * len,
            iter_pos[2] + delta[2] * len,
        ];

        let moved = q.move_corridor_start(&mut polys, opts.max_polys, iter_pos, move_tgt, filter);
        let Some(moved) = moved else {
            out.stuck = true;
            break;
        };
        let mut result = moved;
        fixup_shortcuts(q, &mut polys, &mut neis);

        // RecastDemo keeps h = 0 when the lookup fails; so do we, to give the same points.
        result[1] = height_or_zero(q, polys[0], result);
        iter_pos = result;

        if end_of_path && in_range(iter_pos, steer.pos, opts.slop, 1.0) {
            iter_pos = target_pos;
            if out.points.len() < max {
                out.points.push(Vec3::from_array(iter_pos));
            }
            out.reached_end = true;
            break;
        } else if off_mesh && in_range(iter_pos, steer.pos, opts.slop, 1.0) {
            // Advance the corridor up to and over the off-mesh connection.
            let mut prev_ref = PolyRef(0);
            let mut poly_ref = polys[0];
            let mut npos = 0;
            while npos < polys.len() && poly_ref != steer.poly {
                prev_ref = poly_ref;
                poly_ref = polys[npos];
                npos += 1;
            }
            polys.drain(..npos);
            if let Ok((start, end)) = q
                .navmesh()
                .off_mesh_connection_endpoints(prev_ref, poly_ref)
            {
                if out.points.len() < max {
                    out.points.push(start);
                    if out.points.len() % 2 == 1 {
                        out.points.push(start);
                    }
                }
                iter_pos = end.to_array();
                let eh = if polys.is_empty() {
                    0.0
                } else {
                    height_or_zero(q, polys[0], iter_pos)
                };
                iter_pos[1] = eh;
                out.off_mesh_jumps += 1;
            }
        }

        if out.points.len() < max {
            out.points.push(Vec3::from_array(iter_pos));
        }

        // The loop is deterministic in (corridor, position): a repeated state repeats forever.
        let pos_bits = iter_pos.map(f32::to_bits);
        if pos_bits == saved_pos && polys == saved_polys {
            out.stuck = true;
            trim_repeats(&mut out.points, lambda + 1);
            break;
        }
        lambda += 1;
        if lambda == power {
            saved_pos = pos_bits;
            saved_polys.clear();
            saved_polys.extend_from_slice(&polys);
            power *= 2;
            lambda = 0;
        }
    }
    if !out.reached_end && !out.stuck && out.points.len() >= max {
        out.truncated = true;
    }
    *q.smooth_scratch() = SmoothScratch {
        polys,
        saved: saved_polys,
        neis,
        steer: straight,
    };
    Ok(())
}

/// Cuts a stuck path's tail, which repeats with period `cycle`, to its first full cycle: the
/// points RecastDemo would go on repeating appear once.
fn trim_repeats(points: &mut Vec<Vec3>, cycle: usize) {
    let n = points.len();
    if cycle == 0 || n <= cycle {
        return;
    }
    let mut start = n - cycle;
    while start > 0 && points[start - 1] == points[start - 1 + cycle] {
        start -= 1;
    }
    points.truncate(start + cycle);
    // A fixed point (cycle of one state) leaves the same point twice in a row: keep one.
    while points.len() >= 2 && points[points.len() - 1] == points[points.len() - 2] {
        points.pop();
    }
}

/// Everything RecastDemo's tester tool computes for one start/end pair.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FullPath {
    /// Start polygon and point on it.
    pub start: crate::query::NearestPoly,
    /// End polygon and point on it.
    pub end: crate::query::NearestPoly,
    /// The polygon corridor.
    pub path: crate::query::Path,
    /// The straight path (to the end point, or for a partial path to the closest point of the
    /// last polygon, as RecastDemo's "Pathfind Straight" tool).
    pub straight: crate::query::StraightPath,
    /// The smooth path.
    pub smooth: SmoothPath,
}

/// The polygon corridor and straight path between two points, as RecastDemo's tester tool
/// computes them (the first half of [`full_path`], without the smooth path).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CorridorPath {
    /// Start polygon and point on it.
    pub start: crate::query::NearestPoly,
    /// End polygon and point on it.
    pub end: crate::query::NearestPoly,
    /// The polygon corridor.
    pub path: crate::query::Path,
    /// The straight path (to the end point, or for a partial path to the closest point of the
    /// last polygon).
    pub straight: crate::query::StraightPath,
}

/// Nearest polygons (half extents (2, 4, 2)), `findPath` (256 polys) and `findStraightPath`
/// (256 corners), as RecastDemo's tester tool does them.
pub fn corridor_path(
    q: &mut NavMeshQuery<'_>,
    start: Vec3,
    end: Vec3,
    filter: &QueryFilter,
) -> Result<CorridorPath> {
    use crate::query::{DEFAULT_HALF_EXTENTS, DEFAULT_MAX_PATH, StraightPathOptions};
    let s = q.nearest_poly("start", start, DEFAULT_HALF_EXTENTS, filter)?;
    let e = q.nearest_poly("end", end, DEFAULT_HALF_EXTENTS, filter)?;
    let path = q.find_path(s.poly, e.poly, start, end, filter, DEFAULT_MAX_PATH)?;
    let mut straight_end = end;
    if let Some(&last) = path.polys.last() {
        if last != e.poly {
            straight_end = q.closest_point_on_poly(last, end)?.0;
        }
    }
    let straight = if path.polys.is_empty() {
        crate::query::StraightPath::default()
    } else {
        let mut st = q.find_straight_path(
            start,
            straight_end,
            &path.polys,
            DEFAULT_MAX_PATH,
            StraightPathOptions::default(),
        )?;
        st.partial |= !path.is_complete();
        st
    };
    Ok(CorridorPath {
        start: s,
        end: e,
        path,
        straight,
    })
}

/// [`corridor_path`] and then the smooth path along the corridor: everything RecastDemo's
/// tester tool computes.
pub fn full_path(
    q: &mut NavMeshQuery<'_>,
    start: Vec3,
    end: Vec3,
    filter: &QueryFilter,
    opts: &SmoothPathOptions,
) -> Result<FullPath> {
    let c = corridor_path(q, start, end, filter)?;
    let smooth = smooth_path(q, &c.path.polys, start, end, filter, opts)?;
    Ok(FullPath {
        start: c.start,
        end: c.end,
        path: c.path,
        straight: c.straight,
        smooth,
    })
}
