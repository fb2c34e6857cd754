//! Path requests from many agents: a [`Service`], a queue served by worker threads, each with
//! its own query state: a [`NavMeshQuery`] for navmesh paths ([`PathService`]), a
//! [`SearchContext`] for grid paths ([`GridPathService`]), or whatever a [`Planner`] of your own
//! keeps per thread.
//!
//! Answers come back through a channel ([`PathService::request`], [`Service::submit`]) or a
//! callback ([`PathService::request_with`], [`Service::submit_with`]). A new request from an
//! agent supersedes its older ones that have not started yet, and [`Service::cancel`] drops an
//! agent's pending requests; either way the superseded request is answered with
//! [`PathOutcome::Superseded`] or [`PathOutcome::Cancelled`], never left hanging. A planner
//! that panics spoils only the request it was on ([`PathOutcome::Panicked`]); the worker
//! carries on. Every request gets exactly one outcome: see [`Service`]'s guarantees.
//!
//! Searches that must share a per-frame budget on the game's own thread go through a
//! [`PathQueue`] instead: see its module documentation for why the two are separate.
//!
//! ```no_run
//! # fn f(navmesh: navkit::navmesh::NavMesh) {
//! use std::sync::Arc;
//! use glam::Vec3;
//! use navkit::service::{AgentId, PathService, PathOutcome};
//! let service = PathService::new(Arc::new(navmesh), 2, Default::default());
//! let ticket = service.request(AgentId(7), Vec3::ZERO, Vec3::new(10.0, 0.0, 5.0), Default::default());
//! if let PathOutcome::Done(Ok(path)) = ticket.wait() {
//!     println!("{:?}, {} polys", path.status(), path.corridor.polys.len());
//! }
//! # }
//! ```

// Many searches sharing a per-frame iteration budget on the calling thread (issue 12, part 2).
mod queue;
pub use queue::{FrameReport, PathHandle, PathQueue, PathQueueStats, PathRequest, RequestState};

use std::any::Any;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use glam::Vec3;

use crate::grid::mesh::{MeshGrid, MeshGridPath};
use crate::grid::{SearchContext, SearchGraph, SearchOptions};
use crate::navmesh::NavMesh;
use crate::query::{NavMeshQuery, NavPath, PathOptions, QueryFilter};
use crate::{Error, Result};

/// What a [`Service`] plans with: shared read-only data (a navmesh, a grid) and the state each
/// worker thread keeps for itself (a query, a search context).
pub trait Planner: Send + Sync + 'static {
    /// Per-thread state, borrowing the planner.
    type Worker<'a>;
    /// One request.
    type Request: Send + 'static;
    /// One answer.
    type Output: Send + 'static;
    /// Makes a worker's state (once per thread).
    fn worker(&self) -> Self::Worker<'_>;
    /// Answers a request.
    fn plan(&self, worker: &mut Self::Worker<'_>, request: Self::Request) -> Self::Output;
}

/// Navmesh paths between two points ([`NavMeshQuery::path`]: nearest polys, corridor, and as
/// the options ask, straight, smooth and optimal path).
#[derive(Debug)]
pub struct NavMeshPlanner {
    /// The navmesh.
    pub navmesh: Arc<NavMesh>,
    /// What each path computes.
    pub options: PathOptions,
    /// Detour node pool size per worker.
    pub max_nodes: usize,
}

/// A navmesh path request.
#[derive(Clone, Debug)]
pub struct NavMeshRequest {
    /// Start point.
    pub start: Vec3,
    /// Goal point.
    pub goal: Vec3,
    /// The filter.
    pub filter: QueryFilter,
    /// What this path computes (for example the optimal path,
    /// [`PathOptions::optimal`]); `None`: the planner's [`NavMeshPlanner::options`].
    pub options: Option<PathOptions>,
}

impl Planner for NavMeshPlanner {
    type Worker<'a> = Result<NavMeshQuery<'a>>;
    type Request = NavMeshRequest;
    type Output = Result<NavPath>;
    fn worker(&self) -> Self::Worker<'_> {
        NavMeshQuery::new(&self.navmesh, self.max_nodes)
    }
    fn plan(&self, worker: &mut Self::Worker<'_>, r: NavMeshRequest) -> Result<NavPath> {
        match worker {
            Ok(q) => {
                let options = r.options.as_ref().unwrap_or(&self.options);
                q.path(r.start, r.goal, &r.filter, options)
            }
            // The worker could not make its query: every request it takes gets that error.
            Err(e) => Err(e.clone()),
        }
    }
}

