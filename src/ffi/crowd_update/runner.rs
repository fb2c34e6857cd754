//! The worker threads of the crowd update and their scratch (one per worker, made once and
//! kept): a per-agent phase is run over the active agents in small chunks, which rayon's work
//! stealing spreads over the workers (agents cost very different amounts: one plans around a
//! wall, the next stands still). Each chunk locks the scratch of the worker running it; a
//! worker runs one chunk at a time and a chunk never waits on rayon, so the lock is never
//! contended in practice (it makes sharing safe whatever the pool does). Results do not depend
//! on the chunking or on the worker (see `scratch`).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use recastnavigation_sys as sys;

use super::scratch::Scratch;

/// Agents per task: small, so that expensive agents spread over the workers.
#[cfg(feature = "parallel")]
const CHUNK: usize = 8;
/// Fewer agents than this run a phase on one thread: waking the other workers for each phase
/// (some 25 us on this 2-core machine) costs more than half the phase saves (measured: 100
/// agents ran slower on 2 threads than on 1).
#[cfg(feature = "parallel")]
const PARALLEL_MIN: usize = 256;
/// The same for light phases (a few dozen float operations per agent), in larger tasks.
#[cfg(feature = "parallel")]
const LIGHT_PARALLEL_MIN: usize = 4096;
#[cfg(feature = "parallel")]
const LIGHT_CHUNK: usize = 256;

/// How much work a phase does per agent: where it is worth spreading over the workers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Weight {
    /// Detour queries per agent (corridors, boundaries, avoidance sampling).
    Heavy,
    /// A few dozen float operations per agent.
    Light,
}

/// Whether a phase of `weight` over `agents` agents is spread over several workers (when
/// there are several).
fn spread(weight: Weight, agents: usize) -> bool {
    #[cfg(feature = "parallel")]
    {
        agents
            >= match weight {
                Weight::Heavy => PARALLEL_MIN,
                Weight::Light => LIGHT_PARALLEL_MIN,
            }
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = (weight, agents);
        false
    }
}

/// Where the per-agent phases run.
pub(crate) struct Runner {
    /// The threads asked for (`None`: rayon's global pool).
    threads: Option<usize>,
    /// The crowd's own pool, for more than one thread asked for.
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
    /// One scratch per worker, made on first use.
    scratch: Vec<Mutex<Option<Scratch>>>,
    /// The navmesh the scratches' queries are made over.
    nav: NavPtr,
}

/// The crowd's navmesh, for making worker queries.
#[derive(Clone, Copy)]
struct NavPtr(*const sys::dtNavMesh);

// SAFETY: the navmesh is only read (by queries made over it), never written during an update,
// and outlives every worker query (`Engine::update`'s contract).
unsafe impl Send for NavPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for NavPtr {}

impl Runner {
    /// A runner of `threads` threads (`None`: rayon's global pool; without the `parallel`
    /// feature, always the calling thread).
    pub(crate) fn new(threads: Option<usize>) -> Self {
        let mut runner = Runner {
            threads: None,
            #[cfg(feature = "parallel")]
            pool: None,
            scratch: Vec::new(),
            nav: NavPtr(std::ptr::null()),
        };
        runner.set_threads(threads);
        runner
    }

    /// Runs on `threads` threads from now on (`None`: rayon's global pool; `Some(0)` is taken
    /// as 1). Builds the crowd's own pool for more than one.
    pub(crate) fn set_threads(&mut self, threads: Option<usize>) {
        let threads = threads.map(|n| n.max(1));
        self.threads = threads;
        #[cfg(feature = "parallel")]
        {
            self.pool = match threads {
                Some(n) if n > 1 => rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("navkit-crowd-{i}"))
                    .build()
                    .ok(),
                _ => None,
            };
        }
    }

    /// The threads the per-agent phases run on.
    pub(crate) fn threads(&self) -> usize {
        #[cfg(feature = "parallel")]
        {
            match (&self.pool, self.threads) {
                (Some(pool), _) => pool.current_num_threads(),
                (None, Some(_)) => 1,
                (None, None) => rayon::current_num_threads(),
            }
        }
        #[cfg(not(feature = "parallel"))]
        {
            1
        }
    }

    /// Gets the scratches ready for an update over the navmesh at `nav` (the crowd's; the
    /// same every time).
    pub(super) fn prepare(&mut self, nav: *const sys::dtNavMesh) {
        self.nav = NavPtr(nav);
        let n = self.threads().max(1);
        if self.scratch.len() < n {
            self.scratch.resize_with(n, || Mutex::new(None));
        }
    }

    /// Runs `f` (a whole update over `agents` agents) on a worker of the pool, when the
    /// per-agent phases will be spread: their hand-offs then start from a worker, which wakes
    /// the others through rayon's own queues, instead of from the calling thread, which would
    /// sleep and be woken for every phase. Results do not depend on it.
    pub(super) fn install<R: Send>(&self, agents: usize, f: impl FnOnce() -> R + Send) -> R {
        #[cfg(feature = "parallel")]
        if spread(Weight::Heavy, agents) {
            match (&self.pool, self.threads) {
                (Some(pool), _) => return pool.install(f),
                (None, None) if rayon::current_num_threads() > 1 => {
                    return rayon::scope(|_| f());
                }
                _ => {}
            }
        }
        #[cfg(not(feature = "parallel"))]
        let _ = agents;
        f()
    }

    /// Calls `f(scratch, agent)` for every agent of `agents`, on the workers; the time it
    /// took if the phase is spread over the workers when there are several (else zero: it is
    /// part of the update's sequential time).
    pub(super) fn for_each<F>(&self, weight: Weight, agents: &[usize], f: F) -> Duration
    where
        F: Fn(&mut Scratch, usize) + Sync,
    {
        let start = Instant::now();
        self.run(weight, agents, f);
        if spread(weight, agents.len()) {
            start.elapsed()
        } else {
            Duration::ZERO
        }
    }

    /// [`Runner::for_each`] without the timing.
    fn run<F>(&self, weight: Weight, agents: &[usize], f: F)
    where
        F: Fn(&mut Scratch, usize) + Sync,
    {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            let chunk = match weight {
                Weight::Heavy => CHUNK,
                Weight::Light => LIGHT_CHUNK,
            };
            let work = || {
                agents.par_chunks(chunk).for_each(|chunk| {
                    let worker = rayon::current_thread_index().unwrap_or(0);
                    self.run_chunk(worker, chunk, &f);
                });
            };
            match (&self.pool, self.threads) {
                _ if !spread(weight, agents.len()) => {}
                (Some(pool), _) => return pool.install(work),
                (None, None) if rayon::current_num_threads() > 1 => return work(),
                _ => {}
            }
        }
        #[cfg(not(feature = "parallel"))]
        let _ = weight;
        self.run_chunk(0, agents, &f);
    }

    /// Runs `f` over `chunk` with worker `worker`'s scratch.
    fn run_chunk<F>(&self, worker: usize, chunk: &[usize], f: &F)
    where
        F: Fn(&mut Scratch, usize),
    {
        let slot = &self.scratch[worker % self.scratch.len()];
        let mut guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        let scratch = guard.get_or_insert_with(|| {
            // SAFETY: the crowd's navmesh, live and unchanged during the update, outlives the
            // scratch (`Engine::update`'s contract: the engine is freed before the navmesh).
            unsafe { Scratch::new(self.nav.0) }.expect("out of memory making a crowd query")
        });
        for &i in chunk {
            f(scratch, i);
        }
    }
}
