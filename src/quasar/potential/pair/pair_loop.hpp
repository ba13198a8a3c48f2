#pragma once
// CPU reference loop over a half neighbour list for any pair potential: the evaluator gives, for a
// pair of types at squared distance r2, the scalar fpair (force on i = fpair * (r_i - r_j)) and the
// pair energy. The CUDA twin is pair_loop.cuh; both use the same evaluator.
#include "quasar/potential/potential.hpp"

namespace quasar {

template <class Eval>
void pair_loop_cpu(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                   ForceOutput& out) {
  AtomsRef a = atoms.ref();
  const int n = a.n;
  for (int i = 0; i < n; ++i) a.fx[i] = a.fy[i] = a.fz[i] = 0;
  if (req.per_atom) {
    out.atom_energy.resize(n);
    out.atom_virial.resize(9 * static_cast<std::size_t>(n));
    out.atom_energy.set_zero();
    out.atom_virial.set_zero();
  }
  double energy = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const int ti = a.type[i];
    for (int k = 0; k < list.count[i]; ++k) {
      int j;
      const Vec3 d = list.delta(a.box, a.x, a.y, a.z, i, k, j);
      const double r2 = norm2(d);
      double fpair, e;
      if (!eval(ti, a.type[j], r2, fpair, e)) continue;
      a.fx[i] -= fpair * d.x;
      a.fy[i] -= fpair * d.y;
      a.fz[i] -= fpair * d.z;
      a.fx[j] += fpair * d.x;
      a.fy[j] += fpair * d.y;
      a.fz[j] += fpair * d.z;
      energy += e;
      const double v[9] = {d.x * d.x, d.x * d.y, d.x * d.z, d.y * d.x, d.y * d.y,
                           d.y * d.z, d.z * d.x, d.z * d.y, d.z * d.z};
      for (int c = 0; c < 9; ++c) w[c] += fpair * v[c];
      if (req.per_atom) {
        out.atom_energy[i] += 0.5 * e;
        out.atom_energy[j] += 0.5 * e;
        for (int c = 0; c < 9; ++c) {
          out.atom_virial[c * static_cast<std::size_t>(n) + i] += 0.5 * fpair * v[c];
          out.atom_virial[c * static_cast<std::size_t>(n) + j] += 0.5 * fpair * v[c];
        }
      }
    }
  }
  out.totals[0] = energy;
  for (int c = 0; c < 9; ++c) out.totals[1 + c] = w[c];
}

}  // namespace quasar
