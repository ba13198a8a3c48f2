#pragma once
// The training loss of a Deep Potential on one labelled frame, as DeePMD-kit defines it,
//   L = pe dE^2 / N + pf mean(dF^2) + pv mean(dW^2) / N   (d: prediction - label),
// and its exact gradient with respect to every weight, bias and timestep. The force and virial
// terms are derivatives of the energy, so their gradient needs the energy's second derivatives:
// with u = dL/dF and V = dL/dW fixed, dL/dtheta (those terms) = -d/dtheta of the energy's
// directional derivative along the displacement field d' = -(u_j - u_i) - V d of every neighbour
// pair, which one forward pass with tangents and one reverse pass give (nn/dual_net.hpp).
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/nn/dual_net.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/train/trainable.hpp"

namespace quasar::dp {

struct LossWeights {
  double pe = 1, pf = 1, pv = 0;
};

// Gradient with respect to the model's trainable parameters (embedding and fitting nets).
struct ModelGrad {
  std::vector<nn::NetworkGrad> emb, fit;
  void zero_like(const DpModel& m);
  void add(const ModelGrad& o, double scale = 1.0);
};

// Loss of the frame (labels missing from it contribute nothing); adds its gradient to `grad` when
// not null. The frame's type names must be in the model's type_map.
train::FrameLoss frame_loss(const DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad);

}  // namespace quasar::dp