/// Grid paths: A* on a [`MeshGrid`] between two world points.
#[derive(Debug)]
pub struct GridPlanner {
    /// The grid.
    pub grid: Arc<MeshGrid>,
    /// Search options.
    pub options: SearchOptions,
}

impl Planner for GridPlanner {
    type Worker<'a> = SearchContext;
    type Request = (Vec3, Vec3);
    type Output = Result<MeshGridPath>;
    fn worker(&self) -> SearchContext {
        SearchContext::with_capacity(self.grid.node_count())
    }
    fn plan(&self, ctx: &mut SearchContext, (start, end): (Vec3, Vec3)) -> Result<MeshGridPath> {
        self.grid.find_path(ctx, start, end, &self.options)
    }
}

/// Identifies the agent a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(pub u64);

/// How a request ended: exactly one of these per request.
#[derive(Debug)]
#[non_exhaustive]
pub enum PathOutcome<T = Result<NavPath>> {
    /// The path (or the error finding it).
    Done(T),
    /// A newer request from the same agent replaced this one before it started.
    Superseded,
    /// The agent's requests were cancelled before this one started, or the service was dropped
    /// before it started.
    Cancelled,
    /// The planner panicked on this request (or while setting up its worker for it): an
    /// [`Error::Panicked`] with the panic's message. The worker caught the panic, threw its
    /// per-thread state away and carries on with fresh state.
    Panicked(Error),
}

/// The answer to one request.
#[derive(Debug)]
pub struct PathResponse<T = Result<NavPath>> {
    /// The agent.
    pub agent: AgentId,
    /// The request's number (increasing over the service's life).
    pub request: u64,
    /// The outcome.
    pub outcome: PathOutcome<T>,
}

/// A pending request's answer.
///
/// Dropping a ticket does not cancel the request (use [`Service::cancel`]): it is still
/// answered, and the answer is thrown away.
#[derive(Debug)]
pub struct Ticket<T = Result<NavPath>> {
    /// The request's number.
    pub request: u64,
    rx: Receiver<PathResponse<T>>,
}

impl<T> Ticket<T> {
    /// Waits for the answer.
    pub fn wait(self) -> PathOutcome<T> {
        match self.rx.recv() {
            Ok(r) => r.outcome,
            // Not reached: every request is answered, even one whose job was dropped (its
            // reply answers `Cancelled` as it goes).
            Err(_) => PathOutcome::Cancelled,
        }
    }

    /// Waits at most `timeout` for the answer: `Err(self)` (the ticket, to wait again) if it
    /// has not come.
    pub fn wait_timeout(self, timeout: Duration) -> std::result::Result<PathOutcome<T>, Self> {
        match self.rx.recv_timeout(timeout) {
            Ok(r) => Ok(r.outcome),
            Err(RecvTimeoutError::Timeout) => Err(self),
            Err(RecvTimeoutError::Disconnected) => Ok(PathOutcome::Cancelled),
        }
    }

    /// The answer if it is ready.
    pub fn try_get(&self) -> Option<PathOutcome<T>> {
        self.rx.try_recv().ok().map(|r| r.outcome)
    }
}

/// What a [`Service`] has done so far; [`Service::stats`].
///
/// Once every answer has arrived, `submitted == done + superseded + cancelled + panicked`;
/// before, the difference is [`ServiceStats::pending`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceStats {
    /// Requests submitted.
    pub submitted: u64,
    /// Requests answered with [`PathOutcome::Done`].
    pub done: u64,
    /// Requests answered with [`PathOutcome::Superseded`].
    pub superseded: u64,
    /// Requests answered with [`PathOutcome::Cancelled`].
    pub cancelled: u64,
    /// Requests answered with [`PathOutcome::Panicked`].
    pub panicked: u64,
    /// Callbacks ([`Service::submit_with`]) that panicked; the panic was caught and the worker
    /// carried on. Their requests are counted by outcome like any other.
    pub callback_panics: u64,
    /// Agents with requests not yet started (the service's per-agent bookkeeping; an agent is
    /// forgotten once none of its requests is waiting).
    pub agents_waiting: u64,
}

