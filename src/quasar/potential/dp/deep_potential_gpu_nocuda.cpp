// Builds without CUDA: the GPU evaluator cannot be made.
#include "quasar/core/error.hpp"
#include "quasar/potential/dp/deep_potential_gpu.hpp"

namespace quasar::dp {

struct GpuEvaluator::Impl {};

GpuEvaluator::GpuEvaluator(const DpModel&, const EmbeddingTables*, Precision, long, double) {
  throw Error("deepmd on the GPU: this build has no CUDA backend");
}
GpuEvaluator::~GpuEvaluator() = default;
void GpuEvaluator::set_extra(const std::vector<double>&) {}
void GpuEvaluator::compute(AtomsRef, const NeighborRef&, const int*, const std::vector<int>&, double*, double*, double*,
                           device::FixedPointSums*, bool) {}
double GpuEvaluator::work_bytes() const { return 0; }
long GpuEvaluator::chunk_atoms() const { return 0; }

}  // namespace quasar::dp
