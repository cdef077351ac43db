// A process that asks again pays no discovery when nothing its answer rests on changed: the
// environment snapshot, the identity of every file and directory the detection came from or looked
// in, and the set of libraries the process has mapped (docs/library.md, "Asked again").
#pragma once

#include <link.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../detect/detector.hpp"
#include "../sources/posix/posix.hpp"
#include "../sources/posix/process_lock.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// What a detection rests on, taken just before it ran: re-taken, an equal stamp means nothing it read
/// has changed. Files are stat()ed (device, inode, size, mtime), so a replaced file, a retargeted
/// symlink or a directory that gained an entry (a new nvcc on PATH, a new toolkit beside the one found)
/// each differ.
struct detection_stamp {
  std::vector<std::pair<std::string, file_identity>> files;
  unsigned long long libraries = 0;  // dl_iterate_phdr's load and unload counts: the process mapped something

  bool still_true(bool loaded_libraries_count) const {
    for (const auto& [path, id] : files)
      if (identity_of(path) != id) return false;
    return !loaded_libraries_count || libraries == library_changes();
  }
  void add(const std::string& path) {  // stat() follows symlinks: a retargeted link gives another identity
    const auto known = [&](const auto& f) { return f.first == path; };
    if (!path.empty() && path.front() == '/' && std::none_of(files.begin(), files.end(), known))
      files.emplace_back(path, identity_of(path));
  }
  static unsigned long long library_changes() {
    unsigned long long n = 0;
    each_loaded_object([&](const dl_phdr_info& info) {
      n = info.dlpi_adds + info.dlpi_subs;
      return true;  // the counts are the loader's, the same in every entry
    });
    return n;
  }
};

/// The places detection `o` reads before it finds anything: PATH's and the loader's directories, the
/// loader's cache, the directories that hold the default toolkit roots (a toolkit installed there is seen).
inline void stamp_places(detection_stamp& s, const detect_options& o, const environment& env) {
  if (o.path_search)
    for (const auto& dir : split_path_list(env.find("PATH") ? env.find("PATH") : "")) s.add(dir);
  if (o.loader_search) {
    for (const auto& dir : split_path_list(env.find("LD_LIBRARY_PATH") ? env.find("LD_LIBRARY_PATH") : "")) s.add(dir);
    s.add("/etc/ld.so.cache");
  }
  if (o.default_locations && o.default_roots.empty())
    for (const char* parent : {"/usr/local", "/opt"}) s.add(parent);
  if (o.default_locations)
    for (const auto& root : o.default_roots) s.add(parent_dir(root));
}

/// The files and directories detection `d` came from: every candidate, toolkit root (and the
/// directory that holds it) and Python environment it met.
inline void stamp_found(detection_stamp& s, const detection& d) {
  for (const auto& c : d.candidates) {
    s.add(c.path);
    s.add(c.real_path);  // a wrapper script's target, or the file a library name was loaded from
  }
  for (const auto& r : d.toolkit_roots) {
    s.add(r.path);
    s.add(parent_dir(r.path));
  }
  for (const auto& p : d.python_environments)
    for (const auto& site : p.site_packages) {
      s.add(site);
      s.add(join(site, "nvidia"));
    }
}

/// Whether `d` is an answer to keep: complete (nothing left unasked at the deadline or cancelled, no
/// probe that ran out of time) and free of live questions (the devices are asked every time).
inline bool worth_keeping(const detect_options& o, const detection& d) {
  if (o.roles.has(detect_role::devices) || o.compile_time || d.deadline_passed) return false;
  for (const auto& c : d.candidates)
    if (!c.probed || (!c.result && (c.result.error().code == errc::process_timed_out ||
                                    c.result.error().code == errc::deadline_exceeded)))
      return false;
  return true;
}

/// detect(o), or the answer to the same question kept from an earlier call when everything it rests
/// on is as it was. A few questions are kept (a JIT library alternates the NVRTC and nvcc paths); the
/// oldest goes first. Every thread shares them, under the process lock, held only to copy. Options
/// without an environment snapshot read the live one, which the question does not hold (a changed
/// PATH would not be seen): those are always detected afresh. The front door always passes one.
inline detection detect_or_recall(const detect_options& o) {
  if (!o.env) return detect(o);
  struct kept {
    detect_options question;
    detection answer;
    detection_stamp stamp;
  };
  static auto* const memo = new std::array<std::shared_ptr<const kept>, 4>{};  // oldest first; never destroyed
  std::shared_ptr<const kept> hit;
  {
    process_lock data;
    for (const auto& k : *memo)
      if (k && same_question(k->question, o)) hit = k;
  }
  if (hit && hit->stamp.still_true(o.already_loaded)) return hit->answer;
  const environment& env = *o.env;
  auto fresh = std::make_shared<kept>();
  stamp_places(fresh->stamp, o, env);  // before: a place that changes while detection runs is seen next time
  fresh->answer = detect(o);
  if (!worth_keeping(o, fresh->answer)) return std::move(fresh->answer);
  stamp_found(fresh->stamp, fresh->answer);  // after: the files are known only now (a limit: docs/library.md)
  fresh->stamp.libraries = detection_stamp::library_changes();  // after detection's own loads
  fresh->question = o;
  fresh->question.cancel = nullptr;
  fresh->question.progress = {};
  process_lock data;
  auto slot = std::find_if(memo->begin(), memo->end(),
                           [&](const auto& k) { return !k || same_question(k->question, o); });
  if (slot == memo->end()) {  // full: the oldest goes
    std::rotate(memo->begin(), memo->begin() + 1, memo->end());
    slot = memo->end() - 1;
  }
  *slot = fresh;
  return fresh->answer;
}

}  // namespace detail

CUARCH_END_NAMESPACE
