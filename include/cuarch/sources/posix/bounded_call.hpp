// Calls into libraries bounded by the detection's deadline (a constructor inside dlopen(), nvmlInit or
// cuInit can hang where no timeout of ours reaches): on a worker thread abandoned at the deadline, as
// docs/reliability.md ("Never hangs") describes. pthreads only: no <thread>.
#pragma once

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../core/errors.hpp"
#include "../../core/expected.hpp"
#include "../../core/source_kind.hpp"
#include "posix.hpp"  // errno_text
#include "process_lock.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

using library_clock = std::chrono::steady_clock;

struct library_bound {
  library_clock::time_point end = library_clock::time_point::max();
  std::chrono::milliseconds per_call{0};
  const std::atomic<bool>* cancel = nullptr;  // the caller's stop (Ctrl-C): a trial load stops waiting
};
inline library_bound& this_thread_library_bound() {
  static thread_local library_bound b;
  return b;
}

/// Bounds the library calls this thread makes while it lives (detect() sets one).
class library_deadline_scope {
 public:
  library_deadline_scope(std::chrono::milliseconds total, std::chrono::milliseconds per_call,
                         const std::atomic<bool>* cancel = nullptr)
      : saved_(this_thread_library_bound()) {
    this_thread_library_bound() = {library_clock::now() + total, per_call, cancel};
  }
  ~library_deadline_scope() { this_thread_library_bound() = saved_; }
  library_deadline_scope(const library_deadline_scope&) = delete;
  library_deadline_scope& operator=(const library_deadline_scope&) = delete;

 private:
  library_bound saved_;
};

/// A call abandoned at a deadline that has not returned yet.
struct stuck_call {
  std::string library, call;
  library_clock::time_point since;
};
inline std::vector<stuck_call>& stuck_calls() {  // under process_lock; never destroyed
  static auto* v = new std::vector<stuck_call>;
  return *v;
}

struct bounded_job_base {
  pthread_mutex_t m;
  pthread_cond_t cv;
  bool done = false;
  std::atomic<bool> abandoned{false};
  std::atomic<int> refs{2};
  stuck_call what;
  bounded_job_base() {
    ::pthread_mutex_init(&m, nullptr);
    pthread_condattr_t a;
    ::pthread_condattr_init(&a);
    ::pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    ::pthread_cond_init(&cv, &a);
    ::pthread_condattr_destroy(&a);
  }
  virtual ~bounded_job_base() {
    ::pthread_cond_destroy(&cv);
    ::pthread_mutex_destroy(&m);
  }
  virtual void run() = 0;
  void release() {
    if (--refs == 0) delete this;
  }
  /// The job this thread runs (a worker), whose `what.call` names the call now in progress.
  static inline thread_local bounded_job_base* current = nullptr;
  /// Whether this thread is a worker whose caller has gone (abandoned it, or took its answer).
  static bool caller_gone() { return current && (current->done || current->abandoned); }
  static void* worker(void* p) {
    auto* job = static_cast<bounded_job_base*>(p);
    current = job;
    job->run();
    ::pthread_mutex_lock(&job->m);
    job->done = true;
    const bool abandoned = job->abandoned;
    ::pthread_cond_signal(&job->cv);
    ::pthread_mutex_unlock(&job->m);
    if (abandoned) {  // it returned after all: no longer stuck
      process_lock lock;
      auto& v = stuck_calls();
      const auto same = [job](const stuck_call& s) {
        return s.library == job->what.library && s.since == job->what.since;
      };
      v.erase(std::remove_if(v.begin(), v.end(), same), v.end());
    }
    job->release();  // still `current`: a library whose last copy it held stays loaded (dynamic_library.hpp)
    current = nullptr;
    return nullptr;
  }
};

template <class F>
struct bounded_job final : bounded_job_base {
  explicit bounded_job(F f) : fn(std::move(f)) {}
  void run() override { result.emplace(fn()); }
  F fn;
  std::optional<decltype(std::declval<F&>()())> result;
};

