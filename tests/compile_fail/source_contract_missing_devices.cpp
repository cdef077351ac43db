// Must not compile: a device source whose member is misspelled is refused with a message naming the
// member it needs, in C++17 (no concepts) as in later standards.
// cuarch-std: 17
// cuarch-expect-error: cuarch: DeviceSource needs `expected<std::vector<device_info>, error> devices\(\) const`
#include <cuarch/resolve/fixed_sources.hpp>
#include <cuarch/resolve/resolver.hpp>

#include <vector>

struct my_devices {
  cuarch::expected<std::vector<cuarch::device_info>, cuarch::error> device() const {
    return std::vector<cuarch::device_info>{};
  }
};

int main() {
  const cuarch::resolver<cuarch::fixed_compiler, my_devices> r(cuarch::fixed_compiler({13, 0}), my_devices{});
  return r.resolve(cuarch::arch_request{}) ? 0 : 1;
}
