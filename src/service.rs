//! Path requests from many agents: a [`Service`], a queue served by worker threads, each with
//! its own query state: a [`NavMeshQuery`] for navmesh paths ([`PathService`]), a
//! [`SearchContext`] for grid paths ([`GridPathService`]), or whatever a [`Planner`] of your own
//! keeps per thread.
//!
//! Answers come back through a channel ([`PathService::request`], [`Service::submit`]) or a
//! callback ([`PathService::request_with`], [`Service::submit_with`]). A new request from an
//! agent supersedes its older ones that have not started yet, and [`Service::cancel`] drops an
//! agent's pending requests; either way the superseded request is answered with
//! [`PathOutcome::Superseded`] or [`PathOutcome::Cancelled`], never left hanging.
//!
//! ```no_run
//! # fn f(navmesh: navkit::navmesh::NavMesh) {
//! use std::sync::Arc;
//! use glam::Vec3;
//! use navkit::service::{AgentId, PathService, PathOutcome};
//! let service = PathService::new(Arc::new(navmesh), 2);
//! let ticket = service.request(AgentId(7), Vec3::ZERO, Vec3::new(10.0, 0.0, 5.0), Default::default());
//! if let PathOutcome::Done(Ok(path)) = ticket.wait() {
//!     println!("{} smooth points", path.smooth.points.len());
//! }
//! # }
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use glam::Vec3;

use crate::Result;
use crate::grid::mesh::{MeshGrid, MeshGridPath};
use crate::grid::{SearchContext, SearchGraph, SearchOptions};
use crate::navmesh::NavMesh;
use crate::query::smooth::{FullPath, SmoothPathOptions, full_path};
use crate::query::{NavMeshQuery, QueryFilter};

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

/// Navmesh paths: nearest polys, corridor, straight and smooth path ([`full_path`]).
#[derive(Debug)]
pub struct NavMeshPlanner {
    /// The navmesh.
    pub navmesh: Arc<NavMesh>,
    /// Smooth-path options.
    pub options: SmoothPathOptions,
    /// Detour node pool size per worker.
    pub max_nodes: usize,
}

/// A navmesh path request.
#[derive(Clone, Debug)]
pub struct NavMeshRequest {
    /// Start point.
    pub start: Vec3,
    /// End point.
    pub end: Vec3,
    /// The filter.
    pub filter: QueryFilter,
}

impl Planner for NavMeshPlanner {
    type Worker<'a> = Result<NavMeshQuery<'a>>;
    type Request = NavMeshRequest;
    type Output = Result<FullPath>;
    fn worker(&self) -> Self::Worker<'_> {
        NavMeshQuery::new(&self.navmesh, self.max_nodes)
    }
    fn plan(&self, worker: &mut Self::Worker<'_>, r: NavMeshRequest) -> Result<FullPath> {
        match worker {
            Ok(q) => full_path(q, r.start, r.end, &r.filter, &self.options),
            Err(e) => Err(crate::Error::InvalidArgument(format!(
                "this worker has no navmesh query: {e}"
            ))),
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

/// How a request ended.
#[derive(Debug)]
pub enum PathOutcome<T = Result<FullPath>> {
    /// The path (or the error finding it).
    Done(T),
    /// A newer request from the same agent replaced this one before it started.
    Superseded,
    /// The agent's requests were cancelled before this one started.
    Cancelled,
}

/// The answer to one request.
#[derive(Debug)]
pub struct PathResponse<T = Result<FullPath>> {
    /// The agent.
    pub agent: AgentId,
    /// The request's number (increasing over the service's life).
    pub request: u64,
    /// The outcome.
    pub outcome: PathOutcome<T>,
}

/// A pending request's answer.
#[derive(Debug)]
pub struct Ticket<T = Result<FullPath>> {
    /// The request's number.
    pub request: u64,
    rx: Receiver<PathResponse<T>>,
}

impl<T> Ticket<T> {
    /// Waits for the answer.
    pub fn wait(self) -> PathOutcome<T> {
        match self.rx.recv() {
            Ok(r) => r.outcome,
            // The service was dropped with the request still queued.
            Err(_) => PathOutcome::Cancelled,
        }
    }

    /// The answer if it is ready.
    pub fn try_get(&self) -> Option<PathOutcome<T>> {
        self.rx.try_recv().ok().map(|r| r.outcome)
    }
}

type Reply<T> = Box<dyn FnOnce(PathResponse<T>) + Send>;

struct Job<P: Planner> {
    agent: AgentId,
    id: u64,
    request: P::Request,
    reply: Reply<P::Output>,
}

/// Worker threads answering path requests with a [`Planner`].
pub struct Service<P: Planner> {
    tx: Option<Sender<Job<P>>>,
    /// The newest request number per agent (0: cancelled).
    latest: Arc<Mutex<HashMap<AgentId, u64>>>,
    next: AtomicU64,
    workers: Vec<JoinHandle<()>>,
}

impl<P: Planner> std::fmt::Debug for Service<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("workers", &self.workers.len())
            .field("next_request", &self.next)
            .field("running", &self.tx.is_some())
            .finish_non_exhaustive()
    }
}

