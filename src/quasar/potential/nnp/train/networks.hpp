#pragma once
// The atomic networks of a model under training, and what n2p2's updates need of them, in the
// training units (E* = (E - N mean_energy) conv_energy, lengths times conv_length; the units of the
// files when the model has no normalisation): predictions of energies and forces, and their
// Jacobians with respect to the weights in n2p2's order (per element: each layer's weights, source
// neuron outer and target neuron inner, then its biases; the elements one after another).
//
// The energy is the sum of the atoms' network outputs; its Jacobian the sum of each output's gradient.
// A force component F_ac = -dE*/dX*_ac is a directional derivative: along the displacement of atom a
// in direction c, every centre whose neighbourhood holds a (and a itself) sees its symmetry functions
// change (Descriptor::tangent), the networks carry that tangent forward (nn::dual_forward) and the
// reverse pass of the tangent output (nn::dual_backward) gives dF_ac/dw. No second-derivative tensor
// is formed.
#include <vector>

#include "quasar/nn/dual_net.hpp"
#include "quasar/nn/network.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/model.hpp"
#include "quasar/potential/nnp/train/data.hpp"

namespace quasar::nnp {

// A structure ready for the networks: its neighbourhood, the scaled inputs of every atom and, when
// kept, the derivatives of its raw symmetry functions by its neighbours' displacements
// (Descriptor::jacobian: forces and force Jacobians then contract them instead of recomputing the
// functions).
struct StructureInputs {
  Neighborhood neighbors;
  std::vector<std::vector<double>> x;
  std::vector<std::vector<double>> derivatives;  // per atom, or empty
};

class TrainingNetworks {
 public:
  // The model needs scaling rows and weights; conv_length is 1 without normalisation.
  TrainingNetworks(const Model& model, double conv_length);

  int element_count() const { return static_cast<int>(nets_.size()); }
  // Weights of element e and where they start in the elements' combined order.
  long parameter_count(int e) const { return counts_[e]; }
  long offset(int e) const { return offsets_[e]; }
  long parameter_count() const { return offsets_.back(); }
  // All weights in the combined order, and back.
  std::vector<double> weights() const;
  void set_weights(const double* w);
  const Descriptor& descriptor() const { return descriptor_; }
  // Element e's network (normalize_nodes folded into its weights), the factor of each of its layers
  // (1 / inputs with normalize_nodes, else 1), and its inputs' scale (s = scale G + shift).
  const nn::Network& network(int e) const { return nets_[e]; }
  const std::vector<double>& layer_factors(int e) const { return layer_norm_[e]; }
  const std::vector<double>& input_scale(int e) const { return scale_[e]; }
  const std::vector<double>& input_shift(int e) const { return shift_[e]; }
  double inverse_length() const { return inv_length_; }

  StructureInputs inputs(const TrainingStructure& s, bool derivatives = false) const;

  // The predicted energy of a structure; with `jacobian` (parameter_count() values) its gradient is
  // added there.
  double energy(const TrainingStructure& s, const StructureInputs& in, double* jacobian = nullptr) const;
  // The predicted force component c of atom a; with `jacobian` its gradient is added there.
  double force(const TrainingStructure& s, const StructureInputs& in, int a, int c, double* jacobian = nullptr) const;
  // The energy and all forces (3 n values, atom by atom) of a structure.
  double energy_and_forces(const TrainingStructure& s, const StructureInputs& in, std::vector<double>& forces) const;

 private:
  // Adds g (a gradient of element e's network) to jacobian in n2p2's order.
  void add_gradient(int e, const nn::NetworkGrad& g, double* jacobian) const;

  Descriptor descriptor_;
  std::vector<nn::Network> nets_;
  std::vector<std::vector<double>> scale_, shift_;  // input s = scale G + shift
  std::vector<std::vector<double>> layer_norm_;     // per element and layer: 1 / inputs (normalize_nodes), or 1
  std::vector<long> counts_, offsets_;
  double inv_length_ = 1;  // 1 / conv_length
};

}  // namespace quasar::nnp
