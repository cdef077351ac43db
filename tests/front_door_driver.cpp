// The C++ front door as a program, for the test that runs one matrix of requests through C++, the
// command line and Python (tests/python/test_front_ends_agree.py): each argument is NAME=VALUE with
// a library option name (front_door/options.hpp); it prints the document `cuarch resolve --format
// json` prints (success or failure, with the warnings) and exits with the outcome's status.
#include <cuarch/detect.hpp>

#include <cstdio>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  cuarch::resolve_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::size_t eq = arg.find('=');
    const auto name = cuarch::parse_option_name(arg.substr(0, eq));
    if (!name || eq == std::string_view::npos) {
      std::fprintf(stderr, "front_door_driver: '%s' is not NAME=VALUE\n", argv[i]);
      return 2;
    }
    if (const auto bad = cuarch::set_option(o, *name, arg.substr(eq + 1))) {
      std::fprintf(stderr, "front_door_driver: %s\n", bad->message.c_str());
      return 2;
    }
  }
  const cuarch::resolve_outcome r = cuarch::resolve_here(o);
  if (r.usage) {
    std::fprintf(stderr, "front_door_driver: %s\n", r.usage->c_str());
    return 2;
  }
  std::printf("%s\n", cuarch::to_json(r).c_str());
  return r.exit_status();
}
