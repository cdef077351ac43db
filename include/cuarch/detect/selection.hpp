// Choosing the candidate that governs a role, as the walk meets them: the first that answers;
// a sticky one that fails ends the role (given_and_failed); otherwise failures are passed over
// and named in the winner's `why`. role_choice is the whole state of one role's walk, created and
// dropped by that walk: nothing carries over to the next role.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/error.hpp"
#include "../core/source_kind.hpp"
#include "plan.hpp"
#include "result.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

class role_choice {
 public:
  /// `sel` may be null (ptxas: recorded, never governs a role).
  role_choice(detection& d, const component_info& comp, selection* sel)
      : d_(d), comp_(comp), sel_(sel), first_(d.candidates.size()) {}

  /// Whether the role has its answer (a winner, or a sticky failure).
  bool decided() const noexcept { return decided_; }

  /// Considers the candidate just appended at `index`.
  void consider(std::size_t index, bool sticky) {
    if (decided_) return;
    candidate& c = d_.candidates[index];
    if (!c.result && sticky)
      return refuse(
          c.result.error(),
          c.origin + " was given and failed; cuarch does not fall back to another " + std::string(comp_.role_words),
          false);
    if (!c.result) {
      failed_before_.append(failed_before_.empty() ? "" : ", ").append(c.origin);
      return;
    }
    decided_ = true;
    if (!sel_) return;
    c.chosen = true;
    sel_->index = index;
    sel_->why = c.origin + ": " + std::string(d_.how_found(c)) + "; the first " + std::string(comp_.role_words) +
                " in cuarch's discovery order that answered";
    if (!failed_before_.empty()) sel_->why += " (before it, " + failed_before_ + " failed)";
  }

  /// A source the caller named failed, or a toolkit root the caller named (`named_root`) does not
  /// exist or lacks this component: that is the role's answer (falling back would silently build
  /// with a compiler or toolkit the caller did not name).
  void refuse(const error& e, std::string why, bool named_root = true) {
    if (decided_) return;
    decided_ = true;
    if (!sel_) return;
    sel_->failure = e;
    sel_->given_and_failed = true;
    sel_->named_root_failed = named_root;
    sel_->why = std::move(why);
  }

  /// The loader had none of the names asked: not a candidate, but its words explain best if nothing is found.
  void loader_missed(const error& e) {
    if (!loader_miss_) loader_miss_ = e;
  }

  /// Fills the selection when no candidate governs; `searched` (every place looked in) names them if no compiler.
  void finish(const detect_options& opts, std::vector<std::string> searched) {
    if (!sel_ || decided_) return;
    const source_kind kind = comp_.kind;
    const std::string what(comp_.role_words);
    error e = comp_.program ? errors::file_unreadable(kind, what) : errors::library_not_found(kind, what);
    // The walk appends only this role's candidates, and each failed (one that answered decides the role).
    const std::size_t found = d_.candidates.size() - first_;
    std::size_t not_probed = 0;
    for (std::size_t i = first_; i < d_.candidates.size(); ++i)
      if (!d_.candidates[i].probed) ++not_probed;
    const bool compiler = kind == source_kind::nvrtc || kind == source_kind::nvcc;
    sel_->why = "no " + what + " found";
    if (found == 0 && compiler) {
      // No compiler anywhere: name the places, not categories, so the user can see what was missed.
      std::string places;
      for (const auto& p : searched) places.append(places.empty() ? "" : "; ").append(p);
      if (searched.empty())
        places =
            "nowhere: no path or variable named one, and every other place was turned off (detect_options, --isolated)";
      e = errors::no_compiler(
          kind, what, places,
          kind == source_kind::nvrtc
              ? "pip wheels count too: pip install nvidia-cuda-nvrtc (CUDA 13) or nvidia-cuda-nvrtc-cu12 into a Python "
                "environment cuarch scans (--python-prefix, VIRTUAL_ENV, CONDA_PREFIX)"
              : "a pip nvidia-cuda-nvcc wheel in a Python environment cuarch scans (--python-prefix, VIRTUAL_ENV, "
                "CONDA_PREFIX) counts too");
      sel_->searched = std::move(searched);
    } else if (found == 0 && loader_miss_) {
      // Nothing anywhere; the loader's own words say best why the usual place failed.
      e = *loader_miss_;
      e.subject = what;
      e.location = "loader search" +
                   std::string(opts.default_locations ? " and every other place in the discovery order" : "");
    } else if (found != 0) {
      e = d_.candidates[first_].result.error();  // the first failure is the most telling: the highest tier
      sel_->why = not_probed == 0
                      ? "every " + what + " found failed"
                      : "no " + what + " answered before detection's deadline (" + std::to_string(not_probed) + " of " +
                            std::to_string(found) + " candidates not probed)";
    } else {
      e.location = "explicit arguments, environment, toolkit roots, Python environments" +
                   std::string(comp_.program ? (opts.path_search ? ", PATH" : "")
                                             : (opts.loader_search ? ", loader search" : "")) +
                   std::string(opts.default_locations ? ", default locations" : "");
      e.raw.append("not found anywhere cuarch looked (to name it: ").append(comp_.option_hint).append(")");
    }
    sel_->failure = e;
  }

 private:
  detection& d_;
  const component_info& comp_;
  selection* sel_;
  std::size_t first_;  // the role's candidates start here
  bool decided_ = false;
  std::string failed_before_;         // origins of the failed candidates passed over, in order
  std::optional<error> loader_miss_;  // the first "no such SONAME"
};

}  // namespace detail

CUARCH_END_NAMESPACE
