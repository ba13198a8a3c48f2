#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/pair/pair_loop.cuh"

namespace quasar {

void lj_compute_cuda(const LjEval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                     ForceOutput& out, Array<PackedAtom>& packed, const SpecialWeights* special) {
  if (special) pair_loop_cuda(eval, atoms, list, req, out, packed, *special);
  else pair_loop_cuda(eval, atoms, list, req, out, packed);
}

}  // namespace quasar
