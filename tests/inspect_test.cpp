// Reading built CUDA code (core/fatbin.hpp, sources/code_file.hpp) against cuobjdump's listing of
// real nvcc 13.0 artefacts in every form (tests/data/inspect/corpus.tsv, recorded by
// scripts/toolkits/record-inspect-corpus.sh); hostile bytes; and the choice of image per device.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/fatbin.hpp>
#include <cuarch/resolve/inspect.hpp>
#include <cuarch/sources/code_file.hpp>
#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "cpu_seconds.hpp"

using namespace cuarch;

namespace {

const std::string data_dir = std::string(CUARCH_TEST_DATA_DIR) + "/inspect/";

struct corpus_row {
  std::string file, args, images;
};

// dir: "" for nvcc 13.0's corpus, "nvcc-12.4/" or "ptxas-12.8/" for those releases' (each row's file is
// relative to its corpus.tsv).
std::vector<corpus_row> corpus(const std::string& dir = "") {
  std::ifstream in(data_dir + dir + "corpus.tsv");
  std::vector<corpus_row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cols(line);
    corpus_row r;
    std::getline(cols, r.file, '\t');
    std::getline(cols, r.args, '\t');
    std::getline(cols, r.images, '\t');
    rows.push_back(r);
  }
  return rows;
}

// One image as the corpus spells cuobjdump's words: kind:sm_XY[a|f]:version[:z].
std::string word(const code_image& img, bool cubin) {
  std::string w = img.target.form == arch_form::ptx ? "ptx:" : img.target.form == arch_form::lto ? "nvvm:" : "elf:";
  w += "sm_" + std::to_string(img.target.cc.sm_number());
  if (cubin) return img.target.variant == arch_variant::arch_specific ? w + "a" : w;  // cuobjdump -elf drops f
  w += suffix(img.target.variant);
  w += ":" + std::to_string(img.version.major) + "." + std::to_string(img.version.minor);
  if (img.compressed) w += ":z";
  return w;
}

std::string words(const code_listing& l, bool cubin) {
  std::string out;
  for (const auto& o : l.objects)
    for (const auto& img : o.images)
      out.append(out.empty() ? "" : " ").append(word(img, cubin));  // g++ 12 -O3: -Wrestrict
  return out.empty() ? "none" : out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put_le(std::string& b, std::size_t at, std::uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A fatbin of n entries, each a 64-byte header with `payload` bytes after it.
std::string fatbin_of(std::size_t n, std::uint64_t sm = 90, std::uint64_t kind = 2, std::uint64_t flags = 0x11,
                      std::size_t payload = 8) {
  std::string b(16 + n * (64 + payload), '\0');
  put_le(b, 0, 0xBA55ED50u, 4);
  put_le(b, 4, 1, 2);
  put_le(b, 6, 16, 2);
  put_le(b, 8, b.size() - 16, 8);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t e = 16 + i * (64 + payload);
    put_le(b, e, kind, 2);
    put_le(b, e + 2, 0x101, 2);
    put_le(b, e + 4, 64, 4);
    put_le(b, e + 8, payload, 8);
    put_le(b, e + 24, 8, 2);
    put_le(b, e + 26, 1, 2);
    put_le(b, e + 28, sm, 4);
    put_le(b, e + 40, flags, 8);
  }
  return b;
}

constexpr compute_capability cc(int major, int minor) { return {major, minor}; }

}  // namespace

TEST_CASE("every nvcc 13.0 and 12.x artefact lists the images cuobjdump lists", "[inspect][corpus]") {
  // nvcc 12.4 writes ELF ABI 7 cubins (sm in e_flags bits 0-7) and compresses with flag 0x2000; ptxas 12.8
  // writes ABI 7 up to sm_90a and ABI 8 past it; nvcc 13.0 writes ABI 8 and compresses with 0x8000.
  for (const auto& [dir, at_least] :
       {std::pair<std::string, std::size_t>{"", 44}, {"nvcc-12.4/", 24}, {"ptxas-12.8/", 4}}) {
    const auto rows = corpus(dir);
    CHECK(rows.size() >= at_least);
    for (const auto& r : rows) {
      INFO(dir << r.file << "  (" << r.args << ")");
      const auto listing = read_code_file(data_dir + dir + r.file);
      REQUIRE(listing.has_value());
      const bool cubin = r.file.size() > 6 && r.file.substr(r.file.size() - 6) == ".cubin";
      CHECK(words(*listing, cubin) == r.images);
      const container_kind want = r.images == "none"                            ? container_kind::none
                                  : cubin                                       ? container_kind::cubin
                                  : r.file.find(".fatbin") != std::string::npos ? container_kind::fatbin
                                  : r.file.find(".ptx") != std::string::npos    ? container_kind::ptx
                                  : r.file.substr(r.file.size() - 2) == ".a"    ? container_kind::archive
                                                                                : container_kind::elf;
      CHECK(listing->kind == want);
    }
  }
}

TEST_CASE("a bare cubin's a and f variants, which cuobjdump does not print", "[inspect][cubin]") {
  const auto variant_of = [](const std::string& f) {
    const auto l = read_code_file(data_dir + f);
    REQUIRE(l.has_value());
    REQUIRE(l->image_count() == 1);
    return l->objects[0].images[0].target;
  };
  CHECK(variant_of("k_sm_90a.cubin") == arch_target{cc(9, 0), arch_variant::arch_specific, arch_form::sass});
  CHECK(variant_of("k_sm_100f.cubin") == arch_target{cc(10, 0), arch_variant::family_specific, arch_form::sass});
  CHECK(variant_of("k_sm_121.cubin") == arch_target{cc(12, 1), arch_variant::baseline, arch_form::sass});
}

TEST_CASE("a cubin names the CUDA that built it, compressed or not; PTX and LTO IR name none", "[inspect][cubin]") {
  // .note.nv.tkinfo: "Cuda compilation tools, release 13.0, V13.0.88": every artefact of the corpus is nvcc 13.0's.
  std::size_t said = 0, compressed = 0;
  for (const auto& r : corpus()) {
    INFO(r.file);
    const auto listing = read_code_file(data_dir + r.file);
    REQUIRE(listing.has_value());
    for (const auto& o : listing->objects)
      for (const auto& img : o.images) {
        const bool sass = img.target.form == arch_form::sass;
        CHECK(img.built_by == (sass ? cuarch::cuda_version{13, 0, -1} : cuarch::cuda_version{}));
        said += sass ? 1 : 0;
        compressed += sass && img.compressed ? 1 : 0;
      }
  }
  CHECK(said >= 45);  // every cubin of the corpus
  CHECK(compressed >=
        6);  // compress_all.o, compress_size.o, debug_sm_86.o, rdc_sm_90.o, exe_rdc_sm_90, k_compress_all.fatbin
  // Bytes that do not read as a cubin name no CUDA, and fail nothing: fatbin_of's payloads are zeros.
  const auto zeros = cuarch::list_code(fatbin_of(3));
  REQUIRE(zeros.has_value());
  CHECK(zeros->objects.at(0).images.at(2).built_by.major == 0);
}

TEST_CASE("a CUDA 12.x cubin names its builder in e_version, as cuobjdump's toolkit= reads it", "[inspect][cubin]") {
  // ELF ABI 7 cubins carry no .note.nv.tkinfo: e_version holds the release times ten (nvcc 12.4: 124;
  // ptxas 12.8 up to sm_90a: 128), which cuobjdump prints as toolkit=124. ABI 8 cubins set it to 1.
  for (const auto& [dir, release] :
       {std::pair<std::string, cuarch::cuda_version>{"nvcc-12.4/", {12, 4, -1}}, {"ptxas-12.8/", {12, 8, -1}}}) {
    std::size_t said = 0;
    for (const auto& r : corpus(dir)) {
      INFO(dir << r.file);
      const auto listing = read_code_file(data_dir + dir + r.file);
      REQUIRE(listing.has_value());
      for (const auto& o : listing->objects)
        for (const auto& img : o.images)
          if (img.target.form == arch_form::sass && !img.compressed) {
            CHECK(img.built_by == release);
            ++said;
          }
    }
    CHECK(said >= 4);
  }
}

