//! `RecastContext`: owns navkit's rcContext subclass, collecting log messages and stage timers.

use std::cell::RefCell;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use recastnavigation_sys::rcContext;

use super::owner::{opaque, owner};

opaque!(
    /// The glue's `NavkitContext`, an `rcContext` that logs to Rust and keeps stage timers.
    NavkitContext
);

unsafe extern "C" {
    fn navkit_context_new(
        log: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, c_int)>,
        user: *mut c_void,
    ) -> *mut NavkitContext;
    fn navkit_context_free(ctx: *mut NavkitContext);
    fn navkit_context_base(ctx: *mut NavkitContext) -> *mut rcContext;
    fn navkit_context_reset_timers(ctx: *mut NavkitContext);
    fn navkit_context_start_timer(ctx: *mut NavkitContext, label: c_int);
    fn navkit_context_stop_timer(ctx: *mut NavkitContext, label: c_int);
    fn navkit_context_timer_ns(ctx: *const NavkitContext, label: c_int) -> i64;
}

owner!(
    /// A `NavkitContext`, freed on drop.
    ContextObj(NavkitContext),
    free: navkit_context_free,
    base: navkit_context_base => rcContext
);

/// What stops an interruptible Recast call (see [`RecastContext::call_guarded`]): a flag another
/// thread may set, and a deadline.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Interrupt<'a> {
    pub cancel: Option<&'a AtomicBool>,
    pub deadline: Option<Instant>,
}

/// How an interruptible Recast call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Guarded {
    /// The call returned true.
    Done,
    /// The call returned false (or threw something other than navkit's interruption).
    Failed,
    /// The flag was set or the deadline passed at one of the call's timer starts.
    Interrupted,
}

/// A log message from Recast.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LogMessage {
    /// Severity.
    pub category: LogCategory,
    /// The text.
    pub text: String,
}

/// Severity of a Recast log message (`rcLogCategory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum LogCategory {
    /// `RC_LOG_PROGRESS`
    Progress,
    /// `RC_LOG_WARNING`
    Warning,
    /// `RC_LOG_ERROR`
    Error,
}

type LogSink = RefCell<Vec<LogMessage>>;

unsafe extern "C" fn log_callback(
    user: *mut c_void,
    category: c_int,
    msg: *const c_char,
    len: c_int,
) {
    if user.is_null() || msg.is_null() || len < 0 {
        return;
    }
    // SAFETY: `user` is the `LogSink` boxed by `RecastContext::new`, alive as long as the C++
    // context (the box is dropped after the context). Recast passes `msg` with `len` valid bytes.
    let (sink, bytes) = unsafe {
        (
            &*(user as *const LogSink),
            std::slice::from_raw_parts(msg as *const u8, len as usize),
        )
    };
    // A panic here is raised again once the Recast call returns (`RecastContext::call`).
    super::panic::wrap(|| {
        super::panic::test_hook();
        let category = match category {
            2 => LogCategory::Warning,
            3 => LogCategory::Error,
            _ => LogCategory::Progress,
        };
        if let Ok(mut v) = sink.try_borrow_mut() {
            v.push(LogMessage {
                category,
                text: String::from_utf8_lossy(bytes).into_owned(),
            });
        }
    });
}

/// Owner of a navkit rcContext: Recast calls get it through [`RecastContext::call`].
///
/// `RecastContext` is `Send` (the C++ context has no thread affinity) and not `Sync` (its log
/// sink is a `RefCell`), so it is used by one thread at a time.
pub(crate) struct RecastContext {
    // Fields drop in declaration order: the context before the sink its callback writes to.
    ctx: ContextObj,
    sink: Box<LogSink>,
}

impl RecastContext {
    pub(crate) fn new() -> Self {
        let sink: Box<LogSink> = Box::new(RefCell::new(Vec::new()));
        // SAFETY: the callback and the sink pointer stay valid for the context's life (the sink
        // box is a field of `Self`, dropped after the context); the glue returns a new context
        // (which navkit_context_free frees) or null.
        let ctx = unsafe {
            ContextObj::from_raw(navkit_context_new(
                Some(log_callback),
                &*sink as *const LogSink as *mut c_void,
            ))
        };
        RecastContext {
            ctx: ctx.expect("out of memory allocating rcContext"),
            sink,
        }
    }