impl ServiceStats {
    /// Requests submitted but not answered yet (queued or being planned).
    pub fn pending(&self) -> u64 {
        self.submitted
            .saturating_sub(self.done + self.superseded + self.cancelled + self.panicked)
    }
}

/// Per-agent bookkeeping, kept while the agent has requests not yet started.
#[derive(Default)]
struct AgentState {
    /// The agent's newest request.
    latest: u64,
    /// Its requests up to this number are cancelled (0: none).
    cancelled_through: u64,
    /// Its requests queued and not yet started.
    waiting: usize,
}

#[derive(Default)]
struct Shared {
    agents: Mutex<HashMap<AgentId, AgentState>>,
    /// Set when the service is dropped: requests not started are cancelled.
    closing: AtomicBool,
    submitted: AtomicU64,
    done: AtomicU64,
    superseded: AtomicU64,
    cancelled: AtomicU64,
    panicked: AtomicU64,
    callback_panics: AtomicU64,
}

impl Shared {
    /// The agents' table. No user code runs while it is held, so it cannot be poisoned by a
    /// planner's or callback's panic; should it be anyway, the table is still consistent (every
    /// update is a few plain stores), so it is used as it is.
    fn agents(&self) -> MutexGuard<'_, HashMap<AgentId, AgentState>> {
        self.agents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a queued request off its agent's books and says whether it is to be planned
    /// (`None`) or how it ends (`Superseded` or `Cancelled`).
    fn take(&self, agent: AgentId, id: u64) -> Option<Settled> {
        let closing = self.closing.load(Ordering::Acquire);
        let mut agents = self.agents();
        let Some(state) = agents.get_mut(&agent) else {
            // Not reached: the entry lives while the agent has requests waiting.
            return Some(Settled::Cancelled);
        };
        let settled = if closing || id <= state.cancelled_through {
            Some(Settled::Cancelled)
        } else if id != state.latest {
            Some(Settled::Superseded)
        } else {
            None
        };
        state.waiting -= 1;
        if state.waiting == 0 {
            agents.remove(&agent);
        }
        settled
    }

    fn count<T>(&self, outcome: &PathOutcome<T>) {
        let counter = match outcome {
            PathOutcome::Done(_) => &self.done,
            PathOutcome::Superseded => &self.superseded,
            PathOutcome::Cancelled => &self.cancelled,
            PathOutcome::Panicked(_) => &self.panicked,
        };
        counter.fetch_add(1, Ordering::AcqRel);
    }
}

enum Settled {
    Superseded,
    Cancelled,
}

/// The way back to the requester: called exactly once, with the outcome; if it is dropped
/// without being called (a job lost with its queue, a worker gone), it answers
/// [`PathOutcome::Cancelled`] as it goes.
struct Reply<T: Send + 'static> {
    agent: AgentId,
    id: u64,
    to: Option<Box<dyn FnOnce(PathResponse<T>) + Send>>,
    shared: Arc<Shared>,
}

impl<T: Send + 'static> Reply<T> {
    fn answer(mut self, outcome: PathOutcome<T>) {
        self.deliver(outcome);
    }

    fn deliver(&mut self, outcome: PathOutcome<T>) {
        let Some(to) = self.to.take() else { return };
        self.shared.count(&outcome);
        let response = PathResponse {
            agent: self.agent,
            request: self.id,
            outcome,
        };
        // A callback's panic is the caller's bug, not the service's: caught, counted, and the
        // worker carries on.
        if let Err(payload) = catch_unwind(AssertUnwindSafe(move || to(response))) {
            self.shared.callback_panics.fetch_add(1, Ordering::AcqRel);
            drop_payload(payload);
        }
    }
}

impl<T: Send + 'static> Drop for Reply<T> {
    fn drop(&mut self) {
        self.deliver(PathOutcome::Cancelled);
    }
}

struct Job<P: Planner> {
    request: P::Request,
    reply: Reply<P::Output>,
}

