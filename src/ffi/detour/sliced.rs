//! Detour's sliced pathfinding (`initSlicedFindPath`, `updateSlicedFindPath`,
//! `finalizeSlicedFindPath`, `finalizeSlicedFindPathPartial`) over a [`RawQuery`].
//!
//! Detour keeps a pointer to the search's filter inside the query (`m_query.filter`) from
//! `init` until `finalize`, and dereferences it on every `update` and in `finalize` (any-angle
//! searches raycast with it). Here the filter lives in a [`RawSliced`], a boxed copy with a stable
//! address, and every call after `init` first checks that the query's stored filter pointer is
//! that box: a query whose sliced state belongs to another (possibly dropped) search, or to
//! none, is refused without calling Detour, so a dangling filter can never be read whatever the
//! callers do.

use recastnavigation_sys as sys;

use super::{RawFilter, RawQuery};
use crate::ffi::RawPolyRef;

/// The state of one sliced search that must outlive Detour's use of it: its filter.
pub(crate) struct RawSliced {
    filter: Box<RawFilter>,
}

impl RawSliced {
    /// A search with a copy of `filter`.
    pub(crate) fn new(filter: &RawFilter) -> Self {
        RawSliced {
            filter: Box::new(filter.clone()),
        }
    }

    fn filter_ptr(&self) -> *const sys::dtQueryFilter {
        &self.filter.0
    }
}

/// The status returned, without calling Detour, when the query's sliced state is not `s`'s.
const NOT_OURS: u32 = sys::DT_FAILURE | sys::DT_INVALID_PARAM;

/// The largest path buffer handed to a finalize (two guard slots are added to it).
const MAX_FINALIZE: usize = i32::MAX as usize - 2;

/// Runs a Detour finalize, `call(path, &mut n)` with room for `max` refs, and leaves its result
/// in `out` (at most `max` refs; more is reported as `DT_BUFFER_TOO_SMALL`).
///
/// The bundled Detour's finalize of an any-angle search does not keep inside its buffer: after a
/// raycast shortcut it reads `path[n-1]` even when the raycast stored nothing at `n == 0` (one
/// slot before the buffer), and when a raycast fills the buffer exactly it may store one more
/// ref at `path[max]` (found by the `sliced` fuzz target under ASan). So Detour is given a
/// pointer one slot into a zeroed buffer of `max + 2` refs: the slot before holds 0, which is
/// never a node's ref (so the read removes nothing), and the slot after takes the extra ref,
/// which is then cut off.
fn guarded_finalize(
    out: &mut Vec<RawPolyRef>,
    max: usize,
    call: impl FnOnce(*mut RawPolyRef, &mut i32) -> u32,
) -> u32 {
    debug_assert!((1..=MAX_FINALIZE).contains(&max));
    out.clear();
    out.resize(max + 2, 0);
    let mut n = 0;
    // `out` has max + 2 initialized refs, so `path` (slot 1, derived from the whole buffer) has
    // one before it and max + 1 from it: every slot the finalize can touch is inside `out`.
    let mut st = call(out.as_mut_ptr().wrapping_add(1), &mut n);
    let n = n.max(0) as usize;
    if n > max {
        st |= sys::DT_BUFFER_TOO_SMALL;
    }
    out.truncate(n.min(max) + 1);
    out.remove(0);
    st
}

