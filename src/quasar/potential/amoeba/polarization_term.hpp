#pragma once
// AMOEBA's polarization energy (Tinker's "Polarization") on the CPU in double:
//   E = -(f/2) sum_i u_d,i . E_p,i
// with the induced dipoles of induced_dipoles.hpp. Its gradient, with the dipoles solving their
// equations (variational), is
//   dE = -(f/2) [u_d . dE_p + u_p . dE_d + u_p . dT u_d]
// (the last term only for MUTUAL), each a sum over pairs of a dipole interacting with a permanent
// multipole or another dipole through the Thole-damped kernel: their pair gradients, and the chain
// rule through the frames of the permanent multipoles (multipole_frame.hpp). With Ewald sums the pairs
// take the real-space kernels too, and the reciprocal part is the derivative of PME energies of sums
// of the moment sets (polarization_term.cpp).
#include <vector>

#include "quasar/potential/amoeba/induced_dipoles.hpp"
#include "quasar/potential/amoeba/multipole_term.hpp"

namespace quasar::amoeba {

// The pair part's per-atom sums when computed elsewhere (polar_gpu.hpp: polar_forms.hpp's sums on
// the GPU, or on the host for tests), already times f/2: dE/dx (3 n), dE/dM (13 n), each atom's half
// of its pairs' virial (9 n, row-major), and the count of interacting pairs.
struct PolarPairSums {
  std::vector<double> grad, dM, virial;
  long pairs = 0;
};

// pair_sums: the pair loop's result computed elsewhere (null: the CPU's loop here).
ElectrostaticResult polarization_energy(const ElectrostaticSystem& e, const PairGeometry& g,
                                        const std::vector<Vec3>& positions, const InducedDipoles& u, bool per_atom,
                                        const PolarPairSums* pair_sums = nullptr);

}  // namespace quasar::amoeba