TEST_CASE("a compressed cubin is judged by the CUDA that built it: Zstandard and LZ4", "[inspect][cubin][compressed]") {
  // compress_all.o: nvcc 13.0 -arch=sm_90 -Xfatbin=-compress-all: sm_90 SASS (zstd) and compute_90.
  const auto all = read_code_file(data_dir + "compress_all.o");
  REQUIRE(all.has_value());
  const code_object& o = all->objects.at(0);
  REQUIRE(o.images.at(0).target.form == arch_form::sass);
  REQUIRE(o.images.at(0).compressed);
  CHECK(o.images[0].built_by == cuda_version{13, 0, -1});
  // A 12.8 driver runs neither the SASS CUDA 13.0 built nor its PTX ISA 9.0: CANNOT LOAD (it "loaded" when
  // the compressed cubin was not read). Alone, the SASS says why: built by CUDA 13.0.
  CHECK_FALSE(choose_image(o, cc(9, 0), cuda_version{12, 8}).loads());
  CHECK(choose_image(o, cc(9, 0), cuda_version{13, 0}).loads());
  code_object sass_only = o;
  sass_only.images.resize(1);
  const auto c = choose_image(sass_only, cc(9, 0), cuda_version{12, 8});
  REQUIRE_FALSE(c.loads());
  REQUIRE(c.why.has_value());
  CHECK(c.why->source == source_kind::driver);
  CHECK(c.why->message().find("sm_90 was built by CUDA 13.0") != std::string::npos);
  // ptxas 12.8 (sm_100: it writes .note.nv.tkinfo from ELF ABI version 8 on), wrapped by nvcc 13.0's
  // fatbinary -compress-all (zstd) and -compress-all -compress-mode=speed (LZ4): a 12.8 driver runs them.
  for (const auto& [file, device] : {std::pair<std::string, compute_capability>{"k128_sm_100_zstd.fatbin", cc(10, 0)},
                                     {"k128_sm_120_lz4.fatbin", cc(12, 0)}}) {
    INFO(file);
    const auto l = read_code_file(data_dir + file);
    REQUIRE(l.has_value());
    REQUIRE(l->image_count() == 1);
    const code_image& img = l->objects.at(0).images.at(0);
    CHECK(img.compressed);
    CHECK(img.built_by == cuda_version{12, 8, -1});
    CHECK(choose_image(l->objects[0], device, cuda_version{12, 8}).loads());
  }
}

TEST_CASE("a compressed cubin's builder read from a decoded prefix equals the whole cubin's",
          "[inspect][cubin][compressed]") {
  // list_code decodes a compressed cubin only as far as its .note.nv.tkinfo (or, before ELF ABI 8,
  // its header's e_version); here every compressed SASS image of the corpora is decoded whole too and
  // read as a bare cubin, through its section table: the same CUDA, every time.
  std::size_t compared = 0;
  for (const std::string dir : {"", "nvcc-12.4/"}) {
    std::vector<std::string> files{"k128_sm_100_zstd.fatbin", "k128_sm_120_lz4.fatbin"};
    if (!dir.empty()) files.clear();
    for (const auto& r : corpus(dir)) files.push_back(r.file);
    for (const auto& file : files) {
      INFO(dir << file);
      const std::string bytes = slurp(data_dir + dir + file);
      const auto listing = list_code(bytes);
      REQUIRE(listing.has_value());
      for (const auto& o : listing->objects)
        for (const auto& img : o.images) {
          if (!img.compressed || img.target.form != arch_form::sass) continue;
          const auto at = static_cast<std::size_t>(img.offset);  // the entry's header, in the file
          const std::size_t header = detail::le(bytes, at + 4, 4), stored = detail::le(bytes, at + 16, 4);
          std::string whole;
          REQUIRE_FALSE(decompress(compression_of_flags(detail::le(bytes, at + 40, 8)),
                                   std::string_view(bytes).substr(at + header, stored), detail::le(bytes, at + 56, 8),
                                   whole));
          const auto bare = list_code(whole);
          REQUIRE(bare.has_value());
          REQUIRE(bare->kind == container_kind::cubin);
          CHECK(img.built_by.major != 0);
          CHECK(img.built_by == bare->objects.at(0).images.at(0).built_by);
          ++compared;
        }
    }
  }
  CHECK(compared >= 10);
}

TEST_CASE("only the builders a verdict can turn on are decoded, and the verdicts are the same", "[inspect][compressed]") {
  // inspect_here asks list_code only for machine code a judged device could load under a known driver
  // (builder_wanted); every verdict of the corpus equals the one judged with every builder read.
  const std::vector<compute_capability> devices{cc(7, 5), cc(8, 0), cc(8, 6), cc(9, 0), cc(10, 0), cc(12, 0)};
  const std::vector<cuda_version> drivers{{12, 4}, {12, 8}, {13, 0}};
  std::size_t judged = 0;
  for (const std::string dir : {"", "nvcc-12.4/"})
    for (const auto& r : corpus(dir)) {
      INFO(dir << r.file);
      const auto all = read_code_file(data_dir + dir + r.file);
      REQUIRE(all.has_value());
      for (const auto& d : devices) {
        const auto some = read_code_file(data_dir + dir + r.file, nullptr, builder_wanted{false, {d}});
        REQUIRE(some.has_value());
        for (const auto& driver : drivers) {
          const device_info device{0, d, "", source_kind::device_list};
          const device_verdict a = judge_device(*all, device, driver), b = judge_device(*some, device, driver);
          CHECK(a.choice == b.choice);
          CHECK(a.failed() == b.failed());
          ++judged;
        }
      }
    }
  CHECK(judged > 1000);
}

TEST_CASE("hostile bytes: a compressed image that does not decompress names the offset and what is wrong",
          "[inspect][hostile][compressed]") {
  const std::string whole = slurp(data_dir +
                                  "k_compress_all.fatbin");  // sm_89 SASS (zstd) at 16, its payload at 16 + 64
  const auto l = list_code(whole);
  REQUIRE(l.has_value());
  REQUIRE(l->objects.at(0).images.at(0).compressed);
  const auto fails_with = [](const std::string& b, const std::string& words) {
    const auto r = list_code(b);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::unreadable_input);
    const std::string raw(r.error().raw.view());
    INFO(raw);
    CHECK(raw.find(words) != std::string::npos);
  };
  std::string b = whole;
  b[80] = 'x';  // the zstd magic
  fails_with(b, "at byte 80: a compressed SASS image (Zstandard) that does not decompress: not a Zstandard frame");
  b = whole;
  put_le(b, 16 + 56, 3113, 8);  // one byte more than it holds
  fails_with(b, "it decompresses to 3112 bytes, not the 3113 its entry declares");
  b = whole;
  put_le(b, 16 + 56, std::uint64_t{1} << 40, 8);  // a bomb: past the cap
  fails_with(b, "more than the 512 MiB cuarch decompresses");
  b = whole;
  put_le(b, 16 + 56, std::uint64_t{100} << 20, 8);  // under the cap, but more than 851 bytes can hold
  fails_with(b, "more than its 851 compressed bytes can hold");
  b = whole;
  put_le(b, 16 + 16, 100000, 4);  // a compressed size past its payload
  fails_with(b, "at byte 16: a compressed image of 100000 bytes in a payload of 856");
  b = whole;
  put_le(b, 16 + 40, 0x2011, 8);  // zstd bytes said to be LZ4
  fails_with(b, "(LZ4) that does not decompress");
  // Every byte of the compressed payload flipped in turn: an error naming an offset in it, or (a bit the
  // decoder does not read, such as the checksum) the same listing; never a crash or an overrun (ASan).
  for (std::size_t at = 80; at < 80 + 851; ++at) {
    b = whole;
    b[at] = static_cast<char>(b[at] ^ 0x5a);
    const auto r = list_code(b);
    if (!r) CHECK(std::string(r.error().raw.view()).find("at byte ") == 0);
  }
}

