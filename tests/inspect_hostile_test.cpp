// Hostile and changing files (issue 32, items 5-7): the attacks measured there, each generated here
// (no large file is committed) and bounded by RATIO against a benign file of the same size read in
// the same run (timing_bound.hpp), with a memory bound where the issue measured memory (the max RSS
// of a child that reads one file). Also: a file that shrinks while it is read never kills the
// process; the directory cap is an error; a cancel flag stops the reading.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cuarch/core/fatbin.hpp>
#include <cuarch/sources/code_file.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "timing_bound.hpp"

using namespace cuarch;

namespace {

void put_le(std::string& b, std::size_t at, std::uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A fatbin holding one SASS entry (sm_90) with `payload` zero bytes, or none (an empty fatbin).
std::string fatbin(bool with_entry = true, std::size_t payload = 8) {
  std::string b(16 + (with_entry ? 64 + payload : 0), '\0');
  put_le(b, 0, 0xBA55ED50u, 4);
  put_le(b, 4, 1, 2);
  put_le(b, 6, 16, 2);
  put_le(b, 8, b.size() - 16, 8);
  if (with_entry) {
    put_le(b, 16, 2, 2);
    put_le(b, 20, 64, 4);
    put_le(b, 24, payload, 8);
    put_le(b, 16 + 28, 90, 4);
  }
  return b;
}

struct section {
  std::uint32_t name;  // offset in the names
  std::uint64_t offset, size;
};

// An ELF64 file (e_machine 190: a cubin for sm_90; 62: a host object): its header, `body` from byte
// 64, the section-name table, then the section table (`sections`, then the names' own section).
std::string elf(std::uint16_t machine, const std::string& body, std::vector<section> sections, const std::string& names) {
  std::string b(64, '\0');
  b.replace(0, 4, "\177ELF");
  b[4] = 2;
  b[5] = 1;
  b[6] = 1;
  put_le(b, 0x12, machine, 2);
  put_le(b, 0x30, 90, 4);  // e_flags: sm_90 (ELF ABI version 0: bits 0-7)
  b += body;
  const std::size_t names_at = b.size();
  b += names;
  sections.push_back(section{0, names_at, names.size()});
  put_le(b, 0x28, b.size(), 8);
  put_le(b, 0x3a, 64, 2);
  put_le(b, 0x3c, sections.size(), 2);
  put_le(b, 0x3e, sections.size() - 1, 2);
  for (const auto& s : sections) {
    std::string h(64, '\0');
    put_le(h, 0, s.name, 4);
    put_le(h, 4, 1, 4);  // SHT_PROGBITS
    put_le(h, 24, s.offset, 8);
    put_le(h, 32, s.size, 8);
    b += h;
  }
  return b;
}

std::string temp_path(const std::string& tag) {
  return "/tmp/cuarch-hostile-" + tag + "-" + std::to_string(::getpid());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// head, then a hole up to `size` (sparse: nothing on disk), then tail.
void write_sparse(const std::string& path, const std::string& head, std::uint64_t size, const std::string& tail) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()));
  REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
  if (!tail.empty())
    REQUIRE(::pwrite(fd, tail.data(), tail.size(), static_cast<off_t>(size - tail.size())) ==
            static_cast<ssize_t>(tail.size()));
  ::close(fd);
}

struct child_cost {
  double seconds = 0;
  long max_rss_kib = 0;
  int status = -1;  // the child's exit status: 0 when the listing was as wanted
};

// read_code_file(path) in a forked child (its own max RSS): the time, the peak memory, and whether
// `wanted` held of the result (exit 0) or not (1); a signal shows as status 128 + signo.
template <class Wanted>
child_cost read_in_child(const std::string& path, Wanted wanted) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(wanted(read_code_file(path)) ? 0 : 1);
  int status = 0;
  struct rusage use {};
  while (::wait4(pid, &status, 0, &use) < 0 && errno == EINTR) {}
  child_cost c;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.max_rss_kib = use.ru_maxrss;
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

bool listed(const expected<code_listing, error>& l) { return l.has_value(); }

