//! Panics in Rust code that C++ calls back (Recast's log, the tile cache's compressor, Detour's
//! random number source) must not unwind into C++ (that aborts the process) and must not be
//! swallowed either. As git2 and rusqlite do, each callback body runs under [`wrap`], which
//! catches a panic and keeps its payload in a thread-local slot; the Rust side of every C call
//! that can call back then runs [`raise_pending`] once the call has returned, which resumes the
//! panic in the Rust caller with its original payload.
//!
//! Callbacks run on the thread that made the C call (Recast and Detour do not spawn threads),
//! so a thread-local slot pairs each panic with its call. While a panic is pending, further
//! callbacks of the same call do not run Rust code; they report failure to C++, which then
//! returns as soon as it can.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

thread_local! {
    /// The payload of a panic caught in a callback on this thread, not yet raised again.
    static PENDING: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
}

/// Runs a callback's body, catching a panic: `None` if it panicked (the payload is kept for
/// [`raise_pending`]) or if an earlier callback of the same C call did.
pub(crate) fn wrap<T>(f: impl FnOnce() -> T) -> Option<T> {
    if PENDING.with(|p| p.borrow().is_some()) {
        return None;
    }
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(payload) => {
            PENDING.with(|p| *p.borrow_mut() = Some(payload));
            None
        }
    }
}

/// Raises again, in the caller, a panic a callback caught during the C call that just
/// returned (nothing if none did).
pub(crate) fn raise_pending() {
    if let Some(payload) = PENDING.with(|p| p.borrow_mut().take()) {
        resume_unwind(payload);
    }
}

/// Runs a C call that may call back into Rust, then raises any panic caught in a callback.
pub(crate) fn call<T>(f: impl FnOnce() -> T) -> T {
    let r = f();
    raise_pending();
    r
}

#[cfg(test)]
thread_local! {
    /// Test hook: when set, the next callback body on this thread panics.
    pub(crate) static PANIC_IN_CALLBACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Test hook: panics (once) if [`PANIC_IN_CALLBACK`] is set on this thread.
#[cfg(test)]
pub(crate) fn test_hook() {
    if PANIC_IN_CALLBACK.with(|p| p.replace(false)) {
        panic!("test panic inside a C callback");
    }
}

/// Test hook: nothing outside tests.
#[cfg(not(test))]
#[inline(always)]
pub(crate) fn test_hook() {}
