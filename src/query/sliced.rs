//! Sliced pathfinding: one A* search spread over many calls ([`SlicedSearch`]).

use glam::Vec3;

use super::{Corridor, MAX_BUFFER, NavMeshQuery, PolyRef, QueryFilter, check_point};
use crate::ffi::RawPolyRef;
use crate::ffi::detour::RawSliced;
use crate::status::Status;
use crate::{Error, Result};

/// `DT_FINDPATH_ANY_ANGLE`.
const ANY_ANGLE: u32 = 2;

/// Options of a sliced search (`dtFindPathOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SlicedOptions {
    /// Any-angle search (`DT_FINDPATH_ANY_ANGLE`): while expanding, Detour raycasts from the
    /// parent polygon and skips polygons a straight line passes (costs still counted), which
    /// gives corridors closer to straight lines. Raycasts are tried only from parents nearer
    /// than 50 agent radii (`DT_RAY_CAST_LIMIT_PROPORTIONS`, the radius the start tile was
    /// built with; see [`SlicedSearch::raycast_limit`]). The corridor is then no longer
    /// [`NavMeshQuery::find_path`]'s, and polygons may join it through a raycast rather than
    /// a shared edge.
    ///
    /// Those raycasts are Detour's own, inside the search, not navkit's guarded walk (see
    /// [`NavMeshQuery::raycast`]): on a navmesh whose links form a cycle a straight line
    /// keeps following (upstream issue #436, seen with low-quality data), such an update may
    /// not return. Searches without this option do no raycasts.
    pub any_angle: bool,
}

impl SlicedOptions {
    /// Detour's option bits.
    fn bits(self) -> u32 {
        if self.any_angle { ANY_ANGLE } else { 0 }
    }
}

/// Where a sliced search stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SliceState {
    /// More iterations are needed.
    InProgress,
    /// The search has ended: it closed the goal polygon (`reached_goal`), or ran out of
    /// polygons to visit (the goal cannot be reached through the filter, or the node pool was
    /// full: the corridor will be partial). [`SlicedSearch::finalize`] gives the corridor.
    Finished {
        /// True if the search closed the goal polygon.
        reached_goal: bool,
    },
}

/// What one [`SlicedSearch::update`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceProgress {
    /// Iterations run by this call (at most the number asked for; fewer if the search ended).
    pub iterations: usize,
    /// Iterations run since the search began.
    pub total_iterations: usize,
    /// Where the search stands now.
    pub state: SliceState,
}

/// The state of one sliced search that does not borrow the query: what the crate's path queue
/// keeps between frames. Its calls go through the query it was begun on.
pub(crate) struct SliceCore {
    raw: RawSliced,
    start: PolyRef,
    end: PolyRef,
    iterations: usize,
    state: SliceState,
}

impl SliceCore {
    pub(crate) fn state(&self) -> SliceState {
        self.state
    }
    pub(crate) fn iterations(&self) -> usize {
        self.iterations
    }
}

/// Checks `max_path` as [`NavMeshQuery::find_path`] does.
pub(crate) fn check_max_path(max_path: usize) -> Result<()> {
    if max_path == 0 || max_path > MAX_BUFFER {
        return Err(Error::InvalidArgument(format!(
            "max_path {max_path} is not in 1..={MAX_BUFFER}"
        )));
    }
    Ok(())
}

impl<'a> NavMeshQuery<'a> {
    /// Starts a sliced search from `start` (containing `start_pos`) to `end` (containing
    /// `end_pos`) with `filter` (copied: the search keeps its own) and `options`
    /// (`initSlicedFindPath`). No iteration runs yet; a search whose start is its end is
    /// [`SliceState::Finished`] at once.
    ///
    /// Invalid polygons and non-finite or out-of-range positions are
    /// [`Error::InvalidArgument`].
    pub fn begin_sliced_path(
        &mut self,
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: SlicedOptions,
    ) -> Result<SlicedSearch<'_, 'a>> {
        let core = self.sliced_begin(start, end, start_pos, end_pos, filter, options)?;
        Ok(SlicedSearch { query: self, core })
    }

