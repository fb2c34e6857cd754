//! The path service under load: many client threads, a million requests (by default), random
//! cancelling and superseding, dropped tickets, and panics injected into the planner (while
//! planning, after a real navmesh query, and while setting up a worker) and into callbacks.
//!
//! Asserted: every request gets exactly one outcome (answered, superseded, cancelled or
//! panicked), each outcome is one the request could have had (a cheap request's value, a navmesh
//! request's path equal to a direct query's, `Superseded` only with a newer request of the same
//! agent, `Cancelled` only after a cancel of its agent, `Panicked` only where a panic was
//! injected), the counts add up exactly against the service's own, no per-agent bookkeeping is
//! left behind, no deadlock (a watchdog ends the test with a message if answers stop coming),
//! and resident memory stays flat after warm-up.
//!
//! `NAVKIT_SOAK_REQUESTS` sets the number of requests (default 1,000,000).

mod common;

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use glam::Vec3;
use navkit::Error;
use navkit::query::{NavMeshQuery, NavPath, PathOptions, QueryFilter};
use navkit::service::{
    AgentId, NavMeshPlanner, NavMeshRequest, PathOutcome, PathResponse, Planner, Service,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const CLIENTS: usize = 12;
const WORKERS: usize = 4;
/// Agents per client at a time; a batch's requests go to random ones, so an agent often has
/// several requests queued (superseding).
const SLOTS: usize = 48;
/// Requests a client submits before it waits for their answers (its requests in flight).
const BATCH: usize = 64;
/// Every this many worker setups, one panics.
const SETUP_PANIC_EVERY: u64 = 7;
/// Resident memory may grow this much after warm-up (see `memory_stays_flat` below).
const RSS_BOUND_KB: u64 = 16 * 1024;
/// The watchdog's patience: no answer for this long is a deadlock.
const STALL: Duration = Duration::from_secs(30);

/// What a request asks the soak planner for.
#[derive(Clone, Copy, Debug)]
enum Ask {
    /// A cheap computation ([`cheap`]).
    Cheap(u64),
    /// A real navmesh path: pair `i`.
    Nav(usize),
    /// Panics while planning.
    Panic(u64),
    /// Runs a real navmesh query for pair `i` with the worker's query, then panics (so the
    /// worker's state must be thrown away and made again).
    NavThenPanic(usize, u64),
}

#[derive(Debug)]
enum Out {
    Cheap(u64),
    Nav(navkit::Result<NavPath>),
}

/// A cheap, checkable computation.
fn cheap(n: u64) -> u64 {
    let mut x = n;
    for _ in 0..32 {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x = z ^ (z >> 31);
    }
    x
}

struct Pair {
    start: Vec3,
    end: Vec3,
    direct: navkit::Result<NavPath>,
}

struct SoakPlanner {
    nav: NavMeshPlanner,
    pairs: Arc<Vec<Pair>>,
    setups: AtomicU64,
    setup_panics: AtomicU64,
}

impl Planner for SoakPlanner {
    type Worker<'a> = navkit::Result<NavMeshQuery<'a>>;
    type Request = Ask;
    type Output = Out;
    fn worker(&self) -> Self::Worker<'_> {
        let n = self.setups.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(SETUP_PANIC_EVERY) {
            self.setup_panics.fetch_add(1, Ordering::Relaxed);
            panic!("injected setup panic {n}");
        }
        self.nav.worker()
    }
    fn plan(&self, worker: &mut Self::Worker<'_>, ask: Ask) -> Out {
        let nav = |worker: &mut Self::Worker<'_>, i: usize| {
            let p = &self.pairs[i];
            let r = NavMeshRequest {
                start: p.start,
                goal: p.end,
                filter: QueryFilter::default(),
                options: None,
            };
            self.nav.plan(worker, r)
        };
        match ask {
            Ask::Cheap(n) => Out::Cheap(cheap(n)),
            Ask::Nav(i) => Out::Nav(nav(worker, i)),
            Ask::Panic(n) => panic!("injected plan panic {n}"),
            Ask::NavThenPanic(i, n) => {
                let _ = nav(worker, i);
                panic!("injected plan panic {n}")
            }
        }
    }
}

/// Outcome counts seen by the clients.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Seen {
    done: u64,
    superseded: u64,
    cancelled: u64,
    plan_panics: u64,
    setup_panics: u64,
    /// Tickets dropped unread (their requests answered into the void).
    dropped: u64,
    callback_panics: u64,
    nav_done: u64,
}