impl RawQuery<'_> {
    fn owns_slice(&self, s: &RawSliced) -> bool {
        // SAFETY: live query; reading a plain field of its (Copy) sliced-query state.
        let stored = unsafe { (*self.q()).m_query.filter };
        std::ptr::eq(stored, s.filter_ptr())
    }

    /// `initSlicedFindPath` with `s`'s filter. The query's sliced state is then `s`'s until
    /// finalized, reset or replaced by another `init`.
    pub(crate) fn sliced_init(
        &mut self,
        s: &RawSliced,
        start: RawPolyRef,
        end: RawPolyRef,
        spos: [f32; 3],
        epos: [f32; 3],
        options: u32,
    ) -> u32 {
        // SAFETY: live query; 3-float positions; the filter is `s`'s box, which Detour keeps a
        // pointer to: every later call that lets Detour read it checks first that it is the
        // box of the `RawSliced` borrowed for that call (`owns_slice`), so it is alive then.
        unsafe {
            sys::dtNavMeshQuery_initSlicedFindPath(
                self.0.as_ptr(),
                start,
                end,
                spos.as_ptr(),
                epos.as_ptr(),
                s.filter_ptr(),
                options,
            )
        }
    }

    /// `updateSlicedFindPath` for at most `max_iter` iterations: the status and the iterations
    /// done. Refused (failure, 0 iterations) if the query's sliced state is not `s`'s.
    pub(crate) fn sliced_update(&mut self, s: &RawSliced, max_iter: i32) -> (u32, i32) {
        if !self.owns_slice(s) {
            return (NOT_OURS, 0);
        }
        let mut done = 0;
        // SAFETY: live query whose sliced state points at `s`'s filter, alive for this call.
        let st = unsafe {
            sys::dtNavMeshQuery_updateSlicedFindPath(self.0.as_ptr(), max_iter, &mut done)
        };
        (st, done.clamp(0, max_iter.max(0)))
    }

    /// `finalizeSlicedFindPath` into `out` (at most `max` refs); resets the query's sliced
    /// state. Refused if that state is not `s`'s.
    pub(crate) fn sliced_finalize(
        &mut self,
        s: &RawSliced,
        out: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> u32 {
        out.clear();
        if !self.owns_slice(s) {
            return NOT_OURS;
        }
        let max = max.clamp(1, MAX_FINALIZE);
        guarded_finalize(out, max, |path, n| {
            // SAFETY: live query whose sliced state points at `s`'s filter, alive for this
            // call; `path` is valid for the reads and writes `guarded_finalize` documents.
            unsafe {
                sys::dtNavMeshQuery_finalizeSlicedFindPath(self.0.as_ptr(), path, n, max as i32)
            }
        })
    }

    /// `finalizeSlicedFindPathPartial` against `existing` (not empty) into `out` (at most `max`
    /// refs); resets the query's sliced state. Refused if that state is not `s`'s.
    pub(crate) fn sliced_finalize_partial(
        &mut self,
        s: &RawSliced,
        existing: &[RawPolyRef],
        out: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> u32 {
        out.clear();
        if !self.owns_slice(s) || existing.is_empty() || existing.len() > i32::MAX as usize {
            return NOT_OURS;
        }
        let max = max.clamp(1, MAX_FINALIZE);
        guarded_finalize(out, max, |path, n| {
            // SAFETY: as in `sliced_finalize`; `existing` holds existing.len() refs, read only.
            unsafe {
                sys::dtNavMeshQuery_finalizeSlicedFindPathPartial(
                    self.0.as_ptr(),
                    existing.as_ptr(),
                    existing.len() as i32,
                    path,
                    n,
                    max as i32,
                )
            }
        })
    }

    /// Forgets the query's sliced state if it is `s`'s (as `finalize` does, without a result),
    /// so that the query no longer points at `s`'s filter.
    pub(crate) fn sliced_reset(&mut self, s: &RawSliced) {
        if self.owns_slice(s) {
            // SAFETY: live query, not borrowed elsewhere (`&mut self`); zeroed is the state
            // Detour's own `finalize` leaves (it `memset`s it), with no filter and no node.
            unsafe {
                (*self.0.as_ptr()).m_query = std::mem::zeroed();
            }
        }
    }
}

impl RawQuery<'_> {
    /// The sliced search's raycast limit (squared: `f32::MAX` unless any-angle), if the
    /// query's sliced state is `s`'s.
    pub(crate) fn sliced_raycast_limit_sqr(&self, s: &RawSliced) -> Option<f32> {
        // SAFETY: live query; a plain field of its sliced state.
        self.owns_slice(s)
            .then(|| unsafe { (*self.q()).m_query.raycastLimitSqr })
    }

    /// True if the sliced search has closed `r` (its node is in the closed list): for the
    /// search's end polygon, that the goal was reached. False if the query's sliced state is
    /// not `s`'s.
    pub(crate) fn sliced_closed(&self, s: &RawSliced, r: RawPolyRef) -> bool {
        // SAFETY: live query; `isInClosedList` only reads its node pool.
        self.owns_slice(s) && unsafe { sys::dtNavMeshQuery_isInClosedList(self.q(), r) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the bundled finalize does in the cases `guarded_finalize` exists for: it reads the
    /// slot before `path`, and stores `max + 1` refs. Under ASan (scripts/asan.sh) any slot
    /// outside the guarded buffer would be reported.
    #[test]
    fn the_slots_around_the_buffer_are_guarded() {
        for max in [1usize, 2, 7] {
            let mut out = vec![9; 3];
            let st = guarded_finalize(&mut out, max, |path, n| {
                // SAFETY: `guarded_finalize` gives one slot before `path` and max + 1 from it.
                unsafe {
                    assert_eq!(*path.sub(1), 0, "the slot before holds no ref");
                    for i in 0..=max {
                        *path.add(i) = (i + 1) as RawPolyRef;
                    }
                }
                *n = max as i32 + 1;
                sys::DT_SUCCESS
            });
            assert_eq!(out, (1..=max as RawPolyRef).collect::<Vec<_>>());
            assert_eq!(st, sys::DT_SUCCESS | sys::DT_BUFFER_TOO_SMALL);
            // A finalize that keeps inside: its refs, its status.
            let st = guarded_finalize(&mut out, max, |path, n| {
                // SAFETY: as above.
                unsafe { *path = 5 };
                *n = 1;
                sys::DT_SUCCESS | sys::DT_PARTIAL_RESULT
            });
            assert_eq!(out, vec![5]);
            assert_eq!(st, sys::DT_SUCCESS | sys::DT_PARTIAL_RESULT);
        }
    }
}