    /// Checks a sliced search's inputs as [`Self::begin_sliced_path`] does, without starting it.
    pub(crate) fn sliced_check(
        &self,
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
    ) -> Result<(RawPolyRef, RawPolyRef, [f32; 3], [f32; 3])> {
        Ok((
            self.check_ref("start", start)?,
            self.check_ref("end", end)?,
            check_point("start_pos", start_pos)?,
            check_point("end_pos", end_pos)?,
        ))
    }

    pub(crate) fn sliced_begin(
        &mut self,
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: SlicedOptions,
    ) -> Result<SliceCore> {
        let (s, e, sp, ep) = self.sliced_check(start, end, start_pos, end_pos)?;
        let raw = RawSliced::new(&filter.raw);
        let st = Status(self.raw.sliced_init(&raw, s, e, sp, ep, options.bits()));
        let state = if st.failed() {
            self.raw.sliced_reset(&raw);
            return Err(st.error("initSlicedFindPath"));
        } else if st.has(Status::IN_PROGRESS) {
            SliceState::InProgress
        } else {
            // Detour ends the search at once only when it starts in its goal.
            SliceState::Finished { reached_goal: true }
        };
        Ok(SliceCore {
            raw,
            start,
            end,
            iterations: 0,
            state,
        })
    }

    pub(crate) fn sliced_update(
        &mut self,
        core: &mut SliceCore,
        max_iterations: usize,
    ) -> Result<SliceProgress> {
        if max_iterations == 0 {
            return Err(Error::InvalidArgument(
                "a sliced search update needs at least 1 iteration".into(),
            ));
        }
        if core.state != SliceState::InProgress {
            return Ok(SliceProgress {
                iterations: 0,
                total_iterations: core.iterations,
                state: core.state,
            });
        }
        let max = max_iterations.min(i32::MAX as usize) as i32;
        let (st, done) = self.raw.sliced_update(&core.raw, max);
        let st = Status(st);
        let done = done as usize;
        core.iterations += done;
        if st.failed() {
            // Not reached while the navmesh is borrowed unchanged: Detour fails a running
            // search only when its polygons disappear.
            return Err(st.error("updateSlicedFindPath"));
        }
        if !st.has(Status::IN_PROGRESS) {
            let reached_goal = self.raw.sliced_closed(&core.raw, core.end.0);
            core.state = SliceState::Finished { reached_goal };
        }
        Ok(SliceProgress {
            iterations: done,
            total_iterations: core.iterations,
            state: core.state,
        })
    }

    /// Finalizes `core` (whole or against `existing`) into `out`. Detour's buffer is one
    /// longer than `max_path`, so that a corridor of exactly `max_path` polygons is not
    /// reported as truncated (Detour's finalize flags a buffer it fills to the last slot).
    pub(crate) fn sliced_finalize(
        &mut self,
        core: &SliceCore,
        existing: Option<&[PolyRef]>,
        max_path: usize,
        out: &mut Corridor,
    ) -> Result<()> {
        check_max_path(max_path)?;
        let (st, op) = match existing {
            None => (
                self.raw
                    .sliced_finalize(&core.raw, &mut self.refs, max_path + 1),
                "finalizeSlicedFindPath",
            ),
            Some(existing) => {
                if existing.is_empty() || existing.len() > MAX_BUFFER {
                    self.raw.sliced_reset(&core.raw);
                    return Err(Error::InvalidArgument(format!(
                        "the existing corridor has {} polys, not 1..={MAX_BUFFER}",
                        existing.len()
                    )));
                }
                (
                    self.raw.sliced_finalize_partial(
                        &core.raw,
                        crate::ffi::poly_refs(existing),
                        &mut self.refs,
                        max_path + 1,
                    ),
                    "finalizeSlicedFindPathPartial",
                )
            }
        };
        let mut st = Status(st);
        if st.failed() {
            return Err(st.error(op));
        }
        st.0 &= !Status::BUFFER_TOO_SMALL;
        if self.refs.len() > max_path {
            self.refs.truncate(max_path);
            st.0 |= Status::BUFFER_TOO_SMALL;
        }
        out.set(&self.refs, st, core.end);
        Ok(())
    }

