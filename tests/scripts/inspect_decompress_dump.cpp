// The helper of inspect_decompress_test.sh: what cuarch reads out of compressed images, as files.
//   inspect_decompress_dump images FILE DIR   every SASS image of FILE that cuobjdump lists (decompressed
//                                             when stored compressed) as DIR/<entry offset>.cubin
//   inspect_decompress_dump zstd|lz4 FILE SIZE OUT   FILE's bytes decompressed to SIZE bytes, in OUT
// Exit 0, or 1 with the error on stderr.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <cuarch/core/fatbin.hpp>

namespace {
std::string slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
bool write(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}
}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "images" && argc == 4) {
    const std::string b = slurp(argv[2]);
    const auto listing = cuarch::list_code(b);
    if (!listing) return std::fprintf(stderr, "%s: %s\n", argv[2], std::string(listing.error().raw.view()).c_str()), 1;
    int n = 0;
    const bool loadable = cuarch::has_loadable(*listing);
    for (const auto& o : listing->objects)
      for (const auto& img : o.images) {
        if (o.relocatable && loadable) continue;  // as cuobjdump: the relocatable fatbins only when alone
        if (o.embedded) continue;                 // in a data section: cuobjdump does not look there
        if (img.target.form != cuarch::arch_form::sass || listing->kind == cuarch::container_kind::cubin) continue;
        // The entry list_code read (its header at img.offset: u32 header size @4, u64 payload @8, flags
        // @40; compressed: u32 stored size @16, u64 size @56), its cubin decompressed as cuarch does.
        using cuarch::detail::le;
        const auto at = static_cast<std::size_t>(img.offset);
        std::string_view cubin = std::string_view(b).substr(at + le(b, at + 4, 4), le(b, at + 8, 8));
        std::string storage;
        if (const auto c = cuarch::compression_of_flags(le(b, at + 40, 8)); c != cuarch::compression::none) {
          if (auto e = cuarch::decompress(c, cubin.substr(0, le(b, at + 16, 4)), le(b, at + 56, 8), storage))
            return std::fprintf(stderr, "%s: at byte %zu: %s\n", argv[2], at, e->what.c_str()), 1;
          cubin = storage;
        }
        if (!write(std::string(argv[3]) + "/" + std::to_string(img.offset) + ".cubin", cubin)) return 1;
        ++n;
      }
    std::printf("%d\n", n);
    return 0;
  }
  if ((mode == "zstd" || mode == "lz4") && argc == 5) {
    std::string out;
    const auto c = mode == "zstd" ? cuarch::compression::zstd : cuarch::compression::lz4;
    if (auto e = cuarch::decompress(c, slurp(argv[2]), std::strtoull(argv[3], nullptr, 10), out))
      return std::fprintf(stderr, "%s: at byte %llu: %s\n", argv[2], static_cast<unsigned long long>(e->at),
                          e->what.c_str()),
             1;
    return write(argv[4], out) ? 0 : 1;
  }
  std::fprintf(stderr, "usage: inspect_decompress_dump images FILE DIR | zstd|lz4 FILE SIZE OUT\n");
  return 2;
}
