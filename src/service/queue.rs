//! [`PathQueue`]: path searches from many agents sharing one iteration budget per frame.

use std::collections::{HashMap, VecDeque};

use glam::Vec3;

use crate::navmesh::NavMesh;
use crate::query::{
    Corridor, NavMeshQuery, PolyRef, QueryFilter, SliceCore, SliceState, SlicedOptions,
    check_max_path,
};
use crate::status::Status;
use crate::{Error, Result};

/// One path search for a [`PathQueue`]: the same inputs as [`NavMeshQuery::find_path`].
#[derive(Clone, Debug)]
pub struct PathRequest {
    /// The start polygon.
    pub start: PolyRef,
    /// The goal polygon.
    pub end: PolyRef,
    /// A point in the start polygon.
    pub start_pos: Vec3,
    /// A point in the goal polygon.
    pub end_pos: Vec3,
    /// The filter (the queue keeps this copy until the search ends).
    pub filter: QueryFilter,
    /// Search options (any-angle).
    pub options: SlicedOptions,
}

impl PathRequest {
    /// A request with default options.
    pub fn new(
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: QueryFilter,
    ) -> Self {
        PathRequest {
            start,
            end,
            start_pos,
            end_pos,
            filter,
            options: SlicedOptions::default(),
        }
    }
}

/// Names one request of a [`PathQueue`] (numbers increase over the queue's life, from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathHandle(pub u64);

/// Where a request of a [`PathQueue`] stands ([`PathQueue::state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestState {
    /// Queued, with `ahead` requests to be searched before it (the one in progress counted).
    Waiting {
        /// Requests before it.
        ahead: usize,
    },
    /// Being searched: `iterations` so far.
    InProgress {
        /// Iterations run on it so far.
        iterations: usize,
    },
    /// Ended: its result waits for [`PathQueue::take`].
    Done,
    /// Not a request of this queue, or taken or cancelled.
    Unknown,
}

/// What one [`PathQueue::update`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// Iterations run (at most the budget).
    pub iterations: usize,
    /// Requests whose results became ready, in the order they ended (their results wait for
    /// [`PathQueue::take`]).
    pub finished: Vec<PathHandle>,
}

/// Counts over a [`PathQueue`]'s life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PathQueueStats {
    /// Requests submitted.
    pub submitted: u64,
    /// Requests ended with a path (complete or partial).
    pub found: u64,
    /// ... of which the path does not reach the goal.
    pub partial: u64,
    /// Requests ended with an error.
    pub failed: u64,
    /// Requests cancelled before they ended.
    pub cancelled: u64,
    /// Frames run ([`PathQueue::update`] calls).
    pub frames: u64,
    /// Iterations run in all.
    pub iterations: u64,
}