impl Seen {
    fn add(&mut self, o: &Seen) {
        self.done += o.done;
        self.superseded += o.superseded;
        self.cancelled += o.cancelled;
        self.plan_panics += o.plan_panics;
        self.setup_panics += o.setup_panics;
        self.dropped += o.dropped;
        self.callback_panics += o.callback_panics;
        self.nav_done += o.nav_done;
    }
}

/// One client's agent slot: the agent, how many requests it has submitted, and how many it had
/// when it was last cancelled.
struct Slot {
    agent: AgentId,
    submitted: u32,
    cancelled_at: u32,
}

struct Meta {
    ask: Ask,
    slot: usize,
    /// The request is its agent's `ordinal`-th (1-based).
    ordinal: u32,
    answered: bool,
}

/// Progress shared with the watchdog and the memory sampler.
#[derive(Default)]
struct Progress {
    answered: AtomicU64,
    finished: AtomicBool,
}

type Soak = Service<SoakPlanner>;

#[test]
fn the_service_answers_a_million_requests_exactly_once_under_load() {
    let total: u64 = std::env::var("NAVKIT_SOAK_REQUESTS")
        .ok()
        .map(|v| v.parse().expect("NAVKIT_SOAK_REQUESTS: a number"))
        .unwrap_or(1_000_000);
    quiet_injected_panics();

    // Real navmesh work: dungeon.obj, 200 seeded random pairs, each solved directly first.
    let nav = Arc::new(common::build("dungeon.obj").into_navmesh());
    let options = PathOptions::default();
    let pairs = {
        let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
        let f = QueryFilter::default();
        let mut rng = Pcg64::seed_from_u64(11);
        let mut pairs = Vec::new();
        for i in 0..200 {
            let (_, start) = q.find_random_point(&f, &mut rng).unwrap();
            let (_, mut end) = q.find_random_point(&f, &mut rng).unwrap();
            if i % 50 == 0 {
                end = Vec3::new(1e4, 0.0, 1e4); // off the mesh: an error, answered like a path
            }
            let direct = q.path(start, end, &f, &options);
            pairs.push(Pair { start, end, direct });
        }
        Arc::new(pairs)
    };
    assert!(pairs.iter().filter(|p| p.direct.is_ok()).count() > 150);
    let service: Arc<Soak> = Arc::new(Service::start(
        SoakPlanner {
            nav: NavMeshPlanner {
                navmesh: nav.clone(),
                options,
                max_nodes: 2048,
            },
            pairs: pairs.clone(),
            setups: AtomicU64::new(0),
            setup_panics: AtomicU64::new(0),
        },
        WORKERS,
    ));

    let progress = Arc::new(Progress::default());
    let watchdog = spawn_watchdog(service.clone(), progress.clone(), total);
    let sampler = spawn_sampler(service.clone(), progress.clone(), total);

    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let quota = total / CLIENTS as u64 + u64::from((c as u64) < total % CLIENTS as u64);
            let (service, pairs, progress) = (service.clone(), pairs.clone(), progress.clone());
            std::thread::Builder::new()
                .name(format!("soak client {c}"))
                .spawn(move || client(c, quota, &service, &pairs, &progress))
                .unwrap()
        })
        .collect();
    let mut seen = Seen::default();
    for (c, h) in clients.into_iter().enumerate() {
        match h.join() {
            Ok(s) => seen.add(&s),
            Err(e) => std::panic::resume_unwind(e_with_client(c, e)),
        }
    }
    let elapsed = started.elapsed();
    progress.finished.store(true, Ordering::Release);
    let rss = sampler
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
    watchdog.join().unwrap();

    let stats = service.stats();
    let setup_panics = service.planner().setup_panics.load(Ordering::Acquire);
    eprintln!(
        "soak: {total} requests from {CLIENTS} clients on {WORKERS} workers in {:.1} s: {stats:?}; seen {seen:?}",
        elapsed.as_secs_f64()
    );
    eprintln!("soak: resident memory (kB, by answers): {rss:?}");

    // Exactly one outcome each, and the counts add up.
    assert_eq!(stats.submitted, total);
    assert_eq!(stats.pending(), 0, "{stats:?}");
    let observed = seen.done + seen.superseded + seen.cancelled + seen.plan_panics;
    assert_eq!(
        observed + seen.setup_panics + seen.dropped,
        total,
        "{seen:?}"
    );
    assert!(seen.done <= stats.done && stats.done <= seen.done + seen.dropped);
    assert!(seen.superseded <= stats.superseded && seen.cancelled <= stats.cancelled);
    assert_eq!(
        stats.done + stats.superseded + stats.cancelled + stats.panicked,
        total
    );
    assert_eq!(stats.callback_panics, seen.callback_panics);
    assert!(seen.plan_panics + seen.setup_panics <= stats.panicked);
    assert!(stats.panicked <= seen.plan_panics + seen.setup_panics + seen.dropped);
    // Every worker setup panic spoiled exactly one request.
    assert!(seen.setup_panics <= setup_panics);
    assert!(setup_panics <= seen.setup_panics + seen.dropped);
    assert_eq!(stats.agents_waiting, 0, "per-agent bookkeeping left behind");
    // The mix exercised what it is meant to.
    for (what, n) in [
        ("done", seen.done),
        ("navmesh done", seen.nav_done),
        ("superseded", seen.superseded),
        ("cancelled", seen.cancelled),
        ("plan panics", seen.plan_panics),
        ("setup panics", seen.setup_panics),
        ("callback panics", seen.callback_panics),
        ("dropped tickets", seen.dropped),
    ] {
        assert!(n >= total / 2000, "only {n} {what}: {seen:?}");
    }
    memory_stays_flat(&rss, total);

    // Dropping the service with nothing queued ends its workers.
    let service = Arc::into_inner(service).expect("the last reference");
    drop(service);
}

