#include "shared.hpp"

int main() {
  const auto answer = make_answer();
  return answer.has_value() && *answer == 90 ? 0 : 1;
}
