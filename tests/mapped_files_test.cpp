// The files a process has mapped as code (sources/mapped_files.hpp): what `cuarch inspect --pid` and
// cuarch.inspect_loaded() judge. This process's own list, the same through /proc/self/maps, the
// maps format's corners, and the errors for a process that is not there.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cuarch/sources/mapped_files.hpp>
#include <algorithm>
#include <string>
#include <vector>

using cuarch::mapped_files_here;
using cuarch::mapped_files_of;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string real(const std::string& p) { return cuarch::detail::real_path(p); }

}  // namespace

TEST_CASE("this process: the program first, then its libraries, each once, no vDSO", "[mapped_files]") {
  const auto here = mapped_files_here();
  REQUIRE(here.paths.size() >= 3);  // the program, libc, the dynamic loader
  CHECK(here.paths.front() == real("/proc/self/exe"));
  CHECK(std::any_of(here.paths.begin(), here.paths.end(),
                    [](const std::string& p) { return p.find("/libc.so.6") != std::string::npos; }));
  for (const auto& p : here.paths) {
    INFO(p);
    CHECK(p.front() == '/');
    CHECK(std::count(here.paths.begin(), here.paths.end(), p) == 1);
  }
  CHECK(here.deleted.empty());
}

TEST_CASE("the same process read through /proc/PID/maps names the same files", "[mapped_files]") {
  const auto here = mapped_files_here();
  const auto maps = mapped_files_of(static_cast<long>(::getpid()));
  REQUIRE(maps.has_value());
  std::vector<std::string> mapped;
  for (const auto& p : maps->paths) mapped.push_back(real(p));
  for (const auto& p : here.paths) {
    INFO(p);
    CHECK(has(mapped, real(p)));
  }
}

TEST_CASE("the maps format: executable mappings only, paths with spaces, deleted files apart", "[mapped_files]") {
  const auto m = cuarch::detail::files_of_maps(
      "55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 11 /usr/bin/python3.12\n"
      "55d0c0a21000-55d0c0b21000 r-xp 00021000 fd:01 11 /usr/bin/python3.12\n"
      "7f00000000-7f00001000 rw-p 00000000 00:00 0 \n"
      "7f00001000-7f00002000 r-xp 00000000 fd:01 12                         /opt/my libs/libk.so\n"
      "7f00002000-7f00003000 r-xp 00001000 fd:01 12                         /opt/my libs/libk.so\n"
      "7f00003000-7f00004000 r--p 00000000 fd:01 13 /data/weights.bin\n"
      "7f00004000-7f00005000 r-xp 00000000 fd:01 14 /tmp/jit/libold.so (deleted)\n"
      "7f00005000-7f00006000 r-xp 00000000 00:00 0 [vdso]\n"
      "7f00006000-7f00007000 rw-p 00000000 00:00 0 [heap]");
  CHECK(m.paths == std::vector<std::string>{"/usr/bin/python3.12", "/opt/my libs/libk.so"});
  CHECK(m.deleted == std::vector<std::string>{"/tmp/jit/libold.so"});
  CHECK(cuarch::detail::files_of_maps("").paths.empty());
  CHECK(cuarch::detail::files_of_maps("garbage\n\n  \nx y\n").paths.empty());
}

TEST_CASE("a process that is not there is an error naming /proc/PID/maps and why", "[mapped_files]") {
  const auto none = mapped_files_of(0);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message().find("a process ID is a positive number") != std::string::npos);
  const long gone = 4194304 + 17;  // past Linux's largest PID (2^22)
  const auto absent = mapped_files_of(gone);
  REQUIRE_FALSE(absent.has_value());
  CHECK(absent.error().message().find("/proc/" + std::to_string(gone) + "/maps") != std::string::npos);
  CHECK(absent.error().message().find("no process " + std::to_string(gone) + " is running here") != std::string::npos);
}
