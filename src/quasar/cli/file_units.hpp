#pragma once
// `--units LENGTH,ENERGY` of `quasar eval` and `quasar model-devi`: the units of model files that do
// not state theirs (n2p2's) and of the structure file's numbers, in which the results are reported.
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/core/units.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::cli {

struct Args;

struct FileUnitsOption {
  bool given = false;
  std::string text;                    // as given: "bohr,Ha"
  units::FileUnits units;              // in Å and eV (1, 1 when not given)
  std::string length_name = "Å", energy_name = "eV";  // for the output's labels
  ModelOptions model_options() const;  // {"units": text} when given
};

// Reads --units from `a`; a UsageError naming --units when it cannot be read.
FileUnitsOption file_units_option(const Args& a);

// The frames' lengths (positions, cell, origin) from the file's unit to Å.
void to_engine_units(std::vector<Structure>& frames, double length);
// Energies, forces and virials from eV and Å to the file's units.
void to_file_units(Evaluation& e, const units::FileUnits& u);

}  // namespace quasar::cli
