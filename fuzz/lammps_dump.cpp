// Fuzz target: LAMMPS text dumps (every frame), with numbered types named by their numbers and,
// as a second reading, by a two-name type map (types beyond it are errors).
#include "fuzz_input.hpp"
#include "quasar/io/lammps_dump.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.dump");
  quasar::fuzz::expect_input_error([&] { quasar::io::read_lammps_dump(path); });
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_lammps_dump(path, {"O", "H"}); });
}
