// pip wheel layouts: where NVIDIA's nvidia-* wheels put CUDA pieces in site-packages, as catalogued
// by cuda-pathfinder, plus Triton's bundled ptxas. Scanning only finds files and reads *.dist-info
// names; loading and running them is the version sources' job.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "toolkit_files.hpp"

CUARCH_BEGIN_NAMESPACE

/// One place a wheel puts a component, relative to site-packages.
struct wheel_location {
  std::string_view dir;          // e.g. "nvidia/cuda_nvrtc/lib"
  std::string_view file_prefix;  // "libnvrtc.so." (any version) or an exact program name ("ptxas")
  source_kind component;
  std::string_view package;  // who puts it there
};

inline constexpr wheel_location wheel_locations[] = {
    {"nvidia/cu13/lib", "libnvrtc.so.", source_kind::nvrtc, "nvidia-cuda-nvrtc (CUDA 13+)"},
    {"nvidia/cuda_nvrtc/lib", "libnvrtc.so.", source_kind::nvrtc, "nvidia-cuda-nvrtc-cu11/-cu12"},
    {"nvidia/cu13/lib", "libcudart.so.", source_kind::cuda_runtime, "nvidia-cuda-runtime (CUDA 13+)"},
    {"nvidia/cuda_runtime/lib", "libcudart.so.", source_kind::cuda_runtime, "nvidia-cuda-runtime-cu11/-cu12"},
    {"nvidia/cu13/bin", "nvcc", source_kind::nvcc, "nvidia-cuda-nvcc (CUDA 13+)"},
    {"nvidia/cuda_nvcc/bin", "nvcc", source_kind::nvcc, "nvidia-cuda-nvcc-cu11/-cu12"},
    {"nvidia/cu13/bin", "ptxas", source_kind::ptxas, "nvidia-cuda-nvcc (CUDA 13+)"},
    {"nvidia/cuda_nvcc/bin", "ptxas", source_kind::ptxas, "nvidia-cuda-nvcc-cu11/-cu12"},
    {"triton/backends/nvidia/bin", "ptxas", source_kind::ptxas, "Triton (bundled ptxas)"},
    {"triton/third_party/cuda/bin", "ptxas", source_kind::ptxas, "Triton (bundled ptxas, older layout)"},
};

/// A file found in a wheel layout.
struct wheel_file {
  source_kind component = source_kind::none;
  std::string path;     // as found
  std::string package;  // wheel_location::package
};

/// What one site-packages directory holds.
struct wheel_scan {
  std::vector<wheel_file> files;             // in wheel_locations order, versions newest first
  std::vector<file_observation> dist_infos;  // nvidia CUDA component *.dist-info names
};

namespace detail {
/// Newest major first; within a major the SONAME before the full-version file ("libnvrtc.so.12.4.127").
inline bool soname_before(std::string_view a, std::string_view b, std::size_t prefix) {
  int u = -1, v = -1;
  read_uint(a.substr(std::min(prefix, a.size())), u);
  read_uint(b.substr(std::min(prefix, b.size())), v);
  if (u != v) return u > v;
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

/// `paths` less each one that names the same real file or directory as an earlier one.
inline std::vector<std::string> one_per_real_path(std::vector<std::string> paths) {
  std::vector<std::string> out, reals;
  for (auto& p : paths) {
    std::string real = real_path(p);
    if (std::find(reals.begin(), reals.end(), real) != reals.end()) continue;
    reals.push_back(std::move(real));
    out.push_back(std::move(p));
  }
  return out;
}

/// Files named prefix* in a directory, one per real file, SONAME before full-version names.
inline std::vector<std::string> versioned_files(const std::string& dir, std::string_view prefix) {
  std::vector<std::string> hits;
  for (const auto& name : list_dir(dir, prefix))
    if (name.find(".alt.") == std::string::npos) hits.push_back(name);
  std::sort(hits.begin(), hits.end(),
            [&](const std::string& a, const std::string& b) { return soname_before(a, b, prefix.size()); });
  for (auto& h : hits) h = join(dir, h);
  return one_per_real_path(std::move(hits));
}
}  // namespace detail

/// The site-packages directories of a Python prefix: <prefix>/lib{,64}/python3.*/{site,dist}-packages,
/// and <prefix> itself when it holds nvidia/ or triton/.
inline std::vector<std::string> site_packages_of(const std::string& prefix) {
  std::vector<std::string> out;
  if (detail::is_directory(detail::join(prefix, "nvidia")) || detail::is_directory(detail::join(prefix, "triton")))
    out.push_back(prefix);
  for (const char* lib : {"lib", "lib64"}) {
    const std::string libdir = detail::join(prefix, lib);
    for (const auto& name : detail::list_dir(libdir)) {
      if (!detail::starts_with(name, "python")) continue;
      for (const char* sub : {"site-packages", "dist-packages"}) {
        const std::string sp = detail::join(libdir, name + "/" + sub);
        if (detail::is_directory(sp)) out.push_back(sp);
      }
    }
  }
  return detail::one_per_real_path(std::move(out));  // lib64 is often a symlink to lib
}

/// Finds every wheel-provided CUDA piece in one site-packages directory.
inline wheel_scan scan_site_packages(const std::string& site_packages, discovery how = discovery::python_site_packages) {
  wheel_scan scan;
  for (const auto& loc : wheel_locations) {
    const bool library = detail::ends_with(loc.file_prefix, ".");  // else a program, by its exact name
    for (auto& path : detail::versioned_files(detail::join(site_packages, loc.dir), loc.file_prefix))
      if (library || detail::file_name(path) == loc.file_prefix)
        scan.files.push_back(wheel_file{loc.component, std::move(path), std::string(loc.package)});
  }
  for (const auto& name : detail::list_dir(site_packages))
    if (auto o = parse_dist_info_name(detail::join(site_packages, name), how)) scan.dist_infos.push_back(std::move(*o));
  return scan;
}

CUARCH_END_NAMESPACE