    /// Abandons `core`'s search: the query no longer holds it.
    pub(crate) fn sliced_abandon(&mut self, core: &SliceCore) {
        self.raw.sliced_reset(&core.raw);
    }
}

/// A path search in progress, run a slice at a time: one A* search spread over many calls, a
/// few iterations at a time (Detour's `initSlicedFindPath` / `updateSlicedFindPath` /
/// `finalizeSlicedFindPath` / `finalizeSlicedFindPathPartial`), so that a game can cap the
/// time path searches take per frame.
///
/// [`NavMeshQuery::begin_sliced_path`] starts a search and returns a [`SlicedSearch`], which
/// borrows the query mutably: no other query can run on the same `dtNavMeshQuery` (whose node
/// pool holds the search) until the search is finalized or dropped. The search owns a copy of
/// its filter, which Detour reads on every update. [`SlicedSearch::update`] runs at most N
/// iterations (one iteration closes one polygon) and says how many it ran and where the
/// search stands; [`SlicedSearch::finalize`] gives the polygon corridor once the search has
/// run to its end (finalized before, the corridor to the best polygon so far);
/// [`SlicedSearch::finalize_partial`] gives the corridor to the furthest polygon of an
/// existing corridor the search has reached (to splice a replanned front onto an agent's old
/// corridor, as DetourCrowd does).
///
/// Run to its end, the corridor is [`NavMeshQuery::find_path`]'s for the same inputs, bit
/// for bit (polygons, status and Detour's status word), on all 1,500 pairs of the navmesh
/// benchmark (`tests/sliced.rs`) in slices of 1, 7, 64 and all iterations. It is the same
/// A*, with one difference in Detour: the sliced search never re-parents a polygon through
/// a sibling (one reached from the same parent), which `findPath` does when that is
/// cheaper; with area costs that differ between neighbouring polygons this can, rarely,
/// give another corridor of equal or near cost.
///
/// Many searches sharing one per-frame budget: [`crate::service::PathQueue`].
///
/// ```
/// # fn f(navmesh: &navkit::navmesh::NavMesh) -> navkit::Result<()> {
/// use glam::Vec3;
/// use navkit::query::{QueryFilter, SliceState, SlicedOptions, DEFAULT_HALF_EXTENTS};
/// let mut query = navmesh.query()?;
/// let filter = QueryFilter::default();
/// let (a, b) = (Vec3::new(2.0, 0.0, 2.0), Vec3::new(30.0, 0.0, 6.0));
/// let start = query.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &filter)?;
/// let goal = query.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &filter)?;
/// let mut search = query.begin_sliced_path(
///     start.poly, goal.poly, a, b, &filter, SlicedOptions::default())?;
/// // One frame after another, 50 iterations each, until the search ends.
/// let mut frames = 0;
/// while search.state() == SliceState::InProgress {
///     let progress = search.update(50)?;
///     assert!(progress.iterations <= 50);
///     frames += 1; // ... the rest of the frame ...
/// }
/// let path = search.finalize(256)?;
/// println!("{} polys in {frames} frames ({:?})", path.polys.len(), path.status);
/// # Ok(()) }
/// # let geom = navkit::InputGeometry::load(concat!(env!("CARGO_MANIFEST_DIR"), "/meshes/demo_level.gset")).unwrap();
/// # let mesh = navkit::NavMeshBuilder::new(&geom).settings(Default::default()).solo().unwrap().into_navmesh();
/// # f(&mesh).unwrap();
/// ```
///
///
/// It borrows its [`NavMeshQuery`] mutably, so no other query runs on it in between:
///
/// ```compile_fail
/// # fn f(q: &mut navkit::query::NavMeshQuery, s: navkit::query::PolyRef, p: glam::Vec3) {
/// let filter = navkit::query::QueryFilter::default();
/// let mut search = q.begin_sliced_path(s, s, p, p, &filter, Default::default()).unwrap();
/// q.find_path(s, s, p, p, &filter, 16).unwrap(); // error: `q` is borrowed by the search
/// search.update(10).unwrap();
/// # }
/// ```
///
/// Dropping a search abandons it; the query is free again.
pub struct SlicedSearch<'q, 'a> {
    query: &'q mut NavMeshQuery<'a>,
    core: SliceCore,
}

