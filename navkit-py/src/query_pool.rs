//! Queries kept between calls: a Detour query owns a node pool (RecastDemo's 2048 nodes), so
//! making one per call would cost more than a short path. Each [`OwnedQuery`] holds the
//! navmesh it reads (an `Arc`), so it lives as long as it is pooled, on any thread.

use std::sync::{Arc, Mutex};

use navkit::NavMesh;
use navkit::query::NavMeshQuery;
use rayon::prelude::*;
use self_cell::self_cell;

self_cell!(
    /// A query and the navmesh it borrows, in one value.
    pub struct OwnedQuery {
        owner: Arc<NavMesh>,
        #[covariant]
        dependent: NavMeshQuery,
    }
);

/// The most idle queries kept (more are made when more threads query at once, then dropped).
const MAX_IDLE: usize = 64;

/// Idle queries over one navmesh.
pub struct QueryPool {
    navmesh: Arc<NavMesh>,
    idle: Mutex<Vec<OwnedQuery>>,
}

impl QueryPool {
    /// An empty pool over `navmesh`.
    pub fn new(navmesh: Arc<NavMesh>) -> Self {
        QueryPool {
            navmesh,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The navmesh the queries read.
    pub fn navmesh(&self) -> &Arc<NavMesh> {
        &self.navmesh
    }

    /// Runs `f` with an idle query (or a new one), then keeps the query for the next call.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&mut NavMeshQuery<'_>) -> navkit::Result<T>,
    ) -> navkit::Result<T> {
        let taken = self.idle.lock().map(|mut v| v.pop()).unwrap_or(None);
        let mut q = match taken {
            Some(q) => q,
            None => OwnedQuery::try_new(self.navmesh.clone(), |nav| nav.query())?,
        };
        let out = q.with_dependent_mut(|_, query| f(query));
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push(q);
        }
        out
    }

    /// `f` on every item, in order, on every core (tasks of [`CHUNK`] items, a query each);
    /// the first failing item in order is named by its index.
    pub fn map<I: Sync, T: Send>(
        &self,
        items: &[I],
        f: impl Fn(&mut NavMeshQuery<'_>, &I) -> navkit::Result<T> + Sync,
    ) -> Result<Vec<T>, (usize, navkit::Error)> {
        let parts: Vec<Result<Vec<T>, (usize, navkit::Error)>> = items
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| self.map_chunk(c * CHUNK, chunk, &f))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for part in parts {
            out.extend(part?);
        }
        Ok(out)
    }

    /// `f` on every item of `chunk`, items `first..` of a batch, on one query; the first
    /// failing item stops it and is named by its index in the batch.
    pub fn map_chunk<I, T>(
        &self,
        first: usize,
        chunk: &[I],
        f: impl Fn(&mut NavMeshQuery<'_>, &I) -> navkit::Result<T>,
    ) -> Result<Vec<T>, (usize, navkit::Error)> {
        let mut failed = first;
        self.with(|q| {
            let mut out = Vec::with_capacity(chunk.len());
            for (i, item) in chunk.iter().enumerate() {
                failed = first + i;
                out.push(f(q, item)?);
            }
            Ok(out)
        })
        .map_err(|e| (failed, e))
    }
}

/// Items per task of a batch: enough to keep a query busy, few enough to share the work out.
pub const CHUNK: usize = 64;
