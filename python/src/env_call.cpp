// cuarch.env(tool, ...): `cuarch env --for TOOL` in process. The keyword arguments are library
// options read as the command line's flags are; the variables, their spelling and what the
// environment has otherwise are the library's (front_door/tool_env.hpp); the text of each format
// is the library's too, so Python and the command line print the same bytes.
#include <cuarch/detect.hpp>
#include <cuarch/front_door/tool_env.hpp>

#include <string>

#include "calls.hpp"

namespace cuarch_python {

outcome env(const std::string& tool, const std::string& format, const std::string& cmake_version,
            const option_list& options, const environment_map& env, const std::atomic<bool>* cancel) {
  const auto t = cuarch::detail::find_by_name(cuarch::all_env_tools, tool);
  if (!t) return usage("tool must be " + names_of(cuarch::all_env_tools) + ", not '" + tool + "'");
  const auto f = cuarch::detail::find_by_name(cuarch::all_env_formats, format);
  if (!f) return usage("format must be " + names_of(cuarch::all_env_formats) + ", not '" + format + "'");
  if (!cmake_version.empty() && *t != cuarch::env_tool::cmake) return usage("cmake_version is for tool='cmake' only");
  cuarch::resolve_options o;
  const auto document = [&](const cuarch::error& e) {
    return cuarch::env_json(*t, cuarch::resolve_outcome{}, cuarch::unexpected(e));
  };
  if (auto bad = read_options(options, env, o, document)) return *bad;
  o.cancel = cancel;  // Ctrl-C / interpreter exit (cuarch_ext.cpp)
  const cuarch::env_outcome got = cuarch::env_here(*t, *f, o, cmake_version);
  if (got.usage) return usage(*got.usage);
  outcome out;
  out.json = got.json;
  if (got.refused) {
    out.kind = outcome::failed;
    out.code = code_name(got.refused->code);
    out.input_error = is_input_error(got.refused->code);
    out.message = got.refusal;
    return out;
  }
  out.text = *got.text;
  out.strict_failed = got.strict_failed;
  return out;
}

}  // namespace cuarch_python
