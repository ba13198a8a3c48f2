#pragma once
// The training loss of loss.hpp and its exact gradient on the GPU (double or mixed32). The same
// two passes as the CPU reference: forces, virial and energy (forward, then reverse to dE/dD and the
// force kernel of the inference code), then one forward pass carrying tangents along the
// displacement field d' and one reverse pass through both, every network layer as cuBLAS GEMMs over
// all neighbour rows (embedding) or atoms (fitting) of one centre type (nn/dual_layers.cuh).
// The embedding's input is the scalar s_hat, so its tangent is dG/ds times s_hat'; h carries
// s_hat' times the gradient with respect to the tangent (see gpu_loss.cu).
#include <memory>
#include <vector>

#include "quasar/nn/parameters.hpp"
#include "quasar/potential/dp/deep_potential_gpu.hpp"
#include "quasar/potential/dp/train/loss.hpp"

namespace quasar::dp {

class GpuLoss {
 public:
  // double, or mixed32: networks, traces and gradient in float (environment, forces, the loss and
  // Adam's master parameters in double).
  explicit GpuLoss(Precision precision = Precision::Double);
  ~GpuLoss();
  GpuLoss(const GpuLoss&) = delete;
  GpuLoss& operator=(const GpuLoss&) = delete;

  // The model to train: its parameters go to the GPU.
  void set_model(const DpModel& model);
  // The current parameters into `model` (of the same shape).
  void download(DpModel& model) const;
  // The parameters and the gradient held, for the optimiser (nn/adam.hpp): flat on the GPU, in the
  // CPU trainer's order; the step refreshes the networks' copy in the compute precision.
  nn::Parameters parameters();

  // The frame's loss with the current parameters; its gradient is added to the one held on the
  // GPU when `gradient`. Frames stay on the GPU between calls (keyed by address).
  train::FrameLoss frame_loss(const Structure& frame, const LossWeights& w, bool gradient);
  void zero_gradient();

  // As dp::frame_loss, for one-off use and tests: uploads the model, adds the gradient to grad.
  train::FrameLoss frame_loss(const DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::dp