/// Path searches from many agents sharing one iteration budget per frame, on the calling
/// thread (DetourCrowd's `dtPathQueue`, in safe Rust over
/// [sliced searches](crate::query::SlicedSearch)).
///
/// # How it fits with [`PathService`](super::PathService)
///
/// The two answer different needs and are separate on purpose. [`PathService`](super::PathService)
/// plans whole paths (corridor, straight and smooth path) on worker threads, as fast as its
/// threads go: its cost lands on other cores, not in the frame, so a per-frame budget would
/// only slow it down. [`PathQueue`] is for a game that plans on its own (main or simulation)
/// thread and must bound the time searches take in each frame: it owns one
/// [`NavMeshQuery`], and [`PathQueue::update`] spends at most the frame's iteration budget
/// (one iteration closes one polygon, Detour's unit of search work) on the queued searches.
/// A game that wants both puts a `PathQueue` on a thread of its own and feeds it frames.
///
/// # Order, fairness, memory
///
/// Requests are searched one at a time in submission order (the query holds one search): each
/// frame continues the search in progress, and when it ends starts the next with what is left
/// of the budget. A search needs a bounded number of iterations (its node pool is finite), so
/// every request finishes, in the order submitted; none waits on a later one. A result is kept
/// until [`PathQueue::take`]n or [`cancel`](PathQueue::cancel)led (the caller owns that
/// memory: a request whose result is never taken stays, as a `Vec` of polygons).
///
/// ```
/// # fn f(navmesh: &navkit::navmesh::NavMesh, agents: &[(navkit::query::PolyRef, glam::Vec3)],
/// #      goal: (navkit::query::PolyRef, glam::Vec3)) -> navkit::Result<()> {
/// use navkit::query::QueryFilter;
/// use navkit::service::{PathQueue, PathRequest};
/// let mut queue = PathQueue::new(navmesh, 2048, 256)?;
/// let handles = agents
///     .iter()
///     .map(|&(poly, pos)| queue.submit(PathRequest::new(poly, goal.0, pos, goal.1, QueryFilter::default())))
///     .collect::<navkit::Result<Vec<_>>>()?;
/// // Each frame: at most 200 iterations of search, shared by every agent's request.
/// while !queue.is_idle() {
///     let frame = queue.update(200)?;
///     assert!(frame.iterations <= 200);
///     for h in frame.finished {
///         let path = queue.take(h).unwrap()?;
///         // ... hand `path` to its agent ...
///     }
/// }
/// # Ok(()) }
/// ```
///
pub struct PathQueue<'a> {
    query: NavMeshQuery<'a>,
    max_path: usize,
    next: u64,
    waiting: VecDeque<(PathHandle, PathRequest)>,
    active: Option<(PathHandle, SliceCore)>,
    done: HashMap<PathHandle, Result<Corridor>>,
    stats: PathQueueStats,
}

