#pragma once
// The induced-dipole tests' systems (amoeba_field_forms_test, amoeba_induce_gpu_test, amoeba_polar_*): a
// polarization-only key bound on the CPU, with the pair geometry and candidates (to the larger of the
// cutoff and the preconditioner's usolve-cutoff) its evaluation uses: amoeba_multipoles.hpp's systems.
#include "amoeba_multipoles.hpp"

namespace quasar::amoeba_test {

using Polarizable = Multipoles;
using PolarSystem = MultipoleSystem;
inline bool load_polarizable(Polarizable& p, PolarSystem which) { return load_electrostatics(p, which, true); }

}  // namespace quasar::amoeba_test
