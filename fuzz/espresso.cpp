// Fuzz target: Quantum ESPRESSO pw.x scf outputs.
#include "fuzz_input.hpp"
#include "quasar/io/espresso.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "pw.out");
  quasar::io::is_pw_output(path);
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_pw_output(path); });
}
