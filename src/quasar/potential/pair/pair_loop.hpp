#pragma once
// CPU reference loop over a half neighbour list for any pair potential: the evaluator gives, for a
// pair of types at squared distance r2, the scalar fpair (force on i = fpair * (r_i - r_j)) and the
// pair energy. The CUDA twin is pair_loop.cuh; both use the same evaluator. `special` scales or
// skips bonded pairs (core/exclusions.hpp: SpecialWeights); the default NoSpecial compiles to the
// plain loop.
#include "quasar/core/exclusions.hpp"
#include "quasar/potential/pair/pair_sums.hpp"

namespace quasar {

template <class Eval, class Special = NoSpecial>
void pair_loop_cpu(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                   ForceOutput& out, const Special& special = {}) {
  HalfListSums sums(atoms, req, out);
  const AtomsRef a = atoms.ref();
  for (int i = 0; i < a.n; ++i) {
    const int ti = a.type[i];
    for (int k = 0; k < list.count[i]; ++k) {
      int j;
      const Vec3 d = list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j);
      double fpair, e;
      if (!eval(ti, a.type[j], norm2(d), fpair, e)) continue;
      if constexpr (Special::kActive) {
        const double w = special.weight(a.id[i], a.id[j]);
        if (w == 0.0) continue;
        fpair *= w;
        e *= w;
      }
      sums.add_pair(i, j, d, fpair, e);
    }
  }
  sums.finish();
}

}  // namespace quasar
