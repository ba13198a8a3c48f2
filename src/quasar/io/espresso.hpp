#pragma once
// Quantum ESPRESSO pw.x output (scf runs with tprnfor and tstress): the structure with its energy
// (the "!" total energy, which with smearing is the free energy the forces derive from), forces and
// virial, converted to eV, Å and the LAMMPS virial convention (W = sigma_QE V: positive under
// compression).
#include <string>

#include "quasar/core/structure.hpp"

namespace quasar::io {

bool is_pw_output(const std::string& path);
Structure read_pw_output(const std::string& path);

}  // namespace quasar::io