// The hostile file costs at most 4 times the benign one of the same size (plus the load's slack),
// and, where `memory`, at most 64 MiB more memory.
void check_bounded(const std::string& what, const child_cost& hostile, const child_cost& benign, bool memory) {
  const auto bound =
      cuarch_test::prompt_bound(cuarch_test::seconds_d(4 * benign.seconds), cuarch_test::seconds_d(0.5)).count();
  INFO(what << ": hostile " << hostile.seconds << " s, " << hostile.max_rss_kib / 1024 << " MiB; benign "
            << benign.seconds << " s, " << benign.max_rss_kib / 1024 << " MiB; bound " << bound << " s");
  CHECK(hostile.status == 0);
  CHECK(benign.status == 0);
  CHECK(hostile.seconds < bound);
  if (memory) CHECK(hostile.max_rss_kib < benign.max_rss_kib + 64 * 1024);
}

}  // namespace

TEST_CASE("hostile: a cubin whose 65,535 sections all name the same bytes costs one read of them", "[inspect][hostile]") {
  // The 47 s (60 s with .nv.compat): every .note.nv.tkinfo and .nv.compat section searched again.
  const std::string body(std::size_t{1} << 20, 'x');
  const std::string names = std::string("\0.nv.compat\0.note.nv.tkinfo\0.text\0", 35);
  std::vector<section> same, benign;
  for (std::uint32_t i = 0; i < 65533; ++i) {
    same.push_back(section{i % 2 ? 1u : 12u, 64, body.size()});
    benign.push_back(section{28, 64 + (i % 1024) * 1024, 1024});  // .text: not read
  }
  const std::string h = temp_path("cubin-h"), b = temp_path("cubin-b");
  write_file(h, elf(190, body, same, names));
  write_file(b, elf(190, body, benign, names));
  check_bounded("same-bytes cubin", read_in_child(h, listed), read_in_child(b, listed), false);
  ::unlink(h.c_str());
  ::unlink(b.c_str());
}

TEST_CASE("hostile: a .so whose 65,535 .nv_fatbin sections name the same bytes reads them once", "[inspect][hostile]") {
  // The 1.3 MB .so of 17.7 s: one fatbin and its zero padding, parsed once per section.
  const std::string body = fatbin() + std::string(std::size_t{256} << 10, '\0');
  const std::string names = std::string("\0.nv_fatbin\0.data\0", 18);
  std::vector<section> same, benign;
  for (std::uint32_t i = 0; i < 65533; ++i) {
    same.push_back(section{1, 64, body.size()});
    benign.push_back(section{i == 0 ? 1u : 12u, 64, body.size()});  // one .nv_fatbin, the rest .data
  }
  const std::string h = temp_path("so-h"), b = temp_path("so-b");
  write_file(h, elf(62, body, same, names));
  write_file(b, elf(62, body, benign, names));
  const auto one_object = [](const expected<code_listing, error>& l) { return l && l->objects.size() == 1; };
  check_bounded("same-bytes .so", read_in_child(h, one_object), read_in_child(b, one_object), false);
  // Sections that overlap without naming the same bytes are an error, not a second reading.
  std::vector<section> overlapping{{1, 64, body.size()}, {1, 64 + 16, body.size() - 16}};
  const auto l = list_code(elf(62, body, overlapping, names));
  REQUIRE_FALSE(l.has_value());
  CHECK(std::string(l.error().raw.view()).find("overlaps another fatbin section") != std::string::npos);
  ::unlink(h.c_str());
  ::unlink(b.c_str());
}

TEST_CASE("hostile: a fatbin before 512 MiB of sparse zeros skips them in one step", "[inspect][hostile]") {
  // The 2 GB: 33 s and 2 GB of RSS, one byte at a time.
  const std::uint64_t size = std::uint64_t{512} << 20;
  const std::string h = temp_path("zeros-h"), b = temp_path("zeros-b");
  write_sparse(h, fatbin(), size, fatbin());
  write_sparse(b, "not CUDA code\n", size, "");
  const auto two_objects = [](const expected<code_listing, error>& l) { return l && l->objects.size() == 2; };
  const auto nothing = [](const expected<code_listing, error>& l) { return l && l->objects.empty(); };
  check_bounded("sparse zeros", read_in_child(h, two_objects), read_in_child(b, nothing), true);
  ::unlink(h.c_str());
  ::unlink(b.c_str());
}

