// A bounded library call (sources/posix/bounded_call.hpp) when no thread can be started to hold it
// to the deadline: a typed error naming the call and the library, and the call is not made (it
// used to run inline, unbounded, and say nothing). The fault is real: a forked child lowers
// RLIMIT_NPROC below its user's process count (as root, first becoming nobody, since root is exempt),
// so the kernel refuses pthread_create with EAGAIN.
#include <cuarch/sources/posix/bounded_call.hpp>

#include <catch2/catch_test_macros.hpp>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace {

void* nothing(void*) { return nullptr; }

// In the forked child: 77 when pthread_create cannot be made to fail here; 0 when the bounded call
// is a typed error and the call was not made; 1 when it ran anyway; 2 for another answer.
[[noreturn]] void child() {
  if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(77);
  const rlimit none{0, 0};
  if (::setrlimit(RLIMIT_NPROC, &none) != 0) ::_exit(77);
  pthread_t t;
  if (::pthread_create(&t, nullptr, &nothing, nullptr) == 0) ::_exit(77);  // not refused: the limit does not apply
  bool ran = false;
  const cuarch::detail::library_deadline_scope scope(std::chrono::seconds(5), std::chrono::seconds(5));
  const auto r = cuarch::detail::bounded_call(cuarch::source_kind::nvrtc, "/opt/cuda/lib64/libnvrtc.so.13", "dlopen",
                                              [&ran]() -> cuarch::expected<int, cuarch::error> {
                                                ran = true;
                                                return 42;
                                              });
  if (ran) ::_exit(1);
  if (r || r.error().code != cuarch::errc::library_call_failed) ::_exit(2);
  const std::string m = r.error().message();
  const bool named = m.find("dlopen") != std::string::npos &&
                     m.find("/opt/cuda/lib64/libnvrtc.so.13") != std::string::npos &&
                     m.find("thread") != std::string::npos && m.find("fix: free threads") != std::string::npos &&
                     m.find("check the installation") == std::string::npos;
  ::_exit(named ? 0 : 2);
}

}  // namespace

TEST_CASE("no thread for a bounded call: a typed error, and the call is not made unbounded", "[deadline][fault]") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) child();
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) SKIP("pthread_create cannot be made to fail here (RLIMIT_NPROC does not apply)");
  INFO("child exit " << WEXITSTATUS(status) << " (1: the call ran inline, unbounded; 2: another answer)");
  CHECK(WEXITSTATUS(status) == 0);
}
