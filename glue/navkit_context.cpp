// navkit's own C++ glue: an rcContext subclass that forwards Recast's log messages to Rust
// through a callback and keeps per-stage timers with a monotonic clock.
// Compiled by navkit's build.rs. Everything here is navkit's own code.

#include "Recast.h"

#include <chrono>
#include <new>

extern "C" {
typedef void (*navkit_log_fn)(void* user, int category, const char* msg, int len);
}

namespace {

class NavkitContext : public rcContext {
 public:
  NavkitContext(navkit_log_fn fn, void* user) : rcContext(true), m_fn(fn), m_user(user) {
    doResetTimers();
  }

  long long accumulatedNs(int label) const {
    if (label < 0 || label >= RC_MAX_TIMERS) return -1;
    return m_acc[label];
  }

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

  void doStartTimer(const rcTimerLabel label) override { m_start[label] = now(); }

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

  navkit_log_fn m_fn;
  void* m_user;
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
