// A build without CUDA: no GPU Jacobians (the training keeps them on the CPU).
#include "quasar/device/backend.hpp"
#include "quasar/potential/nnp/train/gpu_jacobians.hpp"

namespace quasar::nnp {

struct GpuJacobians::Impl {};
GpuJacobians::GpuJacobians(const TrainingNetworks&, bool) { throw_no_cuda("the training's Jacobians on the GPU"); }
GpuJacobians::~GpuJacobians() = default;
bool GpuJacobians::has(std::size_t) const { return false; }
void GpuJacobians::add(std::size_t, const TrainingStructure&, const StructureInputs&) {}
void GpuJacobians::add_computed(std::span<const std::size_t>, std::span<const TrainingStructure* const>,
                                std::span<const Neighborhood>, bool) {}
std::vector<int> GpuJacobians::neighbor_elements(std::size_t, int) const { return {}; }
StructureInputs GpuJacobians::inputs(std::size_t) const { return {}; }
void GpuJacobians::set_weights(const TrainingNetworks&) {}
void GpuJacobians::set_weights(const double*) {}
double GpuJacobians::energy(std::size_t, double*) { return 0; }
double GpuJacobians::force(std::size_t, int, int, double*) { return 0; }
void GpuJacobians::scale(double*, long, double) {}

}  // namespace quasar::nnp
