// Fuzz target: DeePMD-kit's training input (input.json) as `quasar train` reads it: the JSON
// parser, then every section, key, type and range. The model it describes is not built: a valid
// input's only cost there is its size. Seeds: examples/silicon/input.json and DeePMD-kit's water
// example input (../shared/reference/deepmd).
#include "fuzz_input.hpp"
#include "quasar/potential/dp/train/input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.json");
  return quasar::fuzz::expect_input_error([&] { quasar::dp::read_train_input(path); });
}
