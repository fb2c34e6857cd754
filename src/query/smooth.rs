//! The smooth path: RecastDemo's "Pathfind Follow" loop, in Rust over the query API
//! ([`NavMeshQuery::smooth_path`]).
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

use crate::ffi::smooth_step::{MAX_NEIS, RefFields, SteerCorners, corridor_room};
use crate::query::{NavMeshQuery, PolyRef, QueryFilter, check_point, straight_flags};
use crate::{Error, Result};

/// Parameters of the smooth-path loop; the defaults are RecastDemo's.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
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

impl SmoothPathOptions {
    /// Checks the options: a finite positive step, a finite slop `>= 0`, and buffers of
    /// 1..=[`MAX_BUFFER`](crate::query::MAX_BUFFER).
    fn check(&self) -> Result<()> {
        if !(self.step_size.is_finite()
            && self.step_size > 0.0
            && self.slop.is_finite()
            && self.slop >= 0.0)
        {
            return Err(Error::InvalidArgument(format!(
                "step size {} and slop {} must be finite and positive",
                self.step_size, self.slop
            )));
        }
        // The corridor buffer is reserved up front and handed to Detour with an `int` length.
        let most = crate::query::MAX_BUFFER;
        if !(1..=most).contains(&self.max_polys) || !(1..=most).contains(&self.max_points) {
            return Err(Error::InvalidArgument(format!(
                "max_polys {} and max_points {} must be in 1..={most}",
                self.max_polys, self.max_points
            )));
        }
        Ok(())
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

    /// Empties the path, keeping its buffer.
    fn clear(&mut self) {
        self.points.clear();
        self.reached_end = false;
        self.stuck = false;
        self.truncated = false;
        self.off_mesh_jumps = 0;
    }

    /// Adds `p` unless the path already has `max` points.
    #[inline(always)]
    fn push_capped(&mut self, p: [f32; 3], max: usize) {
        if self.points.len() < max {
            self.points.push(Vec3::from_array(p));
        }
    }
}

#[inline(always)]
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
    /// The corridor being walked (lent to the [`Walk`] while it runs).
    polys: Vec<PolyRef>,
    /// The corridor at the last saved state (cycle detection).
    saved: Vec<PolyRef>,
}

struct Steer {
    pos: [f32; 3],
    flag: u8,
    poly: PolyRef,
}

/// `getSteerTarget`: the first of (at most 3) straight-path corners beyond `min_dist`, stopping at
/// an off-mesh connection (Detour's corners written into `corners`).
#[inline(always)]
fn steer_target(
    q: &mut NavMeshQuery<'_>,
    start: &[f32; 3],
    end: &[f32; 3],
    min_dist: f32,
    path: &[PolyRef],
    corners: &mut SteerCorners,
) -> Option<Steer> {
    if !q.steer_corners(start, end, path, corners) {
        // Detour wrote no corner (RecastDemo's loop finds no steer target and stops).
        return None;
    }
    let ns = (0..corners.count).find(|&i| {
        corners.flags[i] & straight_flags::OFFMESH_CONNECTION != 0
            || !in_range(corners.points[i], *start, min_dist, 1000.0)
    })?;
    let mut pos = corners.points[ns];
    pos[1] = start[1];
    Some(Steer {
        pos,
        flag: corners.flags[ns],
        poly: PolyRef(corners.refs[ns]),
    })
}

/// The point `step_size` from `from` toward the steer target (the target itself when it ends
/// the path or starts an off-mesh connection and is nearer than a step), as RecastDemo.
#[inline(always)]
fn move_target(from: [f32; 3], steer: &Steer, step_size: f32) -> [f32; 3] {
    let end_of_path = steer.flag & straight_flags::END != 0;
    let off_mesh = steer.flag & straight_flags::OFFMESH_CONNECTION != 0;
    let delta = [
        steer.pos[0] - from[0],
        steer.pos[1] - from[1],
        steer.pos[2] - from[2],
    ];
    let mut len = (delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]).sqrt();
    if (end_of_path || off_mesh) && len < step_size {
        len = 1.0;
    } else {
        len = step_size / len;
    }
    [
        from[0] + delta[0] * len,
        from[1] + delta[1] * len,
        from[2] + delta[2] * len,
    ]
}

/// `fixupShortcuts`: if a polygon within the next few of the corridor neighbours the first,
/// cut the U-turn.
#[inline(always)]
fn fixup_shortcuts(q: &NavMeshQuery<'_>, fields: &RefFields, path: &mut Vec<PolyRef>) {
    if path.len() < 3 {
        return;
    }
    const MAX_LOOK_AHEAD: usize = 6;
    let mut neis = [0; MAX_NEIS];
    let Some(n) = q
        .navmesh()
        .raw()
        .first_neighbours(path[0].0, fields, &mut neis)
    else {
        return;
    };
    let neis = &neis[..n];
    let mut cut = 0;
    let mut i = MAX_LOOK_AHEAD.min(path.len()) - 1;
    while i > 1 && cut == 0 {
        if neis.contains(&path[i].0) {
            cut = i;
        }
        i -= 1;
    }
    if cut > 1 {
        path.drain(1..cut);
    }
}