/// The resident set after warm-up (the first tenth of the answers) may grow by at most
/// [`RSS_BOUND_KB`]. Why that bound: the service's own steady state is a few thousand
/// requests in flight (12 clients x 64), well under a megabyte; allocator noise (glibc's
/// per-thread arenas for 16 threads, the mpsc channels' blocks) moves the resident set by a few
/// megabytes either way. A leak of anything per request (a job, a reply, a channel: 50+ bytes)
/// over the 900,000 requests after warm-up is 45 MB or more, and a per-agent entry left behind
/// (about 60,000 agents over the run) is caught by `agents_waiting` above as well.
fn memory_stays_flat(rss: &[(u64, u64)], total: u64) {
    if let Ok(s) = std::env::var("NAVKIT_SANITIZER") {
        // Under AddressSanitizer (scripts/asan.sh) freed memory waits in a quarantine of up to
        // 256 MB before reuse, so the resident set says nothing about leaks; LeakSanitizer
        // checks for them there instead.
        eprintln!("soak: under the {s} sanitizer, resident memory is not judged ({rss:?})");
        return;
    }
    let warm = total / 10;
    let after: Vec<_> = rss.iter().filter(|(n, _)| *n >= warm).collect();
    let Some(&&(_, base)) = after.first() else {
        eprintln!("soak: too few memory samples to judge ({rss:?})");
        return;
    };
    let peak = after.iter().map(|(_, kb)| *kb).max().unwrap();
    assert!(
        peak <= base + RSS_BOUND_KB,
        "resident memory grew {} kB after warm-up (from {base} kB to {peak} kB; bound {RSS_BOUND_KB} kB): {rss:?}",
        peak - base
    );
}

fn e_with_client(
    c: usize,
    e: Box<dyn std::any::Any + Send>,
) -> Box<dyn std::any::Any + Send + 'static> {
    let m = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    Box::new(format!("client {c} failed: {m}"))
}