/// Navmesh paths from worker threads, each with its own [`NavMeshQuery`].
pub type PathService = Service<NavMeshPlanner>;

/// Grid paths from worker threads, each with its own [`SearchContext`].
pub type GridPathService = Service<GridPlanner>;

impl<P: Planner> Service<P> {
    /// Starts `threads` workers (at least one) planning with `planner`.
    pub fn start(planner: P, threads: usize) -> Self {
        let planner = Arc::new(planner);
        let (tx, rx) = channel::<Job<P>>();
        let rx = Arc::new(Mutex::new(rx));
        let latest: Arc<Mutex<HashMap<AgentId, u64>>> = Arc::default();
        let workers = (0..threads.max(1))
            .map(|_| {
                let (rx, latest, planner) = (rx.clone(), latest.clone(), planner.clone());
                std::thread::spawn(move || worker(&*planner, &rx, &latest))
            })
            .collect();
        Service {
            tx: Some(tx),
            latest,
            next: AtomicU64::new(1),
            workers,
        }
    }

    fn send(&self, agent: AgentId, request: P::Request, reply: Reply<P::Output>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut l) = self.latest.lock() {
            l.insert(agent, id);
        }
        let job = Job {
            agent,
            id,
            request,
            reply,
        };
        if let Some(tx) = &self.tx {
            if let Err(e) = tx.send(job) {
                let job = e.0;
                (job.reply)(PathResponse {
                    agent,
                    request: id,
                    outcome: PathOutcome::Cancelled,
                });
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
                let _ = tx.send(r);
            }),
        );
        Ticket { request, rx }
    }

    /// Asks for a path; `callback` is called with the answer on a worker thread. Returns the
    /// request's number.
    pub fn submit_with(
        &self,
        agent: AgentId,
        request: P::Request,
        callback: impl FnOnce(PathResponse<P::Output>) + Send + 'static,
    ) -> u64 {
        self.send(agent, request, Box::new(callback))
    }

    /// Cancels every request of `agent` that has not started.
    pub fn cancel(&self, agent: AgentId) {
        if let Ok(mut l) = self.latest.lock() {
            l.insert(agent, 0);
        }
    }
}

impl Service<NavMeshPlanner> {
    /// Starts `threads` workers (at least one) over `navmesh`, with RecastDemo's smooth-path
    /// options and a 2048-node pool per worker.
    pub fn new(navmesh: Arc<NavMesh>, threads: usize) -> PathService {
        Self::with_options(navmesh, threads, SmoothPathOptions::default())
    }

    /// Starts `threads` workers with the given smooth-path options.
    pub fn with_options(
        navmesh: Arc<NavMesh>,
        threads: usize,
        options: SmoothPathOptions,
    ) -> PathService {
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
    pub fn request(&self, agent: AgentId, start: Vec3, end: Vec3, filter: QueryFilter) -> Ticket {
        self.submit(agent, NavMeshRequest { start, end, filter })
    }

    /// Asks for a navmesh path; `callback` is called with the answer on a worker thread.
    pub fn request_with(
        &self,
        agent: AgentId,
        start: Vec3,
        end: Vec3,
        filter: QueryFilter,
        callback: impl FnOnce(PathResponse) + Send + 'static,
    ) -> u64 {
        self.submit_with(agent, NavMeshRequest { start, end, filter }, callback)
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

fn worker<P: Planner>(
    planner: &P,
    rx: &Mutex<Receiver<Job<P>>>,
    latest: &Mutex<HashMap<AgentId, u64>>,
) {
    let mut state = planner.worker();
    loop {
        let job = match rx.lock() {
            Ok(r) => match r.recv() {
                Ok(j) => j,
                Err(_) => return, // the service is gone
            },
            Err(_) => return,
        };
        let newest = latest
            .lock()
            .map(|l| l.get(&job.agent).copied().unwrap_or(0))
            .unwrap_or(0);
        let outcome = if newest == 0 {
            PathOutcome::Cancelled
        } else if newest != job.id {
            PathOutcome::Superseded
        } else {
            PathOutcome::Done(planner.plan(&mut state, job.request))
        };
        (job.reply)(PathResponse {
            agent: job.agent,
            request: job.id,
            outcome,
        });
    }
}

impl<P: Planner> Drop for Service<P> {
    fn drop(&mut self) {
        // Closing the channel ends the workers once the queue is empty.
        self.tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
