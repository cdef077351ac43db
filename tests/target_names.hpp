// "sm_90a compute_90": a target set as one line, for exact comparisons in tests.
#pragma once

#include <cuarch/resolve/target_set.hpp>

#include <string>

inline std::string names(const cuarch::target_set& s) {
  std::string out;
  for (const auto& t : s) out.append(out.empty() ? "" : " ").append(to_text(t).view());  // g++ 12 -O3: -Wrestrict
  return out;
}
