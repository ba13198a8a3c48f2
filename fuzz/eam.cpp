// Fuzz target: EAM files. The same bytes are read as funcfl (.eam) and as setfl (.eam.alloy); what
// loads is splined as the potential does and evaluated once on a small structure. Seeds: LAMMPS's
// funcfl files (lammps-data) and small setfl files with analytic tables (fuzz/seeds/eam), since
// the real setfl files are over the corpus's 64 kB.
#include "fuzz_input.hpp"
#include "fuzz_potential.hpp"
#include "quasar/potential/pair/eam.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto funcfl = quasar::fuzz::input_file(data, size, "input.eam");
  quasar::fuzz::expect_input_error([&] {
    quasar::Eam eam = quasar::Eam::from_funcfl({{"*", funcfl}});
    quasar::fuzz::evaluate_small(eam, {"A", "B"});
  });
  const auto setfl = quasar::fuzz::input_file(data, size, "input.eam.alloy");
  return quasar::fuzz::expect_input_error([&] {
    quasar::Eam eam = quasar::Eam::from_setfl(setfl);
    quasar::fuzz::evaluate_small(eam, eam.elements());
  });
}
