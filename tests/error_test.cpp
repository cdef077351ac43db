// The error type: a literal type, rendered on demand, bridged to std::error_code; its factories;
// and the one classification (core/errc.hpp) behind the category, the exit status and the JSON.
#include <cuarch/core/detail/json.hpp>
#include <cuarch/core/error.hpp>
#include <cuarch/core/parse.hpp>
#include <cuarch/resolve/resolution.hpp>

#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "fuzz/json_invariants.hpp"
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
  for (int c = static_cast<int>(first_errc); c <= static_cast<int>(last_errc); ++c) {
    error e;
    e.code = static_cast<errc>(c);
    e.subject = "X";
    INFO(c);
    const std::string m = e.message();
    CHECK_FALSE(m.empty());
    CHECK(to_string(e.code) != "unknown error");
    if (e.code != errc::nothing_resolved)
      CHECK(m.find("fix:") != std::string::npos);  // its diagnostics carry the fixes
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

TEST_CASE("a cut falls between words, or between UTF-8 characters, never inside one", "[error]") {
  error e;
  std::string words;
  while (words.size() < 400) words += "toolkit ";
  e.raw = words;  // raw holds 200 bytes
  const std::string_view raw = e.raw.view();
  REQUIRE(raw.size() >= 4);
  CHECK(raw.substr(raw.size() - 3) == "...");
  CHECK(raw.substr(raw.size() - 10, 7) == "toolkit");  // the last word before the mark is whole
  e.raw.append(" more");                               // nothing is appended after the mark
  CHECK(e.raw.view() == raw);

  e.location = std::string(316, 'x') + "\xc3\xa9\xc3\xa9!";  // byte 317 is inside the first 'é'
  CHECK(cuarch_fuzz::is_valid_utf8(e.location.view()));
  CHECK(e.location.view() == std::string(316, 'x') + "...");
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

// ---- the size, pinned -------------------------------------------------------------------------

TEST_CASE("sizeof(error) is pinned (see the comment on struct error)", "[error]") {
  // Fixed-capacity text keeps error a literal type; a change of size is a change of every
  // expected<T, error> in the library, so it must be deliberate.
  if constexpr (sizeof(void*) == 8) {
    STATIC_REQUIRE(sizeof(error) == 760);
  } else {
    SUCCEED("the figure is pinned for LP64 targets only");
  }
}

TEST_CASE("sizeof(diagnostic) is at most 1 KB (see the comment on struct diagnostic)", "[error]") {
  // Resolution builds one diagnostic per request, on the warm path; embedding its two errors made
  // it 2,040 bytes. They are boxed (boxed_error: heap only when there is an error, i.e. for a
  // request not kept as asked), so a kept request costs the fields it uses.
  if constexpr (sizeof(void*) == 8) {
    STATIC_REQUIRE(sizeof(diagnostic) <= 1024);
  } else {
    SUCCEED("the figure is pinned for LP64 targets only");
  }
}

// ---- the classification table -----------------------------------------------------------------

namespace {

struct expected_row {
  errc code;
  const char* name;
  int exit;                        // 1 failed, 2 bad usage or input
  std::error_condition condition;  // {} = none: compares equal only within cuarch's category
};

const std::error_condition none{};
const std::error_condition invalid = std::errc::invalid_argument;
const std::error_condition unsupported = std::errc::not_supported;
const std::error_condition missing = std::errc::no_such_file_or_directory;

const expected_row table[] = {
    {errc::empty_input, "empty_input", 2, invalid},
    {errc::malformed_token, "malformed_token", 2, invalid},
    {errc::unknown_suffix, "unknown_suffix", 2, invalid},
    {errc::variant_not_defined, "variant_not_defined", 2, invalid},
    {errc::ptx_of_specific_variant, "ptx_of_specific_variant", 2, invalid},
    {errc::keyword_not_alone, "keyword_not_alone", 2, invalid},
    {errc::too_many_targets, "too_many_targets", 2, none},
    {errc::invalid_version, "invalid_version", 2, invalid},
    {errc::unknown_arch, "unknown_arch", 1, unsupported},
    {errc::needs_newer_toolkit, "needs_newer_toolkit", 1, unsupported},
    {errc::removed_in_toolkit, "removed_in_toolkit", 1, unsupported},
    {errc::renamed_in_toolkit, "renamed_in_toolkit", 1, unsupported},
    {errc::rejected_by_compiler, "rejected_by_compiler", 1, unsupported},
    {errc::cannot_load_on_device, "cannot_load_on_device", 1, unsupported},
    {errc::ptx_too_new_for_driver, "ptx_too_new_for_driver", 1, unsupported},
    {errc::library_not_found, "library_not_found", 1, missing},
    {errc::symbol_not_found, "symbol_not_found", 1, none},
    {errc::library_call_failed, "library_call_failed", 1, none},
    {errc::process_failed, "process_failed", 1, none},
    {errc::process_timed_out, "process_timed_out", 1, std::errc::timed_out},
    {errc::file_unreadable, "file_unreadable", 1, missing},
    {errc::malformed_output, "malformed_output", 1, none},
    {errc::no_device, "no_device", 1, none},
    {errc::invalid_environment, "invalid_environment", 2, invalid},
    {errc::nothing_resolved, "nothing_resolved", 1, none},
    {errc::not_expressible, "not_expressible", 1, unsupported},
    {errc::deadline_exceeded, "deadline_exceeded", 1, std::errc::timed_out},
    {errc::no_compiler, "no_compiler", 1, missing},
    {errc::targets_conflict, "targets_conflict", 1, unsupported},
    {errc::unreadable_input, "unreadable_input", 2, invalid},
    {errc::unknown_builder, "unknown_builder", 1, none},
};

bool is_snake_case(std::string_view s) {
  if (s.empty() || s.front() == '_' || s.back() == '_' || s.find("__") != std::string_view::npos) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return s.front() >= 'a' && s.front() <= 'z';
}

}  // namespace

TEST_CASE("classify(): every errc, one row; names unique and snake_case; titles unique", "[error][classify]") {
  constexpr int first = static_cast<int>(first_errc), last = static_cast<int>(last_errc);
  REQUIRE(std::size(table) == static_cast<std::size_t>(last - first + 1));  // a new errc needs a row here
  std::set<std::string_view> names, titles;
  for (int i = first; i <= last; ++i) {
    const auto& row = table[i - first];
    const errc code = static_cast<errc>(i);
    REQUIRE(row.code == code);
    const errc_class c = classify(code);
    INFO(row.name);
    CHECK(c.name == row.name);
    CHECK(is_snake_case(c.name));
    CHECK_FALSE(c.title.empty());
    CHECK(c.name != "unknown_error");
    CHECK(static_cast<int>(c.exit) == row.exit);
    CHECK(exit_status(code) == row.exit);
    CHECK(names.insert(c.name).second);
    CHECK(titles.insert(c.title).second);
    // The std::error_code bridge reads the same row.
    const std::error_code ec = code;
    CHECK(ec.message() == c.title);
    CHECK(to_string(code) == c.title);
    if (row.condition == none) {
      CHECK(ec.default_error_condition().category() == ec.category());
      CHECK(ec.default_error_condition().value() == i);
    } else {
      CHECK(ec == row.condition);
      CHECK(ec.default_error_condition() == row.condition);
    }
    // So does the JSON.
    detail::json_writer w;
    error e;
    e.code = code;
    detail::json_error(w, e);
    // "code" and "kind" are the stable snake_case name (docs/json.md), the words are "title".
    CHECK(w.str().rfind("{\"code\":\"" + std::string(c.name) + "\",\"kind\":\"" + std::string(c.name) +
                            "\",\"title\":\"" + std::string(c.title) + "\"",
                        0) == 0);
    CHECK(w.str().find("\"exit_status\":" + std::to_string(row.exit) + ",") != std::string::npos);
  }
  CHECK(is_snake_case("no_device"));
  CHECK_FALSE(is_snake_case("No device"));
  CHECK_FALSE(is_snake_case("trailing_"));
}

TEST_CASE("classify() of a value that is no errc says so instead of guessing", "[error][classify]") {
  STATIC_REQUIRE(classify(static_cast<errc>(0)).name == "unknown_error");
  STATIC_REQUIRE(classify(static_cast<errc>(static_cast<int>(last_errc) + 1)).name == "unknown_error");
  CHECK(make_error_code(static_cast<errc>(999)).message() == "unknown error");
}

TEST_CASE("the JSON of an error is valid UTF-8 even when its fields are not", "[error][json]") {
  error e = errors::file_unreadable(source_kind::toolkit_files, "version.json", "/opt/cuda\xff/version.json",
                                    "No such file");
  e.location = std::string(300, 'x') + "\xc3!";  // the first byte of an 'é' alone: not UTF-8
  REQUIRE_FALSE(cuarch_fuzz::is_valid_utf8(e.location.view()));
  detail::json_writer w;
  detail::json_error(w, e);
  CHECK(cuarch_fuzz::is_valid_utf8(w.str()));
  CHECK(w.str().find("\"location_bytes\":\"") != std::string::npos);
}

// ---- the factories ----------------------------------------------------------------------------

namespace {
constexpr arch_target sm(int major, int minor, arch_variant v = arch_variant::baseline) {
  return arch_target{compute_capability{major, minor}, v, arch_form::sass};
}
bool mentions(const error& e, std::string_view part) { return e.message().find(part) != std::string::npos; }
}  // namespace

TEST_CASE("input factories fill subject and position, and work in constant expressions", "[error][factories]") {
  constexpr error empty = errors::empty_input(source_kind::user_input, "90;;80", 3);
  STATIC_REQUIRE(empty.code == errc::empty_input);
  STATIC_REQUIRE(empty.subject.view() == "90;;80");
  STATIC_REQUIRE(empty.position == 3);
  CHECK(mentions(empty, "empty entry at position 3 of '90;;80'"));
  CHECK(mentions(errors::empty_input(source_kind::user_input), "no architecture given"));

  constexpr error bad = errors::malformed_token(source_kind::device_list, "sm_", 7);
  STATIC_REQUIRE(bad.code == errc::malformed_token);
  STATIC_REQUIRE(bad.source == source_kind::device_list);
  CHECK(mentions(bad, "'sm_' at position 7 is not a CUDA architecture"));

  CHECK(mentions(errors::unknown_suffix(source_kind::user_input, "compute_90b", 0),
                 "'compute_90b' at position 0 has an unknown suffix"));

  constexpr error variant = errors::variant_not_defined(source_kind::user_input, sm(8, 0, arch_variant::arch_specific),
                                                        "8.0a", 2);
  STATIC_REQUIRE(variant.has_target);
  STATIC_REQUIRE(variant.subject.view() == "8.0a");
  CHECK(mentions(variant, "no 'a' variant exists for 8.0"));
  CHECK(errors::variant_not_defined(source_kind::knowledge_table, sm(8, 0, arch_variant::family_specific)).subject.view() ==
        "sm_80f");

  const error ptx = errors::ptx_of_specific_variant(source_kind::user_input, sm(12, 0, arch_variant::arch_specific),
                                                    "12.0a+PTX", 4);
  CHECK(ptx.code == errc::ptx_of_specific_variant);
  CHECK(mentions(ptx, "'12.0a+PTX' at position 4"));
  CHECK(mentions(ptx, "compute_120a"));

  CHECK(mentions(errors::keyword_not_alone(source_kind::user_input, "native", 0),
                 "'native' at position 0: native, all and all-major"));
  CHECK(mentions(errors::too_many_targets(source_kind::user_input, "90;80"), "the list '90;80' names more targets"));
  const error version = errors::invalid_version(source_kind::driver, "cuDriverGetVersion -5");
  CHECK(version.code == errc::invalid_version);
  CHECK(mentions(version, "'cuDriverGetVersion -5' is not a valid version (driver)"));
}

TEST_CASE("toolkit and device factories fill target, versions and device", "[error][factories]") {
  constexpr cuda_version v124{12, 4}, v129{12, 9}, v130{13, 0};
  constexpr error newer = errors::needs_newer_toolkit(source_kind::knowledge_table,
                                                      sm(12, 0, arch_variant::arch_specific), v129, v124);
  STATIC_REQUIRE(newer.required == v129);
  STATIC_REQUIRE(newer.found == v124);
  CHECK(mentions(newer, "sm_120a needs CUDA >= 12.9 (have 12.4)"));

  CHECK(mentions(errors::removed_in_toolkit(source_kind::knowledge_table, sm(7, 0), v130, v130),
                 "sm_70 was removed in CUDA 13.0"));
  const error renamed = errors::renamed_in_toolkit(source_kind::knowledge_table, sm(10, 1), sm(11, 0), v130, v130);
  CHECK(renamed.replacement == sm(11, 0));
  CHECK(mentions(renamed, "sm_101 was renamed sm_110 in CUDA 13.0"));

  const error unknown = errors::unknown_arch(source_kind::knowledge_table, sm(15, 0), v130,
                                             "cuarch's table ends at CUDA 13.5");
  CHECK(unknown.found == v130);
  CHECK(mentions(unknown, "(cuarch's table ends at CUDA 13.5)"));

  const error rejected = errors::rejected_by_compiler(source_kind::nvrtc, sm(12, 0), v124, "/usr/lib/libnvrtc.so.12",
                                                      "not in nvrtcGetSupportedArchs");
  CHECK(rejected.location.view() == "/usr/lib/libnvrtc.so.12");
  CHECK(mentions(
      rejected,
      "sm_120 is not supported by the compiler, CUDA 12.4 (NVRTC at /usr/lib/libnvrtc.so.12): not in nvrtcGetSupportedArchs"));

  const error load = errors::cannot_load_on_device(source_kind::device_list, sm(9, 0, arch_variant::arch_specific),
                                                   compute_capability{10, 0});
  CHECK(load.device == compute_capability{10, 0});
  CHECK(mentions(load, "sm_90a cannot run on a device of compute capability 10.0"));

  const arch_target ptx{compute_capability{9, 0}, arch_variant::baseline, arch_form::ptx};
  const error jit = errors::ptx_too_new_for_driver(source_kind::driver, ptx, v130, cuda_version{12, 8},
                                                   ptx_isa_version{9, 0}, ptx_isa_version{8, 7});
  CHECK(jit.required == v130);
  CHECK(mentions(jit, "compute_90 is PTX ISA 9.0, but the driver (CUDA 12.8) JITs PTX ISA up to 8.7"));
}

TEST_CASE("edge factories fill subject, location, raw and native status", "[error][factories]") {
  const error lib = errors::library_not_found(source_kind::nvrtc, "libnvrtc.so.13", "/opt/cuda/lib64/libnvrtc.so.13",
                                              "cannot open shared object file");
  CHECK(lib.message() ==
        "could not load libnvrtc.so.13 (NVRTC at /opt/cuda/lib64/libnvrtc.so.13): cannot open shared object file; fix: install it, "
        "or pass its absolute path explicitly");
  const error sym = errors::symbol_not_found(source_kind::nvrtc, "nvrtcGetSupportedArchs", "/x/libnvrtc.so");
  CHECK(sym.location.view() == "/x/libnvrtc.so");
  CHECK(mentions(sym, "symbol nvrtcGetSupportedArchs is missing (NVRTC at /x/libnvrtc.so)"));
  const error call = errors::library_call_failed(source_kind::driver, "cuDriverGetVersion", 999, "libcuda.so.1",
                                                 "CUDA_ERROR_UNKNOWN");
  CHECK(call.native_status == 999);
  CHECK(mentions(call, "cuDriverGetVersion failed with status 999 (driver at libcuda.so.1): CUDA_ERROR_UNKNOWN"));
  const error proc = errors::process_failed(source_kind::nvcc, "/bin/nvcc --version", 3, "/bin/nvcc", "boom");
  CHECK(proc.native_status == 3);
  CHECK(mentions(proc, "'/bin/nvcc --version' failed (status 3) (nvcc at /bin/nvcc): boom"));
  CHECK(mentions(errors::process_timed_out(source_kind::nvcc, "/bin/nvcc --version", "/bin/nvcc"),
                 "did not finish in time"));
  const error file = errors::file_unreadable(source_kind::toolkit_files, "version.json", "/opt/cuda/version.json",
                                             "a FIFO");
  CHECK(mentions(file, "cannot read version.json (toolkit files at /opt/cuda/version.json): a FIFO"));
  CHECK(mentions(errors::malformed_output(source_kind::nvcc, "nvcc", "/bin/nvcc", "hello"),
                 "nvcc gave no recognisable version (nvcc at /bin/nvcc): 'hello'"));
  const error dev = errors::no_device(source_kind::driver, "CUDA_VISIBLE_DEVICES=\"\"");
  CHECK(dev.raw.view() == "CUDA_VISIBLE_DEVICES=\"\"");
  CHECK(mentions(dev, "no CUDA device is visible (driver)"));
  const error env = errors::invalid_environment(source_kind::environment, "CUDA_HOME", "/nonexistent",
                                                "not a directory");
  CHECK(env.location.view() == "CUDA_HOME");
  CHECK(env.subject.view() == "/nonexistent");
  CHECK(mentions(env, "environment variable CUDA_HOME='/nonexistent' is invalid: not a directory"));
}

TEST_CASE("resolution and output factories", "[error][factories]") {
  const error none_left = errors::nothing_resolved(source_kind::user_input, "70;75", "error policy, 2 of 2 rejected");
  CHECK(none_left.code == errc::nothing_resolved);
  CHECK(mentions(none_left, "no target could be resolved for '70;75': error policy, 2 of 2 rejected"));
  const arch_target ptx{compute_capability{9, 0}, arch_variant::baseline, arch_form::ptx};
  const error spelled = errors::not_expressible(source_kind::none, ptx, "TORCH_CUDA_ARCH_LIST",
                                                "PTX only with its machine code");
  CHECK(spelled.subject.view() == "TORCH_CUDA_ARCH_LIST");
  CHECK(mentions(spelled, "compute_90 cannot be written in TORCH_CUDA_ARCH_LIST: PTX only with its machine code"));
}

TEST_CASE("the deadline factory names the candidate that was not asked", "[error][factories]") {
  const error late = errors::deadline_exceeded(source_kind::nvcc, "/opt/cuda-12.4/bin/nvcc", "/opt/cuda-12.4/bin/nvcc",
                                               "deadline 10 s");
  CHECK(late.code == errc::deadline_exceeded);
  CHECK(late.location.view() == "/opt/cuda-12.4/bin/nvcc");
  CHECK(mentions(
      late,
      "/opt/cuda-12.4/bin/nvcc gave no answer within the detection's deadline (nvcc at /opt/cuda-12.4/bin/nvcc) (deadline 10 s)"));
}