inline error stuck_error(source_kind src, const stuck_call& s, std::string_view why) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(library_clock::now() - s.since).count();
  return errors::deadline_exceeded(src, s.call + " in " + s.library, s.library,
                                   s.call + " in " + s.library + ": " + std::string(why) + " (" + std::to_string(ms) +
                                       " ms ago, and it has not returned; its thread is left blocked)");
}

/// Runs `fn` (returning expected<T, error>, owning copies of what it uses) bounded by this thread's
/// library_deadline_scope, or directly without one. `call` ("dlopen") and `library` name it.
template <class F>
auto bounded_call(source_kind src, const std::string& library, std::string call, F fn) -> decltype(fn()) {
  const library_bound bound = this_thread_library_bound();
  if (bound.end == library_clock::time_point::max()) {
    auto* job = bounded_job_base::current;
    if (!job) return fn();
    // Inside a worker: run here, naming the call in progress for a report at the deadline (a load
    // stuck in dlopen() blocks the loader for every later question).
    ::pthread_mutex_lock(&job->m);
    std::swap(job->what.call, call);
    ::pthread_mutex_unlock(&job->m);
    auto r = fn();
    ::pthread_mutex_lock(&job->m);
    std::swap(job->what.call, call);
    ::pthread_mutex_unlock(&job->m);
    return r;
  }
  {
    process_lock lock;
    for (const auto& s : stuck_calls())
      if (s.library == library || s.call == "dlopen")  // every question here needs dlopen or dlsym
        return unexpected(stuck_error(
            src, s,
            s.library == library
                ? "not called: an earlier call into this library was abandoned at a deadline"
                : "not loaded: the dynamic loader is blocked by an earlier dlopen() abandoned at a deadline"));
  }
  auto until = bound.end;
  if (bound.per_call.count() > 0) until = std::min(until, library_clock::now() + bound.per_call);
  auto* job = new bounded_job<F>(std::move(fn));
  job->what = stuck_call{library, std::move(call), library_clock::now()};
  pthread_t t;
  if (const int e = ::pthread_create(&t, nullptr, &bounded_job_base::worker, job); e != 0) {
    // No thread to hold the call to the deadline (the process's or user's thread limit): it is not
    // made, rather than made here without a bound, silently (docs/reliability.md).
    const std::string what = job->what.call;
    delete job;  // never started: no other reference
    return unexpected(
        errors::library_call_failed(src, "pthread_create for " + what, e, library,
                                    "no thread could be started to hold " + what + " in " + library +
                                        " to the detection's deadline, so it was not called (" + errno_text(e) +
                                        "); free threads or raise the limit (ulimit -u, the cgroup's pids.max)"));
  }
  ::pthread_detach(t);
  // steady_clock is CLOCK_MONOTONIC (libstdc++ and libc++ on Linux): the condition variable's clock.
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch()).count();
  const timespec at{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  ::pthread_mutex_lock(&job->m);
  while (!job->done)
    if (::pthread_cond_timedwait(&job->cv, &job->m, &at) != 0 && !job->done) break;
  const bool done = job->done;
  stuck_call s;
  if (!done) {
    job->abandoned = true;
    s = job->what;  // the call in progress now
    process_lock lock;
    stuck_calls().push_back(s);
  }
  ::pthread_mutex_unlock(&job->m);
  decltype(fn()) r = done ? std::move(*job->result)
                          : unexpected(stuck_error(src, s, "abandoned at the detection's deadline"));
  job->release();
  return r;
}

/// Whether a library call abandoned at a deadline has still not returned. Such a process should
/// leave with _exit(): exit() runs the loader's finalisers, which wait for a stuck dlopen()'s lock.
inline bool library_call_stuck() {
  process_lock lock;
  return !stuck_calls().empty();
}

}  // namespace detail
CUARCH_END_NAMESPACE
