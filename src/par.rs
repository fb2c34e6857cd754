//! The few rayon items navkit uses, or, without the `parallel` feature, one-thread stand-ins with
//! the same names and shapes.
//!
//! Every parallel step in navkit is written so that its result does not depend on the number of
//! threads (each tile is built on its own, the triangle index is assembled node for node in one
//! order), so the stand-ins give the same bytes as rayon on any pool: `data_hash` and the tile
//! data are equal with and without the feature. Call sites write `crate::par::...` where they
//! would write `rayon::...`.

#[cfg(feature = "parallel")]
pub(crate) use rayon::{ThreadPoolBuilder, current_num_threads, join};

/// `use crate::par::prelude::*` where rayon's prelude would be used.
#[cfg(feature = "parallel")]
pub(crate) mod prelude {
    pub(crate) use rayon::prelude::*;
}

#[cfg(not(feature = "parallel"))]
pub(crate) use serial::*;

#[cfg(not(feature = "parallel"))]
mod serial {
    /// Runs `a`, then `b` (rayon runs them side by side).
    pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA,
        B: FnOnce() -> RB,
    {
        let ra = a();
        (ra, b())
    }

    /// Always 1: everything runs on the calling thread.
    pub(crate) fn current_num_threads() -> usize {
        1
    }

    /// A stand-in for rayon's pool builder: the thread count is ignored.
    pub(crate) struct ThreadPoolBuilder;

    impl ThreadPoolBuilder {
        pub(crate) fn new() -> Self {
            ThreadPoolBuilder
        }

        pub(crate) fn num_threads(self, _threads: usize) -> Self {
            self
        }

        pub(crate) fn build(self) -> Result<ThreadPool, std::convert::Infallible> {
            Ok(ThreadPool)
        }
    }

    /// A stand-in for a rayon pool: `install` runs the closure on the calling thread.
    pub(crate) struct ThreadPool;

    impl ThreadPool {
        pub(crate) fn install<R>(&self, f: impl FnOnce() -> R) -> R {
            f()
        }
    }

    /// One-thread versions of the rayon iterator methods navkit calls: plain iterators.
    pub(crate) mod prelude {
        /// `slice.par_iter()` is `slice.iter()`.
        pub(crate) trait IntoParallelRefIterator<'a> {
            type Iter: Iterator;
            fn par_iter(&'a self) -> Self::Iter;
        }

        impl<'a, T: 'a> IntoParallelRefIterator<'a> for [T] {
            type Iter = std::slice::Iter<'a, T>;
            fn par_iter(&'a self) -> Self::Iter {
                self.iter()
            }
        }

        /// `x.into_par_iter()` is `x.into_iter()`.
        pub(crate) trait IntoParallelIterator {
            type Iter: Iterator;
            fn into_par_iter(self) -> Self::Iter;
        }

        impl<I: IntoIterator> IntoParallelIterator for I {
            type Iter = I::IntoIter;
            fn into_par_iter(self) -> Self::Iter {
                self.into_iter()
            }
        }

        /// rayon's `with_max_len` and `map_init` on a plain iterator.
        pub(crate) trait ParallelIterator: Iterator + Sized {
            /// No splitting to limit: the iterator itself.
            fn with_max_len(self, _max: usize) -> Self {
                self
            }

            /// `map` with one state made by `init` on first use (rayon makes one per split).
            fn map_init<T, R, INIT, F>(self, init: INIT, mut map_op: F) -> impl Iterator<Item = R>
            where
                INIT: Fn() -> T,
                F: FnMut(&mut T, Self::Item) -> R,
            {
                let mut state: Option<T> = None;
                self.map(move |item| map_op(state.get_or_insert_with(&init), item))
            }
        }

        impl<I: Iterator> ParallelIterator for I {}
    }
}

/// `f(0)`, ..., `f(n - 1)` in order, run by the calling thread and up to `threads - 1` helper
/// threads (scoped OS threads, not the pool's), each taking the next index not yet taken until
/// none is left; `f(0)` always runs on the calling thread, which starts it at once and then
/// takes indices too, so a helper that a busy machine does not run soon costs little more than
/// its start. Without the `parallel` feature, or with one thread, all on the calling thread.
pub(crate) fn claim_each<T: Send>(
    n: usize,
    threads: usize,
    f: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let helpers = if cfg!(feature = "parallel") {
        threads.min(n).saturating_sub(1)
    } else {
        0
    };
    if helpers == 0 {
        return (0..n).map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(1);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= n {
                return done;
            }
            done.push((i, f(i)));
        }
    };
    let mut all: Vec<(usize, T)> = std::thread::scope(|s| {
        let spawned: Vec<_> = (0..helpers).map(|_| s.spawn(work)).collect();
        let mut all = vec![(0, f(0))];
        all.extend(work());
        for h in spawned {
            match h.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    all.sort_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, t)| t).collect()
}
