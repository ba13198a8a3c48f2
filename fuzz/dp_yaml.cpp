// Fuzz target: a DeePMD-kit .yaml model (yaml-cpp, the model dictionary reader, the compression
// tables when the model asks for them), then one CPU evaluation of a small structure with what
// loaded. Seeds: cut-down real models (fuzz/seeds/dp: fewer neighbour slots, rounded weights).
#include "fuzz_input.hpp"
#include "fuzz_potential.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "model.yaml");
  return quasar::fuzz::expect_input_error([&] { quasar::fuzz::load_and_evaluate_dp(path); });
}