/// Worker threads answering path requests with a [`Planner`].
///
/// # Guarantees
///
/// - **Exactly one outcome per request.** Every request submitted is answered exactly once,
///   through its [`Ticket`] or its callback: [`PathOutcome::Done`], [`PathOutcome::Superseded`],
///   [`PathOutcome::Cancelled`] or [`PathOutcome::Panicked`]. None is lost, none answered twice,
///   whatever the planner, the callbacks, cancelling, superseding or dropping the service do.
/// - **Superseding and cancelling** act on requests not yet started: a request is
///   `Superseded` if, when a worker takes it, a newer request of the same agent has been
///   submitted, and `Cancelled` if [`Service::cancel`] was called for its agent after it was
///   submitted. A request already being planned finishes (`Done`).
/// - **Panics.** A planner that panics (in [`Planner::plan`] or [`Planner::worker`]) spoils
///   only the request it was on, which is answered `Panicked` with an [`Error::Panicked`]; the
///   worker drops its per-thread state, makes a fresh one for the next request and carries on.
///   A callback that panics is caught and counted ([`ServiceStats::callback_panics`]); its
///   request counts as answered. (The panic hook still runs, and prints, as for any panic.)
/// - **Dropping** the service answers the requests not yet started `Cancelled`, waits for
///   those being planned, and joins the workers. (Dropped from one of its own callbacks, it
///   does not wait for the worker running that callback.)
/// - **Memory** is what is queued: the service keeps nothing per request once it is answered,
///   and nothing per agent once none of the agent's requests is waiting. The queue is
///   unbounded; a caller that can outrun the workers bounds its requests in flight
///   ([`ServiceStats::pending`]).
///
/// Callbacks run on the workers: one that blocks (on a [`Ticket`] of this service, say) holds
/// its worker, and with every worker so held nothing is left to answer. Callbacks should hand
/// the answer on and return.
pub struct Service<P: Planner> {
    tx: Option<Sender<Job<P>>>,
    planner: Arc<P>,
    shared: Arc<Shared>,
    next: AtomicU64,
    workers: Vec<JoinHandle<()>>,
}

impl<P: Planner> std::fmt::Debug for Service<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("workers", &self.workers.len())
            .field("next_request", &self.next)
            .field("running", &self.tx.is_some())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// Navmesh paths from worker threads, each with its own [`NavMeshQuery`].
pub type PathService = Service<NavMeshPlanner>;

/// Grid paths from worker threads, each with its own [`SearchContext`].
pub type GridPathService = Service<GridPlanner>;

impl<P: Planner> Service<P> {
    /// Starts `threads` workers (at least one) planning with `planner`.
    ///
    /// # Panics
    ///
    /// If the operating system refuses to start a thread; [`try_start`](Self::try_start)
    /// returns that as [`Error::Threads`] instead.
    pub fn start(planner: P, threads: usize) -> Self {
        match Self::try_start(planner, threads) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`start`](Self::start), with a thread the system refuses to start as
    /// [`Error::Threads`] (the workers already started are stopped again).
    pub fn try_start(planner: P, threads: usize) -> Result<Self> {
        let planner = Arc::new(planner);
        let (tx, rx) = channel::<Job<P>>();
        let rx = Arc::new(Mutex::new(rx));
        let shared = Arc::new(Shared::default());
        let count = threads.max(1);
        let mut workers = Vec::with_capacity(count);
        for i in 0..count {
            let (rx, shared, planner) = (rx.clone(), shared.clone(), planner.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("navkit-path-{i}"))
                .spawn(move || worker(&*planner, &rx, &shared));
            match spawned {
                Ok(h) => workers.push(h),
                Err(e) => {
                    // The started workers see the channel close and end.
                    drop(tx);
                    for w in workers {
                        let _ = w.join();
                    }
                    return Err(Error::Threads {
                        threads: count,
                        source: std::sync::Arc::new(e),
                    });
                }
            }
        }
        Ok(Service {
            tx: Some(tx),
            planner,
            shared,
            next: AtomicU64::new(1),
            workers,
        })
    }

