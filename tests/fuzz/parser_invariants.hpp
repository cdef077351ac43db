// The properties every parser must keep on ANY input; shared by the libFuzzer target
// (tests/fuzz/parse_fuzz.cpp) and the deterministic replay in the unit tests (tests/fuzz_replay_test.cpp).
// A violated property aborts, so both harnesses report it.
#pragma once

#include <cuarch/core/decode.hpp>
#include <cuarch/core/format.hpp>
#include <cuarch/core/parse.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cuarch_fuzz {

inline void require(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "parser invariant violated: %s\ninput: '%.*s'\n", what, static_cast<int>(input.size()),
               input.data());
  std::abort();
}

/// Runs every parser on `input` and checks: no crash; a success yields targets that print and parse
/// back to themselves; a failure names a position inside the input and renders a message.
inline void check_all_parsers(std::string_view input) {
  using namespace cuarch;
  for (const arch_dialect d : {arch_dialect::generic, arch_dialect::torch, arch_dialect::cmake, arch_dialect::nvcc}) {
    const auto r = parse_arch_list(input, d);
    if (r) {
      require(r->keyword() != arch_keyword::none || !r->empty(), "a successful parse is never empty", input);
      for (const auto& p : *r) {
        require(p.position + p.length <= input.size(), "target position inside the input", input);
        const auto back = parse_arch(to_text(p.target).view());
        require(back && *back == p.target, "parsed target round-trips through its spelling", input);
        require(variant_exists(p.target.cc, p.target.variant), "no target with a suffix that does not exist", input);
      }
    } else {
      const error& e = r.error();
      require(e.code != errc{}, "an error has a code", input);
      require(e.position == error::no_position || e.position <= input.size(), "error position inside the input", input);
      require(!e.message().empty(), "an error renders a message", input);
    }
  }
  if (const auto a = parse_arch(input))
    require(parse_arch(to_text(*a).view()).value() == *a, "parse_arch round-trips", input);
  if (const auto v = parse_cuda_version(input))
    require(parse_cuda_version(to_text(*v).view()).value() == *v, "version round-trips", input);
  const auto n = parse_nvcc_version_output(input);
  require(n.has_value() || n.error().code == errc::malformed_output, "nvcc output is a version or malformed_output",
          input);
  (void)parse_driver_version(input);
  (void)parse_ptx_isa_version(input);
}

}  // namespace cuarch_fuzz