    /// Runs a Recast call with this context's `rcContext*`, then raises again any panic of the
    /// log callback during the call (see [`super::panic`]).
    pub(crate) fn call<T>(&mut self, f: impl FnOnce(*mut rcContext) -> T) -> T {
        let ctx = self.ctx.base();
        super::panic::call(|| f(ctx))
    }

    /// Runs an interruptible glue call `f(navkit_context, cancel_flag, remaining_ns)`: the glue
    /// arms the context, so that a timer start inside Recast stops the call once
    /// `interrupt.cancel` is set or `interrupt.deadline` has passed. `f` returns the glue's
    /// code: 1 done, 0 failed, -1 interrupted, -2 another C++ exception (failed).
    pub(crate) fn call_guarded(
        &mut self,
        interrupt: &Interrupt,
        f: impl FnOnce(*mut c_void, *const u8, i64) -> c_int,
    ) -> Guarded {
        let raw = self.ctx.as_ptr() as *mut c_void;
        let cancel = interrupt
            .cancel
            .map_or(std::ptr::null(), |c| c.as_ptr() as *const u8);
        let remaining = interrupt.deadline.map_or(-1, |d| {
            let left = d.saturating_duration_since(Instant::now());
            i64::try_from(left.as_nanos()).unwrap_or(i64::MAX)
        });
        match super::panic::call(|| f(raw, cancel, remaining)) {
            1 => Guarded::Done,
            -1 => Guarded::Interrupted,
            _ => Guarded::Failed,
        }
    }

    pub(crate) fn reset_timers(&mut self) {
        // SAFETY: live context.
        unsafe { navkit_context_reset_timers(self.ctx.as_ptr()) }
    }

    pub(crate) fn start_timer(&mut self, label: u32) {
        // SAFETY: live context; the glue ignores labels out of range.
        unsafe { navkit_context_start_timer(self.ctx.as_ptr(), label as c_int) }
    }

    pub(crate) fn stop_timer(&mut self, label: u32) {
        // SAFETY: live context; the glue ignores labels out of range.
        unsafe { navkit_context_stop_timer(self.ctx.as_ptr(), label as c_int) }
    }

    /// Accumulated time of Recast timer `label` (an `rcTimerLabel`).
    pub(crate) fn timer(&self, label: u32) -> Duration {
        // SAFETY: live context; the glue returns -1 for labels out of range.
        let ns = unsafe { navkit_context_timer_ns(self.ctx.as_ptr(), label as c_int) };
        Duration::from_nanos(ns.max(0) as u64)
    }

    /// Adds a warning of navkit's own to the messages, after Recast's so far.
    pub(crate) fn warn(&mut self, text: String) {
        self.sink.borrow_mut().push(LogMessage {
            category: LogCategory::Warning,
            text,
        });
    }

    /// Adds `logs` (another context's messages) after the messages so far.
    pub(crate) fn append_logs(&mut self, logs: Vec<LogMessage>) {
        self.sink.borrow_mut().extend(logs);
    }

    /// Takes the messages logged so far.
    pub(crate) fn take_logs(&mut self) -> Vec<LogMessage> {
        std::mem::take(&mut *self.sink.borrow_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recastnavigation_sys as sys;

    /// Logs `text` through Recast's `rcContext::log`, as Recast's own functions do.
    fn log(ctx: &mut RecastContext, text: &std::ffi::CStr) {
        // SAFETY: live context; a "%s" format with one C string argument.
        ctx.call(|c| unsafe {
            sys::rcContext_log(
                c,
                sys::rcLogCategory_RC_LOG_WARNING,
                c"%s".as_ptr(),
                text.as_ptr(),
            )
        })
    }

    #[test]
    fn log_messages_reach_rust() {
        let mut ctx = RecastContext::new();
        log(&mut ctx, c"hello");
        let logs = ctx.take_logs();
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0].category, LogCategory::Warning);
        assert_eq!(logs[0].text, "hello");
    }

    #[test]
    fn a_panic_in_the_log_callback_surfaces_after_the_call() {
        let mut ctx = RecastContext::new();
        crate::ffi::panic::PANIC_IN_CALLBACK.with(|p| p.set(true));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            log(&mut ctx, c"boom");
        }));
        let payload = caught.expect_err("the callback's panic must reach the Rust caller");
        assert_eq!(
            payload.downcast_ref::<&str>().copied(),
            Some("test panic inside a C callback")
        );
        // Nothing was logged by the panicking callback, nothing is left pending, and the
        // context works on.
        log(&mut ctx, c"after");
        let texts: Vec<String> = ctx.take_logs().into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["after"]);
    }
}
