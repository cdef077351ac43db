#include "shared.hpp"

int describe(const cuarch::expected<int, cuarch::error>& result) { return result.has_value() ? *result : -1; }

cuarch::expected<int, cuarch::error> make_answer() { return cuarch::expected<int, cuarch::error>{90}; }