TEST_CASE("a static library (ar) lists the code of its object members, in order", "[inspect][archive]") {
  // As `ar rcs libk.a sm_90.o mix_89_100a_120.o` writes it: a symbol table "/", then the members.
  const auto member = [](std::string name, const std::string& bytes) {
    std::string h = name.append(16 - name.size(), ' ') + std::string(32, ' ');
    std::string size = std::to_string(bytes.size());
    h += size.append(10 - size.size(), ' ') + "`\n";
    return h + bytes + (bytes.size() % 2 ? "\n" : "");
  };
  const std::string a = slurp(data_dir + "sm_90.o"), b = slurp(data_dir + "mix_89_100a_120.o");
  // A symbol table, then a member with a short name and one whose long name is in "//" ("/0").
  const std::string ar = "!<arch>\n" + member("/", std::string(11, '\0')) + member("//", "mix_89_100a_120.o/\n") +
                         member("sm_90.o/", a) + member("/0", b);
  const auto l = list_code(ar);
  REQUIRE(l.has_value());
  CHECK(l->kind == container_kind::archive);
  CHECK(words(*l, false) ==
        "elf:sm_90:1.8 ptx:sm_90:9.0:z elf:sm_89:1.8 elf:sm_100a:1.8 elf:sm_120:1.8 ptx:sm_120:9.0:z");
  for (const auto& o : l->objects)
    for (const auto& img : o.images) CHECK(img.offset + img.size <= ar.size());
  // Cut anywhere, or a size that lies: an error or a shorter listing, never a read past the end.
  for (std::size_t n = 0; n < ar.size(); n += 97) (void)list_code(std::string_view(ar).substr(0, n));
  std::string lie = ar;
  lie.replace(8 + 48, 10, "9999999999");
  const auto bad = list_code(lie);
  REQUIRE_FALSE(bad.has_value());
  CHECK(std::string(bad.error().raw.view()).find("archive member") != std::string::npos);
}

TEST_CASE("relocatable fatbins are judged only when nothing else is there", "[inspect][rdc]") {
  const auto exe = read_code_file(data_dir + "exe_rdc_sm_90");
  REQUIRE(exe.has_value());
  REQUIRE(exe->objects.size() == 2);
  CHECK_FALSE(exe->objects[0].relocatable);
  CHECK(exe->objects[1].relocatable);
  CHECK(has_loadable(*exe));
  CHECK(judged(exe->objects[0], has_loadable(*exe)));
  CHECK_FALSE(judged(exe->objects[1], has_loadable(*exe)));
  const auto obj = read_code_file(data_dir + "rdc_sm_90.o");
  REQUIRE(obj.has_value());
  REQUIRE(obj->objects.size() == 1);
  CHECK(obj->objects[0].relocatable);
  CHECK_FALSE(has_loadable(*obj));
  CHECK(judged(obj->objects[0], has_loadable(*obj)));
}

TEST_CASE("loadable fatbins are listed before relocatable ones, whatever the section order", "[inspect][rdc]") {
  // libnccl.so.2 (CUDA 13.0) has __nv_relfatbin before .nv_fatbin; cuobjdump lists .nv_fatbin first.
  // The same, made from a real executable by swapping its two section headers.
  std::string b = slurp(data_dir + "exe_rdc_sm_90");
  const auto le = [&](std::size_t at, unsigned w) {
    std::uint64_t v = 0;
    for (unsigned i = w; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
    return v;
  };
  const std::size_t shoff = le(0x28, 8), shnum = le(0x3c, 2), strndx = le(0x3e, 2);
  const std::size_t names = le(shoff + strndx * 64 + 24, 8);
  std::size_t fat = 0, rel = 0;
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::string name(b.c_str() + names + le(shoff + i * 64, 4));
    if (name == ".nv_fatbin") fat = i;
    if (name == "__nv_relfatbin") rel = i;
  }
  REQUIRE(fat != 0);
  REQUIRE(rel != 0);
  std::string a = b.substr(shoff + fat * 64, 64), r = b.substr(shoff + rel * 64, 64);
  b.replace(shoff + fat * 64, 64, r);
  b.replace(shoff + rel * 64, 64, a);
  const auto l = list_code(b);
  REQUIRE(l.has_value());
  REQUIRE(l->objects.size() == 2);
  CHECK_FALSE(l->objects[0].relocatable);
  CHECK(l->objects[1].relocatable);
}

TEST_CASE("hostile bytes: every cut of a real file is an error or a shorter listing, never a crash",
          "[inspect][hostile]") {
  for (const char* f : {"mix_89_100a_120.o", "k_sm_120.fatbin", "k_sm_90a.cubin"}) {
    const std::string whole = slurp(data_dir + f);
    REQUIRE(!whole.empty());
    for (std::size_t n = 0; n < whole.size(); n += (n < 256 ? 1 : 61)) {
      const auto l = list_code(std::string_view(whole).substr(0, n));
      if (!l) {
        CHECK(l.error().code == errc::unreadable_input);
        CHECK(!l.error().raw.empty());
      }
    }
  }
}

TEST_CASE("hostile bytes: lying and overflowing sizes name the offset", "[inspect][hostile]") {
  std::string b = fatbin_of(2);
  REQUIRE(list_code(b).has_value());
  CHECK(list_code(b)->image_count() == 2);

  std::string lie = b;
  put_le(lie, 8, 1u << 30, 8);  // the fatbin claims more bytes than there are
  auto l = list_code(lie);
  REQUIRE_FALSE(l.has_value());
  CHECK(std::string(l.error().raw.view()).find("at byte 0") != std::string::npos);

  lie = b;
  put_le(lie, 16 + 8, ~std::uint64_t{0} - 8, 8);  // an entry payload that overflows 64 bits
  l = list_code(lie);
  REQUIRE_FALSE(l.has_value());
  CHECK(std::string(l.error().raw.view()).find("at byte 16") != std::string::npos);

  lie = b;
  put_le(lie, 16 + 4, 0xffffffffu, 4);  // an entry header size past its fatbin
  CHECK_FALSE(list_code(lie).has_value());

  lie = b;
  put_le(lie, 16 + 4, 0, 4);  // a zero header size would never advance
  CHECK_FALSE(list_code(lie).has_value());

  lie = b;
  put_le(lie, 16 + 28, 0, 4);  // no GPU named
  CHECK_FALSE(list_code(lie).has_value());

  lie = b;
  put_le(lie, 16, 7, 2);  // an unknown kind
  CHECK_FALSE(list_code(lie).has_value());
}

TEST_CASE("hostile bytes: a million entries is an error, in bounded time", "[inspect][hostile]") {
  const std::string b = fatbin_of(1000000, 90, 2, 0x11, 0);
  const auto l = list_code(b);
  REQUIRE_FALSE(l.has_value());
  CHECK(std::string(l.error().raw.view()).find("more than 200000 images") != std::string::npos);
}

