// The CUDA runtime (libcudart) as a version source: cudaRuntimeGetVersion (no driver, no device):
// the runtime a framework in this process was built against, which the driver must serve.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "posix/dynamic_library.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// The runtime sonames, newest major first (11.x uses libcudart.so.11.0).
inline std::vector<std::string> cudart_sonames() { return sonames_from_newest("libcudart.so", {"libcudart.so.11.0"}); }

/// Asks a loaded libcudart for cudaRuntimeGetVersion, bounded by the detection's deadline.
inline expected<observation, error> probe_cudart_library(const dynamic_library& lib, const std::string& found_as,
                                                         discovery how) {
  return detail::bounded_call(source_kind::cuda_runtime, lib.path(), "cudaRuntimeGetVersion",
                              [lib, found_as, how]() -> expected<observation, error> {
                                int (*get)(int*) = nullptr;
                                const char* (*text)(int) = nullptr;
                                if (auto e = lib.bind(get, "cudaRuntimeGetVersion", source_kind::cuda_runtime))
                                  return unexpected(std::move(*e));
                                int v = -1;
                                if (const int rc = get(&v); rc != 0) {
                                  lib.bind(text, "cudaGetErrorString", source_kind::cuda_runtime);
                                  const char* t = text ? text(rc) : nullptr;
                                  return unexpected(errors::library_call_failed(
                                      source_kind::cuda_runtime, "cudaRuntimeGetVersion", rc, lib.path(), t ? t : ""));
                                }
                                const auto version = detail::reported_version(v, source_kind::cuda_runtime, lib.path());
                                if (!version) return unexpected(version.error());
                                lib.retain();  // it answered: loaded once per process
                                return observation{source_kind::cuda_runtime, *version,
                                                   found_as.empty() ? lib.path() : found_as, how,
                                                   "cudaRuntimeGetVersion: " + std::to_string(v)};
                              });
}

/// A dynamically loaded CUDA runtime, from a named file. A version source (`observe()`).
class cuda_runtime_source {
 public:
  explicit cuda_runtime_source(std::string path, discovery how = discovery::explicit_argument,
                               library_path_policy policy = library_path_policy::allow_relative)
      : locator_(library_locator::file(std::move(path), policy)), how_(how) {}

  /// A named file's answer is kept for this source and its copies (detail::file_answer_memo).
  expected<observation, error> observe() const {
    return memo_->ask(locator_, source_kind::cuda_runtime,
                      [&](const dynamic_library& lib) { return probe_cudart_library(lib, locator_.path, how_); });
  }

 private:
  library_locator locator_;
  discovery how_ = discovery::explicit_argument;
  std::shared_ptr<detail::file_answer_memo<observation>> memo_ = std::make_shared<detail::file_answer_memo<observation>>();
};

CUARCH_END_NAMESPACE
