// Fuzz target: an epsilon.inp of BerkeleyGW's Epsilon (gw/epsilon_input). Seeds: the Si-EPM input.
#include "fuzz_input.hpp"
#include "quasar/gw/epsilon_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "epsilon.inp");
  return quasar::fuzz::expect_input_error([&] { quasar::gw::read_epsilon_input(path); });
}
