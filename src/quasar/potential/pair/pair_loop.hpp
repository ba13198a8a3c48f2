#pragma once
// CPU reference loop over a half neighbour list for any pair potential: the evaluator gives, for a
// pair of types at squared distance r2, the scalar fpair (force on i = fpair * (r_i - r_j)) and the
// pair energy. The CUDA twin is pair_loop.cuh; both use the same evaluator. `special` scales or
// skips bonded pairs (core/exclusions.hpp: SpecialWeights); the default NoSpecial compiles to the
// plain loop. With ghosts (AtomState's n_local), each pair counts with the weight of add_shared_pair
// (ghosts and special weights do not meet: the potential refuses the pair of them).
#include "quasar/core/exclusions.hpp"
#include "quasar/potential/pair/pair_sums.hpp"

namespace quasar {

template <class Eval, class Special = NoSpecial>
void pair_loop_cpu(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                   ForceOutput& out, device::ThreadBuffers& buffers, const Special& special = {}) {
  ThreadedHalfListSums threaded(atoms, req, out, buffers);
  const AtomsRef a = atoms.ref();
  if (!Special::kActive && atoms.n_local() < atoms.size()) {
    threaded.run(a.n, [&](HalfListSums& sums, int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const double li = a.id[i] < a.n_local ? 1.0 : 0.0;
        for (int k = 0; k < list.count[i]; ++k) {
          int j;
          const Vec3 d = list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j);
          const double lj = a.id[j] < a.n_local ? 1.0 : 0.0;
          double fpair, e;
          if (li + lj > 0 && eval(a.type[i], a.type[j], norm2(d), fpair, e))
            sums.add_shared_pair(i, j, li, lj, d, 0.5 * (li + lj) * fpair, e);
        }
      }
    });
    threaded.finish();
    return;
  }
  threaded.run(a.n, [&](HalfListSums& sums, int begin, int end) {
    for (int i = begin; i < end; ++i) {
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
  });
  threaded.finish();
}

}  // namespace quasar
