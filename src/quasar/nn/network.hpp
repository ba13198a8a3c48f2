#pragma once
// Dense networks: layers y = act(x W + b), times a timestep idt when present, plus x (out == in) or
// concat(x, x) (out == 2 in) when the layer is residual (DeePMD-kit's EmbeddingNetwork and
// FittingNetwork layers are of this form).
#include <string>
#include <vector>

#include "quasar/nn/activation.hpp"

namespace quasar::nn {

Activation parse_activation(const std::string& name);  // DeePMD-kit's names; throws naming the valid ones
const char* activation_name(Activation a);              // the name DeePMD-kit writes

struct Layer {
  int in = 0, out = 0;
  std::vector<double> w;    // in x out, row-major
  std::vector<double> b;    // out
  std::vector<double> idt;  // out, or empty
  bool resnet = false;
  Activation act = Activation::Tanh;
  // Which residual applies: 0 none, 1 + x, 2 + concat(x, x).
  int residual() const { return !resnet ? 0 : (out == in ? 1 : (out == 2 * in ? 2 : 0)); }
};

struct Network {
  std::vector<Layer> layers;
  int in_dim() const { return layers.empty() ? 0 : layers.front().in; }
  int out_dim() const { return layers.empty() ? 0 : layers.back().out; }

  // Forward pass keeping what the backward pass needs: the input of every layer and the
  // pre-activations. acts[l] is layer l's input; acts.back() the output.
  struct Trace {
    std::vector<std::vector<double>> acts, pre;
  };
  void forward(const double* x, Trace& t) const;
  // Gradient with respect to the input given the gradient with respect to the output.
  void backward(const Trace& t, const double* grad_out, double* grad_in) const;
  // For a one-input network: output and its derivative with respect to the input (forward mode).
  void forward_scalar(double x, std::vector<double>& y, std::vector<double>& dy) const;
  // The same with the second derivative (for tables of the embedding net).
  void forward_scalar(double x, std::vector<double>& y, std::vector<double>& dy, std::vector<double>& d2y) const;
};

}  // namespace quasar::nn
