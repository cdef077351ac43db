// Toolkit files as version sources: version.json (CUDA 11.1+), version.txt (11.0 and older),
// include/cuda.h's CUDA_VERSION, pip wheels' *.dist-info names, conda-meta records. An absent file is
// no error; an unreadable or malformed one is. Read by detail::read_regular_file, capped (read_caps).
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/decode.hpp"
#include "../core/detail/chars.hpp"
#include "../core/detail/json_reader.hpp"
#include "posix/posix.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// One version read from a file, and the component it describes (`none`: the toolkit as a whole).
struct file_observation {
  observation seen;
  source_kind describes = source_kind::none;
};

namespace detail {

inline mode_t stat_mode(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}
inline bool is_directory(const std::string& p) { return S_ISDIR(stat_mode(p)); }
inline bool is_file(const std::string& p) { return S_ISREG(stat_mode(p)); }
inline bool exists(const std::string& p) { return stat_mode(p) != 0; }
/// Why `p` is no directory: "not a directory", "no such directory", or stat()'s errno text.
inline std::string why_no_directory(const std::string& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return errno == ENOENT ? std::string("no such directory") : errno_text(errno);
  return S_ISDIR(st.st_mode) ? std::string() : std::string("not a directory");
}
inline std::string join(const std::string& a, std::string_view b) {
  if (a.empty()) return std::string(b);
  return a.back() == '/' ? a + std::string(b) : a + "/" + std::string(b);
}
inline std::string parent_dir(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : p.substr(0, slash);
}
inline std::string file_name(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// How much of each file cuarch reads: version.json is ~3 KiB, version.txt one line, and cuda.h
/// (1.1 MB) defines CUDA_VERSION in its first 15 KiB.
struct read_caps {
  static constexpr std::size_t version_json = 1 << 20;  // whole file, else file_unreadable
  static constexpr std::size_t version_txt = 4096;      // whole file, else file_unreadable
  static constexpr std::size_t cuda_h = 64 * 1024;      // only this prefix is searched
};

inline unexpected<error> malformed_file(const std::string& path, std::string_view what, std::string_view raw) {
  return unexpected(errors::malformed_output(source_kind::toolkit_files, what, path, trim(raw.substr(0, 190))));
}

/// Which component a pip/conda package name describes: nvidia_cuda_nvrtc_cu12 -> nvrtc.
inline source_kind component_of_package(std::string_view name) {
  for (const auto prefix :
       {std::string_view("nvidia_cuda_"), std::string_view("nvidia-cuda-"), std::string_view("cuda-")}) {
    if (!starts_with(name, prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    const std::size_t cu = rest.find_first_of("_-");
    const std::string_view base = rest.substr(0, cu);
    const std::string_view tail = cu == std::string_view::npos ? std::string_view() : rest.substr(cu + 1);
    if (!tail.empty() && !(starts_with(tail, "cu") && tail.size() <= 4))
      return source_kind::none;  // cuda-nvcc-impl, ..._linux-64
    if (base == "nvrtc") return source_kind::nvrtc;
    if (base == "nvcc") return source_kind::nvcc;
    if (base == "runtime" || base == "cudart") return source_kind::cuda_runtime;
    if (base == "version" && prefix == "cuda-") return source_kind::toolkit_files;  // conda's cuda-version pin
  }
  return source_kind::none;
}

}  // namespace detail

/// Whether a directory looks like a CUDA toolkit root.
inline bool looks_like_toolkit_root(const std::string& dir) {
  for (const char* marker : {"bin/nvcc", "include/cuda.h", "version.json", "version.txt", "targets"})
    if (detail::exists(detail::join(dir, marker))) return true;
  return false;
}

/// The toolkit root of a file's real path: <root>/bin/nvcc, <root>/lib64/libnvrtc.so.12,
/// <root>/targets/x86_64-linux/lib/... -> <root>; empty outside a toolkit (a pip wheel).
inline std::string toolkit_root_of(const std::string& file) {
  const std::string dir = detail::parent_dir(file);
  const std::string leaf = detail::file_name(dir);
  if (leaf != "bin" && leaf != "lib" && leaf != "lib64") return {};
  std::string root = detail::parent_dir(dir);
  if (detail::file_name(detail::parent_dir(root)) == "targets") root = detail::parent_dir(detail::parent_dir(root));
  return !root.empty() && looks_like_toolkit_root(root) ? root : std::string();
}

/// version.json: the "cuda" release, with the nvcc / nvrtc / cudart component releases in raw.
inline expected<file_observation, error> read_version_json(const std::string& path,
                                                           discovery how = discovery::explicit_argument) {
  const auto text = detail::read_regular_file(path, detail::read_caps::version_json, source_kind::toolkit_files);
  if (!text) return unexpected(text.error());
  const auto members = detail::json_strings::read(*text);
  if (!members) return detail::malformed_file(path, "version.json", "not valid JSON: " + text->substr(0, 80));
  const auto it = members->find("cuda.version");
  if (it == members->end())
    return detail::malformed_file(path, "version.json", "no \"cuda\": {\"version\": ...} member");
  const auto v = parse_cuda_version(it->second, source_kind::toolkit_files);
  if (!v) return detail::malformed_file(path, "version.json", "cuda.version = '" + it->second + "'");
  std::string raw = "version.json cuda.version " + it->second;
  for (const char* component : {"cuda_nvcc", "cuda_nvrtc", "cuda_cudart"}) {
    const auto c = members->find(std::string(component) + ".version");
    if (c != members->end()) raw += std::string("; ") + component + " " + c->second;
  }
  return file_observation{{source_kind::toolkit_files, *v, path, how, std::move(raw)}, source_kind::none};
}

/// version.txt (CUDA 11.0 and older): "CUDA Version 11.0.228".
inline expected<file_observation, error> read_version_txt(const std::string& path,
                                                          discovery how = discovery::explicit_argument) {
  const auto text = detail::read_regular_file(path, detail::read_caps::version_txt, source_kind::toolkit_files);
  if (!text) return unexpected(text.error());
  constexpr std::string_view key = "CUDA Version ";
  const std::size_t at = text->find(key);
  if (at == std::string::npos) return detail::malformed_file(path, "version.txt", *text);
  std::string_view rest = std::string_view(*text).substr(at + key.size());
  rest = rest.substr(0, rest.find_first_of(" \t\r\n"));
  const auto v = parse_cuda_version(rest, source_kind::toolkit_files);
  if (!v) return detail::malformed_file(path, "version.txt", *text);
  return file_observation{{source_kind::toolkit_files, *v, path, how, "version.txt: CUDA Version " + std::string(rest)},
                          source_kind::none};
}

/// cuda.h's `#define CUDA_VERSION 13000`, in its first read_caps::cuda_h bytes.
inline expected<file_observation, error> read_cuda_h(const std::string& path,
                                                     discovery how = discovery::explicit_argument) {
  const auto text = detail::read_regular_file(path, detail::read_caps::cuda_h, source_kind::toolkit_files,
                                              detail::read_extent::prefix);
  if (!text) return unexpected(text.error());
  std::string_view t(*text);
  for (std::size_t at = t.find("#define CUDA_VERSION"); at != std::string_view::npos;
       at = t.find("#define CUDA_VERSION", at + 1)) {
    std::string_view rest = t.substr(at + 20);
    if (rest.empty() || !(rest.front() == ' ' || rest.front() == '\t')) continue;  // CUDA_VERSION_MAJOR etc.
    if (rest.find('\n') == std::string_view::npos && t.size() == detail::read_caps::cuda_h)
      break;  // the line is cut at the cap
    rest = detail::trim(rest.substr(0, rest.find('\n')));
    int n = 0;
    if (!detail::parse_uint(rest, n)) break;
    const auto v = decode_cudart_version(n, source_kind::toolkit_files);
    if (!v) break;
    return file_observation{
        {source_kind::toolkit_files, *v, path, how, "cuda.h: #define CUDA_VERSION " + std::to_string(n)},
        source_kind::none};
  }
  return detail::malformed_file(
      path, "cuda.h", "no '#define CUDA_VERSION <number>' line in the first " + std::to_string(t.size()) + " bytes");
}

/// "nvidia_cuda_nvrtc_cu12-12.4.127.dist-info" -> nvrtc 12.4.127. nullopt for other packages.
inline std::optional<file_observation> parse_dist_info_name(const std::string& dir_path, discovery how,
                                                            source_kind src = source_kind::python_wheel) {
  std::string name = detail::file_name(dir_path);
  constexpr std::string_view suffix = ".dist-info";
  if (!detail::ends_with(name, suffix)) return std::nullopt;
  name.resize(name.size() - suffix.size());
  const std::size_t dash = name.rfind('-');
  if (dash == std::string::npos) return std::nullopt;
  const source_kind component = detail::component_of_package(std::string_view(name).substr(0, dash));
  if (component == source_kind::none || component == source_kind::toolkit_files) return std::nullopt;
  const auto v = parse_cuda_version(std::string_view(name).substr(dash + 1), src);
  if (!v) return std::nullopt;
  return file_observation{{src, *v, dir_path, how, detail::file_name(dir_path)}, component};
}

/// conda-meta/<name>-<version>-<build>.json of CUDA packages (cuda-nvrtc, cuda-version, ...).
inline std::optional<file_observation> parse_conda_meta_name(const std::string& file_path, discovery how) {
  std::string name = detail::file_name(file_path);
  if (!detail::ends_with(name, ".json")) return std::nullopt;
  name.resize(name.size() - 5);
  const std::size_t build = name.rfind('-');
  if (build == std::string::npos || build == 0) return std::nullopt;
  const std::size_t ver = name.rfind('-', build - 1);
  if (ver == std::string::npos) return std::nullopt;
  const source_kind component = detail::component_of_package(std::string_view(name).substr(0, ver));
  if (component == source_kind::none) return std::nullopt;
  const auto v = parse_cuda_version(std::string_view(name).substr(ver + 1, build - ver - 1), source_kind::toolkit_files);
  if (!v) return std::nullopt;
  return file_observation{{source_kind::toolkit_files, *v, file_path, how, "conda-meta/" + detail::file_name(file_path)},
                          component == source_kind::toolkit_files ? source_kind::none : component};
}

/// Everything a toolkit root says about itself (include/cuda.h, else targets/*/include/cuda.h). Files
/// that cannot be read or parsed are errors in the list; a root that does not exist or holds none of
/// them is one file_unreadable error naming it.
inline std::vector<expected<file_observation, error>> observe_toolkit_root(const std::string& root,
                                                                           discovery how = discovery::explicit_argument) {
  std::vector<expected<file_observation, error>> out;
  auto not_toolkit = [&](std::string_view why) {
    out.emplace_back(unexpected(errors::file_unreadable(source_kind::toolkit_files, root, root, why)));
    return out;
  };
  if (const std::string why = detail::why_no_directory(root); !why.empty()) return not_toolkit(why);
  if (const std::string f = detail::join(root, "version.json"); detail::exists(f))
    out.push_back(read_version_json(f, how));
  if (const std::string f = detail::join(root, "version.txt"); detail::exists(f))
    out.push_back(read_version_txt(f, how));
  if (const std::string f = detail::join(root, "include/cuda.h"); detail::exists(f)) {
    out.push_back(read_cuda_h(f, how));
  } else {
    for (const auto& target : detail::list_dir(detail::join(root, "targets")))
      if (const std::string t = detail::join(root, "targets/" + target + "/include/cuda.h"); detail::exists(t))
        out.push_back(read_cuda_h(t, how));
  }
  for (const auto& name : detail::list_dir(detail::join(root, "dist-info")))
    if (auto o = parse_dist_info_name(detail::join(root, "dist-info/" + name), how)) out.emplace_back(std::move(*o));
  for (const auto& name : detail::list_dir(detail::join(root, "conda-meta")))
    if (auto o = parse_conda_meta_name(detail::join(root, "conda-meta/" + name), how)) out.emplace_back(std::move(*o));
  if (out.empty())
    return not_toolkit(
        "no version.json, version.txt, include/cuda.h, dist-info or conda-meta here: not a CUDA toolkit root");
  return out;
}

CUARCH_END_NAMESPACE
