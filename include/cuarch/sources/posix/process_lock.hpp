// What cuarch shares between threads, kept usable across fork() (docs/reliability.md, "Fork-safe at
// any moment"): process_lock, the one short lock over every process-wide table, which fork() takes
// first (pthread_atfork), so no child inherits it held nor a table half-updated; fork_safe_mutex, held
// across a long call, replaced by a fresh one at its first use in a child (the fork generation says).
#pragma once

#include <link.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <new>

#include "../../core/config.hpp"

CUARCH_BEGIN_NAMESPACE
namespace detail {

struct fork_state {
  pthread_mutex_t lock;  // recursive, initialised by fork_state_init
  pthread_once_t once;
  unsigned long generation;          // +1 in each child
  std::atomic<int> loader_calls;     // cuarch's dlopen()/dlclose() calls under way
  std::atomic<long long> loader_at;  // when the latest began (steady clock, ns)
};
// Zero-initialised (no guard a fork could leave half-taken, no destructor a thread abandoned in a
// hung library may race at exit).
inline fork_state fork_shared{};

inline void fork_lock_init() noexcept {
  pthread_mutexattr_t a;
  ::pthread_mutexattr_init(&a);
  ::pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  ::pthread_mutex_init(&fork_shared.lock, &a);
  ::pthread_mutexattr_destroy(&a);
}
inline long long steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline void fork_prepare() noexcept {
  // A child forked while a dlopen() or dlclose() maps or unmaps a library aborts in its first
  // dlopen() (glibc's dl-open.c asserts r_state == RT_CONSISTENT; fork_safety_test), and one forked
  // while a library is relocated or initialised inherits it half made. The lock stops cuarch from
  // starting another; then wait for cuarch's own calls to end, but never for one that began over
  // 1 s ago (stuck: waiting would not end it). Nobody else's calls are waited for, and an idle
  // cuarch reads nothing here (docs/reliability.md, "Fork-safe at any moment").
  ::pthread_mutex_lock(&fork_shared.lock);
  const timespec ms{0, 1000000};
  while (fork_shared.loader_calls > 0 && steady_ns() - fork_shared.loader_at < 1000000000) ::nanosleep(&ms, nullptr);
}
inline void fork_parent() noexcept { ::pthread_mutex_unlock(&fork_shared.lock); }
inline void fork_child() noexcept {
  ++fork_shared.generation;
  fork_shared.loader_calls = 0;  // their threads are not in this process
  fork_lock_init();              // not unlock: the child's thread has a new id, which a recursive mutex checks
}
inline fork_state& fork_state_ready() noexcept {
  static_assert(PTHREAD_ONCE_INIT == 0, "fork_shared relies on a zeroed pthread_once_t being PTHREAD_ONCE_INIT");
  ::pthread_once(&fork_shared.once, [] {
    fork_lock_init();
    ::pthread_atfork(fork_prepare, fork_parent, fork_child);
  });
  return fork_shared;
}

/// The short lock (recursive): never held across a library call.
class process_lock {
 public:
  process_lock() noexcept : s_(fork_state_ready()) { ::pthread_mutex_lock(&s_.lock); }
  ~process_lock() { ::pthread_mutex_unlock(&s_.lock); }
  process_lock(const process_lock&) = delete;
  process_lock& operator=(const process_lock&) = delete;

 private:
  fork_state& s_;
};

/// Held across each dlopen() and dlclose() cuarch makes, so that fork() waits for it (fork_prepare).
class loader_call {
 public:
  loader_call() noexcept {
    process_lock g;
    ++fork_shared.loader_calls;
    fork_shared.loader_at = steady_ns();
  }
  ~loader_call() { --fork_shared.loader_calls; }
  loader_call(const loader_call&) = delete;
  loader_call& operator=(const loader_call&) = delete;
};

/// `f(const dl_phdr_info&)` for each loaded object until it returns true: dl_iterate_phdr under the
/// process lock, as a child forked inside dl_iterate_phdr inherits glibc's (2.36) lock held.
template <class F>
void each_loaded_object(F f) {
  process_lock lock;
  ::dl_iterate_phdr([](dl_phdr_info* info, std::size_t, void* data) -> int { return (*static_cast<F*>(data))(*info); },
                    &f);
}

class fork_safe_mutex {
 public:
  fork_safe_mutex() = default;
  fork_safe_mutex(const fork_safe_mutex&) = delete;
  fork_safe_mutex& operator=(const fork_safe_mutex&) = delete;

  void lock() { current().lock(); }
  /// Polls every millisecond (no timed lock: ThreadSanitizer does not see pthread_mutex_clocklock).
  bool try_lock_until(std::chrono::steady_clock::time_point t) {
    if (t == std::chrono::steady_clock::time_point::max()) {
      lock();
      return true;
    }
    std::mutex& m = current();
    while (!m.try_lock()) {
      if (std::chrono::steady_clock::now() >= t) return false;
      const timespec ms{0, 1000000};
      ::nanosleep(&ms, nullptr);
    }
    return true;
  }
  void unlock() { m_.unlock(); }

 private:
  std::mutex& current() {
    process_lock g;
    if (generation_ != fork_shared.generation) {  // first use in this child: whoever held it is not here
      new (&m_) std::mutex;
      generation_ = fork_shared.generation;
    }
    return m_;
  }
  std::mutex m_;
  unsigned long generation_ = 0;
};

}  // namespace detail
CUARCH_END_NAMESPACE
