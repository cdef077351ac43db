// Spellings of one target for each consumer: nvcc -gencode, the NVRTC option, CMake
// CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST and the dotted form. (Whole target sets, where SASS and
// PTX of one arch merge into `90` / `9.0+PTX`, are spelled by outputs.hpp.)
#pragma once

#include "arch.hpp"
#include "config.hpp"
#include "detail/text.hpp"
#include "error.hpp"
#include "expected.hpp"

CUARCH_BEGIN_NAMESPACE

/// "-gencode=arch=compute_90a,code=sm_90a" (SASS), "...,code=compute_90" (PTX), "...,code=lto_90" (LTO).
constexpr detail::text<64> gencode_flag(const arch_target& t) {
  detail::text<64> s("-gencode=arch=");
  s.append(to_text(with_form(t, arch_form::ptx)).view()).append(",code=").append(to_text(t).view());
  return s;
}

/// The flag nvcc needs beside -gencode=...,code=lto_XY (LTO IR): relocatable device code. nvcc 13.0
/// refuses code=lto_ without it ("Cannot use '-arch=lto_<arch>' unless '-rdc=true' is specified or
/// implied") and -dlto beside -gencode ("'-dlto' conflicts with '-gencode'"): tests/data/
/// nvcc_flags_13.0.tsv. nvcc_flags() adds it to a set with LTO IR; the nvcc dialect reads it back.
inline constexpr std::string_view nvcc_lto_flag = "-rdc=true";

/// The NVRTC option selecting t: "--gpu-architecture=sm_90a" (NVRTC compiles one target per
/// program). For LTO IR, NVRTC takes the compute_ target and the separate option "-dlto".
constexpr detail::text<48> nvrtc_arch_option(const arch_target& t) {
  return detail::text<48>("--gpu-architecture=")
      .append(to_text(t.form == arch_form::lto ? with_form(t, arch_form::ptx) : t).view());
}

/// "12.0a": the dotted spelling (PyTorch, FlashInfer, the CLI's --device-cc).
constexpr detail::text<16> dotted(const arch_target& t) {
  return detail::text<16>(to_text(t.cc).view()).append(suffix(t.variant));
}

/// CMake CUDA_ARCHITECTURES entry for one target: "90a-real" (SASS) or "90a-virtual" (PTX); with
/// `and_other_form`, machine code and PTX of t's arch in one entry, CMake's bare "90a". The one
/// CMake speller: cmake_architectures() (outputs.hpp) spells whole sets with it.
/// Errors: malformed_token for LTO IR (CMake has no spelling for it).
constexpr expected<detail::text<24>, error> cmake_spelling(const arch_target& t, bool and_other_form = false) {
  if (t.form == arch_form::lto) return unexpected(errors::malformed_token(source_kind::none, to_text(t).view()));
  detail::text<24> s;
  s.append_int(t.cc.sm_number()).append(suffix(t.variant));
  if (!and_other_form) s.append(t.form == arch_form::sass ? "-real" : "-virtual");
  return s;
}

CUARCH_END_NAMESPACE
