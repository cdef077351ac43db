// Must not compile: in compiled mode the headers that define an entry point (here render_text())
// belong to src/cuarch.cpp; a program's own TU including one would define it a second time. The
// error says which header to include instead.
// cuarch-std: 17
// cuarch-expect-error: include <cuarch/doctor/report.hpp> instead
#define CUARCH_COMPILED
#include <cuarch/doctor/render_text.hpp>
int main() { return 0; }
