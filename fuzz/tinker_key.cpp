// Fuzz target: Tinker keyword files (amoeba/tinker_keys.hpp) read as a parameter file and as a key,
// and their records read as an AMOEBA force field's parameters (amoeba/parameters.hpp).
#include "fuzz_input.hpp"
#include "quasar/potential/amoeba/parameters.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.prm");
  quasar::fuzz::expect_input_error([&] {
    quasar::amoeba::KeyFile files;
    files.key_path = files.parameter_path = path;
    files.records = quasar::amoeba::read_keyword_file(path, true);
    quasar::amoeba::read_parameters(files);
  });
  return quasar::fuzz::expect_input_error([&] { quasar::amoeba::read_keyword_file(path, false); });
}
