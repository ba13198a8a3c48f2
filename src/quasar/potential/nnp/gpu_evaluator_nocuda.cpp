#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/gpu_evaluator.hpp"

namespace quasar::nnp {

struct GpuEvaluator::Impl {};

GpuEvaluator::GpuEvaluator(const Descriptor&, const PreparedModel&, Precision) {
  throw Error("nnp: this build has no CUDA backend");
}
GpuEvaluator::~GpuEvaluator() = default;
void GpuEvaluator::compute(AtomsRef, const NeighborRef&, const int*, const std::vector<int>&, double*, double*, double*,
                           device::FixedPointSums*, bool) {
  throw Error("nnp: this build has no CUDA backend");
}

}  // namespace quasar::nnp
