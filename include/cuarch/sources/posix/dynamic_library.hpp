// dynamic_library: loading a shared library (libnvrtc, libcudart, libcuda) safely, at the edge.
// Rules: RTLD_NOW | RTLD_LOCAL; never from the current directory or a relative path unless the
// caller passed that path; one mapping per file per process (handles are shared per real path);
// a library that answered is kept loaded until exit (retain(): NVRTC's static initialisers
// allocate on every load, which no dlclose gives back, so reloading per question would leak);
// nothing leaks on error paths (a failed load or lookup releases its handle). POSIX (glibc) only.
#pragma once

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../../core/config.hpp"
#include "posix.hpp"
#include "../../core/error.hpp"
#include "../../core/expected.hpp"
#include "../../core/source_kind.hpp"

CUARCH_BEGIN_NAMESPACE

/// Whether a relative library path is accepted. Only a path the caller passed explicitly may be
/// relative (it is then made absolute against the current directory, once, before loading).
enum class library_path_policy : unsigned char { absolute_only, allow_relative };

namespace detail {

/// One dlopen handle. Shared by every dynamic_library that loaded the same file.
struct loaded_library {
  void* handle = nullptr;
  std::string path;  // the file's real path
  loaded_library(void* h, std::string p) : handle(h), path(std::move(p)) {}
  loaded_library(const loaded_library&) = delete;
  loaded_library& operator=(const loaded_library&) = delete;
  ~loaded_library() {
    if (handle) dlclose(handle);
  }
};

/// Handles by real path, so a file reached through several symlinks is mapped and counted once.
/// by_path holds weak references; `kept` holds the libraries retained until exit.
struct library_registry {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<loaded_library>> by_path;
  std::vector<std::shared_ptr<loaded_library>> kept;
};
inline library_registry& registry() {
  // Never destroyed: retained libraries must outlive every static destructor (and a dlclose at
  // exit would only hand their allocations to the leak checker).
  static library_registry* r = new library_registry;
  return *r;
}

/// The path the loader actually mapped for a handle (glibc: the link map's l_name).
inline std::string mapped_path(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return {};
  return map->l_name;
}

inline std::string last_dlerror() {
  const char* e = dlerror();
  return e ? std::string(e) : std::string("unknown dynamic loader error");
}

struct library_access;

inline error library_error(errc code, source_kind src, std::string_view subject, std::string_view location, std::string_view raw) {
  error e = make_error(code, src);
  e.subject = subject;
  e.location = location;
  e.raw = raw;
  return e;
}

}  // namespace detail

/// A loaded shared library. Copies share one handle; the library is unloaded (dlclose) when the
/// last copy goes, unless pin() was called.
class dynamic_library {
 public:
  dynamic_library() = default;

  /// Whether a library is held.
  bool loaded() const noexcept { return lib_ != nullptr; }
  /// The real path of the loaded file (symlinks resolved): the library's identity.
  const std::string& path() const noexcept {
    static const std::string none;
    return lib_ ? lib_->path : none;
  }

  /// The address of a symbol, or nullptr.
  void* raw_symbol(const char* name) const noexcept { return lib_ ? dlsym(lib_->handle, name) : nullptr; }

  /// A function of type F (e.g. `int(int*, int*)`), or symbol_not_found naming the symbol and library.
  template <class F>
  expected<F*, error> function(const char* name, source_kind src) const {
    void* p = raw_symbol(name);
    if (!p) {
      const char* why = dlerror();
      return unexpected(detail::library_error(errc::symbol_not_found, src, name, path(), why ? why : ""));
    }
    F* f = nullptr;
    static_assert(sizeof(f) == sizeof(p), "function and object pointers differ in size");
    std::memcpy(&f, &p, sizeof f);  // the POSIX-sanctioned object-to-function pointer conversion
    return f;
  }

  /// Keeps this library loaded until the process exits: later loads of the same file share it.
  /// Called for libraries that answered; failed ones are released.
  void retain() const {
    if (!lib_) return;
    auto& reg = detail::registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    for (const auto& k : reg.kept)
      if (k == lib_) return;
    reg.kept.push_back(lib_);
  }

