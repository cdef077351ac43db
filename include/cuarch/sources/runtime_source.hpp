// The CUDA runtime (libcudart) as a version source: cudaRuntimeGetVersion, which needs no driver
// and no device. What it reports is the runtime a framework in this process was built against
// (torch, cupy): the version the driver must serve, through minor-version compatibility.
#pragma once

#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "posix/dynamic_library.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// The runtime sonames the loader is asked for, newest major first (11.x uses libcudart.so.11.0).
inline std::vector<std::string> cudart_sonames() { return sonames_from_newest("libcudart.so", {"libcudart.so.11.0"}); }

namespace detail {
inline expected<observation, error> probe_cudart_now(const dynamic_library& lib, const std::string& found_as, discovery how) {
  const auto get = lib.function<int(int*)>("cudaRuntimeGetVersion", source_kind::cuda_runtime);
  if (!get) return unexpected(get.error());
  int v = -1;
  if (const int rc = (*get)(&v); rc != 0) {
    error e = errors::library_call_failed(source_kind::cuda_runtime, "cudaRuntimeGetVersion", rc, lib.path());
    if (const auto text = lib.function<const char*(int)>("cudaGetErrorString", source_kind::cuda_runtime))
      if (const char* t = (*text)(rc)) e.raw = t;
    return unexpected(e);
  }
  const auto version = detail::reported_version(v, source_kind::cuda_runtime, lib.path());
  if (!version) return unexpected(version.error());
  lib.retain();  // it answered: loaded once per process
  return observation{source_kind::cuda_runtime, *version, found_as.empty() ? lib.path() : found_as, how,
                     "cudaRuntimeGetVersion: " + std::to_string(v)};
}
}  // namespace detail

/// Asks a loaded libcudart for cudaRuntimeGetVersion, bounded by the detection's deadline.
inline expected<observation, error> probe_cudart_library(const dynamic_library& lib, const std::string& found_as, discovery how) {
  return detail::bounded_call(source_kind::cuda_runtime, lib.path(), "cudaRuntimeGetVersion",
                              [lib, found_as, how] { return detail::probe_cudart_now(lib, found_as, how); });
}

/// A dynamically loaded CUDA runtime: a named file, or the loader's search (newest major first).
/// Satisfies the version-source shape `observe()`.
class cuda_runtime_source {
 public:
  explicit cuda_runtime_source(std::string path, discovery how = discovery::explicit_argument,
                               library_path_policy policy = library_path_policy::allow_relative)
      : locator_(library_locator::file(std::move(path), policy)), how_(how) {}
  /// Any place the shared locator describes.
  cuda_runtime_source(library_locator where, discovery how) : locator_(std::move(where)), how_(how) {}
  static cuda_runtime_source from_loader(std::string soname = {}) {
    return {soname.empty() ? library_locator::search(cudart_sonames(), "libcudart.so (any version)")
                           : library_locator::search({std::move(soname)}),
            discovery::loader_search};
  }

  /// A named file's answer is kept for this source and its copies (detail::file_answer_memo).
  expected<observation, error> observe() const {
    struct stat st {};
    const bool named = !locator_.searches() && ::stat(locator_.path.c_str(), &st) == 0;
    if (named)
      if (auto known = memo_->find(st)) return std::move(*known);
    const auto lib = locator_.load(source_kind::cuda_runtime);
    if (!lib) return unexpected(lib.error());
    auto o = probe_cudart_library(*lib, locator_.searches() ? lib->path() : locator_.path, how_);
    if (o && named) memo_->keep(st, *o);
    return o;
  }

 private:
  library_locator locator_;
  discovery how_ = discovery::explicit_argument;
  std::shared_ptr<detail::file_answer_memo<observation>> memo_ = std::make_shared<detail::file_answer_memo<observation>>();
};

CUARCH_END_NAMESPACE
