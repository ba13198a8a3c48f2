// Fuzz target: one NumPy .npy file (header dict, dtype, shape against the file's size).
#include "fuzz_input.hpp"
#include "quasar/io/deepmd_npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.npy");
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_npy(path); });
}
