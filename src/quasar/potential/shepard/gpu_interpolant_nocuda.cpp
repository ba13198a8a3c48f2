// Without CUDA the GPU interpolation is an error at construction.
#include "quasar/device/backend.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"

namespace quasar::shepard {

struct GpuInterpolant::Impl {};

GpuInterpolant::GpuInterpolant(const Interpolant&, GpuLimits) { throw_no_cuda("the shepard GPU interpolation"); }
GpuInterpolant::~GpuInterpolant() = default;
void GpuInterpolant::evaluate_batch(std::span<const double>, std::span<double>, std::span<double>) {}
void GpuInterpolant::evaluate_groups(std::span<const double>, std::span<const int>, std::span<const int>,
                                     std::span<double>, std::span<double>) {}
void GpuInterpolant::evaluate_device(const double*, int, double*, double*) {}
double GpuInterpolant::mean_neighbours() const { return 0; }

}  // namespace quasar::shepard