impl std::fmt::Debug for SlicedSearch<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlicedSearch")
            .field("start", &self.core.start)
            .field("end", &self.core.end)
            .field("iterations", &self.core.iterations)
            .field("state", &self.core.state)
            .finish_non_exhaustive()
    }
}

impl SlicedSearch<'_, '_> {
    /// Runs at most `max_iterations` iterations (`updateSlicedFindPath`; one iteration closes
    /// one polygon) and says how many ran and where the search stands. On a search that has
    /// ended, runs none. Zero iterations is [`Error::InvalidArgument`].
    pub fn update(&mut self, max_iterations: usize) -> Result<SliceProgress> {
        self.query.sliced_update(&mut self.core, max_iterations)
    }

    /// Runs the search to its end (in slices of at most `i32::MAX` iterations).
    pub fn run(&mut self) -> Result<SliceProgress> {
        let before = self.core.iterations;
        while self.core.state == SliceState::InProgress {
            self.update(i32::MAX as usize)?;
        }
        Ok(SliceProgress {
            iterations: self.core.iterations - before,
            total_iterations: self.core.iterations,
            state: self.core.state,
        })
    }

    /// Where the search stands.
    pub fn state(&self) -> SliceState {
        self.core.state
    }

    /// Iterations run since the search began.
    pub fn iterations(&self) -> usize {
        self.core.iterations
    }

    /// The search's nodes so far ([`NavMeshQuery::search_nodes`]): watch it grow between
    /// [`SlicedSearch::update`]s.
    pub fn search_nodes(&self) -> Vec<super::SearchNode> {
        self.query.search_nodes()
    }

    /// The start polygon.
    pub fn start(&self) -> PolyRef {
        self.core.start
    }

    /// The goal polygon.
    pub fn end(&self) -> PolyRef {
        self.core.end
    }

    /// For an any-angle search, the distance within which a polygon's parent is raycast
    /// from: 50 times the agent radius the start tile was built with (0 for a radius 0,
    /// which turns the raycasts off). `None` for a search without any-angle.
    pub fn raycast_limit(&self) -> Option<f32> {
        let sqr = self.query.raw.sliced_raycast_limit_sqr(&self.core.raw)?;
        (sqr != f32::MAX).then(|| sqr.sqrt())
    }

    /// The polygon corridor, at most `max_path` (1..=[`MAX_BUFFER`]) polygons
    /// (`finalizeSlicedFindPath`). After a search that ran to its end,
    /// [`NavMeshQuery::find_path`]'s for the same inputs (see [`SlicedSearch`] for the one
    /// difference). Finalized while [`SliceState::InProgress`], the corridor to the polygon nearest
    /// the goal so far: [`crate::PathStatus::Partial`] unless that polygon is the goal (opened, not yet
    /// closed: a corridor to the goal the rest of the search might still have shortened).
    pub fn finalize(self, max_path: usize) -> Result<Corridor> {
        let mut out = Corridor::default();
        self.finalize_into(max_path, &mut out)?;
        Ok(out)
    }

    /// [`Self::finalize`] writing into `out`, reusing its buffer.
    pub fn finalize_into(self, max_path: usize, out: &mut Corridor) -> Result<()> {
        self.query.sliced_finalize(&self.core, None, max_path, out)
    }

    /// The corridor from the start to the furthest polygon of `existing` (an agent's current
    /// corridor, 1..=[`MAX_BUFFER`] polygons) that the search has reached, at most `max_path`
    /// polygons (`finalizeSlicedFindPathPartial`): the caller continues along `existing` from
    /// that polygon. If the search reached none of them, the corridor to the polygon nearest
    /// the goal so far. [`crate::PathStatus::Complete`] only if the corridor ends at the goal.
    pub fn finalize_partial(self, existing: &[PolyRef], max_path: usize) -> Result<Corridor> {
        let mut out = Corridor::default();
        self.query
            .sliced_finalize(&self.core, Some(existing), max_path, &mut out)?;
        Ok(out)
    }
}

impl Drop for SlicedSearch<'_, '_> {
    fn drop(&mut self) {
        // After a finalize the query no longer holds the search and this does nothing.
        self.query.sliced_abandon(&self.core);
    }
}