// Wall-clock bounds would measure the machine, not the code: at -O0 on a loaded host the full
// 200,000-image case below takes 25 s and passes or fails with the load. What must hold is that the work
// grows linearly: the whole input takes about four times as long as a quarter of it, while judging each
// code object against every other (2e10 comparisons here) would take sixteen times as long. Each size
// is timed in CPU seconds (cpu_seconds_of: a loaded machine's waits for a CPU are not the code's), three
// times, interleaved, and the fastest run counts: a neighbour's use of the shared caches can only slow
// a run down (one wall-clock timing each failed under a loaded suite: 0.13 s against 1.64 s, 12x).
template <class Seconds>
void check_grows_linearly(Seconds seconds_for) {
  double quarter = 1e300, whole = 1e300;
  for (int run = 0; run < 3; ++run) {
    quarter = std::min(quarter, static_cast<double>(seconds_for(max_code_images / 4)));
    whole = std::min(whole, static_cast<double>(seconds_for(max_code_images)));
  }
  INFO("a quarter of the input took " << quarter << " s, all of it " << whole << " s (fastest of 3 each)");
  CHECK(whole < 8 * quarter + 0.5);
}

TEST_CASE("hostile bytes: 200,000 relocatable code objects are judged in linear time", "[inspect][hostile]") {
  // As many code objects as the image cap allows, none loadable: judging each must not rescan them all.
  check_grows_linearly([](std::size_t n) {
    code_listing l;
    l.kind = container_kind::elf;
    code_image img;
    img.target = arch_target{cc(9, 0), arch_variant::baseline, arch_form::sass};
    l.objects.assign(n, code_object{0, true, {img}});
    return cuarch_test::cpu_seconds_of([&] {
      const device_verdict v = judge_device(l, device_info{0, cc(9, 0), "", source_kind::device_list}, std::nullopt);
      CHECK(v.judged == n);
      CHECK(v.by_sass == n);
    });
  });
}

// Judges and renders a listing for one device that loads none of its targets.
static inspect_report judged_for_cc_100(const code_listing& l) {
  inspect_report r;
  r.devices.push_back(device_info{0, cc(100, 0), "", source_kind::device_list});
  r.driver = cuda_version{13, 0};
  r.files.push_back(judge_file("hostile", l, r));
  const std::string text = inspect_text(r), json = inspect_json(r);
  CHECK_FALSE(text.empty());
  CHECK_FALSE(json.empty());
  return r;
}

TEST_CASE("hostile bytes: 200,000 images in one code object, or all different, are judged in linear time",
          "[inspect][hostile]") {
  // Grouping and counting targets must not compare each image or code object with every other.
  check_grows_linearly([](std::size_t n) {
    code_listing one;  // one code object, every target sm_10 .. sm_999 in all variants and forms, many times
    one.kind = container_kind::fatbin;
    one.objects.emplace_back();
    for (std::size_t i = 0; i < n; ++i) {
      code_image img;
      img.target = arch_target{compute_capability{static_cast<int>(1 + i % 99), static_cast<int>(i % 10)},
                               static_cast<arch_variant>(1 + i % 2), static_cast<arch_form>(i % 3)};
      one.objects[0].images.push_back(img);
    }
    return cuarch_test::cpu_seconds_of([&] { CHECK_FALSE(judged_for_cc_100(one).files[0].fine_everywhere()); });
  });
  check_grows_linearly([](std::size_t n) {
    code_listing many;  // n code objects, each a different pair of targets
    many.kind = container_kind::elf;
    for (std::size_t i = 0; i < n; ++i) {
      code_object o;
      for (const std::size_t sm : {20 + i % 980, 20 + (i / 980) % 980}) {
        code_image img;
        img.target = arch_target{compute_capability{static_cast<int>(sm / 10), static_cast<int>(sm % 10)},
                                 arch_variant::arch_specific};
        o.images.push_back(img);
      }
      many.objects.push_back(std::move(o));
    }
    return cuarch_test::cpu_seconds_of([&] {
      const auto r = judged_for_cc_100(many);
      REQUIRE(r.files[0].devices.size() == 1);
      CHECK(r.files[0].devices[0].failed() == n);
    });
  });
}

TEST_CASE("hostile files: a FIFO, a directory and a missing file are errors naming the path", "[inspect][hostile]") {
  const std::string fifo = "/tmp/cuarch-inspect-fifo-" + std::to_string(::getpid());
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto l = read_code_file(fifo);
  ::unlink(fifo.c_str());
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().message().find("a FIFO") != std::string::npos);
  l = read_code_file("/nonexistent/lib.so");
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().message().find("/nonexistent/lib.so") != std::string::npos);
  const std::string dir = data_dir;
  CHECK_FALSE(read_code_file(dir).has_value());
}

