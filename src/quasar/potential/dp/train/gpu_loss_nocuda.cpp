#include "quasar/core/error.hpp"
#include "quasar/potential/dp/train/gpu_loss.hpp"

namespace quasar::dp {

struct GpuLoss::Impl {};
GpuLoss::GpuLoss(Precision) { throw Error("training on the GPU: this build has no CUDA backend"); }
GpuLoss::~GpuLoss() = default;
void GpuLoss::set_model(const DpModel&) {}
void GpuLoss::download(DpModel&) const {}
nn::Parameters GpuLoss::parameters() { return {}; }
train::FrameLoss GpuLoss::frame_loss(const Structure&, const LossWeights&, bool) { return {}; }
void GpuLoss::zero_gradient() {}
train::FrameLoss GpuLoss::frame_loss(const DpModel&, const Structure&, const LossWeights&, ModelGrad*) { return {}; }

}  // namespace quasar::dp