TEST_CASE("hostile: 16 MiB of empty fatbins are counted against the cap", "[inspect][hostile]") {
  // The 534 MB and 22 s: empty fatbins escaped max_code_images.
  const std::size_t size = std::size_t{16} << 20;
  std::string many;
  many.reserve(size);
  while (many.size() < size) many += fatbin(false);
  const std::string h = temp_path("empty-h"), b = temp_path("empty-b");
  write_file(h, many);
  write_file(b, fatbin(true, size - 16 - 64));
  const auto capped = [](const expected<code_listing, error>& l) {
    return !l && std::string(l.error().raw.view()).find("more than 200000 fatbins") != std::string::npos;
  };
  check_bounded("empty fatbins", read_in_child(h, capped), read_in_child(b, listed), true);
  ::unlink(h.c_str());
  ::unlink(b.c_str());
}

TEST_CASE("hostile: a file that shrinks while it is read is a listing or an error, never a SIGBUS",
          "[inspect][hostile][sigbus]") {
  // The 6 SIGBUS in 1,678 runs against a cp loop. Here a writer empties the file and writes
  // it again (a fatbin, 8 MiB of zeros, a fatbin) as fast as it can while 300 reads run.
  const std::string path = temp_path("shrink");
  const std::uint64_t size = std::uint64_t{8} << 20;
  std::string zeros_then_fatbin(std::size_t{1} << 20, '\0');
  zeros_then_fatbin += fatbin();
  write_sparse(path, fatbin(), size, zeros_then_fatbin);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY);
    const std::string head = fatbin();
    while (fd >= 0 && !stop.load()) {
      (void)!::ftruncate(fd, 0);
      (void)!::pwrite(fd, head.data(), head.size(), 0);
      (void)!::pwrite(fd, zeros_then_fatbin.data(), zeros_then_fatbin.size(),
                      static_cast<off_t>(size - zeros_then_fatbin.size()));
    }
    if (fd >= 0) ::close(fd);
  });
  int listings = 0, changed = 0, other = 0;
  std::string other_text;
  for (int i = 0; i < 300; ++i) {
    const auto l = read_code_file(path);
    if (l) {
      ++listings;
    } else if (l.error().code == errc::unreadable_input && l.error().message().find(path) != std::string::npos) {
      ++(l.error().message().find("changed while it was read") != std::string::npos ? changed : other);
      if (l.error().message().find("changed while it was read") == std::string::npos) other_text = l.error().message();
    } else {
      FAIL("not an unreadable_input error naming the file: " << l.error().message());
    }
  }
  stop = true;
  writer.join();
  ::unlink(path.c_str());
  INFO("listings " << listings << ", 'changed' errors " << changed << ", other errors " << other << " (" << other_text
                   << ")");
  CHECK(listings + changed + other == 300);
}

TEST_CASE("a directory with more files than the cap is an error naming it, the cap and the fix", "[inspect][directory]") {
  const std::string dir = temp_path("cap");
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  for (const char* f : {"/a", "/b", "/c"}) write_file(dir + f, "x");
  const auto over = code_files_under(dir, 2);
  REQUIRE_FALSE(over.has_value());
  CHECK(over.error().code == errc::unreadable_input);
  const std::string m = over.error().message();
  INFO(m);
  CHECK(m.find(dir) != std::string::npos);
  CHECK(m.find("more than 2 files") != std::string::npos);
  CHECK(m.find("name its subdirectories") != std::string::npos);
  const auto at = code_files_under(dir, 3);
  REQUIRE(at.has_value());
  CHECK(at->size() == 3);
  for (const char* f : {"/a", "/b", "/c"}) ::unlink((dir + f).c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("a set cancel flag stops the reading of a file with an error that says so", "[inspect][cancel]") {
  const std::string path = temp_path("cancel");
  write_file(path, fatbin());
  std::atomic<bool> cancel{true};
  const auto l = read_code_file(path, &cancel);
  REQUIRE_FALSE(l.has_value());
  CHECK(l.error().message().find("cancelled") != std::string::npos);
  cancel = false;
  CHECK(read_code_file(path, &cancel).has_value());
  ::unlink(path.c_str());
}
