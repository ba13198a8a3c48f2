#pragma once
// The training loss of a Deep Potential on one labelled frame, as DeePMD-kit defines it,
//   L = pe dE^2 / N + pf mean(dF^2) + pv mean(dW^2) / N   (d: prediction - label),
// and its exact gradient with respect to every weight, bias and timestep. The force and virial
// terms are derivatives of the energy, so their gradient needs the energy's second derivatives:
// with u = dL/dF and V = dL/dW fixed, dL/dtheta (those terms) = -d/dtheta of the energy's
// directional derivative along the displacement field d' = -(u_j - u_i) - V d of every neighbour
// pair, which one forward pass with tangents and one reverse pass give (dual_net.hpp).
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/train/dual_net.hpp"

namespace quasar::train {

struct LossWeights {
  double pe = 1, pf = 1, pv = 0;
};

// Gradient with respect to the model's trainable parameters (embedding and fitting nets).
struct ModelGrad {
  std::vector<NetworkGrad> emb, fit;
  void zero_like(const dp::DpModel& m);
  void add(const ModelGrad& o, double scale = 1.0);
};

struct FrameLoss {
  double loss = 0;
  double energy_error = 0;   // prediction - label (eV), 0 when the frame has no energy
  double force_sq = 0;       // sum of squared force component errors (eV^2/Å^2)
  double virial_sq = 0;      // sum of squared virial component errors (eV^2)
  int atoms = 0;
};

// Loss of the frame (labels missing from it contribute nothing); adds its gradient to `grad` when
// not null. The frame's type names must be in the model's type_map.
FrameLoss frame_loss(const dp::DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad);

}  // namespace quasar::train
