// dynamic_library: loading a shared library (libnvrtc, libcudart, libcuda) safely: RTLD_NOW |
// RTLD_LOCAL; never from the current directory unless the caller passed that path; one handle per
// real path; one that answered stays loaded (retain(): NVRTC's static initialisers allocate on every
// load, which no dlclose gives back). dlopen() only gets a regular file (a FIFO would block the
// loader's open() forever) whose ELF header says "shared object of this process's kind".
#pragma once

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../core/decode.hpp"
#include "../../core/environment.hpp"
#include "bounded_call.hpp"
#include "posix.hpp"
#include "trial_load.hpp"
#include "../../core/errors.hpp"

CUARCH_BEGIN_NAMESPACE

/// Whether a relative library path (one the caller passed) is accepted, made absolute once.
enum class library_path_policy : unsigned char { absolute_only, allow_relative };

namespace detail {

/// dlclose(), which fork() waits for (process_lock.hpp: a child copied mid-unmap cannot load).
inline void close_library(void* handle) {
  const loader_call c;
  ::dlclose(handle);
}

/// One dlopen handle. Shared by every dynamic_library that loaded the same file.
struct loaded_library {
  void* handle = nullptr;
  std::string path;  // the file's real path
  loaded_library(void* h, std::string p) : handle(h), path(std::move(p)) {}
  loaded_library(const loaded_library&) = delete;
  loaded_library& operator=(const loaded_library&) = delete;
  ~loaded_library() {  // not on a worker whose caller has gone (the process may be exiting): then it stays loaded
    if (handle && !bounded_job_base::caller_gone()) close_library(handle);
  }
};

/// Handles by real path (several symlinks, one mapping), and the retained libraries. Under the
/// process lock, which no dl*() call is made under.
struct library_registry {
  std::map<std::string, std::weak_ptr<loaded_library>> by_path;
  std::set<std::shared_ptr<loaded_library>> kept;
};
inline library_registry& registry() {
  // Never destroyed: retained libraries outlive every static destructor.
  static library_registry* r = new library_registry;
  return *r;
}
/// The library cuarch holds at `real` (retained, or in use right now), or null.
inline std::shared_ptr<loaded_library> held_library(const std::string& real) {
  process_lock lock;
  const auto it = registry().by_path.find(real);
  return it == registry().by_path.end() ? nullptr : it->second.lock();
}

/// dlopen(), bounded by the detection's deadline (bounded_call.hpp); the error names `asked_as`.
/// Under a deadline, a library not mapped in this process yet is tried in a child first
/// (trial_load.hpp), so that no dlopen() here is abandoned holding the loader's lock.
inline expected<void*, error> bounded_dlopen(const std::string& what, source_kind src, std::string_view asked_as,
                                             int flags = RTLD_NOW | RTLD_LOCAL) {
  const auto open = [&](int how) {  // RTLD_NOLOAD: null (no error) when it is not mapped
    return bounded_call(src, what, "dlopen", [what, src, asked = std::string(asked_as), how]() -> expected<void*, error> {
      const loader_call c;  // fork() waits for it (process_lock.hpp)
      void* h = dlopen(what.c_str(), how);
      if (!h && !(how & RTLD_NOLOAD)) {
        const char* e = dlerror();
        return unexpected(errors::library_not_found(src, asked, what, e ? e : "unknown dynamic loader error"));
      }
      return h;
    });
  };
  const library_bound bound = this_thread_library_bound();
  if (flags & RTLD_NOLOAD) {
    auto h = open(flags);
    if (h && !*h) return unexpected(errors::library_not_found(src, asked_as, what, "not mapped in this process"));
    return h;
  }
  if (bound.end == library_clock::time_point::max()) return open(flags);
  auto mapped = open(flags | RTLD_NOLOAD);  // mapped already (the application's, or ours): no constructor runs
  if (!mapped || *mapped) return mapped;
  auto until = bound.end;
  if (bound.per_call.count() > 0) until = std::min(until, library_clock::now() + bound.per_call);
  if (auto refused = trial_dlopen(what, src, asked_as, flags, until, bound.cancel))
    return unexpected(std::move(*refused));
  return open(flags);
}

/// This process's e_machine, from the vDSO's ELF header (0 without one: not checked), and its
/// multiarch triple (/usr/lib/<triple>; "" if none) for the loader's default directories.
inline std::uint16_t native_elf_machine() {
  const auto* vdso = reinterpret_cast<const ElfW(Ehdr)*>(::getauxval(AT_SYSINFO_EHDR));
  return vdso ? vdso->e_machine : 0;
}
#if defined(__x86_64__)
inline constexpr const char* native_multiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
inline constexpr const char* native_multiarch = "aarch64-linux-gnu";
#elif defined(__powerpc64__)
inline constexpr const char* native_multiarch = "powerpc64le-linux-gnu";
#else
inline constexpr const char* native_multiarch = "";
#endif

/// Whether `path` is a library this process can dlopen(), from its ELF header alone: read_regular_file's
/// error (a FIFO), or library_not_found saying why it is no shared object of this process's kind
/// (`*foreign` set where it is an ELF file of another class or machine, which the loader's search skips).
inline std::optional<error> check_library_file(const std::string& path, source_kind src, std::string_view asked_as,
                                               bool* foreign = nullptr) {
  constexpr std::size_t header_size = sizeof(Elf64_Ehdr) > sizeof(Elf32_Ehdr) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  const auto head = read_regular_file(path, header_size, src, read_extent::prefix);
  if (!head) {
    error e = head.error();
    e.subject = asked_as;
    return e;
  }
  const auto refuse = [&](const std::string& why) { return errors::library_not_found(src, asked_as, path, why); };
  const std::string& h = *head;
  if (h.size() < EI_NIDENT || std::memcmp(h.data(), ELFMAG, SELFMAG) != 0)
    return refuse(h.empty() ? "not an ELF library: the file is empty"
                            : "not an ELF library: no ELF magic at its start (a linker script or a text file?)");
  constexpr unsigned char own_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
  const unsigned char cls = static_cast<unsigned char>(h[EI_CLASS]);
  if (foreign) *foreign = cls != own_class;
  if (cls != own_class)
    return refuse(std::string(cls == ELFCLASS32   ? "a 32-bit"
                              : cls == ELFCLASS64 ? "a 64-bit"
                                                  : "an unknown-class") +
                  " ELF file; this process is " + (own_class == ELFCLASS64 ? "64-bit" : "32-bit"));
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
  constexpr unsigned char own_data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (static_cast<unsigned char>(h[EI_DATA]) != own_data)
    return refuse("an ELF file of the other byte order than this process");
#endif
  if (h.size() < (own_class == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
    return refuse("not an ELF library: the header is cut short");
  std::uint16_t type = 0, machine = 0;  // e_type and e_machine sit at the same offsets in both classes
  std::memcpy(&type, h.data() + offsetof(Elf64_Ehdr, e_type), sizeof type);
  std::memcpy(&machine, h.data() + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
  const std::uint16_t own_machine = native_elf_machine();
  if (foreign) *foreign = own_machine != 0 && machine != own_machine;
  if (own_machine != 0 && machine != own_machine)
    return refuse("an ELF file for machine " + std::to_string(machine) + " (e_machine), not this process's machine " +
                  std::to_string(own_machine));
  if (type != ET_DYN) return refuse("an ELF file of type " + std::to_string(type) + " (e_type), not a shared object");
  return std::nullopt;
}

/// The directories the loader searches when its cache names no file for a SONAME.
inline const std::vector<std::string>& system_library_dirs() {
  static const std::vector<std::string>* const dirs = [] {  // never destroyed
    auto* d = new std::vector<std::string>;
    if (*native_multiarch) *d = {std::string("/lib/") + native_multiarch, std::string("/usr/lib/") + native_multiarch};
    for (const char* s : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"}) d->emplace_back(s);
    return d;
  }();
  return *dirs;
}

/// The files /etc/ld.so.cache names for `soname`, in its order (none if unreadable). The format (also
/// after the old one): a 48-byte header "glibc-ld.so.cache1.1" (entry count at byte 20), 24-byte
/// entries whose key and value (bytes 4 and 8) are string offsets from the header's start. Read and
/// sorted by name once, until ldconfig replaces the file (its inode, size or time): docs/performance.md.
inline std::vector<std::string> cached_library_paths(const std::string& soname) {
  const file_identity id = identity_of("/etc/ld.so.cache");
  if (id == file_identity{}) return {};
  using entry = std::pair<std::string_view, std::string_view>;  // soname, path: into `text`
  struct cache_file {
    file_identity file;
    std::string text;
    std::vector<entry> entries;
  };
  process_lock lock;                               // first: fork() takes it, so no child inherits it half-made
  static cache_file* const memo = new cache_file;  // never destroyed
  const auto by_name = [](const entry& a, const entry& b) { return a.first < b.first; };
  if (memo->file != id) {
    *memo = cache_file{id, {}, {}};
    if (auto text = read_regular_file("/etc/ld.so.cache", std::size_t{64} << 20, source_kind::none))
      memo->text = std::move(*text);
    const std::string& c = memo->text;
    const std::size_t base = c.find("glibc-ld.so.cache1.1");
    std::uint32_t n = 0, key = 0, value = 0;
    if (base != std::string::npos && base + 48 <= c.size()) std::memcpy(&n, &c[base + 20], sizeof n);
    for (std::size_t e = base + 48; n-- > 0 && e + 24 <= c.size(); e += 24) {
      std::memcpy(&key, &c[e + 4], sizeof key);
      std::memcpy(&value, &c[e + 8], sizeof value);
      if (base + key < c.size() && base + value < c.size())
        memo->entries.emplace_back(&c[base + key], &c[base + value]);
    }
    std::stable_sort(memo->entries.begin(), memo->entries.end(), by_name);  // stable: the cache's order per name
  }
  const auto [first, last] = std::equal_range(memo->entries.begin(), memo->entries.end(), entry{soname, {}}, by_name);
  std::vector<std::string> paths;
  for (auto it = first; it != last; ++it) paths.emplace_back(it->second);
  return paths;
}

}  // namespace detail

/// A loaded shared library. Copies share one handle, closed with the last copy unless retained.
class dynamic_library {
 public:
  dynamic_library() = default;

  /// The real path of the loaded file (symlinks resolved): the library's identity.
  const std::string& path() const noexcept {
    static const std::string none;
    return lib_ ? lib_->path : none;
  }

  void* raw_symbol(const char* name) const noexcept { return lib_ ? dlsym(lib_->handle, name) : nullptr; }

  /// Sets `slot` to the function `name` (of type F, e.g. `int(int*, int*)`); when it is missing,
  /// symbol_not_found naming the symbol and library (slot untouched).
  template <class F>
  std::optional<error> bind(F*& slot, const char* name, source_kind src) const {
    void* p = raw_symbol(name);
    if (!p) {
      const char* why = dlerror();
      return errors::symbol_not_found(src, name, path(), why ? why : "");
    }
    static_assert(sizeof(slot) == sizeof(p), "function and object pointers differ in size");
    std::memcpy(&slot, &p, sizeof slot);  // the POSIX-sanctioned object-to-function pointer conversion
    return std::nullopt;
  }

  /// Keeps this library loaded until exit (for libraries that answered): later loads share it.
  void retain() const {
    if (!lib_) return;
    detail::process_lock lock;
    detail::registry().kept.insert(lib_);
  }

  /// Holds a registered handle (detail::adopt_library_handle makes them).
  explicit dynamic_library(std::shared_ptr<detail::loaded_library> l) : lib_(std::move(l)) {}

 private:
  std::shared_ptr<detail::loaded_library> lib_;
};

namespace detail {
/// Registers a fresh dlopen handle under its real path, or folds it into the entry there. Owns
/// `handle` in every outcome.
inline expected<dynamic_library, error> adopt_library_handle(void* handle, const std::string& asked, source_kind src,
                                                             std::string_view asked_as) {
  struct link_map* map = nullptr;  // the path the loader actually mapped: glibc's link map says
  const std::string mapped = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name : "";
  std::string real = real_path(mapped.empty() ? asked : mapped);
  if (real.empty()) real = mapped.empty() ? asked : mapped;
  if ((!mapped.empty() && mapped.front() != '/') || real.empty() || real.front() != '/') {
    // Found relative to the current directory (LD_LIBRARY_PATH=":..." or "."): refused.
    close_library(handle);
    return unexpected(errors::library_not_found(src, asked_as, mapped.empty() ? real : mapped,
                                                "the loader found it through a relative path (current directory); "
                                                "cuarch does not load libraries from there"));
  }
  auto& reg = registry();
  std::shared_ptr<loaded_library> existing;
  {
    process_lock lock;
    auto& slot = reg.by_path[real];
    existing = slot.lock();
    if (!existing) {
      auto lib = std::make_shared<loaded_library>(handle, real);
      slot = lib;
      return dynamic_library(std::move(lib));
    }
  }
  close_library(handle);  // the loader returned the same mapping with one more reference; give it back
  return dynamic_library(std::move(existing));
}
}  // namespace detail

/// Loads a library file by path; a relative one only under allow_relative. Errors (subject: the path
/// as given): file_unreadable (no regular file) or library_not_found (missing, not a shared object of
/// this process's kind, refused by the loader).
inline expected<dynamic_library, error> load_library_file(
    const std::string& path, source_kind src, library_path_policy policy = library_path_policy::absolute_only) {
  if (path.empty()) return unexpected(errors::library_not_found(src, "(empty path)", "", "no library path given"));
  std::string abs = path;
  if (path.front() != '/') {
    if (policy != library_path_policy::allow_relative)
      return unexpected(
          errors::library_not_found(src, path, path, "relative library path refused; pass an absolute path"));
    abs = detail::absolute_path(path);  // empty (refused below) when the current directory is unreadable
  }
  const std::string real = detail::real_path(abs);
  if (real.empty()) return unexpected(errors::library_not_found(src, path, abs, detail::errno_text(errno)));
  if (auto existing = detail::held_library(real)) return dynamic_library(std::move(existing));  // no second dlopen
  if (auto bad = detail::check_library_file(real, src, path)) return unexpected(std::move(*bad));
  const auto h = detail::bounded_dlopen(real, src, path);
  if (!h) return unexpected(h.error());
  return detail::adopt_library_handle(*h, real, src, path);
}

/// Loads a library by SONAME as the loader would find it (glibc is the oracle: dynamic_library_test),
/// letting it open nothing unchecked. It looks past a missing file and passes over an ELF file of
/// another class or machine (named if nothing is found); any other file ends the search with its
/// error, as it ends the loader's (a FIFO, which would block it, too). LD_LIBRARY_PATH (from `env`,
/// else the process) first: a relative or empty entry holding the library is refused
/// (invalid_environment); a good file is loaded by path. Else ld.so.cache and, where it names no
/// good file, the system directories are checked, and dlopen(soname) does the rest (RUNPATH too).
inline expected<dynamic_library, error> load_library_by_name(const std::string& soname, source_kind src,
                                                             const environment* env = nullptr) {
  if (soname.empty() || soname.find('/') != std::string::npos)
    return unexpected(errors::library_not_found(src, soname, "", "not a library name (use load_library_file for paths)"));
  const char* llp = env ? env->find("LD_LIBRARY_PATH") : environment::process_value("LD_LIBRARY_PATH");
  std::string passed_over;
  // The first good file of `dirs` + `suffix` (empty: none), or the error that ends the search.
  const auto first = [&](const std::vector<std::string>& dirs,
                         const std::string& suffix) -> expected<std::string, error> {
    for (const auto& dir : dirs) {
      const std::string candidate = (dir.empty() ? std::string(".") : dir) + suffix;
      bool foreign = false;
      if (::access(candidate.c_str(), F_OK) != 0) continue;
      if (dir.empty() || dir.front() != '/')  // only LD_LIBRARY_PATH has such entries
        return unexpected(errors::invalid_environment(src, "LD_LIBRARY_PATH", llp,
                                                      "entry '" + dir + "' is relative and holds " + soname +
                                                          "; cuarch does not load libraries from the current directory"));
      auto bad = detail::check_library_file(candidate, src, soname, &foreign);
      if (!bad) return candidate;
      if (!foreign) return unexpected(std::move(*bad));
      passed_over.append(passed_over.empty() ? "" : "; ")
          .append("passed over ")
          .append(candidate)
          .append(": ")
          .append(bad->raw.view());
    }
    return std::string();
  };
  auto found = first(llp ? detail::split_path_list(llp) : std::vector<std::string>{}, "/" + soname);
  if (found && !found->empty()) {
    const auto h = detail::bounded_dlopen(*found, src, soname);
    if (!h) return unexpected(h.error());
    return detail::adopt_library_handle(*h, *found, src, soname);
  }
  if (found) found = first(detail::cached_library_paths(soname), "");
  if (found && found->empty()) found = first(detail::system_library_dirs(), "/" + soname);
  if (!found) return unexpected(std::move(found.error()));
  auto h = detail::bounded_dlopen(soname, src, soname);
  if (!h) {
    error e = h.error();
    if (e.code != errc::library_not_found) return unexpected(e);
    std::string why(e.raw.view());
    if (!passed_over.empty()) why.append("; ").append(passed_over);
    return unexpected(errors::library_not_found(src, soname, "loader search", why));
  }
  return detail::adopt_library_handle(*h, soname, src, soname);
}

/// "<stem>.20" down to "<stem>.12" (ahead of the table: a newer major is still found), then `older`.
inline std::vector<std::string> sonames_from_newest(std::string_view stem, std::initializer_list<const char*> older) {
  std::vector<std::string> names;
  for (int major = 20; major >= 12; --major) names.push_back(std::string(stem) + "." + std::to_string(major));
  names.insert(names.end(), older.begin(), older.end());
  return names;
}

/// `sonames` as words naming no library that does not exist: "libnvrtc.so.20" ... "libnvrtc.so.12"
/// are "libnvrtc.so.12 or a newer major", the others as they are.
inline std::string soname_words(const std::vector<std::string>& sonames) {
  const auto major_prefix = [](const std::string& name) {  // "libnvrtc.so." for "libnvrtc.so.12", else ""
    const std::size_t so = name.rfind(".so.");
    const bool major_only = so != std::string::npos && so + 4 < name.size() &&
                            name.find_first_not_of("0123456789", so + 4) == std::string::npos;
    return major_only ? name.substr(0, so + 4) : std::string();
  };
  std::string words;
  for (std::size_t i = 0; i < sonames.size(); ++i) {
    const std::string prefix = major_prefix(sonames[i]);
    if (!prefix.empty() && i + 1 < sonames.size() && major_prefix(sonames[i + 1]) == prefix)
      continue;  // the run's lowest names it
    words.append(words.empty() ? "" : ", ").append(sonames[i]).append(prefix.empty() ? "" : " or a newer major");
  }
  return words;
}

/// Where a library comes from: a file (relative only under allow_relative), or the loader's search
/// for the first of `sonames` it has (a refusal other than "not found" is the answer at once; if none
/// is found, the error names `any_version`: "libnvrtc.so (any version)").
struct library_locator {
  std::string path;
  std::vector<std::string> sonames;
  std::string any_version;
  library_path_policy policy = library_path_policy::allow_relative;

  static library_locator file(std::string path, library_path_policy policy = library_path_policy::allow_relative) {
    library_locator l;
    l.path = std::move(path);
    l.policy = policy;
    return l;
  }
  static library_locator search(std::vector<std::string> sonames, std::string any_version = {}) {
    library_locator l;
    l.sonames = std::move(sonames);
    l.any_version = std::move(any_version);
    return l;
  }

  bool searches() const noexcept { return path.empty(); }

  expected<dynamic_library, error> load(source_kind src) const {
    if (!path.empty()) return load_library_file(path, src, policy);
    if (sonames.size() == 1) return load_library_by_name(sonames.front(), src);
    for (const auto& name : sonames) {
      auto lib = load_library_by_name(name, src);
      if (lib || lib.error().code != errc::library_not_found) return lib;
    }
    // Not the first name's own error: that soname (a major ahead of every release) may not exist.
    return unexpected(errors::library_not_found(
        src, any_version.empty() ? std::string_view("(no library name)") : std::string_view(any_version),
        "loader search", sonames.empty() ? "no candidate names" : "the loader has none of " + soname_words(sonames)));
  }
};

namespace detail {
/// The CUDA version a library call reported as an int (cudaRuntimeGetVersion, cuDriverGetVersion:
/// 12080), decoded; the error is located at the library and says what `call` returned.
inline expected<cuda_version, error> reported_version(int v, source_kind src, const std::string& where,
                                                      std::string_view call = {}) {
  auto version = decode_cudart_version(v, src);
  if (!version) version.error().location = where;
  if (!version && !call.empty()) version.error().raw.append(call).append(" returned ").append_int(v);
  return version;
}

/// malformed_output unless a library call reported a compute capability from 1.0 to 99.9; the
/// error says "<who> reports compute capability <major>.<minor>".
inline std::optional<error> implausible_cc(int major, int minor, std::string_view call, const std::string& where,
                                           const std::string& who) {
  if (major >= 1 && major <= 99 && minor >= 0 && minor <= 9) return std::nullopt;
  return errors::malformed_output(
      source_kind::driver, call, where,
      who + " reports compute capability " + std::to_string(major) + "." + std::to_string(minor));
}

/// A library's answer, kept for a source and its copies while its path names the same file (its
/// file_identity: a replaced or rewritten file, or a retargeted symlink, is asked afresh). Failures
/// are never kept.
template <class T>
struct file_answer_memo {
  file_identity file;
  std::optional<T> answer;
  /// `ask(library)` of the library `where` loads; kept only where `where` names a file.
  template <class Ask>
  expected<T, error> ask(const library_locator& where, source_kind src, Ask ask) {
    const file_identity now = where.searches() ? file_identity{} : identity_of(where.path);
    const bool named = now != file_identity{};
    if (named) {
      process_lock lock;
      if (answer && file == now) return *answer;
    }
    const auto lib = where.load(src);
    if (!lib) return unexpected(lib.error());
    auto a = ask(*lib);
    if (a && named) {
      process_lock lock;
      file = now;
      answer = *a;
    }
    return a;
  }
};
}  // namespace detail

/// Whether cuarch itself holds the library file at `real_path` (not the application's load).
inline bool held_by_cuarch(const std::string& real_path) { return detail::held_library(real_path) != nullptr; }

/// Paths of the libraries mapped into this process whose file name starts with `prefix`
/// ("libnvrtc.so."), in load order.
inline std::vector<std::string> loaded_library_paths(std::string_view prefix) {
  std::vector<std::string> found;
  detail::each_loaded_object([&](const dl_phdr_info& info) {
    const std::string_view name(info.dlpi_name ? info.dlpi_name : "");
    const std::string_view file = name.substr(name.rfind('/') + 1);  // npos + 1 == 0: no directory
    if (!name.empty() && detail::starts_with(file, prefix) && file.find(".alt.") == std::string_view::npos)
      found.emplace_back(name);
    return false;
  });
  return found;
}

CUARCH_END_NAMESPACE