    fn send(
        &self,
        agent: AgentId,
        request: P::Request,
        to: Box<dyn FnOnce(PathResponse<P::Output>) + Send>,
    ) -> u64 {
        let id = {
            let mut agents = self.shared.agents();
            // Numbered under the lock, so an agent's newest request is its highest number
            // even when several threads submit for it at once.
            let id = self.next.fetch_add(1, Ordering::Relaxed);
            let state = agents.entry(agent).or_default();
            state.latest = id;
            state.waiting += 1;
            self.shared.submitted.fetch_add(1, Ordering::AcqRel);
            id
        };
        let job = Job {
            request,
            reply: Reply {
                agent,
                id,
                to: Some(to),
                shared: self.shared.clone(),
            },
        };
        match &self.tx {
            Some(tx) => {
                if let Err(e) = tx.send(job) {
                    // Not reached (the workers outlive the sender): take the request off its
                    // agent's books; dropping the job answers it `Cancelled`.
                    self.shared.take(agent, id);
                    drop(e.0);
                }
            }
            None => {
                self.shared.take(agent, id);
                drop(job);
            }
        }
        id
    }

    /// Asks for a path; the answer arrives on the returned ticket.
    pub fn submit(&self, agent: AgentId, request: P::Request) -> Ticket<P::Output> {
        let (tx, rx) = channel();
        let request = self.send(
            agent,
            request,
            Box::new(move |r| {
                // The ticket may be gone; its answer is then thrown away.
                let _ = tx.send(r);
            }),
        );
        Ticket { request, rx }
    }

    /// Asks for a path; `callback` is called with the answer on a worker thread (or, for a
    /// request that cannot be queued, on this one). Returns the request's number.
    pub fn submit_with(
        &self,
        agent: AgentId,
        request: P::Request,
        callback: impl FnOnce(PathResponse<P::Output>) + Send + 'static,
    ) -> u64 {
        self.send(agent, request, Box::new(callback))
    }

    /// Cancels every request of `agent` that has not started: they are answered
    /// [`PathOutcome::Cancelled`]. Requests submitted afterwards are not affected.
    pub fn cancel(&self, agent: AgentId) {
        if let Some(state) = self.shared.agents().get_mut(&agent) {
            state.cancelled_through = state.latest;
        }
    }

    /// The counts of requests submitted and answered so far, by outcome.
    pub fn stats(&self) -> ServiceStats {
        let s = &self.shared;
        let agents_waiting = s.agents().len() as u64;
        let load = |c: &AtomicU64| c.load(Ordering::Acquire);
        // Outcomes before `submitted`: read in this order the counts never show more answers
        // than requests.
        let (done, superseded, cancelled, panicked) = (
            load(&s.done),
            load(&s.superseded),
            load(&s.cancelled),
            load(&s.panicked),
        );
        ServiceStats {
            submitted: load(&s.submitted),
            done,
            superseded,
            cancelled,
            panicked,
            callback_panics: load(&s.callback_panics),
            agents_waiting,
        }
    }

    /// The planner the workers plan with.
    pub fn planner(&self) -> &P {
        &self.planner
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }
}

impl Service<NavMeshPlanner> {
    /// Starts `threads` workers (at least one) over `navmesh`, computing what `options` asks for
    /// each path (`PathOptions::default()`: RecastDemo's corridor, straight and smooth path),
    /// with a 2048-node pool per worker.
    pub fn new(navmesh: Arc<NavMesh>, threads: usize, options: PathOptions) -> PathService {
        Service::start(
            NavMeshPlanner {
                navmesh,
                options,
                max_nodes: 2048,
            },
            threads,
        )
    }

    /// Asks for a navmesh path; the answer arrives on the returned ticket.
    pub fn request(&self, agent: AgentId, start: Vec3, goal: Vec3, filter: QueryFilter) -> Ticket {
        self.submit(
            agent,
            NavMeshRequest {
                start,
                goal,
                filter,
                options: None,
            },
        )
    }

    /// Asks for a navmesh path computed as `options` asks instead of the service's options
    /// (for example with the optimal path, [`PathOptions::optimal`]); the answer arrives on
    /// the returned ticket.
    ///
    /// ```no_run
    /// # fn f(service: &navkit::service::PathService) {
    /// use glam::Vec3;
    /// use navkit::query::{OptimalOptions, PathOptions};
    /// use navkit::service::{AgentId, PathOutcome};
    /// let options = PathOptions { optimal: Some(OptimalOptions::default()), ..Default::default() };
    /// let ticket = service.request_options(AgentId(7), Vec3::ZERO, Vec3::X * 9.0, Default::default(), options);
    /// if let PathOutcome::Done(Ok(path)) = ticket.wait() {
    ///     println!("{:?}", path.optimal.map(|o| o.length_xz));
    /// }
    /// # }
    /// ```
    pub fn request_options(
        &self,
        agent: AgentId,
        start: Vec3,
        goal: Vec3,
        filter: QueryFilter,
        options: PathOptions,
    ) -> Ticket {
        self.submit(
            agent,
            NavMeshRequest {
                start,
                goal,
                filter,
                options: Some(options),
            },
        )
    }

