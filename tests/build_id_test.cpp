// The JIT cache key identifies the library, not just its release: the ELF build-id reader
// (sources/elf_build_id.hpp) against real NVRTC libraries, and hostile files.
#include <cuarch/resolve/outputs.hpp>
#include <cuarch/resolve/target_set.hpp>
#include <cuarch/sources/elf_build_id.hpp>
#include <cuarch/sources/nvrtc_source.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fixtures/fixture_support.hpp"
#include "test_support.hpp"

using namespace cuarch;

namespace {

const target_set& sm_90a() {
  static const target_set s = *target_set::from({arch_target{{9, 0}, arch_variant::arch_specific, arch_form::sass}});
  return s;
}

}  // namespace

TEST_CASE("two NVRTC wheels of one release (12.4.99, 12.4.127) give different cache keys", "[build_id][real]") {
  const auto older = cuarch_test::fetch("nvrtc", "12.4.99");
  const auto newer = cuarch_test::fetch("nvrtc", "12.4.127");
  if (!older || !newer)
    SKIP("real NVRTC wheels not cached (tests/fixtures, scripts/toolkits/fetch.sh): " + older.why_not + " " +
         newer.why_not);
  const auto a = nvrtc_library_source(older.path + "/libnvrtc.so.12").compiler();
  const auto b = nvrtc_library_source(newer.path + "/libnvrtc.so.12").compiler();
  REQUIRE(a);
  REQUIRE(b);
  // What the old key had to go on is the same for both: the release and the file name.
  CHECK(a->version.release() == b->version.release());
  CHECK(to_text(a->version).view() == "12.4");
  CHECK(to_text(b->version).view() == "12.4");
  // The build-id NVIDIA's linker wrote, read through the section headers (the wheels' PT_NOTE
  // points elsewhere after they were rewritten): values as readelf -n shows them.
  CHECK(b->build_id == "ee7f0ed564a5c3b4289920424eeda2b1a168fee6");
  CHECK(a->build_id == "cd5e1d73ad9d9719e3d4bd6c5335d03f999dce16");
  // The same library at the same path (a venv upgraded in place) must not share a key.
  compiler_info same_path_a = *a, same_path_b = *b;
  same_path_a.location = same_path_b.location = "/venv/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
  CHECK(jit_cache_key(same_path_a, sm_90a()) != jit_cache_key(same_path_b, sm_90a()));
  CHECK(jit_cache_key(same_path_b, sm_90a()).find(" build=ee7f0ed564a5c3b4289920424eeda2b1a168fee6 ") !=
        std::string::npos);
}

TEST_CASE("the same build gives the same build-id wherever it was packaged (wheel and Debian 12.4.127)",
          "[build_id][real]") {
  const auto wheel = cuarch_test::fetch("nvrtc", "12.4.127");
  const auto debian = cuarch_test::fetch("nvrtc", "debian:libnvrtc12=12.4.127~12.4.1-2");
  if (!wheel || !debian)
    SKIP("real NVRTC 12.4.127 wheel / Debian package not cached: " + wheel.why_not + " " + debian.why_not);
  const auto w = read_elf_build_id(wheel.path + "/libnvrtc.so.12");
  const auto d = read_elf_build_id(debian.path + "/libnvrtc.so.12");
  REQUIRE(w);
  REQUIRE(d);
  CHECK(*w == *d);  // Debian redistributes NVIDIA's binary; read through PT_NOTE there, sections in the wheel
}

TEST_CASE("the local toolkit's NVRTC has a build-id, and the key carries it", "[build_id][real]") {
  const std::string lib = cuarch_test::local_nvrtc();
  if (lib.empty()) SKIP("no local CUDA toolkit with NVRTC (set CUARCH_LOCAL_CUDA)");
  const auto c = nvrtc_library_source(lib).compiler();
  REQUIRE(c);
  CHECK(c->build_id.size() == 40);
  CHECK(jit_cache_key(*c, sm_90a()).rfind("cuarch-jit-key/2 compiler=NVRTC version=", 0) == 0);
}

