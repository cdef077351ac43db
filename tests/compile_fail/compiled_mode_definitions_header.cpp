// Must not compile: in compiled mode a header that defines an entry point (here doctor/analysis.hpp,
// find_disagreements()) belongs to src/cuarch.cpp; a program's own TU including one would define it
// a second time. The error says which header to include instead.
// cuarch-std: 17
// cuarch-expect-error: include <cuarch/doctor/report.hpp> instead
#define CUARCH_COMPILED
#include <cuarch/doctor/analysis.hpp>
int main() { return 0; }
