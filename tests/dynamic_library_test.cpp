// dynamic_library (sources/posix/dynamic_library.hpp): real libraries load (the toolkit's NVRTC,
// libc), and every file that is no loadable library of this machine is refused before dlopen()
// with a typed error naming its path, within milliseconds: a FIFO (dlopen would block forever
// in open()), a directory, a character device, a text file, a 32-bit ELF, an ELF of another
// machine. The same holds for a library found by SONAME on LD_LIBRARY_PATH, where glibc is the
// oracle ([oracle]): cuarch picks the file dlopen() picks in a child, or fails at the file it fails at.
#include <cuarch/sources/driver_source.hpp>
#include <cuarch/sources/nvrtc_source.hpp>
#include <cuarch/sources/posix/dynamic_library.hpp>
#include <cuarch/sources/posix/subprocess.hpp>
#include <cuarch/sources/runtime_source.hpp>

#include <catch2/catch_test_macros.hpp>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <thread>

#include "fixtures/fixture_support.hpp"
#include "timing_bound.hpp"

using cuarch::errc;
using cuarch::source_kind;
using cuarch_test::scoped_env;
using namespace std::chrono_literals;

namespace {

/// A minimal ELF header (64 bytes) of the given class and machine, padded to 4 KiB.
std::string elf_header(unsigned char cls, std::uint16_t machine, std::uint16_t type = ET_DYN) {
  std::string h(4096, '\0');
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', cls, ELFDATA2LSB, EV_CURRENT};
  std::memcpy(h.data(), ident, sizeof ident);
  std::memcpy(h.data() + 16, &type, sizeof type);  // e_type: the same offset in both classes
  std::memcpy(h.data() + 18, &machine, sizeof machine);
  return h;
}

/// A refusal naming the file. No regular file (FIFO, directory, device): file_unreadable, the file
/// itself is wrong; a regular file that is no library for this process: library_not_found.
void check_refused(const cuarch::expected<cuarch::dynamic_library, cuarch::error>& l, const std::string& path,
                   std::string_view words) {
  REQUIRE_FALSE(l);
  CHECK(l.error().code == (words == "not a regular file" ? errc::file_unreadable : errc::library_not_found));
  CHECK(l.error().source == source_kind::nvrtc);
  CHECK(l.error().location.view() == path);
  CHECK(l.error().message().find(path) != std::string::npos);
  INFO(l.error().raw.view());
  CHECK(l.error().raw.view().find(words) != std::string_view::npos);
}

std::string libc_path() {
  for (const char* p : {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
                        "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6"})
    if (::access(p, R_OK) == 0) return p;
  return {};
}

/// The real loader, in a child: dlopen(soname) with LD_LIBRARY_PATH=`llp` ("" = unset) prints
/// "OK <real path>" or "ERR <dlerror>"; "HANG" when it has not answered within a second (a FIFO).
/// Empty when there is no C compiler for the oracle program.
std::string loader_picks(const std::string& soname, const std::string& llp) {
  static const std::string oracle = [] {
    const std::string dir = cuarch_test::make_temp_dir("oracle");
    cuarch_test::write_file(
        dir + "/oracle.c",
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <link.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(int c, char** v) { (void)c; void* h = dlopen(v[1], RTLD_NOW | RTLD_LOCAL);\n"
        "  if (!h) { printf(\"ERR %s\\n\", dlerror()); return 1; }\n  struct link_map* m = 0; dlinfo(h, RTLD_DI_LINKMAP, &m);\n"
        "  printf(\"OK %s\\n\", realpath(m->l_name, 0)); return 0; }\n");
    return cuarch_test::compile_c("-o " + dir + "/oracle " + dir + "/oracle.c -ldl").empty() ? dir + "/oracle"
                                                                                             : std::string();
  }();
  if (oracle.empty()) return {};
  cuarch::process_limits limits;
  limits.timeout = 1s;
  std::vector<std::string> argv{"/usr/bin/env", "-u", "LD_LIBRARY_PATH"};
  if (!llp.empty()) argv.push_back("LD_LIBRARY_PATH=" + llp);
  argv.insert(argv.end(), {oracle, soname});
  const auto r = cuarch::run_process(argv, limits);
  if (!r) return r.error().code == errc::process_timed_out ? "HANG" : "ERR " + r.error().message();
  return r->out.substr(0, r->out.find('\n'));
}

/// cuarch's pick in the same words: "OK <path>" or "ERR <location>: <raw>".
std::string cuarch_picks(const std::string& soname, const std::string& llp, const std::vector<std::string>& fifos = {}) {
  cuarch::environment env;
  if (!llp.empty()) env.set("LD_LIBRARY_PATH", llp);
  const auto l = cuarch_test::bounded([&] { return cuarch::load_library_by_name(soname, source_kind::nvrtc, &env); },
                                      fifos);
  if (l) l->retain();  // an NVRTC copy allocates on every load: loaded once
  return l ? "OK " + l->path()
           : "ERR " + std::string(l.error().location.view()) + ": " + std::string(l.error().raw.view());
}

/// A copy of the real library at `from` with two bytes of its ELF header replaced.
void patched_copy(const std::string& from, const std::string& to, std::size_t offset, std::uint16_t value) {
  std::filesystem::copy_file(from, to);
  std::fstream f(to, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(reinterpret_cast<const char*>(&value), sizeof value);
}
}  // namespace

TEST_CASE("real libraries load: the toolkit's NVRTC, libc by path and by SONAME", "[dynamic_library][real]") {
  const std::string libc = libc_path();
  if (!libc.empty()) {
    const auto l = cuarch::load_library_file(libc, source_kind::none);
    REQUIRE(l);
    CHECK(l->raw_symbol("getpid") != nullptr);
  }
  const auto by_name = cuarch::load_library_by_name("libc.so.6", source_kind::none);
  REQUIRE(by_name);
  CHECK(by_name->path().front() == '/');
  const std::string nvrtc = cuarch_test::local_nvrtc();
  if (nvrtc.empty()) SKIP("no local toolkit NVRTC");
  const auto n = cuarch::load_library_file(nvrtc, source_kind::nvrtc);
  REQUIRE(n);
  CHECK(n->raw_symbol("nvrtcVersion") != nullptr);
  n->retain();  // NVRTC's static initialisers allocate on every load: keep it, as its source does
}

TEST_CASE("files that are no loadable library are refused by path, before dlopen, in bounded time",
          "[dynamic_library][fault]") {
  const std::string dir = cuarch_test::make_temp_dir("badlibs");
  SECTION("a FIFO") {
    const std::string fifo = dir + "/libnvrtc.so.13";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(fifo, source_kind::nvrtc); }, {fifo}),
                  fifo, "not a regular file");
  }
  SECTION("a directory") {
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(dir, source_kind::nvrtc); }), dir,
                  "not a regular file");
  }
  SECTION("a character device") {
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file("/dev/zero", source_kind::nvrtc); }),
                  "/dev/zero", "not a regular file");
  }
  SECTION("a text file") {
    const std::string text = dir + "/libtext.so";
    cuarch_test::write_file(text, "INPUT(-lc)\n");
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(text, source_kind::nvrtc); }), text,
                  "not an ELF");
  }
  SECTION("an empty file") {
    const std::string empty = dir + "/libempty.so";
    cuarch_test::write_file(empty, "");
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(empty, source_kind::nvrtc); }), empty,
                  "not an ELF");
  }
  SECTION("a 32-bit ELF") {
    const std::string elf32 = dir + "/lib32.so";
    cuarch_test::write_file(elf32, elf_header(ELFCLASS32, EM_386));
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(elf32, source_kind::nvrtc); }), elf32,
                  "32-bit");
  }
  SECTION("an ELF of another machine") {
    const std::string other = dir + "/libother.so";
#if defined(__s390x__)
    cuarch_test::write_file(other, elf_header(ELFCLASS64, EM_X86_64));
#else
    cuarch_test::write_file(other, elf_header(ELFCLASS64, EM_S390));
#endif
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(other, source_kind::nvrtc); }), other,
                  "machine");
  }
  SECTION("an ELF that is not a shared object (a relocatable .o)") {
    const std::string obj = dir + "/libobj.so";
#if defined(__x86_64__)
    cuarch_test::write_file(obj, elf_header(ELFCLASS64, EM_X86_64, ET_REL));
#elif defined(__aarch64__)
    cuarch_test::write_file(obj, elf_header(ELFCLASS64, EM_AARCH64, ET_REL));
#else
    SKIP("no ELF machine number known for this platform");
#endif
    check_refused(cuarch_test::bounded([&] { return cuarch::load_library_file(obj, source_kind::nvrtc); }), obj,
                  "not a shared object");
  }
}