/// Brent's cycle detection over the loop's state (corridor, position): the loop is
/// deterministic in it, so a repeated state repeats forever.
struct CycleCheck {
    saved_pos: [u32; 3],
    power: usize,
    lambda: usize,
}

impl CycleCheck {
    fn new(saved: &mut Vec<PolyRef>) -> Self {
        saved.clear();
        CycleCheck {
            saved_pos: [u32::MAX; 3],
            power: 1,
            lambda: 0,
        }
    }

    /// True if `(polys, pos)` is the saved state (the loop repeats with period
    /// [`CycleCheck::period`]); else saves it at power-of-two steps.
    #[inline(always)]
    fn repeats(&mut self, polys: &[PolyRef], pos: [f32; 3], saved: &mut Vec<PolyRef>) -> bool {
        let pos_bits = pos.map(f32::to_bits);
        // Component by component: the first almost always differs, and decides.
        if pos_bits[0] == self.saved_pos[0]
            && pos_bits[1] == self.saved_pos[1]
            && pos_bits[2] == self.saved_pos[2]
            && polys == saved.as_slice()
        {
            return true;
        }
        self.lambda += 1;
        if self.lambda == self.power {
            self.saved_pos = pos_bits;
            saved.clear();
            saved.extend_from_slice(polys);
            self.power *= 2;
            self.lambda = 0;
        }
        false
    }

    /// The cycle's length once [`CycleCheck::repeats`] said so.
    fn period(&self) -> usize {
        self.lambda + 1
    }
}

/// One smooth walk along a corridor: the loop's state, held by value (the corridor's buffer is
/// the query's, lent for the walk) so that the per-step code keeps it in registers and on its
/// own stack frame rather than reaching it through a pointer.
struct Walk {
    /// The corridor being walked.
    polys: Vec<PolyRef>,
    /// The straight-path corners toward the steer target.
    corners: SteerCorners,
    /// The navmesh's ref layout, for the corridor's first polygon's neighbours.
    ref_fields: RefFields,
    pos: [f32; 3],
    target: [f32; 3],
}

/// What one step of the walk did.
enum Step {
    /// The walk goes on.
    Moved,
    /// The walk is over (at the end, or no way on).
    Done,
}

