// navkit's own C++ glue: an rcContext subclass that forwards Recast's log messages to Rust
// through a callback and keeps per-stage timers with a monotonic clock; and interruptible
// wrappers of the Recast stages that start timers inside their loops (the watershed's levels,
// the contours' regions): while such a wrapper runs, a timer start checks the build's
// cancellation flag and deadline, and throws to the wrapper, which reports "interrupted".
// Recast's temporaries in those functions are RAII (rcScopedDelete, rcTempVector, rcIntArray)
// and their outputs belong to the caller's structures, so nothing leaks on the way out.
// Compiled by navkit's build.rs. Everything here is navkit's own code.

#include "Recast.h"

#include <chrono>
#include <new>

extern "C" {
typedef void (*navkit_log_fn)(void* user, int category, const char* msg, int len);
}

namespace {

// Thrown from a timer start inside an armed wrapper; caught by the wrapper, never beyond.
struct NavkitInterrupted {};

class NavkitContext : public rcContext {
 public:
  NavkitContext(navkit_log_fn fn, void* user) : rcContext(true), m_fn(fn), m_user(user) {
    doResetTimers();
  }

  long long accumulatedNs(int label) const {
    if (label < 0 || label >= RC_MAX_TIMERS) return -1;
    return m_acc[label];
  }

  // From now until disarm(), a timer start throws NavkitInterrupted once *cancel is non-zero
  // (read atomically: another thread sets it) or `remaining_ns` have passed (-1: no limit).
  void arm(const unsigned char* cancel, long long remaining_ns) {
    m_cancel = cancel;
    m_deadline = remaining_ns < 0 ? -1 : now() + remaining_ns;
    m_armed = true;
  }

  void disarm() { m_armed = false; }

 protected:
  void doResetLog() override {}

  void doLog(const rcLogCategory category, const char* msg, const int len) override {
    if (m_fn) m_fn(m_user, (int)category, msg, len);
  }

  void doResetTimers() override {
    for (int i = 0; i < RC_MAX_TIMERS; ++i) {
      m_acc[i] = 0;
      m_start[i] = 0;
    }
  }

  void doStartTimer(const rcTimerLabel label) override {
    const long long t = now();
    m_start[label] = t;
    if (m_armed && shouldStop(t)) {
      m_armed = false;
      throw NavkitInterrupted();
    }
  }

  void doStopTimer(const rcTimerLabel label) override { m_acc[label] += now() - m_start[label]; }

  int doGetAccumulatedTime(const rcTimerLabel label) const override {
    return (int)(m_acc[label] / 1000);
  }

 private:
  static long long now() {
    return (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  bool shouldStop(long long t) const {
    if (m_cancel && __atomic_load_n(m_cancel, __ATOMIC_RELAXED) != 0) return true;
    return m_deadline >= 0 && t >= m_deadline;
  }

  navkit_log_fn m_fn;
  void* m_user;
  const unsigned char* m_cancel = nullptr;
  long long m_deadline = -1;
  bool m_armed = false;
  long long m_start[RC_MAX_TIMERS];
  long long m_acc[RC_MAX_TIMERS];
};

}  // namespace

extern "C" {

void* navkit_context_new(navkit_log_fn fn, void* user) {
  return new (std::nothrow) NavkitContext(fn, user);
}

void navkit_context_free(void* ctx) { delete static_cast<NavkitContext*>(ctx); }

rcContext* navkit_context_base(void* ctx) {
  return static_cast<rcContext*>(static_cast<NavkitContext*>(ctx));
}

void navkit_context_reset_timers(void* ctx) { static_cast<NavkitContext*>(ctx)->resetTimers(); }

void navkit_context_start_timer(void* ctx, int label) {
  if (label >= 0 && label < RC_MAX_TIMERS)
    static_cast<NavkitContext*>(ctx)->startTimer((rcTimerLabel)label);
}

void navkit_context_stop_timer(void* ctx, int label) {
  if (label >= 0 && label < RC_MAX_TIMERS)
    static_cast<NavkitContext*>(ctx)->stopTimer((rcTimerLabel)label);
}

long long navkit_context_timer_ns(const void* ctx, int label) {
  return static_cast<const NavkitContext*>(ctx)->accumulatedNs(label);
}

}  // extern "C"

namespace {

// Runs `f` (a Recast call returning bool) armed: 1 if it succeeded, 0 if it failed, -1 if it was
// interrupted (cancelled or out of time), -2 if it threw anything else.
template <class F>
int navkit_guarded(void* ctx, const unsigned char* cancel, long long remaining_ns, F f) {
  NavkitContext* c = static_cast<NavkitContext*>(ctx);
  c->arm(cancel, remaining_ns);
  int result;
  try {
    result = f(static_cast<rcContext*>(c)) ? 1 : 0;
  } catch (const NavkitInterrupted&) {
    result = -1;
  } catch (...) {
    result = -2;
  }
  c->disarm();
  return result;
}

}  // namespace

extern "C" {

int navkit_build_regions(void* ctx, rcCompactHeightfield* chf, int border, int min_area,
                         int merge_area, const unsigned char* cancel, long long remaining_ns) {
  return navkit_guarded(ctx, cancel, remaining_ns, [&](rcContext* c) {
    return rcBuildRegions(c, *chf, border, min_area, merge_area);
  });
}

int navkit_build_contours(void* ctx, rcCompactHeightfield* chf, float max_error,
                          int max_edge_len, rcContourSet* cset, int flags,
                          const unsigned char* cancel, long long remaining_ns) {
  return navkit_guarded(ctx, cancel, remaining_ns, [&](rcContext* c) {
    return rcBuildContours(c, *chf, max_error, max_edge_len, *cset, flags);
  });
}

}  // extern "C"
