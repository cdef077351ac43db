// "Already loaded by the application": the libraries this process mapped itself, as opposed to
// the ones cuarch loaded to ask them. Deciding it by looking at what is mapped *now* gives
// different answers to threads that detect at the same time: a library another thread's
// detection is loading (mapped, not yet registered as cuarch's) would count as the application's
// and outrank CUDA_HOME. So, process-wide:
//   * the first detection takes a snapshot of what is mapped before any detection loads anything
//     (libraries cuarch's own sources hold at that moment are left out): those are the
//     application's, even when a detection later loads the same file;
//   * every load a detection makes goes through load(), which records the file as cuarch's under
//     the same lock that listing takes, so no thread ever sees a detection's library half-loaded;
//   * a library mapped later counts as the application's when no detection loaded that file and
//     no cuarch source holds it.
// A library a cuarch source outside detection (nvrtc_library_source, ...) loads while a detection
// runs in another thread can still be mistaken: pass already_loaded = false where that matters.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.hpp"
#include "../core/detail/chars.hpp"
#include "../sources/posix/dynamic_library.hpp"
#include "../sources/posix/posix.hpp"

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
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_locked();
  }

  /// Runs `load_fn` (a load_library_* call) so that no other detection sees the library mapped
  /// before it is recorded as cuarch's.
  template <class Load>
  auto load(Load&& load_fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_locked();
    auto lib = load_fn();
    if (lib) by_cuarch_.insert(lib->path());
    return lib;
  }

  /// The application's libraries whose file name starts with `prefix`, in load order.
  std::vector<std::string> paths(std::string_view prefix) {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_locked();
    std::vector<std::string> out;
    for (auto& p : loaded_library_paths(prefix)) {
      const std::string real = real_path(p);
      const bool before = before_cuarch_.count(real) != 0;
      if (before || (by_cuarch_.count(real) == 0 && !held_by_cuarch(real))) out.push_back(std::move(p));
    }
    return out;
  }

 private:
  application_libraries() = default;

  void snapshot_locked() {
    if (taken_) return;
    taken_ = true;
    for (const auto& p : loaded_library_paths("")) {
      const std::string real = real_path(p);
      if (!real.empty() && !held_by_cuarch(real)) before_cuarch_.insert(real);
    }
  }

  std::mutex mutex_;
  bool taken_ = false;
  std::set<std::string> before_cuarch_;  // real paths mapped before the first detection
  std::set<std::string> by_cuarch_;      // real paths a detection loaded
};

}  // namespace detail

CUARCH_END_NAMESPACE
