// Fuzz target: Tinker keyword files (amoeba/tinker_keys.hpp) read as a parameter file and as a key,
// their records read as an AMOEBA force field's parameters (amoeba/parameters.hpp), and the
// electrostatics of small systems of their atom types set up from them (amoeba/multipole_setup.hpp:
// multipole frames, polarization groups, scale factors and solver settings), with their valence
// entries (amoeba/valence_setup.hpp: angles, torsions and their angle- and stretch-torsions) and vdW
// setup (amoeba/vdw_term.hpp).
#include "fuzz_input.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/parameters.hpp"
#include "quasar/potential/amoeba/valence_setup.hpp"
#include "quasar/potential/amoeba/vdw_term.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.prm");
  quasar::fuzz::expect_input_error([&] {
    quasar::amoeba::KeyFile files;
    files.key_path = files.parameter_path = path;
    files.records = quasar::amoeba::read_keyword_file(path, true);
    const quasar::amoeba::Parameters p = quasar::amoeba::read_parameters(files);
    // One atom of each of the first types, then the first types bonded in a chain.
    std::vector<int> chain;
    for (const auto& entry : p.atoms) {
      if (chain.size() == 6) break;
      const int type = entry.first;
      chain.push_back(type);
      quasar::fuzz::expect_input_error([&] { quasar::amoeba::electrostatic_system(p, {type}, {{}}); });
    }
    std::vector<std::vector<int>> bonds(chain.size());
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      bonds[i].push_back(static_cast<int>(i + 1));
      bonds[i + 1].push_back(static_cast<int>(i));
    }
    quasar::fuzz::expect_input_error([&] { quasar::amoeba::valence_entries(p, chain, bonds); });
    quasar::fuzz::expect_input_error([&] { quasar::amoeba::vdw_system(p, chain, bonds); });
    quasar::amoeba::electrostatic_system(p, chain, bonds);
  });
  return quasar::fuzz::expect_input_error([&] { quasar::amoeba::read_keyword_file(path, false); });
}