TEST_CASE("the build-id reader refuses what is no ELF file, by name, without blocking", "[build_id]") {
  const std::string dir = cuarch_test::make_temp_dir("build_id");
  SECTION("missing file") {
    const auto r = read_elf_build_id(dir + "/absent.so");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == errc::file_unreadable);
    CHECK(r.error().location.view() == dir + "/absent.so");
  }
  SECTION("a FIFO is refused by type, not waited on") {
    const std::string fifo = dir + "/fifo.so";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto r = read_elf_build_id(fifo);
    REQUIRE_FALSE(r);
    CHECK(r.error().raw.view().find("not a regular file") != std::string_view::npos);
  }
  SECTION("text, a truncated header, and an ELF with hostile offsets") {
    cuarch_test::write_file(dir + "/text.so", "INPUT(libnvrtc.so.12)\n");
    CHECK(read_elf_build_id(dir + "/text.so").error().raw.view() == "not an ELF file");
    cuarch_test::write_file(dir + "/short.so", std::string("\x7f"
                                                           "ELF\x02\x01",
                                                           6));
    CHECK(read_elf_build_id(dir + "/short.so").error().code == errc::malformed_output);
    std::string hostile(64, '\0');
    hostile.replace(0, 6,
                    std::string("\x7f"
                                "ELF\x02\x01",
                                6));
    hostile[0x20] = '\x40';                          // program headers right after the header ...
    hostile[0x36] = '\x38';                          // ... 56 bytes each ...
    hostile[0x38] = '\xff', hostile[0x39] = '\xff';  // ... 65535 of them: past the end of the file
    hostile[0x28] = '\x7f', hostile[0x2f] = '\x7f';  // section headers far beyond the end
    hostile[0x3a] = '\x40', hostile[0x3c] = '\x10';
    cuarch_test::write_file(dir + "/hostile.so", hostile);
    const auto r = read_elf_build_id(dir + "/hostile.so");
    REQUIRE_FALSE(r);
    CHECK(r.error().raw.view().find("no NT_GNU_BUILD_ID") != std::string_view::npos);
  }
  SECTION("note areas: a build-id is found after other notes; a note running past the area is not read") {
    auto note = [](std::string name, unsigned type, std::string desc) {
      auto le32 = [](std::size_t v) {
        return std::string{char(v & 0xff), char((v >> 8) & 0xff), char((v >> 16) & 0xff), char(v >> 24)};
      };
      std::string n = le32(name.size()) + le32(desc.size()) + le32(type) + name;
      n.resize((n.size() + 3) & ~std::size_t{3}, '\0');
      n += desc;
      n.resize((n.size() + 3) & ~std::size_t{3}, '\0');
      return n;
    };
    const std::string id("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 10);
    CHECK(detail::find_gnu_build_id(note(std::string("GNU\0", 4), 1, "abcd") + note(std::string("GNU\0", 4), 3, id)) ==
          "0102030405060708090a");
    std::string truncated = note(std::string("GNU\0", 4), 3, id);
    truncated.resize(truncated.size() - 1);
    CHECK(detail::find_gnu_build_id(truncated).empty());
    CHECK(detail::find_gnu_build_id(note("XYZ", 3, id)).empty());
  }
}

TEST_CASE("the key names the NVRTC this process runs, not the file now at its path; a replaced file is said",
          "[build_id][real]") {
  const auto older = cuarch_test::fetch("nvrtc", "12.4.99");
  const auto newer = cuarch_test::fetch("nvrtc", "12.4.127");
  if (!older || !newer)
    SKIP("real NVRTC wheels not cached (tests/fixtures, scripts/toolkits/fetch.sh): " + older.why_not + " " +
         newer.why_not);
  const std::string dir = cuarch_test::make_temp_dir("replaced");
  const std::string lib = dir + "/libnvrtc.so.12";
  std::filesystem::copy_file(older.path + "/libnvrtc.so.12", lib);
  const auto before = nvrtc_library_source(lib).compiler();
  REQUIRE(before);
  CHECK(before->build_id == "cd5e1d73ad9d9719e3d4bd6c5335d03f999dce16");  // 12.4.99, read from the loaded image
  const std::string key = jit_cache_key(*before, sm_90a());

  // A venv upgraded in place while this process runs: the file at the path is now 12.4.127
  // (a new inode, renamed over the old one, as pip does); the process still runs 12.4.99.
  std::filesystem::copy_file(newer.path + "/libnvrtc.so.12", dir + "/new.so");
  std::filesystem::rename(dir + "/new.so", lib);
  const nvrtc_library_source after_source(lib);
  const auto after = after_source.compiler();
  REQUIRE(after);
  CHECK(after->build_id == "cd5e1d73ad9d9719e3d4bd6c5335d03f999dce16");
  CHECK(jit_cache_key(*after, sm_90a()) == key);
  const auto seen = after_source.observe();
  REQUIRE(seen);
  CHECK(seen->raw.find("replaced") != std::string::npos);
  CHECK(seen->raw.find("ee7f0ed564a5c3b4289920424eeda2b1a168fee6") !=
        std::string::npos);  // what the file now holds, said
}

TEST_CASE("the build-id of a loaded library is read from its mapped image", "[build_id]") {
  const std::string dir = cuarch_test::make_temp_dir("mapped_id");
  const auto build = [&](const std::string& so, const std::string& id) {
    return cuarch_test::compile_c("-shared -fPIC -O1 -o " + so + " " + cuarch_test::source_dir() +
                                  "/tests/fixtures/stub_libnvrtc.c -Wl,--build-id=0x" + id +
                                  " -Wl,-soname,libnvrtc-stub-mapped.so.12")
        .empty();
  };
  const std::string a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  if (!build(dir + "/libnvrtc.so.12", a) || !build(dir + "/b.so", b)) SKIP("no C compiler for the stub NVRTC");
  const std::string lib = dir + "/libnvrtc.so.12";
  const auto first = nvrtc_library_source(lib).compiler();
  REQUIRE(first);
  CHECK(first->build_id == a);
  std::filesystem::rename(dir + "/b.so", lib);  // replaced in place while loaded
  const nvrtc_library_source again(lib);
  const auto second = again.compiler();
  REQUIRE(second);
  CHECK(second->build_id == a);  // the code that runs
  CHECK(jit_cache_key(*second, sm_90a()) == jit_cache_key(*first, sm_90a()));
  const auto seen = again.observe();
  REQUIRE(seen);
  CHECK(seen->raw.find("replaced") != std::string::npos);
  CHECK(seen->raw.find(b) != std::string::npos);
}