TEST_CASE("by SONAME: a bad file on LD_LIBRARY_PATH is refused by path, never opened by the loader",
          "[dynamic_library][fault]") {
  const std::string dir = cuarch_test::make_temp_dir("badsearch");
  scoped_env env;
  env.set("LD_LIBRARY_PATH", "/nonexistent:" + dir);
  SECTION("a FIFO named like the library") {
    const std::string fifo = dir + "/libnvrtc.so.13";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto l = cuarch_test::bounded(
        [&] { return cuarch::load_library_by_name("libnvrtc.so.13", source_kind::nvrtc); }, {fifo});
    check_refused(l, fifo, "not a regular file");
    // The first-found search stops there too: the loader would have opened that FIFO.
    const auto first = cuarch_test::bounded([&] { return cuarch::nvrtc_library_source::from_loader().compiler(); },
                                            {fifo});
    REQUIRE_FALSE(first);
    CHECK(first.error().location.view() == fifo);
  }
  SECTION(
      "a text file ends the search, as it ends the loader's; a 32-bit build is passed over, and named when nothing else is found") {
    const std::string text = dir + "/libcuarch-test-text.so.1";
    cuarch_test::write_file(text, "not a library\n");
    const auto t = cuarch_test::bounded(
        [&] { return cuarch::load_library_by_name("libcuarch-test-text.so.1", source_kind::nvrtc); });
    check_refused(t, text, "not an ELF");
    const std::string elf32 = dir + "/libcuarch-test-32.so.1";
    cuarch_test::write_file(elf32, elf_header(ELFCLASS32, EM_386));
    const auto l = cuarch::load_library_by_name("libcuarch-test-32.so.1", source_kind::nvrtc);
    REQUIRE_FALSE(l);
    CHECK(l.error().code == errc::library_not_found);
    CHECK(l.error().raw.view().find("passed over " + elf32 + ": a 32-bit") != std::string_view::npos);
  }
  SECTION("a real library on LD_LIBRARY_PATH is loaded from there") {
    const std::string nvrtc = cuarch_test::local_nvrtc();
    if (nvrtc.empty()) SKIP("no local toolkit NVRTC");
    const std::string soname = nvrtc.substr(nvrtc.rfind('/') + 1);
    env.set("LD_LIBRARY_PATH", "/nonexistent:" + nvrtc.substr(0, nvrtc.rfind('/')));
    const auto l = cuarch::load_library_by_name(soname, source_kind::nvrtc);
    REQUIRE(l);
    CHECK(l->raw_symbol("nvrtcVersion") != nullptr);
    l->retain();
  }
}

