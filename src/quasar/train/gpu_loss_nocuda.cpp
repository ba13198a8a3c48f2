#include "quasar/core/error.hpp"
#include "quasar/train/gpu_loss.hpp"

namespace quasar::train {

struct GpuLoss::Impl {};
GpuLoss::GpuLoss(Precision) { throw Error("training on the GPU: this build has no CUDA backend"); }
GpuLoss::~GpuLoss() = default;
void GpuLoss::set_model(const dp::DpModel&) {}
void GpuLoss::download(dp::DpModel&) const {}
void GpuLoss::moments(std::vector<double>&, std::vector<double>&) const {}
void GpuLoss::set_moments(const std::vector<double>&, const std::vector<double>&) {}
FrameLoss GpuLoss::frame_loss(const Structure&, const LossWeights&, bool) { return {}; }
void GpuLoss::zero_gradient() {}
void GpuLoss::adam_step(double, long, double) {}
FrameLoss GpuLoss::frame_loss(const dp::DpModel&, const Structure&, const LossWeights&, ModelGrad*) { return {}; }

}  // namespace quasar::train