/// One client: batches of requests to random agents of its own, half by ticket, half by
/// callback, some cancelled, some tickets dropped; then it waits for and checks every answer.
fn client(c: usize, quota: u64, service: &Soak, pairs: &[Pair], progress: &Progress) -> Seen {
    let mut rng = Pcg64::seed_from_u64(1000 + c as u64);
    let mut next_agent = 0u64;
    let mut new_agent = || {
        next_agent += 1;
        AgentId(((c as u64) << 40) | next_agent)
    };
    let mut slots: Vec<Slot> = (0..SLOTS)
        .map(|_| Slot {
            agent: new_agent(),
            submitted: 0,
            cancelled_at: 0,
        })
        .collect();
    let mut seen = Seen::default();
    let (cb_tx, cb_rx) = channel::<(u64, PathOutcome<Out>)>();
    let mut meta: Vec<Meta> = Vec::with_capacity(BATCH);
    let mut tickets = VecDeque::with_capacity(BATCH);
    let mut sent = 0u64;
    while sent < quota {
        let batch = (quota - sent).min(BATCH as u64) as usize;
        meta.clear();
        let mut callbacks = 0;
        for i in 0..batch {
            let n = (c as u64) << 40 | (sent + i as u64);
            let ask = match rng.gen_range(0..1000) {
                0..40 => Ask::Nav(rng.gen_range(0..pairs.len())),
                40..45 => Ask::NavThenPanic(rng.gen_range(0..pairs.len()), n),
                45..55 => Ask::Panic(n),
                _ => Ask::Cheap(n),
            };
            let s = rng.gen_range(0..SLOTS);
            let slot = &mut slots[s];
            slot.submitted += 1;
            meta.push(Meta {
                ask,
                slot: s,
                ordinal: slot.submitted,
                answered: false,
            });
            if rng.gen_bool(0.5) {
                let tx = cb_tx.clone();
                let panics = rng.gen_bool(0.02);
                callbacks += 1;
                service.submit_with(slot.agent, ask, move |r: PathResponse<Out>| {
                    let seq = sent + i as u64;
                    let _ = tx.send((seq, r.outcome));
                    if panics {
                        panic!("injected callback panic");
                    }
                });
                if panics {
                    seen.callback_panics += 1;
                }
            } else {
                let t = service.submit(slot.agent, ask);
                if rng.gen_bool(0.01) {
                    drop(t);
                    meta[i].answered = true;
                    seen.dropped += 1;
                    progress.answered.fetch_add(1, Ordering::Relaxed);
                } else {
                    tickets.push_back((i, t));
                }
            }
            if rng.gen_bool(0.03) {
                let s = rng.gen_range(0..SLOTS);
                service.cancel(slots[s].agent);
                slots[s].cancelled_at = slots[s].submitted;
            }
        }
        sent += batch as u64;
        // The answers, each checked once.
        while let Some((i, t)) = tickets.pop_front() {
            let outcome = match t.wait_timeout(STALL) {
                Ok(o) => o,
                Err(t) => panic!(
                    "client {c}: request {} ({:?}) unanswered after {STALL:?}",
                    t.request, meta[i].ask
                ),
            };
            check(c, &mut meta[i], &slots, pairs, outcome, &mut seen);
            progress.answered.fetch_add(1, Ordering::Relaxed);
        }
        for _ in 0..callbacks {
            let (seq, outcome) = recv_callback(c, &cb_rx, &meta);
            let i = seq
                .checked_sub(sent - batch as u64)
                .unwrap_or_else(|| panic!("client {c}: a second answer for request {seq}"))
                as usize;
            check(c, &mut meta[i], &slots, pairs, outcome, &mut seen);
            progress.answered.fetch_add(1, Ordering::Relaxed);
        }
        assert!(
            meta.iter().all(|m| m.answered),
            "client {c}: a request of the batch has no answer"
        );
        // Answered twice would show up here, or in a later batch.
        if let Ok((seq, o)) = cb_rx.try_recv() {
            panic!("client {c}: a second answer for request {seq}: {o:?}");
        }
        // Some agents leave and new ones come, so the service sees many agents over the run.
        for slot in &mut slots {
            if rng.gen_bool(0.25) {
                *slot = Slot {
                    agent: new_agent(),
                    submitted: 0,
                    cancelled_at: 0,
                };
            }
        }
    }
    // No late answers.
    drop(cb_tx);
    std::thread::sleep(Duration::from_millis(10));
    if let Ok((seq, o)) = cb_rx.try_recv() {
        panic!("client {c}: a late answer for request {seq}: {o:?}");
    }
    seen
}

fn recv_callback(
    c: usize,
    rx: &Receiver<(u64, PathOutcome<Out>)>,
    meta: &[Meta],
) -> (u64, PathOutcome<Out>) {
    match rx.recv_timeout(STALL) {
        Ok(x) => x,
        Err(_) => {
            let missing: Vec<_> = meta
                .iter()
                .enumerate()
                .filter(|(_, m)| !m.answered)
                .map(|(i, m)| (i, m.ask))
                .collect();
            panic!("client {c}: no callback for {STALL:?}; unanswered: {missing:?}")
        }
    }
}

