// Fuzz target: MD checkpoints. A small Lennard-Jones simulation (32 argon atoms, Langevin) is set
// up once; every input is then read as its checkpoint (Simulation::read_checkpoint), which either
// applies it or fails with nothing changed. Seeds: checkpoints (format 2) of this system after 10 and
// 1000 steps, the second after a spatial re-sort (fuzz/seeds/checkpoint, written by `quasar run`
// with the same lattice, LJ and Langevin settings; input_check_test checks that they load).
#include <cstring>
#include <memory>

#include "fuzz_input.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/pair/lj.hpp"

namespace {

quasar::md::Simulation& simulation() {
  static std::unique_ptr<quasar::md::Simulation> sim = [] {
    quasar::Structure s = quasar::io::make_lattice("fcc", "Ar", 5.3, {2, 2, 2}, 0.0);
    auto lj = std::make_shared<quasar::LennardJones>(
        std::map<std::string, quasar::LjSpecies>{{"Ar", {0.0104, 3.405, 0.0}}}, 5.0, true, false,
        std::vector<quasar::LjPairOverride>{});
    quasar::md::MdSettings settings;
    settings.integrator.kind = "langevin";
    settings.integrator.temperature = 80;
    settings.skin = 0.5;
    settings.output.progress = false;
    settings.output.thermo_screen = false;
    return std::make_unique<quasar::md::Simulation>(s, lj, settings, quasar::Backend::Cpu);
  }();
  return *sim;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.chk");
  return quasar::fuzz::expect_input_error([&] { simulation().read_checkpoint(path); });
}
