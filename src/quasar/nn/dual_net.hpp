#pragma once
// Networks carrying a tangent (forward mode) with the reverse pass of both: what the force and
// virial terms of the training loss need, since the force is itself a derivative of the energy.
// Forward per layer: z = x W + b, z' = x' W, y = act(z) idt (+ x), y' = act'(z) z' idt (+ x').
#include <vector>

#include "quasar/nn/network.hpp"

namespace quasar::nn {

// Gradient with respect to a network's parameters, shaped as its layers.
struct NetworkGrad {
  std::vector<std::vector<double>> w, b, idt;
  void zero_like(const Network& n);
  void add(const NetworkGrad& o, double scale = 1.0);
};

struct DualTrace {
  std::vector<std::vector<double>> x, dx, z, dz;  // every layer's input and pre-activation, with tangents
};

// Output y and tangent dy for input x with tangent dx.
void dual_forward(const Network& n, const double* x, const double* dx, DualTrace& t, std::vector<double>& y,
                  std::vector<double>& dy);
// Given dPhi/dy and dPhi/dy', adds dPhi/d(parameters) to g and writes dPhi/dx, dPhi/dx' (when not null).
void dual_backward(const Network& n, const DualTrace& t, const double* gy, const double* gdy, NetworkGrad& g,
                   double* gx, double* gdx);

}  // namespace quasar::nn