/// Checks one answer: the first for its request, and one it could have had.
fn check(
    c: usize,
    m: &mut Meta,
    slots: &[Slot],
    pairs: &[Pair],
    outcome: PathOutcome<Out>,
    seen: &mut Seen,
) {
    assert!(!m.answered, "client {c}: {:?} answered twice", m.ask);
    m.answered = true;
    let slot = &slots[m.slot];
    match outcome {
        PathOutcome::Done(out) => {
            seen.done += 1;
            match (m.ask, out) {
                (Ask::Cheap(n), Out::Cheap(v)) => assert_eq!(v, cheap(n), "client {c}"),
                (Ask::Nav(i), Out::Nav(r)) => {
                    seen.nav_done += 1;
                    match (&pairs[i].direct, &r) {
                        (Ok(d), Ok(p)) => assert_eq!(p, d, "client {c}: pair {i}"),
                        (Err(d), Err(e)) => assert_eq!(e.to_string(), d.to_string()),
                        (d, r) => panic!("client {c}: pair {i}: {r:?}, directly {d:?}"),
                    }
                }
                (ask, out) => panic!("client {c}: {ask:?} answered {out:?}"),
            }
        }
        PathOutcome::Superseded => {
            seen.superseded += 1;
            assert!(
                slot.submitted > m.ordinal,
                "client {c}: {:?} superseded but its agent's newest",
                m.ask
            );
        }
        PathOutcome::Cancelled => {
            seen.cancelled += 1;
            assert!(
                slot.cancelled_at >= m.ordinal,
                "client {c}: {:?} cancelled but its agent was not",
                m.ask
            );
        }
        PathOutcome::Panicked(Error::Panicked { what, message }) => {
            if message.starts_with("injected setup panic") {
                seen.setup_panics += 1;
            } else {
                seen.plan_panics += 1;
                assert_eq!(what, "the path planner");
                match m.ask {
                    Ask::Panic(n) | Ask::NavThenPanic(_, n) => {
                        assert_eq!(message, format!("injected plan panic {n}"))
                    }
                    ask => panic!("client {c}: {ask:?} panicked: {message}"),
                }
            }
        }
        other => panic!("client {c}: {:?} answered {other:?}", m.ask),
    }
}

/// Injected panics are expected: the default hook stays for every other.
fn quiet_injected_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let m = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !m.starts_with("injected ") {
            default(info);
        }
    }));
}

/// Ends the test with a message (rather than letting CI hang) if no answer arrives for
/// [`STALL`]: a deadlock or a lost request.
fn spawn_watchdog(
    service: Arc<Soak>,
    progress: Arc<Progress>,
    total: u64,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut last = (0, Instant::now());
        while !progress.finished.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(200));
            let n = progress.answered.load(Ordering::Relaxed);
            if n != last.0 {
                last = (n, Instant::now());
            } else if last.1.elapsed() > STALL + Duration::from_secs(5) {
                // Past the clients' own timeouts: something is stuck where no client can see it
                // (a submit blocked on a lock). Written past the test harness's capture.
                let _ = writeln!(
                    std::io::stderr(),
                    "soak watchdog: no answer for {:?} after {n} of {total}: {:?}; a deadlock",
                    last.1.elapsed(),
                    service.stats()
                );
                std::process::exit(101);
            }
        }
    })
}

/// Samples the resident set every 100 ms: (answers so far, kB).
fn spawn_sampler(
    service: Arc<Soak>,
    progress: Arc<Progress>,
    total: u64,
) -> std::thread::JoinHandle<Vec<(u64, u64)>> {
    let limit = (CLIENTS * SLOTS) as u64;
    std::thread::spawn(move || {
        let mut v: Vec<(u64, u64)> = Vec::with_capacity(100_000);
        let mut next_print = 0;
        while !progress.finished.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(100));
            let n = progress.answered.load(Ordering::Relaxed);
            let s = service.stats();
            assert!(
                s.agents_waiting <= limit,
                "{} agents with requests waiting; the clients have {limit}",
                s.agents_waiting
            );
            if let Some(kb) = rss_kb() {
                if n >= next_print {
                    v.push((n, kb));
                    next_print = n + total / 50;
                } else if let Some(last) = v.last_mut() {
                    // Keep the highest reading of each stretch.
                    if kb > last.1 {
                        *last = (last.0, kb);
                    }
                }
            }
        }
        v
    })
}

/// The resident set (VmRSS of /proc/self/status, in kB; in kB there so no page size is needed).
fn rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