  /// Keeps the library mapped until the process exits (RTLD_NODELETE). For libcuda after cuInit:
  /// the driver starts threads and registers exit handlers, so unmapping it is never safe.
  bool pin() const noexcept {
    if (!lib_) return false;
    void* h = dlopen(lib_->path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (!h) return false;
    dlclose(h);  // drops only the reference this call added; NODELETE stays
    return true;
  }

 private:
  explicit dynamic_library(std::shared_ptr<detail::loaded_library> l) : lib_(std::move(l)) {}
  friend struct detail::library_access;

  std::shared_ptr<detail::loaded_library> lib_;
};

namespace detail {
struct library_access {
  static dynamic_library make(std::shared_ptr<loaded_library> l) { return dynamic_library(std::move(l)); }
};

/// Registers a fresh dlopen handle under its real path, or folds it into the entry already there.
/// Takes ownership of `handle` in every outcome.
inline expected<dynamic_library, error> adopt_library_handle(void* handle, const std::string& asked, source_kind src, std::string_view asked_as) {
  const std::string mapped = mapped_path(handle);
  std::string real = real_path(mapped.empty() ? asked : mapped);
  if (real.empty()) real = mapped.empty() ? asked : mapped;
  if ((!mapped.empty() && mapped.front() != '/') || real.empty() || real.front() != '/') {
    // The loader resolved it relative to the current directory (e.g. LD_LIBRARY_PATH=":..." or "."):
    // refuse, whatever the library is.
    dlclose(handle);
    return unexpected(library_error(errc::library_not_found, src, asked_as, mapped.empty() ? real : mapped,
                                    "the loader found it through a relative path (current directory); "
                                    "cuarch does not load libraries from there"));
  }
  auto& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto& slot = reg.by_path[real];
  if (auto existing = slot.lock()) {
    dlclose(handle);  // the loader returned the same mapping with one more reference; give it back
    return library_access::make(std::move(existing));
  }
  auto lib = std::make_shared<loaded_library>(handle, real);
  slot = lib;
  return library_access::make(std::move(lib));
}
}  // namespace detail

/// Loads a library file by path. A relative path is refused unless `policy` allows it (only for
/// a path the caller passed explicitly). Errors: library_not_found (subject: the path; raw: dlerror).
inline expected<dynamic_library, error> load_library_file(const std::string& path, source_kind src,
                                                          library_path_policy policy = library_path_policy::absolute_only) {
  if (path.empty())
    return unexpected(detail::library_error(errc::library_not_found, src, "(empty path)", "", "no library path given"));
  std::string abs = path;
  if (path.front() != '/') {
    if (policy != library_path_policy::allow_relative)
      return unexpected(detail::library_error(errc::library_not_found, src, path, path,
                                              "relative library path refused; pass an absolute path"));
    abs = detail::current_directory() + "/" + path;
  }
  const std::string real = detail::real_path(abs);
  if (real.empty()) {
    const int e = errno;
    return unexpected(detail::library_error(errc::library_not_found, src, path, abs, detail::errno_text(e)));
  }
  {  // already held by cuarch: share it, no second dlopen
    auto& reg = detail::registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    const auto it = reg.by_path.find(real);
    if (it != reg.by_path.end())
      if (auto existing = it->second.lock()) return detail::library_access::make(std::move(existing));
  }
  void* h = dlopen(real.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return unexpected(detail::library_error(errc::library_not_found, src, path, real, detail::last_dlerror()));
  return detail::adopt_library_handle(h, real, src, path);
}

/// Loads a library by SONAME through the dynamic loader's search (LD_LIBRARY_PATH, RUNPATH,
/// ld.so.cache, system directories). Relative or empty LD_LIBRARY_PATH entries (the current
/// directory) that hold the library are refused before anything is loaded.
inline expected<dynamic_library, error> load_library_by_name(const std::string& soname, source_kind src) {
  if (soname.empty() || soname.find('/') != std::string::npos)
    return unexpected(detail::library_error(errc::library_not_found, src, soname, "", "not a library name (use load_library_file for paths)"));
  if (const char* llp = std::getenv("LD_LIBRARY_PATH")) {
    const std::string_view list(llp);
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      const std::string entry(list.substr(start, end - start));
      if (entry.empty() || entry.front() != '/') {
        const std::string candidate = (entry.empty() ? std::string(".") : entry) + "/" + soname;
        if (::access(candidate.c_str(), F_OK) == 0)
          return unexpected(detail::library_error(errc::invalid_environment, src, llp, "LD_LIBRARY_PATH",
                                                  "entry '" + entry + "' is relative and holds " + soname +
                                                      "; cuarch does not load libraries from the current directory"));
      }
      start = end + 1;
    }
  }
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return unexpected(detail::library_error(errc::library_not_found, src, soname, "loader search", detail::last_dlerror()));
  return detail::adopt_library_handle(h, soname, src, soname);
}

/// The first of `sonames` (newest first) the loader has. A refusal other than "not found" (a
/// relative LD_LIBRARY_PATH entry) is the answer at once; if none is found, the error names
/// `any_version` ("libnvrtc.so (any version)").
inline expected<dynamic_library, error> load_first_library(const std::vector<std::string>& sonames, source_kind src,
                                                           std::string_view any_version) {
  std::optional<error> first;
  for (const auto& name : sonames) {
    auto lib = load_library_by_name(name, src);
    if (lib || lib.error().code != errc::library_not_found) return lib;
    if (!first) first = lib.error();
  }
  error e = first ? *first : detail::library_error(errc::library_not_found, src, any_version, "loader search", "no candidate names");
  e.subject = any_version;
  return unexpected(e);
}

/// Whether cuarch itself holds the library file at `real_path` (retained, or in use right now).
/// Detection's "already loaded" leaves these out: they are cuarch's loads, not the application's.
inline bool held_by_cuarch(const std::string& real_path) {
  auto& reg = detail::registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  const auto it = reg.by_path.find(real_path);
  return it != reg.by_path.end() && !it->second.expired();
}

/// Paths of the libraries mapped into this process whose file name starts with `prefix`
/// (e.g. "libnvrtc.so."), in load order: what the application itself already loaded.
inline std::vector<std::string> loaded_library_paths(std::string_view prefix) {
  struct context {
    std::string_view prefix;
    std::vector<std::string> found;
  } ctx{prefix, {}};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* c = static_cast<context*>(data);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        const std::string_view name(info->dlpi_name);
        const std::size_t slash = name.rfind('/');
        const std::string_view file = slash == std::string_view::npos ? name : name.substr(slash + 1);
        if (file.substr(0, c->prefix.size()) == c->prefix && file.find(".alt.") == std::string_view::npos)
          c->found.emplace_back(name);
        return 0;
      },
      &ctx);
  return ctx.found;
}

CUARCH_END_NAMESPACE
