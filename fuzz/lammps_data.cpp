// Fuzz target: LAMMPS data files, with the atom style from the Atoms line's comment and, as a
// second reading, forced to full (the style argument's path).
#include "fuzz_input.hpp"
#include "quasar/io/lammps_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.data");
  quasar::fuzz::expect_input_error([&] { quasar::io::read_lammps_data(path); });
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_lammps_data(path, "full"); });
}
