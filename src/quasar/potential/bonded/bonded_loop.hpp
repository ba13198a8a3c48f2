#pragma once
// The CPU reference of a bonded term, in double: every entry once, its forces added to its atoms,
// its energy and virial to the totals and, when asked, an equal share of both to each of its atoms
// (LAMMPS's split). The kernel (bonded.cu) computes the same per atom.
#include "quasar/potential/bonded/bonded_forms.hpp"
#include "quasar/potential/bonded/bonded_list.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

template <class Form>
void bonded_loop_cpu(const Form& form, const BondedRef& list, AtomState& atoms, const ComputeRequest& req,
                     ForceOutput& out) {
  constexpr int kArity = Form::kArity;
  constexpr double kShare = 1.0 / kArity;
  const AtomsRef a = atoms.ref();
  const std::size_t n = static_cast<std::size_t>(a.n);
  double energy = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int e = 0; e < list.entries; ++e) {
    BondedGeometry<kArity> g{a, {}};
    for (int m = 0; m < kArity; ++m) g.idx[m] = a.index_of[list.atoms[static_cast<long>(e) * kArity + m]];
    Vec3 f[kArity];
    double we[9];
    const double ee = form(list.type[e], g, f, we);
    for (int m = 0; m < kArity; ++m) {
      a.fx[g.idx[m]] += f[m].x;
      a.fy[g.idx[m]] += f[m].y;
      a.fz[g.idx[m]] += f[m].z;
    }
    energy += ee;
    for (int c = 0; c < 9; ++c) w[c] += we[c];
    if (!req.per_atom) continue;
    for (int m = 0; m < kArity; ++m) {
      const std::size_t i = static_cast<std::size_t>(g.idx[m]);
      out.atom_energy[i] += kShare * ee;
      for (int c = 0; c < 9; ++c) out.atom_virial[static_cast<std::size_t>(c) * n + i] += kShare * we[c];
    }
  }
  double* t = out.term_totals();
  t[0] += energy;
  for (int c = 0; c < 9; ++c) t[1 + c] += w[c];
}

}  // namespace quasar
