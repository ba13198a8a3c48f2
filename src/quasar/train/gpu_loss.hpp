#pragma once
// The training loss of loss.hpp and its exact gradient on the GPU (double or mixed32). The same
// two passes as the CPU reference: forces, virial and energy (forward, then reverse to dE/dD and the
// force kernel of the inference code), then one forward pass carrying tangents along the
// displacement field d' and one reverse pass through both, every network layer as cuBLAS GEMMs over
// all neighbour rows (embedding) or atoms (fitting) of one centre type:
//   forward  Z = [x; x'] W (+ b on the value rows), Y = act(Z) idt (+ residual), traces kept;
//   reverse  gZ = [gy act' idt + h act'' z' idt; h act' idt], gW += [x; x']^T gZ, gX = gZ W^T.
// The embedding's input is the scalar s_hat, so its tangent is dG/ds times s_hat'; h carries
// s_hat' times the gradient with respect to the tangent (see gpu_loss.cu).
#include <memory>
#include <vector>

#include "quasar/potential/dp/deep_potential_gpu.hpp"
#include "quasar/train/loss.hpp"

namespace quasar::train {

class GpuLoss {
 public:
  // double, or mixed32: networks, traces and gradient in float (environment, forces, the loss and
  // Adam's master parameters in double).
  explicit GpuLoss(Precision precision = Precision::Double);
  ~GpuLoss();
  GpuLoss(const GpuLoss&) = delete;
  GpuLoss& operator=(const GpuLoss&) = delete;

  // The model to train: its parameters go to the GPU (Adam's moments start at zero).
  void set_model(const dp::DpModel& model);
  // The current parameters into `model` (of the same shape), and Adam's moments in the CPU
  // trainer's parameter order.
  void download(dp::DpModel& model) const;
  void moments(std::vector<double>& m, std::vector<double>& v) const;
  void set_moments(const std::vector<double>& m, const std::vector<double>& v);

  // The frame's loss with the current parameters; its gradient is added to the one held on the
  // GPU when `gradient`. Frames stay on the GPU between calls (keyed by address).
  FrameLoss frame_loss(const Structure& frame, const LossWeights& w, bool gradient);
  void zero_gradient();
  // One Adam step (as the CPU trainer's) on the gradient held, divided by `frames`.
  void adam_step(double lr, long t, double frames);

  // As train::frame_loss, for one-off use and tests: uploads the model, adds the gradient to grad.
  FrameLoss frame_loss(const dp::DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::train
