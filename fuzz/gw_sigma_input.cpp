// Fuzz target: a sigma.inp of BerkeleyGW's Sigma (gw/sigma_input). Seeds: the Si-EPM inputs.
#include "fuzz_input.hpp"
#include "quasar/gw/sigma_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "sigma.inp");
  return quasar::fuzz::expect_input_error([&] { quasar::gw::read_sigma_input(path); });
}
