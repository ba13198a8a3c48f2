#pragma once
// The trainable parameters of networks in one flat order (network by network, layer by layer: w,
// b, idt), the order in which optimisers step them and checkpoints keep their state, on the CPU
// and the GPU alike.
#include <vector>

#include "quasar/nn/dual_net.hpp"

namespace quasar::nn {

// Where one layer's arrays start in the flat order; idt is -1 when the layer has none.
struct LayerOffsets {
  long w = 0, b = 0, idt = -1;
};

// Appends n's parameters to flat; returns where each layer's went.
std::vector<LayerOffsets> append_parameters(const Network& n, std::vector<double>& flat);
// Copies them back from flat into n (of the shape they were taken from).
void read_parameters(const std::vector<double>& flat, const std::vector<LayerOffsets>& at, Network& n);
// Appends a gradient of n (NetworkGrad), in the same order.
void append_gradient(const NetworkGrad& g, std::vector<double>& flat);

// A model's parameters as an optimiser sees them: flat arrays of `size` entries on one backend.
// `values` is the master copy (double) that the step updates. The batch's gradient is in the
// model's compute precision: `gradient` (double) or `gradient32` (float); a model that computes
// from its own copy of the values (in float, or in arrays of its own) names it, `copy` or `copy32`,
// and the step refreshes it.
struct Parameters {
  long size = 0;
  double* values = nullptr;
  const double* gradient = nullptr;
  double* copy = nullptr;
  const float* gradient32 = nullptr;
  float* copy32 = nullptr;
};

}  // namespace quasar::nn