impl std::fmt::Debug for PathQueue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathQueue")
            .field("max_path", &self.max_path)
            .field("waiting", &self.waiting.len())
            .field("active", &self.active.as_ref().map(|a| a.0))
            .field("done", &self.done.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<'a> PathQueue<'a> {
    /// A queue over `navmesh` with its own query of `max_nodes` search nodes
    /// ([`NavMeshQuery::new`]), giving corridors of at most `max_path` polygons
    /// (1..=[`crate::query::MAX_BUFFER`]).
    pub fn new(navmesh: &'a NavMesh, max_nodes: usize, max_path: usize) -> Result<Self> {
        check_max_path(max_path)?;
        Ok(PathQueue {
            query: NavMeshQuery::new(navmesh, max_nodes)?,
            max_path,
            next: 1,
            waiting: VecDeque::new(),
            active: None,
            done: HashMap::new(),
            stats: PathQueueStats::default(),
        })
    }

    /// Queues a search. Its inputs are checked now: invalid polygons or non-finite or
    /// out-of-range points are [`Error::InvalidArgument`] (and nothing is queued).
    pub fn submit(&mut self, request: PathRequest) -> Result<PathHandle> {
        self.query.sliced_check(
            request.start,
            request.end,
            request.start_pos,
            request.end_pos,
        )?;
        let h = PathHandle(self.next);
        self.next += 1;
        self.stats.submitted += 1;
        self.waiting.push_back((h, request));
        Ok(h)
    }

    /// Runs at most `max_iterations` iterations of search (at least 1; 0 is
    /// [`Error::InvalidArgument`]): the search in progress first, then the queued ones in
    /// order, each finalized as soon as it ends. A search the budget does not finish continues
    /// in the next update.
    pub fn update(&mut self, max_iterations: usize) -> Result<FrameReport> {
        if max_iterations == 0 {
            return Err(Error::InvalidArgument(
                "a path queue frame needs a budget of at least 1 iteration".into(),
            ));
        }
        let mut left = max_iterations;
        let mut report = FrameReport::default();
        loop {
            if self.active.is_none() {
                if left == 0 {
                    break;
                }
                let Some((h, r)) = self.waiting.pop_front() else {
                    break;
                };
                match self.query.sliced_begin(
                    r.start,
                    r.end,
                    r.start_pos,
                    r.end_pos,
                    &r.filter,
                    r.options,
                ) {
                    Ok(core) => self.active = Some((h, core)),
                    Err(e) => {
                        self.finish(h, Err(e), &mut report);
                        continue;
                    }
                }
            }
            let Some((h, core)) = self.active.as_mut() else {
                break;
            };
            let h = *h;
            if core.state() == SliceState::InProgress {
                if left == 0 {
                    break;
                }
                match self.query.sliced_update(core, left) {
                    Ok(p) => {
                        left -= p.iterations.min(left);
                        if p.state == SliceState::InProgress && p.iterations == 0 {
                            // Not reached: Detour runs at least one iteration while its open
                            // list has nodes. Kept from looping on a search that would not move.
                            let e = Status(Status::FAILURE).error("updateSlicedFindPath");
                            self.drop_active();
                            self.finish(h, Err(e), &mut report);
                            continue;
                        }
                    }
                    Err(e) => {
                        self.drop_active();
                        self.finish(h, Err(e), &mut report);
                        continue;
                    }
                }
            }
            let Some((_, core)) = self.active.as_ref() else {
                break;
            };
            if core.state() == SliceState::InProgress {
                break; // the budget is spent; continued next frame
            }
            let mut path = Corridor::default();
            let result = self
                .query
                .sliced_finalize(core, None, self.max_path, &mut path)
                .map(|()| path);
            self.drop_active();
            self.finish(h, result, &mut report);
        }
        report.iterations = max_iterations - left;
        self.stats.frames += 1;
        self.stats.iterations += report.iterations as u64;
        Ok(report)
    }

    fn drop_active(&mut self) {
        if let Some((_, core)) = self.active.take() {
            self.query.sliced_abandon(&core);
        }
    }

    fn finish(&mut self, h: PathHandle, result: Result<Corridor>, report: &mut FrameReport) {
        match &result {
            Ok(p) => {
                self.stats.found += 1;
                self.stats.partial += u64::from(!p.is_complete());
            }
            Err(_) => self.stats.failed += 1,
        }
        self.done.insert(h, result);
        report.finished.push(h);
    }

    /// Where request `h` stands.
    pub fn state(&self, h: PathHandle) -> RequestState {
        if self.done.contains_key(&h) {
            return RequestState::Done;
        }
        if let Some((a, core)) = &self.active {
            if *a == h {
                return RequestState::InProgress {
                    iterations: core.iterations(),
                };
            }
        }
        match self.waiting.iter().position(|(w, _)| *w == h) {
            Some(i) => RequestState::Waiting {
                ahead: i + usize::from(self.active.is_some()),
            },
            None => RequestState::Unknown,
        }
    }

    /// Takes request `h`'s result if it has ended: the corridor (complete or partial, as
    /// [`NavMeshQuery::find_path`] gives it) or the error. `None` if it has not ended, or is
    /// not this queue's, or was taken or cancelled.
    pub fn take(&mut self, h: PathHandle) -> Option<Result<Corridor>> {
        self.done.remove(&h)
    }

    /// Cancels request `h`: dropped from the queue, its search abandoned if in progress (the
    /// next frame goes on with the next request), or its waiting result thrown away. False if
    /// there was no such request.
    pub fn cancel(&mut self, h: PathHandle) -> bool {
        let found = if self.active.as_ref().is_some_and(|(a, _)| *a == h) {
            self.drop_active();
            true
        } else if let Some(i) = self.waiting.iter().position(|(w, _)| *w == h) {
            self.waiting.remove(i);
            true
        } else {
            return self.done.remove(&h).is_some();
        };
        self.stats.cancelled += u64::from(found);
        found
    }

    /// True if no request is waiting or in progress (results may still wait to be taken).
    pub fn is_idle(&self) -> bool {
        self.active.is_none() && self.waiting.is_empty()
    }

    /// Requests waiting or in progress.
    pub fn pending(&self) -> usize {
        self.waiting.len() + usize::from(self.active.is_some())
    }

    /// Results waiting to be taken.
    pub fn ready(&self) -> usize {
        self.done.len()
    }

    /// Counts over the queue's life.
    pub fn stats(&self) -> PathQueueStats {
        self.stats
    }

    /// The navmesh searched.
    pub fn navmesh(&self) -> &'a NavMesh {
        self.query.navmesh()
    }
}
