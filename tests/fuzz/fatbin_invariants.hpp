// The properties every input must keep in the CUDA code reader (core/fatbin.hpp) and its decompressor
// (core/decompress.hpp): checked by the libFuzzer targets fatbin_fuzz.cpp and decompress_fuzz.cpp
// (scripts/fuzz.sh) and replayed in CI by fatbin_fuzz_test.cpp.
#pragma once

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <cuarch/core/fatbin.hpp>

namespace cuarch_fuzz {

[[noreturn]] inline void fatbin_invariant_broken(const char* what) {
  std::fprintf(stderr, "fatbin invariant broken: %s\n", what);
  std::abort();
}

/// list_code on any bytes: an error that names an offset inside the input, or a listing whose every
/// image lies inside the input; no more images than the cap; choose_image answers for any device.
inline void check_code_reader(std::string_view bytes) {
  const auto listing = cuarch::list_code(bytes);
  if (!listing) {
    if (listing.error().code != cuarch::errc::unreadable_input)
      fatbin_invariant_broken("an error other than unreadable_input");
    if (listing.error().raw.empty()) fatbin_invariant_broken("an error that does not say what is wrong");
    return;
  }
  if (listing->image_count() > cuarch::max_code_images) fatbin_invariant_broken("more images than the cap");
  if (listing->objects.empty() != (listing->kind == cuarch::container_kind::none))
    fatbin_invariant_broken("kind none iff no code");
  for (const auto& o : listing->objects) {
    if (o.offset > bytes.size()) fatbin_invariant_broken("a code object outside the input");
    for (const auto& img : o.images) {
      if (img.offset > bytes.size() || img.size > bytes.size() - img.offset)
        fatbin_invariant_broken("an image outside the input");
      if (img.target.cc.major <= 0 && img.target.cc.minor <= 0) fatbin_invariant_broken("an image without a GPU");
    }
    for (const cuarch::compute_capability cc : {cuarch::compute_capability{7, 5}, {9, 0}, {10, 3}, {12, 1}}) {
      const auto c = cuarch::choose_image(o, cc, cuarch::cuda_version{12, 8});
      if (c.loads() ? c.image >= o.images.size() : !c.why)
        fatbin_invariant_broken("a choice outside the images, or no reason");
    }
  }
}

/// decompress on any bytes: a failure names an offset inside them and says what, and keeps no output;
/// a success is exactly the declared size.
inline void check_decompressor(cuarch::compression c, std::string_view in, std::uint64_t size) {
  std::string out;
  if (const auto e = cuarch::decompress(c, in, size, out)) {
    if (e->at > in.size()) fatbin_invariant_broken("a decompress failure outside its input");
    if (e->what.empty()) fatbin_invariant_broken("a decompress failure that does not say what is wrong");
    if (!out.empty()) fatbin_invariant_broken("output kept after a decompress failure");
  } else if (out.size() != size) {
    fatbin_invariant_broken("decompressed output of another size than declared");
  }
}

/// The same, the input spelt {u8 format (bit 0: Zstandard, else LZ4), u24 declared size, the bytes}
/// (the libFuzzer target decompress_fuzz.cpp; seeds in tests/fuzz/decompress-corpus).
inline void check_decompressor(std::string_view bytes) {
  if (bytes.size() < 4) return;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])); };
  check_decompressor(byte(0) & 1 ? cuarch::compression::zstd : cuarch::compression::lz4, bytes.substr(4),
                     byte(1) | byte(2) << 8 | byte(3) << 16);
}

}  // namespace cuarch_fuzz
