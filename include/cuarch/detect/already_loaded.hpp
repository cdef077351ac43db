// "Already loaded by the application": the libraries this process mapped itself, not the ones
// cuarch loaded to ask them. Looking at what is mapped *now* would give threads that detect at the
// same time different answers (a library another detection is loading would outrank CUDA_HOME).
// So, process-wide: the first detection snapshots what is mapped before any detection loads
// anything (less what cuarch's own sources hold); every load a detection makes goes through load(),
// which records it as cuarch's under the lock that listing takes; a library mapped later is the
// application's when no detection loaded it and no cuarch source holds it, or when the application
// had mapped it already when a detection loaded it. A cuarch source outside detection loading
// while a detection runs can still be mistaken: pass already_loaded = false where that matters.
// Fork-safe (posix/process_lock.hpp): a load in flight is recorded before it starts, so in a child
// forked during it that library (mapped, never finished loading) is cuarch's.
#pragma once

#include <dlfcn.h>

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../sources/posix/dynamic_library.hpp"
#include "../sources/posix/posix.hpp"
#include "../sources/posix/process_lock.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

class application_libraries {
 public:
  /// The one instance (never destroyed: detection may run from static destructors' threads).
  static application_libraries& instance() {
    static application_libraries* p = new application_libraries;
    return *p;
  }

  /// Takes the snapshot if no detection has yet; call before a detection loads anything.
  void snapshot() {
    const auto lock = loading_lock();
    snapshot_locked();
  }

  /// Runs `load_fn` (a load_library_* call of `name`, a path or a SONAME) so that no other
  /// detection sees the library mapped before it is recorded as cuarch's. A library the process
  /// had already mapped stays the application's: cuarch's dlopen only adds a reference to it (else
  /// the next detection would no longer count what the application loaded as loaded).
  template <class Load>
  auto load(const std::string& name, Load&& load_fn) -> decltype(load_fn()) {
    const auto lock = loading_lock();
    if (!lock.owns_lock())  // another thread's load is still under way at this detection's deadline
      return unexpected(
          errors::deadline_exceeded(source_kind::none, "loading " + name, name,
                                    "waited for another thread's library load until the detection's deadline"));
    snapshot_locked();
    // Mapped already, and not by cuarch (another detection's load is in by_cuarch_, a source's
    // own load is held): the application's.
    const std::string real = !name.empty() && name.front() == '/' ? real_path(name) : std::string();
    const bool held = !real.empty() && held_by_cuarch(real);
    const bool mapped_already = !held && mapped_now(name);
    {
      process_lock data;
      in_flight_ = real.empty() ? name : real;
    }
    auto lib = load_fn();
    process_lock data;
    in_flight_.clear();
    if (!lib) return lib;
    const bool application_s = mapped_already && by_cuarch_.count(lib->path()) == 0;
    (application_s ? by_application_ : by_cuarch_).insert(lib->path());
    return lib;
  }

  /// The application's libraries whose file name starts with `prefix`, in load order.
  std::vector<std::string> paths(std::string_view prefix) {
    const auto lock = loading_lock();  // past the deadline without it: in_flight_ still leaves a load out
    snapshot_locked();
    std::vector<std::string> out;
    for (auto& p : loaded_library_paths(prefix)) {
      const std::string real = real_path(p);
      process_lock data;
      const bool before = before_cuarch_.count(real) != 0 || by_application_.count(real) != 0;
      const bool loading = !in_flight_.empty() && (in_flight_ == real || in_flight_ == p.substr(p.rfind('/') + 1));
      if (before || (by_cuarch_.count(real) == 0 && !loading && !held_by_cuarch(real))) out.push_back(std::move(p));
    }
    return out;
  }

 private:
  application_libraries() = default;

  /// The loading lock, waited for until this thread's library deadline (posix/bounded_call.hpp).
  std::unique_lock<fork_safe_mutex> loading_lock() {
    return std::unique_lock<fork_safe_mutex>(loading_, this_thread_library_bound().end);
  }

  /// Whether `name` is mapped in this process now (RTLD_NOLOAD: asks, loads nothing; bounded, as
  /// the loader's lock may be held by a library's constructor that hangs).
  static bool mapped_now(const std::string& name) {
    if (name.empty()) return false;
    const auto h = bounded_dlopen(name, source_kind::none, name, RTLD_LAZY | RTLD_NOLOAD);
    if (h) close_library(*h);
    return h.has_value();
  }

  void snapshot_locked() {
    if (taken_) return;
    std::set<std::string> before;
    for (const auto& p : loaded_library_paths("")) {
      const std::string real = real_path(p);
      if (!real.empty() && !held_by_cuarch(real)) before.insert(real);
    }
    process_lock data;
    before_cuarch_ = std::move(before);
    taken_ = true;
  }

  fork_safe_mutex loading_;  // held across a load (and a listing) so no detection sees one half-done
  std::string in_flight_;    // the load under way (real path, or SONAME); in a forked child, one never finished
  bool taken_ = false;
  std::set<std::string> before_cuarch_;   // real paths mapped before the first detection
  std::set<std::string> by_cuarch_;       // real paths a detection loaded
  std::set<std::string> by_application_;  // real paths a detection found mapped already when it loaded them
};

}  // namespace detail

CUARCH_END_NAMESPACE
