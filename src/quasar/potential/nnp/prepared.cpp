#include "quasar/potential/nnp/prepared.hpp"

#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::nnp {

nn::Activation activation_of_letter(char letter) {
  switch (letter) {
    case 'l': return nn::Activation::Linear;
    case 't': return nn::Activation::Tanh;
    case 's': return nn::Activation::Sigmoid;
    case 'p': return nn::Activation::Softplus;
    case 'r': return nn::Activation::Relu;
    case 'g': return nn::Activation::Gaussian;
    case 'c': return nn::Activation::Cos;
    case 'S': return nn::Activation::ReverseSigmoid;
    case 'e': return nn::Activation::ExpNeg;
    case 'h': return nn::Activation::Square;
    default: break;
  }
  throw Error(std::string("nnp: unknown activation letter '") + letter + "' (n2p2's are l t s p r g c S e h)");
}

namespace {

// The input map of one symmetry function: n2p2's scaling modes as s = a G + b.
void scaling_of(const Model& m, const Scaling& s, double& a, double& b) {
  const double span = m.scale_max - m.scale_min;
  switch (m.scaling) {
    case ScalingMode::None: a = 1, b = 0; return;
    case ScalingMode::Center: a = 1, b = -s.mean; return;
    case ScalingMode::Scale: a = span / (s.max - s.min), b = m.scale_min - a * s.min; return;
    case ScalingMode::ScaleCenter: a = span / (s.max - s.min), b = m.scale_min - a * s.mean; return;
    case ScalingMode::ScaleSigma: a = span / s.sigma, b = m.scale_min - a * s.mean; return;
  }
}

// Layers of an element's network from n2p2's flat weights (per layer: a_jk with the source j outer,
// then the biases). normalize_nodes divides each neuron's sum by its layer's input count.
nn::Network network_of(const Model& m, const ElementModel& e) {
  nn::Network net;
  std::vector<int> widths{static_cast<int>(e.functions.size())};
  widths.insert(widths.end(), e.hidden.begin(), e.hidden.end());
  widths.push_back(1);
  if (e.activations.size() != widths.size() - 1)
    throw Error("nnp: element " + e.symbol + ": " + std::to_string(widths.size() - 1) + " layers but " +
                std::to_string(e.activations.size()) + " activation letters");
  std::size_t at = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    nn::Layer L;
    L.in = widths[l];
    L.out = widths[l + 1];
    L.act = activation_of_letter(e.activations[l]);
    const double norm = m.normalize_nodes ? 1.0 / L.in : 1.0;
    const std::size_t nw = static_cast<std::size_t>(L.in) * L.out;
    if (at + nw + L.out > e.weights.size())
      throw Error("nnp: element " + e.symbol + ": too few weights for its network");
    L.w.assign(e.weights.begin() + at, e.weights.begin() + at + nw);
    L.b.assign(e.weights.begin() + at + nw, e.weights.begin() + at + nw + L.out);
    for (double& w : L.w) w *= norm;
    for (double& b : L.b) b *= norm;
    at += nw + L.out;
    net.layers.push_back(std::move(L));
  }
  if (at != e.weights.size()) throw Error("nnp: element " + e.symbol + ": more weights than its network has");
  return net;
}

}  // namespace

PreparedModel prepare(const Model& m) {
  PreparedModel p;
  p.energy_scale = m.energy_unit / (m.normalized ? m.conv_energy : 1.0);
  p.cutoff = m.max_cutoff() * m.length_unit;
  for (const ElementModel& e : m.elements) {
    PreparedElement pe;
    pe.symbol = e.symbol;
    pe.net = network_of(m, e);
    const std::size_t n = e.functions.size();
    pe.scale.resize(n);
    pe.shift.resize(n);
    for (std::size_t s = 0; s < n; ++s) scaling_of(m, e.scaling[s], pe.scale[s], pe.shift[s]);
    pe.energy_offset = m.energy_unit * ((m.normalized ? m.mean_energy : 0.0) + e.atom_energy);
    p.elements.push_back(std::move(pe));
  }
  return p;
}

}  // namespace quasar::nnp
