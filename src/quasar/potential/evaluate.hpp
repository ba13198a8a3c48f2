#pragma once
// One evaluation of a potential for a structure, results on the host in the structure's atom order:
// what `quasar eval`, the tests and the bindings use.
#include <vector>

#include "quasar/potential/potential.hpp"

namespace quasar {

struct Evaluation {
  double energy = 0;
  std::vector<Vec3> forces;
  Mat3 virial{};
  std::vector<double> atom_energy;  // when per_atom
  std::vector<Mat3> atom_virial;    // when per_atom
};

// n_local >= 0: atoms from n_local on are ghosts (AtomState), for potentials that support them.
// deterministic: GPU sums in fixed point, bit-identical from run to run (ForceOutput).
Evaluation evaluate(Potential& potential, const Structure& s, Backend backend, bool per_atom = false, int n_local = -1,
                    bool deterministic = false);

// Several potentials on one copy of the structure on the backend: one upload, one neighbour list
// per list kind (with the largest cutoff of the potentials that use it).
std::vector<Evaluation> evaluate_all(const std::vector<Potential*>& potentials, const Structure& s, Backend backend,
                                     bool per_atom = false, int n_local = -1, bool deterministic = false);

}  // namespace quasar
