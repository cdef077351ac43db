// The baseline of the -O2 compile-cost pair (benchmarks/compile_cost.sh --o2): what a build script
// writes by hand instead of resolve_and_print.cpp: split "8.0;9.0a;12.0+PTX", parse each
// X.Y[a|f][+PTX], keep what one known compiler (CUDA 13.0: sm_75 .. sm_121) builds, print -gencode
// flags. No table, no diagnostics, no provenance.
#include <cstdio>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  const std::string list = argc > 1 ? argv[1] : "8.0;9.0a;12.0+PTX";
  std::vector<std::string> flags;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = list.find(';', start);
    std::string token = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? list.size() + 1 : end + 1;
    if (token.empty()) continue;
    bool ptx = false;
    if (token.size() > 4 && token.compare(token.size() - 4, 4, "+PTX") == 0) {
      ptx = true;
      token.resize(token.size() - 4);
    }
    std::string suffix;
    if (!token.empty() && (token.back() == 'a' || token.back() == 'f')) {
      suffix = token.back();
      token.pop_back();
    }
    const std::size_t dot = token.find('.');
    if (dot == std::string::npos) {
      std::fprintf(stderr, "bad arch '%s'\n", token.c_str());
      return 1;
    }
    const int sm = std::stoi(token.substr(0, dot)) * 10 + std::stoi(token.substr(dot + 1));
    if (sm < 75 || sm > 121) {
      std::fprintf(stderr, "sm_%d is not built by CUDA 13.0\n", sm);
      return 1;
    }
    const std::string n = std::to_string(sm) + suffix;
    flags.push_back("-gencode=arch=compute_" + n + ",code=sm_" + n);
    if (ptx) flags.push_back("-gencode=arch=compute_" + n + ",code=compute_" + n);
  }
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : " ") + f;
  std::puts(out.c_str());
  return 0;
}
