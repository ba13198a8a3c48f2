// Fuzz target: extended XYZ (every frame of a file).
#include "fuzz_input.hpp"
#include "quasar/io/extxyz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.xyz");
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_extxyz(path); });
}