    /// Asks for a navmesh path; `callback` is called with the answer on a worker thread.
    pub fn request_with(
        &self,
        agent: AgentId,
        start: Vec3,
        goal: Vec3,
        filter: QueryFilter,
        callback: impl FnOnce(PathResponse) + Send + 'static,
    ) -> u64 {
        self.submit_with(
            agent,
            NavMeshRequest {
                start,
                goal,
                filter,
                options: None,
            },
            callback,
        )
    }
}

impl Service<GridPlanner> {
    /// Starts `threads` workers (at least one) over `grid`, with default search options.
    pub fn grid(grid: Arc<MeshGrid>, threads: usize) -> GridPathService {
        Service::start(
            GridPlanner {
                grid,
                options: SearchOptions::default(),
            },
            threads,
        )
    }

    /// Asks for a grid path; the answer arrives on the returned ticket.
    pub fn request(&self, agent: AgentId, start: Vec3, end: Vec3) -> Ticket<Result<MeshGridPath>> {
        self.submit(agent, (start, end))
    }
}

/// The panic's message, if it has one that prints.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a printable message)".to_string()
    }
}

/// Drops a panic's payload, whose own `Drop` might panic too.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

fn worker<P: Planner>(planner: &P, rx: &Mutex<Receiver<Job<P>>>, shared: &Shared) {
    // Made on the first request, and again after a panic.
    let mut state: Option<P::Worker<'_>> = None;
    loop {
        let job = {
            // Only this loop holds the receiver's lock, and it does not panic while holding it.
            let rx = rx.lock().unwrap_or_else(PoisonError::into_inner);
            match rx.recv() {
                Ok(j) => j,
                Err(_) => return, // the service is gone and the queue empty
            }
        };
        let Job { request, reply } = job;
        let outcome = match shared.take(reply.agent, reply.id) {
            Some(Settled::Cancelled) => PathOutcome::Cancelled,
            Some(Settled::Superseded) => PathOutcome::Superseded,
            None => plan(planner, &mut state, request),
        };
        reply.answer(outcome);
    }
}

/// Plans one request, making the worker's state first if it has none; a panic is caught and
/// becomes the answer, and the state (which the panic may have left half-changed) is dropped.
fn plan<'p, P: Planner>(
    planner: &'p P,
    state: &mut Option<P::Worker<'p>>,
    request: P::Request,
) -> PathOutcome<P::Output> {
    let s = match state {
        Some(s) => s,
        None => match catch_unwind(AssertUnwindSafe(|| planner.worker())) {
            Ok(s) => state.insert(s),
            Err(payload) => return panicked("the path planner's worker setup", payload),
        },
    };
    match catch_unwind(AssertUnwindSafe(|| planner.plan(s, request))) {
        Ok(output) => PathOutcome::Done(output),
        Err(payload) => {
            if let Some(s) = state.take() {
                if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(s))) {
                    drop_payload(again);
                }
            }
            panicked("the path planner", payload)
        }
    }
}

fn panicked<T>(what: &'static str, payload: Box<dyn Any + Send>) -> PathOutcome<T> {
    let message = panic_message(&*payload);
    drop_payload(payload);
    PathOutcome::Panicked(Error::Panicked { what, message })
}

impl<P: Planner> Drop for Service<P> {
    fn drop(&mut self) {
        // Requests not started are cancelled; closing the channel ends the workers once the
        // queue is empty.
        self.shared.closing.store(true, Ordering::Release);
        self.tx = None;
        let me = std::thread::current().id();
        for w in self.workers.drain(..) {
            // Dropped from a callback on one of its own workers: that one finishes by itself.
            if w.thread().id() != me {
                let _ = w.join();
            }
        }
    }
}
