// Fuzz target: a DeePMD-kit .dp model (HDF5), structure-aware. HDF5's own decoder is not robust to
// arbitrary bytes (it has a long record of memory-safety CVEs on crafted files, and it is not
// Quasar's code to fix), so the bytes are not the HDF5 file but what it holds: the model dictionary
// as JSON. Quasar's writer turns it into a real .dp (every np.ndarray a dataset of the shape and
// dtype the JSON says; every other value, including "/variable_..." paths the fuzzer invents,
// stays in the root attribute as it is) and the reader reads it back: the attribute, dataset
// paths, shapes and dtypes, then every check of the dictionary. Then one CPU evaluation, as in
// dp_yaml. Dictionaries the writer cannot write (not JSON, nested deeper than 64) are skipped:
// only the reader is under test. Seeds: the cut-down real models of fuzz/seeds/dp as JSON.
#include <stdexcept>

#include "fuzz_input.hpp"
#include "fuzz_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(nullptr, 0, "model.dp");
  try {
    const auto limit_depth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > 64) throw std::length_error("too deep");
      return true;
    };
    const auto dict = nlohmann::json::parse(data, data + size, limit_depth);
    quasar::dp::write_dp_h5(path, dict);
  } catch (const std::exception&) {
    return 0;
  }
  return quasar::fuzz::expect_input_error([&] { quasar::fuzz::load_and_evaluate_dp(path); });
}