TEST_CASE("a directory (a JIT cache): every regular file under it, sorted, links skipped", "[inspect][directory]") {
  const std::string dir = "/tmp/cuarch-inspect-dir-" + std::to_string(::getpid());
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::mkdir((dir + "/sub").c_str(), 0700) == 0);
  const auto put = [](const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  };
  put(dir + "/sub/b.cubin", slurp(data_dir + "k_sm_90a.cubin"));
  put(dir + "/a.o", slurp(data_dir + "sm_80.o"));
  put(dir + "/notes.txt", "not CUDA\n");
  REQUIRE(::symlink((dir + "/a.o").c_str(), (dir + "/link.o").c_str()) == 0);  // read once, not twice
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);                       // never opened
  const auto files = code_files_under(dir).value();
  CHECK(files == std::vector<std::string>{dir + "/a.o", dir + "/notes.txt", dir + "/sub/b.cubin"});
  CHECK(code_files_under(dir, 100000, 1).value() ==
        std::vector<std::string>{dir + "/a.o", dir + "/notes.txt"});  // depth 1
  CHECK(code_files_under(dir + "/a.o").value() == std::vector<std::string>{dir + "/a.o"});
  inspect_report r;
  r.devices.push_back(device_info{0, cc(8, 6), "", source_kind::device_list});
  for (const auto& f : files) r.files.push_back(judge_file(f, read_code_file(f), r));
  CHECK(r.files[0].devices.at(0).loads());        // sm_80 loads on 8.6
  CHECK(r.files[1].devices.empty());              // no CUDA code: nothing to judge, no failure
  CHECK_FALSE(r.files[2].devices.at(0).loads());  // sm_90a does not
  CHECK(r.exit_status() == 1);
  for (const char* f : {"/sub/b.cubin", "/a.o", "/notes.txt", "/link.o", "/fifo"}) ::unlink((dir + f).c_str());
  ::rmdir((dir + "/sub").c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("files without CUDA code say so", "[inspect]") {
  const auto host = read_code_file(data_dir + "host_only.o");
  REQUIRE(host.has_value());
  CHECK(host->kind == container_kind::none);
  CHECK(host->objects.empty());
  // Found by the fuzzer: a PTX .target that names no GPU is an error, not compute capability 0.0.
  CHECK_FALSE(list_code("$\n.target sm_00/W\n.version 8.0\n").has_value());
  // .target is read by the target grammar: a leading zero or a variant the cc lacks is no target.
  CHECK_FALSE(list_code(".version 9.0\n.target sm_012\n").has_value());
  CHECK_FALSE(list_code(".version 9.0\n.target sm_80a\n").has_value());
  CHECK(list_code(".version 9.0\n.target sm_90a\n")->objects.at(0).images.at(0).target ==
        arch_target{{9, 0}, arch_variant::arch_specific, arch_form::ptx});
  const auto text = list_code("just some text\n.version\n");
  REQUIRE(text.has_value());
  CHECK(text->kind == container_kind::none);
}

TEST_CASE("the image a device loads: exact SASS, compatible SASS, then PTX the driver can JIT", "[inspect][verdict]") {
  const auto mix = read_code_file(data_dir + "mix_80_90a_c90.o");  // sm_80, sm_90a, compute_90
  REQUIRE(mix.has_value());
  const code_object& o = mix->objects.at(0);
  const auto pick = [&](compute_capability d, std::optional<cuda_version> driver = std::nullopt) {
    return choose_image(o, d, driver);
  };
  // 9.0: sm_90a exactly, no JIT.
  auto c = pick(cc(9, 0));
  REQUIRE(c.loads());
  CHECK(o.images[c.image].target == arch_target{cc(9, 0), arch_variant::arch_specific, arch_form::sass});
  CHECK_FALSE(c.jit);
  // 8.6 and 8.9: sm_80 (same major, lower minor).
  c = pick(cc(8, 9));
  REQUIRE(c.loads());
  CHECK(o.images[c.image].target.cc == cc(8, 0));
  // 10.0: only compute_90 by JIT; a 12.8 driver reads PTX ISA 8.7, not nvcc 13.0's 9.0.
  c = pick(cc(10, 0));
  REQUIRE(c.loads());
  CHECK(c.jit);
  c = pick(cc(10, 0), cuda_version{12, 8});
  REQUIRE_FALSE(c.loads());
  REQUIRE(c.why.has_value());
  CHECK(c.why->code == errc::ptx_too_new_for_driver);
  CHECK(pick(cc(10, 0), cuda_version{13, 0}).loads());
  CHECK(pick(cc(10, 0), cuda_version{99, 0}).loads());       // newer than the table: no known limit
  CHECK_FALSE(pick(cc(10, 0), cuda_version{9, 0}).loads());  // older than the table: nothing vouched for
  // 7.5: nothing (sm_80 is newer; compute_90 needs >= 9.0).
  c = pick(cc(7, 5));
  REQUIRE_FALSE(c.loads());
  CHECK(c.why->code == errc::cannot_load_on_device);

  // sm_100a only: not 10.3. sm_100f: 10.0 and 10.3, not 11.0 or 12.0.
  const auto a = read_code_file(data_dir + "sm_100a.o");
  REQUIRE(a.has_value());
  CHECK(choose_image(a->objects.at(0), cc(10, 0), std::nullopt).loads());
  CHECK_FALSE(choose_image(a->objects.at(0), cc(10, 3), std::nullopt).loads());
  const auto f = read_code_file(data_dir + "k_sm_100f.cubin");
  REQUIRE(f.has_value());
  CHECK(choose_image(f->objects.at(0), cc(10, 3), std::nullopt).loads());
  CHECK_FALSE(choose_image(f->objects.at(0), cc(11, 0), std::nullopt).loads());
  CHECK_FALSE(choose_image(f->objects.at(0), cc(12, 0), std::nullopt).loads());
  // LTO IR alone never loads.
  const auto lto = read_code_file(data_dir + "lto_100f.o");
  REQUIRE(lto.has_value());
  CHECK_FALSE(choose_image(lto->objects.at(0), cc(10, 0), std::nullopt).loads());
}

TEST_CASE("code objects alike but for why they fail are told apart, so each fix is said", "[inspect][verdict]") {
  // compute_90 PTX of ISA 9.1, 9.1 and 9.2 on cc 9.0 under a 13.0 driver (JITs up to 9.0): updating
  // the driver for 9.1 leaves the 9.2 object failing, so 9.2 must be named. The same for SASS that
  // later majors (14.0, 15.0) built: a driver for 14.0 does not run what 15.0 built.
  code_listing l;
  l.kind = container_kind::fatbin;
  for (const int minor : {1, 1, 2}) {
    code_image img;
    img.target = arch_target{cc(9, 0), arch_variant::baseline, arch_form::ptx};
    img.version = ptx_isa_version{9, minor};
    l.objects.push_back(code_object{0, false, {img}});
  }
  for (const int major : {14, 15}) {
    code_image img;
    img.target = arch_target{cc(9, 0), arch_variant::baseline, arch_form::sass};
    img.built_by = cuda_version{major, 0};
    l.objects.push_back(code_object{0, false, {img}});
  }
  const device_verdict v = judge_device(l, device_info{0, cc(9, 0), "", source_kind::device_list}, cuda_version{13, 0});
  CHECK(v.failed() == 5);
  REQUIRE(v.failing.size() == 4);  // largest first: the two 9.1 objects, then one each
  CHECK(v.failing[0].count == 2);
  CHECK(v.failing[0].why.ptx_required == ptx_isa_version{9, 1});
  inspect_report r;
  r.devices.push_back(v.device);
  r.driver = cuda_version{13, 0};
  r.files.push_back(judge_file("alike", l, r));
  const std::string text = inspect_text(r);
  INFO(text);
  CHECK(text.find("JITs PTX ISA 9.2") != std::string::npos);
  CHECK(text.find("serves CUDA 15.0") != std::string::npos);
}

TEST_CASE("a driver too old to drive the device: every code object fails with that reason, one group, one fix",
          "[inspect][driver]") {
  // --device-cc 12.0 --driver 12.4 (issue 32): a CUDA 12.4 driver does not support Blackwell at all,
  // whatever sm_120 code the file holds.
  const auto l = read_code_file(data_dir + "mix_89_100a_120.o");
  REQUIRE(l);
  const device_verdict v = judge_device(*l, device_info{0, cc(12, 0), "", source_kind::device_list},
                                        cuda_version{12, 4});
  CHECK_FALSE(v.loads());
  CHECK(v.failed() == v.judged);
  REQUIRE(v.failing.size() == 1);
  CHECK(v.failing[0].why.code == errc::cannot_load_on_device);
  CHECK(v.failing[0].why.required == cuda_version{12, 8});
  inspect_report r;
  r.devices.push_back(v.device);
  r.driver = cuda_version{12, 4};
  r.files.push_back(judge_file("mix", *l, r));
  const std::string text = inspect_text(r);
  INFO(text);
  CHECK(text.find("cannot drive a device of compute capability 12.0") != std::string::npos);
  CHECK(text.find("fix: update the driver to one that serves CUDA 12.8 or newer") != std::string::npos);
  // Under a 13.0 driver (nvcc 13.0 built it) the same file loads on the same device.
  CHECK(judge_device(*l, v.device, cuda_version{13, 0}).loads());
  // Under 12.8 the driver drives the device, and the reason is another (what CUDA 13.0 built), about a target.
  CHECK(judge_device(*l, v.device, cuda_version{12, 8}).failing.at(0).why.has_target);
}

namespace {

// One file judged on devices `ccs` under `driver`, as `cuarch inspect --device-cc ... --driver ...` does.
inspect_report judged(const std::string& path, const std::vector<compute_capability>& ccs,
                      std::optional<cuda_version> driver, expected<code_listing, error> listing) {
  inspect_report r;
  for (std::size_t i = 0; i < ccs.size(); ++i)
    r.devices.push_back(device_info{static_cast<int>(i), ccs[i], "", source_kind::device_list});
  r.driver = driver;
  r.files.push_back(judge_file(path, std::move(listing), r));
  return r;
}
inspect_report judged(const std::string& file, const std::vector<compute_capability>& ccs,
                      std::optional<cuda_version> driver) {
  return judged(file, ccs, driver, read_code_file(data_dir + file));
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("machine code built by an unknown CUDA is 'unknown' under a known driver, never 'loads'",
          "[inspect][verdict][unknown]") {
  // compress_all.o: sm_90 (compressed, so its .note.nv.tkinfo is not read) and compute_90 PTX ISA 9.0,
  // which a 12.8 driver cannot JIT. Whether sm_90 runs depends on which CUDA built it.
  auto listing = read_code_file(data_dir + "compress_all.o");
  REQUIRE(listing.has_value());
  for (auto& img : listing->objects.at(0).images) img.built_by = {};  // as read without decompression
  const inspect_report r = judged("compress_all.o", {cc(9, 0)}, cuda_version{12, 8}, listing);
  const std::string text = inspect_text(r), json = inspect_json(r);
  INFO(text);
  CHECK_FALSE(has(text, "loads:"));
  CHECK(has(text, "unknown: "));
  CHECK(has(text, "built by an unknown CUDA"));
  CHECK(has(json, "\"verdict\":\"unknown\""));
  CHECK(has(json, "\"loads\":false"));
  CHECK(r.exit_status() == 1);
  // A driver of the newest major runs what any known CUDA built: that settles it.
  CHECK(judged("compress_all.o", {cc(9, 0)}, cuda_version{13, 0}, listing).exit_status() == 0);
  // The file as read today: unknown, or (once compressed cubins are read) CANNOT LOAD, never "loads".
  const inspect_report as_read = judged("compress_all.o", {cc(9, 0)}, cuda_version{12, 8});
  CHECK(as_read.exit_status() == 1);
  CHECK_FALSE(has(inspect_text(as_read), "loads:"));
}

TEST_CASE("an empty fatbin and cubins without a kernel are listed but not judged", "[inspect][verdict][launch]") {
  // An nvcc 13.0 executable of PTX only: its .nv_fatbin starts with an empty fatbin (size 0).
  inspect_report r = judged("exe_compute_86", {cc(9, 0)}, cuda_version{13, 0});
  std::string text = inspect_text(r);
  INFO(text);
  CHECK(r.exit_status() == 0);
  CHECK(has(text, "loads: "));
  CHECK_FALSE(has(text, "no SASS or PTX"));
  // An nvcc 13.0 -shared library: a second fatbin whose sm_90a cubin holds no .text (no kernel);
  // the kernel's own code object carries compute_90 PTX, which a 13.0 driver JITs on cc 12.0.
  r = judged("libk_sm_90a.so", {cc(12, 0)}, cuda_version{13, 0});
  text = inspect_text(r);
  INFO(text);
  CHECK(r.exit_status() == 0);
  CHECK(has(text, "1 by JIT of PTX"));
}

TEST_CASE("each fix names what works: the driver's major for code a later major built", "[inspect][verdict][fix]") {
  // mix_89_100a_120.o holds sm_120 machine code and compute_120 PTX, both from CUDA 13.0: on a 12.8
  // driver neither loads, and adding sm_120 machine code would change nothing.
  std::string text = inspect_text(judged("mix_89_100a_120.o", {cc(12, 0)}, cuda_version{12, 8}));
  INFO(text);
  CHECK_FALSE(has(text, "add sm_120"));
  CHECK(has(text, "fix: update the driver to one that serves CUDA 13.0 or newer"));
  // Machine code built by CUDA 13.4 (libnvjpeg.so.13) runs under a 13.0 driver: that is the fix.
  code_listing l;
  l.kind = container_kind::fatbin;
  code_image img;
  img.target = arch_target{cc(9, 0), arch_variant::baseline, arch_form::sass};
  img.built_by = cuda_version{13, 4};
  l.objects.push_back(code_object{0, false, {img}});
  CHECK(judged("nvjpeg", {cc(9, 0)}, cuda_version{13, 0}, l).exit_status() == 0);
  text = inspect_text(judged("nvjpeg", {cc(9, 0)}, cuda_version{12, 8}, l));
  INFO(text);
  CHECK(has(text, "serves CUDA 13.0 or newer"));
  CHECK_FALSE(has(text, "13.4 or newer"));
}

TEST_CASE("the driver note only for PTX; a directory's files without code in one line", "[inspect][text]") {
  CHECK_FALSE(has(inspect_text(judged("sm_80.o", {cc(8, 0)}, std::nullopt)), "PTX not checked"));  // SASS only
  CHECK(has(inspect_text(judged("compute_90.o", {cc(9, 0)}, std::nullopt)), "PTX not checked"));
  inspect_report r;
  r.devices.push_back(device_info{0, cc(9, 0), "", source_kind::device_list});
  for (const char* f : {"host_only.o", "sm_90.o", "corpus.tsv", "k_compute_90a.ptx"})
    r.files.push_back(judge_file(f, read_code_file(data_dir + f), r));
  const std::string text = inspect_text(r);
  INFO(text);
  CHECK(has(text, "sm_90.o: elf"));
  CHECK_FALSE(has(text, "host_only.o"));
  CHECK(has(text, "2 files have no CUDA code"));
}

namespace {

// Applies one way of a fix to code object o (what a rebuild with the flags named would add, or a
// driver update), as the text says: added targets built by `build_major` (as the driver's own
// release, which is of that major) or else by the file's builder; nothing to add with a build_major:
// the whole object rebuilt by it. Returns the object and the driver to judge it under.
std::pair<code_object, std::optional<cuda_version>> applied(code_object o, const fix_way& way,
                                                            const std::optional<cuda_version>& driver,
                                                            const cuda_version& builder) {
  const cuda_version by = way.build_major ? cuda_version{way.build_major, driver->minor} : builder;
  const auto build = [&](code_image& img) {
    img.kernels = kernel_presence::some;
    if (img.target.form == arch_form::sass) img.built_by = by;
    if (img.target.form == arch_form::ptx)
      img.version = *ptx_isa_of(by.major == driver->major ? driver->release() : by);
  };
  if (way.build_major && way.add.empty())
    for (auto& img : o.images) build(img);
  for (const auto& t : way.add) {
    code_image img;
    img.target = t;
    build(img);
    o.images.push_back(img);
  }
  return {o, way.driver ? way.driver : driver};
}

}  // namespace

TEST_CASE("every fix printed, applied to the corpus, makes the file load", "[inspect][verdict][fix]") {
  const std::vector<compute_capability> ccs{cc(7, 5),  cc(8, 0),  cc(8, 6),  cc(8, 9),  cc(9, 0),
                                            cc(10, 0), cc(10, 3), cc(11, 0), cc(12, 0), cc(12, 1)};
  std::size_t cannot = 0, unknown = 0, ways = 0;
  for (const auto& row : corpus()) {
    const auto listing = read_code_file(data_dir + row.file);
    REQUIRE(listing.has_value());
    const cuda_version builder = builder_of(*listing);
    const bool loadable = has_loadable(*listing);
    for (const cuda_version driver :
         {cuda_version{12, 4}, cuda_version{12, 8}, cuda_version{12, 9}, cuda_version{13, 0}}) {
      for (const auto& device : ccs) {
        for (const auto& o : listing->objects) {
          if (!judged(o, loadable)) continue;
          const image_choice c = choose_image(o, device, driver);
          if (c.loads()) continue;
          ++(c.unknown() ? unknown : cannot);
          failing_group g;
          g.why = *c.why;
          const load_fix fix = fix_of(g, device, driver, builder);
          INFO(row.file << " on cc " << to_text(device).view() << " under " << to_text(driver).view() << ": "
                        << c.why->message() << "\nfix: " << fix.text);
          REQUIRE_FALSE(fix.ways.empty());
          for (const fix_way& way : fix.ways) {
            ++ways;
            const auto [fixed, under] = applied(o, way, driver, builder.major ? builder : cuda_version{13, 0});
            CHECK(choose_image(fixed, device, under).loads());
          }
        }
      }
    }
  }
  CHECK(cannot > 500);  // the corpus fails in many ways: each one's fix was applied
  CHECK(ways > cannot);
  INFO(unknown);
}

TEST_CASE("each image says whether it holds a kernel: .text sections, PTX .entry", "[inspect][launch]") {
  const auto kernels_of = [](const std::string& file) {
    std::vector<kernel_presence> k;
    const auto listing = read_code_file(data_dir + file);
    REQUIRE(listing.has_value());
    for (const auto& o : listing->objects)
      for (const auto& img : o.images) k.push_back(img.kernels);
    return k;
  };
  using K = kernel_presence;
  CHECK(kernels_of("k_sm_90a.cubin") == std::vector<K>{K::some});
  CHECK(kernels_of("k_compute_90a.ptx") == std::vector<K>{K::some});
  // nvcc's own fatbin in a -shared library: an sm_90a cubin without .text; then the kernel's
  // compressed PTX (unknown), its sm_90a cubin (some) and compressed PTX.
  CHECK(kernels_of("libk_sm_90a.so") == std::vector<K>{K::none, K::unknown, K::some, K::unknown});
  // An executable of PTX only: an empty fatbin (no images), then the compressed PTX.
  const auto exe = read_code_file(data_dir + "exe_compute_86");
  REQUIRE(exe.has_value());
  REQUIRE(exe->objects.size() == 2);
  CHECK(exe->objects[0].images.empty());
  CHECK_FALSE(may_launch(exe->objects[0]));
  CHECK(may_launch(exe->objects[1]));
  const auto ptx = list_code(".version 9.0\n.target sm_90\n");  // no .entry
  REQUIRE(ptx.has_value());
  CHECK(ptx->objects.at(0).images.at(0).kernels == K::none);
}

namespace {

struct elf_part {
  std::string name;
  std::uint64_t flags;  // SHF_WRITE 1, SHF_ALLOC 2, SHF_EXECINSTR 4
  std::string bytes;
};

// An ELF64 x86-64 shared object whose sections are `parts`, each SHT_PROGBITS at an 8-byte-aligned
// offset from byte 64, then the section names and the section table.
std::string elf_with(const std::vector<elf_part>& parts) {
  std::string b(64, '\0'), names(1, '\0'), table;
  b.replace(0, 4, "\177ELF");
  b[4] = 2;
  b[5] = 1;
  b[6] = 1;
  put_le(b, 0x12, 62, 2);
  const auto header = [&](std::size_t name, std::uint32_t type, std::uint64_t flags, std::size_t at, std::size_t size) {
    std::string h(64, '\0');
    put_le(h, 0, name, 4);
    put_le(h, 4, type, 4);
    put_le(h, 8, flags, 8);
    put_le(h, 24, at, 8);
    put_le(h, 32, size, 8);
    table += h;
  };
  for (const auto& p : parts) {
    b.resize((b.size() + 7) / 8 * 8, '\0');
    header(names.size(), 1, p.flags, b.size(), p.bytes.size());
    names += p.name + '\0';
    b += p.bytes;
  }
  header(names.size(), 3, 0, b.size(), names.size() + 10);  // SHT_STRTAB, its own name included
  names += std::string(".shstrtab") + '\0';
  b += names;
  b.resize((b.size() + 7) / 8 * 8, '\0');
  put_le(b, 0x28, b.size(), 8);
  put_le(b, 0x3a, 64, 2);
  put_le(b, 0x3c, parts.size() + 1, 2);
  put_le(b, 0x3e, parts.size(), 2);
  return b + table;
}

inspect_report judged_on(const code_listing& l, std::vector<compute_capability> ccs,
                         std::optional<cuda_version> driver = std::nullopt) {
  inspect_report r;
  for (const auto& c : ccs)
    r.devices.push_back(device_info{static_cast<int>(r.devices.size()), c, "", source_kind::device_list});
  r.driver = driver;
  r.files.push_back(judge_file("lib.so", l, r));
  return r;
}

}  // namespace

TEST_CASE("code objects embedded in data sections are found, judged apart, and never fail", "[inspect][embedded]") {
  std::string data(40, 'x');  // bytes, then a magic whose header is not whole (header size 32)
  std::string fake = fatbin_of(1, 90);
  put_le(fake, 6, 32, 2);
  data += fake;
  data.resize((data.size() + 7) / 8 * 8, '\0');
  data += fatbin_of(1, 90) + std::string(24, '\0') + fatbin_of(2, 120);
  const std::string lib = elf_with({{".nv_fatbin", 2, fatbin_of(1, 75)},
                                    {".rodata", 2, data},
                                    {".text", 6, fatbin_of(1, 86)},  // machine code: not searched
                                    {".ldata", 3, std::string(3, 'y') + fatbin_of(1, 80)},  // not 8-byte aligned
                                    {".comment", 0, fatbin_of(1, 87)}});                    // not loaded: not searched
  const auto l = list_code(lib);
  REQUIRE(l.has_value());
  REQUIRE(l->objects.size() == 3);
  CHECK_FALSE(l->objects[0].embedded);
  CHECK(l->objects[0].images[0].target == arch_target{cc(7, 5), arch_variant::baseline, arch_form::sass});
  CHECK(l->objects[1].embedded);
  CHECK(l->objects[1].images[0].target.cc == cc(9, 0));
  CHECK(l->objects[2].embedded);
  CHECK(l->objects[2].images.size() == 2);
  CHECK(l->embedded_in == std::vector<std::string>{".rodata"});
  CHECK(has_loadable(*l));
  CHECK_FALSE(judged(l->objects[1], true));

  const auto r = judged_on(*l, {cc(9, 0), cc(7, 5), cc(8, 0), cc(12, 0)});
  const auto& d = r.files[0].devices;
  // 9.0: an embedded object has its code, the registered sm_75 one is another architecture's.
  CHECK(d[0].verdict() == load_verdict::dispatches);
  CHECK(d[0].embedded == 2);
  CHECK(d[0].embedded_here == 1);
  CHECK(d[0].failed() == 1);
  CHECK(d[1].verdict() == load_verdict::dispatches);     // 7.5: the registered object loads, no embedded one does
  CHECK(d[2].verdict() == load_verdict::no_code_found);  // 8.0: nothing anywhere
  CHECK(d[3].verdict() == load_verdict::dispatches);
  CHECK(r.exit_status() == 1);  // 8.0's no_code_found
  CHECK(judged_on(*l, {cc(9, 0), cc(12, 0)}).exit_status() == 0);

  const std::string text = inspect_text(r), json = inspect_json(r);
  CHECK(text.find("1 code object and 2 embedded in .rodata") != std::string::npos);
  CHECK(text.find("cc 9.0: dispatches: 0 of 1 code objects it registers and 1 of 2 embedded ones have an image for "
                  "cc 9.0; the others hold code only for other architectures") != std::string::npos);
  CHECK(text.find("cc 8.0: no code found for it") != std::string::npos);
  CHECK(text.find("CANNOT LOAD") == std::string::npos);
  CHECK(json.find("\"embedded_in\":[\".rodata\"]") != std::string::npos);
  CHECK(json.find("\"verdict\":\"no_code_found\"") != std::string::npos);
  CHECK(json.find("\"embedded_code_objects\":2,\"embedded_here\":1") != std::string::npos);

  // The same registered code without embedded objects: one object without sm_90 is CANNOT LOAD, as before.
  const auto plain = list_code(elf_with({{".nv_fatbin", 2, fatbin_of(1, 75)}, {".rodata", 2, std::string(64, 'x')}}));
  REQUIRE(plain.has_value());
  CHECK(judged_on(*plain, {cc(9, 0)}).files[0].devices[0].verdict() == load_verdict::cannot_load);
}

TEST_CASE("an embedded code object without a kernel is counted as embedded, not as a registered one",
          "[inspect][embedded]") {
  code_listing l;
  l.kind = container_kind::elf;
  code_image img{
      arch_target{cc(9, 0), arch_variant::baseline, arch_form::sass}, {}, false, 0, 8, {}, kernel_presence::some};
  l.objects.push_back(code_object{0, false, {img}});
  img.kernels = kernel_presence::none;
  l.objects.push_back(code_object{64, false, {img}, true});
  l.embedded_in = {".rodata"};
  const std::string text = inspect_text(judged_on(l, {cc(9, 0)}));
  CHECK(text.find("elf, 1 code object and 1 embedded in .rodata, 2 images") != std::string::npos);
  CHECK(text.find("without a kernel") == std::string::npos);
}

TEST_CASE("data sections are searched once, however many sections name them", "[inspect][embedded][hostile]") {
  std::string data = fatbin_of(1, 90);
  data.resize(4096, '\0');
  std::string lib = elf_with(std::vector<elf_part>(200, elf_part{".rodata", 2, data}));
  const auto distinct = list_code(lib);  // 200 sections of their own bytes: 200 code objects, one name
  REQUIRE(distinct.has_value());
  CHECK(distinct->objects.size() == 200);
  CHECK(distinct->embedded_in == std::vector<std::string>{".rodata"});
  const std::size_t table = lib.size() - 201 * 64;  // elf_with writes the section table last
  for (std::size_t k = 1; k < 200; ++k) put_le(lib, table + k * 64 + 24, 64, 8);  // each names the first's bytes
  const auto same = list_code(lib);
  REQUIRE(same.has_value());
  CHECK(same->objects.size() == 1);
}

TEST_CASE("CUDA 13.0's libcufft.so.12 keeps its kernels in .ldata: it dispatches, never CANNOT LOAD",
          "[inspect][embedded][real]") {
  // The false alarm: only an sm_75 object is in .nv_fatbin, yet torch.fft runs on an H200.
  const std::string path = "/usr/local/cuda/lib64/libcufft.so.12";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || st.st_size != 286542352)
    SKIP("CUDA 13.0's libcufft.so.12 (286,542,352 bytes) is not at " + path);
  const auto l = read_code_file(path);
  REQUIRE(l.has_value());
  std::size_t embedded = 0, cubins_90 = 0;
  for (const auto& o : l->objects) {
    embedded += o.embedded ? 1 : 0;
    for (const auto& img : o.images)
      cubins_90 += o.embedded && img.target == arch_target{cc(9, 0), arch_variant::baseline, arch_form::sass};
  }
  // Counted independently by a scan of the file for whole fatbin headers (docs/inspect.md, "Embedded code").
  CHECK(l->objects.size() == 23984);
  CHECK(embedded == 23983);
  CHECK(cubins_90 == 393);
  CHECK(l->embedded_in == std::vector<std::string>{".ldata"});
  const auto r = judged_on(*l, {cc(9, 0), cc(5, 0)}, cuda_version{13, 0});
  CHECK(r.files[0].devices[0].verdict() == load_verdict::dispatches);
  CHECK(r.files[0].devices[0].embedded_here > 393);  // and PTX the driver JITs
  CHECK(r.files[0].devices[1].verdict() == load_verdict::no_code_found);
}

namespace {

code_object one_object(std::initializer_list<arch_target> targets) {
  code_object o{0, false, {}};
  for (const auto& t : targets) {
    code_image img;
    img.target = t;
    img.built_by = cuda_version{13, 0};
    if (t.form == arch_form::ptx) img.version = ptx_isa_version{9, 0};
    o.images.push_back(img);
  }
  return o;
}

}  // namespace

TEST_CASE("a library of per-architecture code objects dispatches; only what cannot run here is CANNOT LOAD",
          "[inspect][verdict][dispatch]") {
  // cuBLAS 13.0's shape (issue 36, seen on an H100): 191 of 193 code objects hold sm_90, one holds only
  // sm_75 and one only sm_120 + compute_120; cuBLAS runs there. The two are kernels it launches only on
  // their architectures: the verdict says so, and exit 0.
  const auto sass = [](int major, int minor) {
    return arch_target{cc(major, minor), arch_variant::baseline, arch_form::sass};
  };
  const arch_target sm_75 = sass(7, 5), sm_90 = sass(9, 0), sm_120 = sass(12, 0),
                    compute_120{cc(12, 0), arch_variant::baseline, arch_form::ptx},
                    compute_90{cc(9, 0), arch_variant::baseline, arch_form::ptx};
  code_listing lib;
  lib.kind = container_kind::elf;
  for (int i = 0; i < 3; ++i) lib.objects.push_back(one_object({sm_75, sm_90, sm_120}));
  lib.objects.push_back(one_object({sm_75}));
  lib.objects.push_back(one_object({sm_120, compute_120}));
  const auto r = judged_on(lib, {cc(9, 0), cc(7, 5)}, cuda_version{13, 0});
  const file_verdict& f = r.files[0];
  CHECK(f.devices[0].verdict() == load_verdict::dispatches);  // 3 of 5 hold sm_90; the others are for 7.5 and 12.0
  CHECK(f.devices[1].verdict() == load_verdict::dispatches);  // 4 of 5 hold sm_75
  CHECK(r.exit_status() == 0);
  const std::string text = inspect_text(r);
  INFO(text);
  CHECK(text.find("CANNOT LOAD") == std::string::npos);
  CHECK(text.find("1 hold only sm_75") != std::string::npos);  // what the others are is still said
  CHECK(text.find("fix: add sm_90") == std::string::npos);     // and no fix for what is not broken

  // Nothing in it for the device (sm_75 machine code does not run on 8.0, nor PTX of 12.0): every
  // code object fails there, which is proof.
  const auto none = judged_on(lib, {cc(8, 0)}, cuda_version{13, 0});
  CHECK(none.files[0].devices[0].verdict() == load_verdict::cannot_load);
  CHECK(none.exit_status() == 1);
  // One code object (a single translation unit's kernels): the kernels in it cannot launch here.
  code_listing single;
  single.kind = container_kind::elf;
  single.objects.push_back(one_object({sm_120, compute_120}));
  CHECK(judged_on(single, {cc(9, 0)}).files[0].devices[0].verdict() == load_verdict::cannot_load);
  // A code object that fails for the driver, not the architecture, is no dispatch: PTX for 9.0 the
  // driver cannot JIT beside objects with sm_90.
  code_listing old_driver = lib;
  old_driver.objects.push_back(one_object({compute_90}));
  const auto jit = judged_on(old_driver, {cc(9, 0)}, cuda_version{12, 8});
  CHECK(jit.files[0].devices[0].verdict() == load_verdict::cannot_load);
}

TEST_CASE("CUDA 13.0's libcublas.so.13 holds per-architecture kernels: it dispatches on 9.0",
          "[inspect][dispatch][real]") {
  const std::string path = "/usr/local/cuda/lib64/libcublas.so.13";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) SKIP("CUDA 13.0's libcublas.so.13 is not at " + path);
  const auto l = read_code_file(path);
  REQUIRE(l.has_value());
  const auto r = judged_on(*l, {cc(9, 0)}, cuda_version{13, 0});
  const device_verdict& d = r.files[0].devices[0];
  INFO(inspect_text(r));
  CHECK(d.failed() == 2);
  CHECK(d.by_sass + d.by_ptx_jit == d.judged - 2);
  CHECK(d.verdict() == load_verdict::dispatches);
}
