// Properties every toolkit-file parser keeps on any bytes (shared by the libFuzzer target
// tests/fuzz/file_fuzz.cpp and the deterministic replay in tests/file_parsers_fuzz_test.cpp):
// version.json, version.txt and cuda.h written to a scratch file, dist-info and conda-meta names,
// nvcc/ptxas --version output, inventories (kubectl JSON, nvidia-smi CSV). Each gives a value or a typed error naming
// the file; a value carries a plausible version and the path it came from; nothing crashes, hangs or throws.
#pragma once

#include <cuarch/sources/code_file.hpp>
#include <cuarch/sources/elf_build_id.hpp>
#include <cuarch/sources/posix/dynamic_library.hpp>
#include <cuarch/sources/toolkit_files.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace cuarch_fuzz {

inline void require_file(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "file parser property violated: %s\ninput (%zu bytes): ", what, input.size());
  for (const unsigned char c : input) std::fprintf(stderr, (c >= 0x20 && c < 0x7f) ? "%c" : "\\x%02x", c);
  std::fprintf(stderr, "\n");
  std::abort();
}

inline bool plausible(const cuarch::cuda_version& v) {
  return v.major >= 1 && v.major <= 99 && v.minor >= 0 && v.minor <= 99;
}

/// A file reader's answer: a version from `path`, or an error that names `path`.
template <class Result>
void check_file_answer(const Result& r, const std::string& path, const char* what, std::string_view input) {
  if (r) {
    require_file(plausible(r->seen.version), what, input);
    require_file(r->seen.location == path, "a value names the file it came from", input);
  } else {
    require_file(r.error().code == cuarch::errc::malformed_output || r.error().code == cuarch::errc::file_unreadable,
                 "an error is malformed_output or file_unreadable", input);
    require_file(r.error().message().find(path) != std::string::npos, "an error names the file", input);
  }
}

/// `scratch` is a writable path; its content is replaced.
inline void check_file_parsers(std::string_view input, const std::string& scratch) {
  if (std::FILE* f = std::fopen(scratch.c_str(), "wb")) {
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  } else {
    std::abort();
  }
  using cuarch::discovery;
  check_file_answer(cuarch::read_version_json(scratch), scratch, "version.json gives a plausible version", input);
  check_file_answer(cuarch::read_version_txt(scratch), scratch, "version.txt gives a plausible version", input);
  check_file_answer(cuarch::read_cuda_h(scratch), scratch, "cuda.h gives a plausible version", input);

  // Names: the input as a file name in a directory (a '/' in it makes it a path; still no crash).
  const std::string dir = "/nonexistent/site-packages/" + std::string(input);
  if (const auto d = cuarch::parse_dist_info_name(dir + ".dist-info", discovery::explicit_argument)) {
    require_file(plausible(d->seen.version), "dist-info name gives a plausible version", input);
    require_file(d->describes != cuarch::source_kind::none, "dist-info name names a component", input);
  }
  if (const auto c = cuarch::parse_conda_meta_name("/nonexistent/conda-meta/" + std::string(input) + ".json",
                                                   discovery::explicit_argument))
    require_file(plausible(c->seen.version), "conda-meta name gives a plausible version", input);

  // The ELF readers: the header check before any dlopen, and the build-id note reader. Either
  // accepts the file or says why, naming it.
  if (const auto refused = cuarch::detail::check_library_file(scratch, cuarch::source_kind::nvrtc, "libnvrtc.so"))
    require_file(refused->message().find(scratch) != std::string::npos, "a refused library names the file", input);
  if (const auto id = cuarch::read_elf_build_id(scratch)) {
    require_file(!id->empty() && id->size() % 2 == 0 && id->find_first_not_of("0123456789abcdef") == std::string::npos,
                 "a build id is lowercase hex bytes", input);
  } else {
    require_file(id.error().message().find(scratch) != std::string::npos, "a missing build id names the file", input);
  }

  // The inventory reader (core/inventory.hpp): nodes that have GPUs or say why not, or
  // unreadable_input naming the file.
  if (const auto inv = cuarch::read_inventory_file(scratch)) {
    for (const auto& n : inv->nodes)
      require_file(n.gpus.empty() != n.no_gpu.empty(), "a node has GPUs or says why it has none", input);
    for (const auto& d : inv->devices())
      require_file(cuarch::decode_sm_number(d.cc.sm_number()).has_value(), "a device's cc is one", input);
    for (const auto& n : inv->nodes)  // every line that prints a name escapes its control characters (issue 32)
      require_file(cuarch::detail::printable(n.name).find_first_of("\n\r\x1b") == std::string::npos,
                   "a printed node name holds no line break or escape", input);
  } else {
    require_file(
        inv.error().code == cuarch::errc::unreadable_input && inv.error().message().find(scratch) != std::string::npos,
        "an inventory error is unreadable_input naming the file", input);
  }
  // A UTF-8 byte order mark before the text changes nothing (parse_inventory; the text itself is
  // read straight from memory, so this costs no second file).
  if (input.substr(0, 3) != "\xEF\xBB\xBF") {
    const auto plain = cuarch::parse_inventory(input, "fleet"),
               marked = cuarch::parse_inventory("\xEF\xBB\xBF" + std::string(input), "fleet");
    require_file(plain.has_value() == marked.has_value() && (!plain || plain->nodes.size() == marked->nodes.size()),
                 "a byte order mark before an inventory changes nothing", input);
  }

  for (const auto kind : {cuarch::source_kind::nvcc, cuarch::source_kind::ptxas}) {
    const auto n = cuarch::parse_nvcc_version_output(input, kind);
    require_file(n ? plausible(*n) : n.error().code == cuarch::errc::malformed_output,
                 "tool output is a version or malformed_output", input);
  }
}

}  // namespace cuarch_fuzz
