// A toolkit root or Python prefix that cannot be reached says why: a symlink loop (ELOOP) or a name
// too long (ENAMETOOLONG) is reported with the system's words, not as "no such directory" (issue 18).
#include <cuarch/detect.hpp>

#include <unistd.h>

#include <string>

#include "fixtures/fixture_support.hpp"
#include "test_support.hpp"

namespace {
cuarch::detection detect_with(const std::string& variable, const std::string& value) {
  cuarch::detect_options o;
  o.env = cuarch::environment{{variable, value}};
  o.already_loaded = o.loader_search = o.path_search = o.default_locations = false;
  o.query_devices = false;
  return cuarch::detect(o);
}
}  // namespace

TEST_CASE("ELOOP and ENAMETOOLONG are said as such for CUDA_HOME and VIRTUAL_ENV", "[detect][errno]") {
  const std::string dir = cuarch_test::make_temp_dir("errno");
  const std::string loop = dir + "/loop";
  REQUIRE(::symlink(loop.c_str(), loop.c_str()) == 0);  // a link to itself
  const std::string long_name = dir + "/" + std::string(300, 'x');
  for (const auto& [path, words] : {std::pair<std::string, std::string>{loop, "Too many levels of symbolic links"},
                                    std::pair<std::string, std::string>{long_name, "File name too long"}}) {
    INFO(words);
    const auto home = detect_with("CUDA_HOME", path);
    REQUIRE_FALSE(home.toolkit_roots.empty());
    REQUIRE(home.toolkit_roots[0].problem);
    CHECK(home.toolkit_roots[0].problem->message().find(words) != std::string::npos);
    CHECK(home.toolkit_roots[0].problem->message().find("no such directory") == std::string::npos);
    const auto venv = detect_with("VIRTUAL_ENV", path);
    REQUIRE_FALSE(venv.python_environments.empty());
    REQUIRE(venv.python_environments[0].problem);
    CHECK(venv.python_environments[0].problem->message().find(words) != std::string::npos);
  }
  // A missing directory keeps its words.
  const auto missing = detect_with("CUDA_HOME", dir + "/absent");
  REQUIRE(missing.toolkit_roots[0].problem);
  CHECK(missing.toolkit_roots[0].problem->message().find("no such directory") != std::string::npos);
}
