// Fuzz target: n2p2 input.data, read in bohr and hartree so that the unit conversion's overflow
// paths are reached too.
#include "fuzz_input.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/n2p2_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.data");
  static const quasar::units::FileUnits units = quasar::units::parse_file_units("bohr,Ha");
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_n2p2_data(path, units); });
}
