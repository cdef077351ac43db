// The error type: a literal type, rendered on demand, bridged to std::error_code.
#include <cuarch/core/error.hpp>
#include <cuarch/core/parse.hpp>

#include <system_error>
#include <type_traits>

#include "test_support.hpp"

using namespace cuarch;

static_assert(std::is_trivially_destructible_v<error>, "error must stay a literal type usable in constexpr code");
static_assert(std::is_trivially_copyable_v<error>);

TEST_CASE("errors are built in constant expressions", "[error]") {
  constexpr error e = parse_arch("sm_12x").error();
  STATIC_REQUIRE(e.code == errc::unknown_suffix);
  STATIC_REQUIRE(e.subject.view() == "sm_12x");
}

TEST_CASE("every errc renders a message with a fix", "[error]") {
  for (int c = 1; c <= static_cast<int>(errc::deadline_exceeded); ++c) {  // the last enumerator
    error e;
    e.code = static_cast<errc>(c);
    e.subject = "X";
    INFO(c);
    const std::string m = e.message();
    CHECK_FALSE(m.empty());
    CHECK(to_string(e.code) != "unknown error");
    if (e.code != errc::nothing_resolved) CHECK(m.find("fix:") != std::string::npos);  // its diagnostics carry the fixes
  }
}

TEST_CASE("message names the source and the location", "[error]") {
  error e;
  e.code = errc::library_not_found;
  e.source = source_kind::nvrtc;
  e.subject = "libnvrtc.so.13";
  e.location = "/opt/cuda/lib64/libnvrtc.so.13";
  e.raw = "cannot open shared object file";
  CHECK(e.message() ==
        "could not load libnvrtc.so.13 (NVRTC at /opt/cuda/lib64/libnvrtc.so.13): cannot open shared object file; fix: install it, "
        "or pass its absolute path explicitly");
}

TEST_CASE("long subjects are cut visibly, never silently", "[error]") {
  error e;
  e.location = std::string(400, 'x');
  CHECK(e.location.size() == 320);
  CHECK(e.location.view().substr(317) == "...");
}

TEST_CASE("std::error_code bridge", "[error]") {
  const std::error_code ec = errc::malformed_token;
  CHECK(ec.category().name() == std::string("cuarch"));
  CHECK(ec == std::errc::invalid_argument);
  CHECK(make_error_code(errc::process_timed_out) == std::errc::timed_out);
  CHECK(make_error_code(errc::needs_newer_toolkit) == std::errc::not_supported);
  CHECK(ec.message() == "malformed architecture");
  error e;
  e.code = errc::library_not_found;
  CHECK(e.error_code() == std::errc::no_such_file_or_directory);
  CHECK(e.error_code().value() != 0);
}