impl NavMeshQuery<'_> {
    /// Walks `corridor` (from [`NavMeshQuery::find_path`]) from `start_pos` to `end_pos` in
    /// small steps on the detail surface, as RecastDemo's "Pathfind Follow" tool, for a
    /// corridor you already have (an agent's); [`NavMeshQuery::path`] does this for two points.
    ///
    /// The corridor's polygons must all be of this navmesh ([`Error::InvalidPolyRef`]); an empty
    /// corridor gives an empty path.
    ///
    /// ```no_run
    /// # fn f(q: &mut navkit::query::NavMeshQuery, a: glam::Vec3, b: glam::Vec3) -> navkit::Result<()> {
    /// use navkit::query::{PathOptions, QueryFilter, SmoothPathOptions};
    /// let filter = QueryFilter::default();
    /// let corridor = q.path(a, b, &filter, &PathOptions::corridor_only())?.corridor;
    /// let smooth = q.smooth_path(&corridor.polys, a, b, &filter, &SmoothPathOptions::default())?;
    /// assert!(!smooth.stuck);
    /// # Ok(()) }
    /// ```
    pub fn smooth_path(
        &mut self,
        corridor: &[PolyRef],
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        opts: &SmoothPathOptions,
    ) -> Result<SmoothPath> {
        let mut out = SmoothPath::default();
        self.smooth_path_into(corridor, start_pos, end_pos, filter, opts, &mut out)?;
        Ok(out)
    }

    /// [`NavMeshQuery::smooth_path`] writing into `out`, reusing its buffer and the query's
    /// scratch buffers (no allocation once warm).
    pub fn smooth_path_into(
        &mut self,
        corridor: &[PolyRef],
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        opts: &SmoothPathOptions,
        out: &mut SmoothPath,
    ) -> Result<()> {
        out.clear();
        let spos = check_point("start_pos", start_pos)?;
        let epos = check_point("end_pos", end_pos)?;
        opts.check()?;
        if corridor.is_empty() {
            return Ok(());
        }
        if let Some(&poly) = corridor.iter().find(|&&r| !self.navmesh().is_valid(r)) {
            return Err(Error::InvalidPolyRef {
                argument: "corridor",
                poly,
            });
        }
        let mut scratch = std::mem::take(self.smooth_scratch());
        let polys = std::mem::take(&mut scratch.polys);
        let mut walk = self.begin_walk(polys, corridor, spos, epos, opts);
        out.push_capped(walk.pos, opts.max_points);
        let mut cycle = CycleCheck::new(&mut scratch.saved);
        while !walk.polys.is_empty() && out.points.len() < opts.max_points {
            if let Step::Done = self.walk_step(&mut walk, filter, opts, out) {
                break;
            }
            out.push_capped(walk.pos, opts.max_points);
            if cycle.repeats(&walk.polys, walk.pos, &mut scratch.saved) {
                out.stuck = true;
                trim_repeats(&mut out.points, cycle.period());
                break;
            }
        }
        if !out.reached_end && !out.stuck && out.points.len() >= opts.max_points {
            out.truncated = true;
        }
        scratch.polys = walk.polys;
        *self.smooth_scratch() = scratch;
        Ok(())
    }

    /// The walk's start: the corridor (at most `max_polys`) and the points of its first and
    /// last polygons nearest the two ends (as RecastDemo, which ignores the status: (0, 0, 0)
    /// if a lookup fails; the corridor's polygons were checked, so it does not).
    fn begin_walk(
        &mut self,
        mut polys: Vec<PolyRef>,
        corridor: &[PolyRef],
        spos: [f32; 3],
        epos: [f32; 3],
        opts: &SmoothPathOptions,
    ) -> Walk {
        polys.clear();
        // Room for the corridor and a step's visited polygons: the per-step merge then never
        // grows the buffer.
        polys.reserve(corridor_room(opts.max_polys));
        polys.extend(corridor.iter().take(opts.max_polys));
        let mut closest = |poly: PolyRef, pos: [f32; 3]| {
            self.closest_point_on_poly(poly, Vec3::from_array(pos))
                .map_or([0.0; 3], |(c, _)| c.to_array())
        };
        let pos = closest(polys[0], spos);
        let target = closest(polys[polys.len() - 1], epos);
        Walk {
            polys,
            corners: SteerCorners::default(),
            ref_fields: self.navmesh().raw().ref_fields(),
            pos,
            target,
        }
    }

    /// One step of the walk: toward the steer target, then the end or an off-mesh connection
    /// if the step reached it.
    #[inline(always)]
    fn walk_step(
        &mut self,
        walk: &mut Walk,
        filter: &QueryFilter,
        opts: &SmoothPathOptions,
        out: &mut SmoothPath,
    ) -> Step {
        let Some(steer) = steer_target(
            self,
            &walk.pos,
            &walk.target,
            opts.slop,
            &walk.polys,
            &mut walk.corners,
        ) else {
            return Step::Done;
        };
        let to = move_target(walk.pos, &steer, opts.step_size);
        let Some(mut result) =
            self.move_corridor_start(&mut walk.polys, opts.max_polys, &walk.pos, &to, filter)
        else {
            out.stuck = true;
            return Step::Done;
        };
        fixup_shortcuts(self, &walk.ref_fields, &mut walk.polys);
        // RecastDemo keeps h = 0 when the lookup fails; so do we, to give the same points.
        result[1] = self.poly_height_or_zero(walk.polys[0], &result);
        walk.pos = result;
        let arrived = in_range(walk.pos, steer.pos, opts.slop, 1.0);
        if steer.flag & straight_flags::END != 0 && arrived {
            walk.pos = walk.target;
            out.push_capped(walk.pos, opts.max_points);
            out.reached_end = true;
            return Step::Done;
        }
        if steer.flag & straight_flags::OFFMESH_CONNECTION != 0 && arrived {
            self.jump_off_mesh(walk, &steer, opts.max_points, out);
        }
        Step::Moved
    }

    /// Advances the corridor up to and over the off-mesh connection `steer` starts: adds its
    /// start point (twice when the count is odd, as RecastDemo) and moves to its end.
    #[cold]
    #[inline(never)]
    fn jump_off_mesh(&mut self, walk: &mut Walk, steer: &Steer, max: usize, out: &mut SmoothPath) {
        let polys = &mut walk.polys;
        let mut prev_ref = PolyRef(0);
        let mut poly_ref = polys[0];
        let mut npos = 0;
        while npos < polys.len() && poly_ref != steer.poly {
            prev_ref = poly_ref;
            poly_ref = polys[npos];
            npos += 1;
        }
        polys.drain(..npos);
        let Ok((start, end)) = self
            .navmesh()
            .off_mesh_connection_endpoints(prev_ref, poly_ref)
        else {
            return;
        };
        if out.points.len() < max {
            out.points.push(start);
            if out.points.len() % 2 == 1 {
                out.points.push(start);
            }
        }
        walk.pos = end.to_array();
        walk.pos[1] = match polys.first() {
            Some(&first) => self.poly_height_or_zero(first, &walk.pos),
            None => 0.0,
        };
        out.off_mesh_jumps += 1;
    }
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
