//! Path requests from many agents: [`PathService`], a queue served by worker threads, each with
//! its own [`NavMeshQuery`].
//!
//! Answers come back through a channel ([`PathService::request`]) or a callback
//! ([`PathService::request_with`]). A new request from an agent supersedes its older ones that
//! have not started yet, and [`PathService::cancel`] drops an agent's pending requests; either way
//! the superseded request is answered with [`PathOutcome::Superseded`] or
//! [`PathOutcome::Cancelled`], never left hanging.
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
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use glam::Vec3;

use crate::navmesh::NavMesh;
use crate::query::{NavMeshQuery, QueryFilter};
use crate::smooth::{full_path, FullPath, SmoothPathOptions};
use crate::Result;

/// Identifies the agent a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(pub u64);

/// How a request ended.
#[derive(Debug)]
pub enum PathOutcome {
    /// The path (or the error finding it).
    Done(Result<FullPath>),
    /// A newer request from the same agent replaced this one before it started.
    Superseded,
    /// The agent's requests were cancelled before this one started.
    Cancelled,
}

/// The answer to one request.
#[derive(Debug)]
pub struct PathResponse {
    /// The agent.
    pub agent: AgentId,
    /// The request's number (increasing over the service's life).
    pub request: u64,
    /// The outcome.
    pub outcome: PathOutcome,
}

/// A pending request's answer.
pub struct Ticket {
    /// The request's number.
    pub request: u64,
    rx: Receiver<PathResponse>,
}

impl Ticket {
    /// Waits for the answer.
    pub fn wait(self) -> PathOutcome {
        match self.rx.recv() {
            Ok(r) => r.outcome,
            // The service was dropped with the request still queued.
            Err(_) => PathOutcome::Cancelled,
        }
    }

    /// The answer if it is ready.
    pub fn try_get(&self) -> Option<PathOutcome> {
        self.rx.try_recv().ok().map(|r| r.outcome)
    }
}

type Reply = Box<dyn FnOnce(PathResponse) + Send>;

struct Job {
    agent: AgentId,
    id: u64,
    start: Vec3,
    end: Vec3,
    filter: QueryFilter,
    reply: Reply,
}

/// Worker threads answering path requests on one navmesh.
pub struct PathService {
    tx: Option<Sender<Job>>,
    /// The newest request number per agent (0: cancelled).
    latest: Arc<Mutex<HashMap<AgentId, u64>>>,
    next: AtomicU64,
    workers: Vec<JoinHandle<()>>,
}

impl PathService {
    /// Starts `threads` workers (at least one) over `navmesh`, with RecastDemo's smooth-path
    /// options.
    pub fn new(navmesh: Arc<NavMesh>, threads: usize) -> PathService {
        Self::with_options(navmesh, threads, SmoothPathOptions::default())
    }

    /// Starts `threads` workers with the given smooth-path options.
    pub fn with_options(
        navmesh: Arc<NavMesh>,
        threads: usize,
        opts: SmoothPathOptions,
    ) -> PathService {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let latest: Arc<Mutex<HashMap<AgentId, u64>>> = Arc::default();
        let workers = (0..threads.max(1))
            .map(|_| {
                let (rx, latest, nav) = (rx.clone(), latest.clone(), navmesh.clone());
                std::thread::spawn(move || worker(&nav, &rx, &latest, &opts))
            })
            .collect();
        PathService {
            tx: Some(tx),
            latest,
            next: AtomicU64::new(1),
            workers,
        }
    }

    fn submit(
        &self,
        agent: AgentId,
        start: Vec3,
        end: Vec3,
        filter: QueryFilter,
        reply: Reply,
    ) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut l) = self.latest.lock() {
            l.insert(agent, id);
        }
        let job = Job {
            agent,
            id,
            start,
            end,
            filter,
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
    pub fn request(&self, agent: AgentId, start: Vec3, end: Vec3, filter: QueryFilter) -> Ticket {
        let (tx, rx) = channel();
        let request = self.submit(
            agent,
            start,
            end,
            filter,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        Ticket { request, rx }
    }

    /// Asks for a path; `callback` is called with the answer on a worker thread.
    pub fn request_with(
        &self,
        agent: AgentId,
        start: Vec3,
        end: Vec3,
        filter: QueryFilter,
        callback: impl FnOnce(PathResponse) + Send + 'static,
    ) -> u64 {
        self.submit(agent, start, end, filter, Box::new(callback))
    }

    /// Cancels every request of `agent` that has not started.
    pub fn cancel(&self, agent: AgentId) {
        if let Ok(mut l) = self.latest.lock() {
            l.insert(agent, 0);
        }
    }
}

fn worker(
    nav: &NavMesh,
    rx: &Mutex<Receiver<Job>>,
    latest: &Mutex<HashMap<AgentId, u64>>,
    opts: &SmoothPathOptions,
) {
    let mut query = NavMeshQuery::new(nav, 2048).ok();
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
            match query.as_mut() {
                Some(q) => PathOutcome::Done(full_path(q, job.start, job.end, &job.filter, opts)),
                None => PathOutcome::Cancelled,
            }
        };
        (job.reply)(PathResponse {
            agent: job.agent,
            request: job.id,
            outcome,
        });
    }
}

impl Drop for PathService {
    fn drop(&mut self) {
        // Closing the channel ends the workers once the queue is empty.
        self.tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
