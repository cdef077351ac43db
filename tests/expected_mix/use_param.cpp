#include "shared.hpp"

int main() { return describe(cuarch::expected<int, cuarch::error>{90}) == 90 ? 0 : 1; }