TEST_CASE("by SONAME, the real loader is the oracle: cuarch picks the file dlopen() picks, or fails where it fails",
          "[dynamic_library][oracle]") {
  // LD_LIBRARY_PATH=dir1:dir2, dir1 holding a file named like the SONAME, dir2 a real library (a
  // copy of the toolkit's NVRTC). glibc passes over an ELF file of another class or machine and
  // takes dir2's; any other file it cannot load ends its search with an error naming that file;
  // a FIFO blocks it in open() (cuarch refuses that one, naming it, rather than hang).
  const std::string nvrtc = cuarch_test::local_nvrtc();
  const std::string libc = libc_path();
  if (nvrtc.empty() || libc.empty()) SKIP("no local toolkit NVRTC or no libc.so.6 to copy");
  const std::string soname = nvrtc.substr(nvrtc.rfind('/') + 1);
  const std::string root = cuarch_test::make_temp_dir("oracle-search");
  const std::string good = root + "/good";
  std::filesystem::create_directories(good);
  std::filesystem::copy_file(nvrtc, good + "/" + soname);
  const auto case_dir = [&](const std::string& kind) {
    const std::string d = root + "/" + kind;
    std::filesystem::create_directories(d);
    return d + "/" + soname;
  };
  struct bad_file {
    std::string kind, path;
  };
  std::vector<bad_file> files;
  const std::string wrong_class = case_dir("wrong-class");  // a real 32-bit library where there is one
  if (::access("/lib32/libc.so.6", R_OK) == 0) std::filesystem::copy_file("/lib32/libc.so.6", wrong_class);
  else cuarch_test::write_file(wrong_class, elf_header(sizeof(void*) == 8 ? ELFCLASS32 : ELFCLASS64, EM_386));
  files.push_back({"an ELF of the other class", wrong_class});
  const std::string wrong_machine = case_dir("wrong-machine");  // this machine has none: libc, e_machine patched
  patched_copy(libc, wrong_machine, offsetof(Elf64_Ehdr, e_machine),
               cuarch::detail::native_elf_machine() == EM_S390 ? EM_X86_64 : EM_S390);
  files.push_back({"an ELF of another machine", wrong_machine});
  const std::string text = case_dir("text");
  cuarch_test::write_file(text, "INPUT(-lc)\n");
  files.push_back({"a linker script", text});
  const std::string rel = case_dir("relocatable");
  patched_copy(libc, rel, offsetof(Elf64_Ehdr, e_type), ET_REL);
  files.push_back({"an ELF that is no shared object", rel});
  const std::string fifo = case_dir("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  files.push_back({"a FIFO", fifo});
  for (const auto& f : files) {
    const std::string llp = f.path.substr(0, f.path.rfind('/')) + ":" + good;
    const std::string loader = loader_picks(soname, llp);
    if (loader.empty()) SKIP("no C compiler for the oracle program");
    const std::string ours = cuarch_picks(soname, llp, {f.path});
    INFO(f.kind << ": the loader says '" << loader << "', cuarch '" << ours << "'");
    if (loader.rfind("OK ", 0) == 0) {
      CHECK(ours == loader);
    } else {  // the loader fails at (or blocks on) that file: cuarch fails naming it
      CHECK(ours.rfind("ERR " + f.path + ": ", 0) == 0);
    }
  }
}

TEST_CASE("by SONAME: a FIFO in a system directory behind the loader's cache does not stop the search",
          "[dynamic_library][oracle]") {
  // The loader asks ld.so.cache before its default directories: a library the cache names is found
  // there, and a FIFO of that name in /usr/lib64 (or a default directory) is never opened. Needs a
  // writable /usr/lib64 (root): the FIFO is removed at the end.
  const std::string nvrtc = cuarch_test::local_nvrtc();
  if (nvrtc.empty()) SKIP("no local toolkit NVRTC");
  std::string soname;  // NVRTC's builtins: no cuarch source loads them, so no other test is disturbed
  for (const auto& name : cuarch::detail::list_dir(nvrtc.substr(0, nvrtc.rfind('/')), "libnvrtc-builtins.so."))
    if (soname.empty() || name.size() < soname.size()) soname = name;
  const std::string loader = soname.empty() ? std::string() : loader_picks(soname, "");
  if (loader.rfind("OK ", 0) != 0) SKIP("the loader does not find NVRTC's builtins by SONAME here: " << loader);
  const std::string fifo = "/usr/lib64/" + soname;
  if (::access("/usr/lib64", W_OK) != 0 || ::access(fifo.c_str(), F_OK) == 0 || ::mkfifo(fifo.c_str(), 0600) != 0)
    SKIP("cannot make a FIFO in /usr/lib64");
  struct remover {
    std::string path;
    ~remover() { ::unlink(path.c_str()); }
  } remove_fifo{fifo};
  INFO("the loader says '" << loader << "'");
  CHECK(cuarch_picks(soname, "", {fifo}) == loader);
}

TEST_CASE("one locator for NVRTC, the runtime and the driver", "[dynamic_library]") {
  const std::string dir = cuarch_test::make_temp_dir("locator");
  const std::string fifo = dir + "/libfifo.so";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto nvrtc = cuarch_test::bounded([&] { return cuarch::nvrtc_library_source(fifo).compiler(); }, {fifo});
  const auto runtime = cuarch_test::bounded([&] { return cuarch::cuda_runtime_source(fifo).observe(); }, {fifo});
  const auto driver = cuarch_test::bounded([&] { return cuarch::driver_library_source(fifo).driver_version(); }, {fifo});
  REQUIRE_FALSE(nvrtc);
  REQUIRE_FALSE(runtime);
  REQUIRE_FALSE(driver);
  for (const cuarch::error* e : {&nvrtc.error(), &runtime.error(), &driver.error()}) {
    CHECK(e->code == errc::file_unreadable);
    CHECK(e->location.view() == fifo);
  }
  CHECK(nvrtc.error().source == source_kind::nvrtc);
  CHECK(runtime.error().source == source_kind::cuda_runtime);
  CHECK(driver.error().source == source_kind::driver);
  const cuarch::library_locator any = cuarch::library_locator::search(cuarch::nvrtc_sonames(),
                                                                      "libnvrtc.so (any version)");
  CHECK(any.sonames.front() == "libnvrtc.so.20");
  const cuarch::library_locator file = cuarch::library_locator::file("/x/libnvrtc.so.13");
  CHECK(file.path == "/x/libnvrtc.so.13");
}

TEST_CASE("one path-list splitter: empty entries are kept (they mean the current directory)", "[dynamic_library]") {
  using cuarch::detail::split_path_list;
  CHECK(split_path_list("") == std::vector<std::string>{""});
  CHECK(split_path_list("/a") == std::vector<std::string>{"/a"});
  CHECK(split_path_list("/a::/b:") == std::vector<std::string>{"/a", "", "/b", ""});
}

TEST_CASE("messages name no soname that does not exist: the majors ahead of every release are one phrase",
          "[dynamic_library][messages]") {
  CHECK(cuarch::soname_words(cuarch::cudart_sonames()) == "libcudart.so.12 or a newer major, libcudart.so.11.0");
  CHECK(cuarch::soname_words(cuarch::nvrtc_sonames()) ==
        "libnvrtc.so.12 or a newer major, libnvrtc.so.11.2, libnvrtc.so.11.1, libnvrtc.so.11.0");
  const auto none = cuarch::library_locator::search({"libcuarch-none.so.20", "libcuarch-none.so.19"},
                                                    "libcuarch-none.so (any version)")
                        .load(cuarch::source_kind::cuda_runtime);
  REQUIRE_FALSE(none);
  const std::string m = none.error().message();
  INFO(m);
  CHECK(m.find(".so.20") == std::string::npos);
  CHECK(m.find("libcuarch-none.so.19 or a newer major") != std::string::npos);
}
