// Fuzz target: Tinker .xyz coordinates with their connectivity (io/tinker_xyz.hpp).
#include "fuzz_input.hpp"
#include "quasar/io/tinker_xyz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.xyz");
  quasar::io::is_tinker_xyz(path);
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_tinker_xyz(path); });
}
