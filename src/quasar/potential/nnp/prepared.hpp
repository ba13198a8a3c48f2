#pragma once
// What the evaluators need of an n2p2 model, in the engine's units (Å, eV): per element the atomic
// network (normalize_nodes folded into its weights), the scaling of each symmetry function as
// x = a G + b, and the energy's affine map from the network's output.
#include <string>
#include <vector>

#include "quasar/nn/network.hpp"
#include "quasar/potential/nnp/model.hpp"

namespace quasar::nnp {

struct PreparedElement {
  std::string symbol;
  nn::Network net;
  std::vector<double> scale, shift;  // network input s = scale[s] G_s + shift[s]
  double energy_offset = 0;          // eV added per atom: (mean_energy + atom_energy) in eV
};

struct PreparedModel {
  std::vector<PreparedElement> elements;  // the model's element order
  double energy_scale = 1;                // eV per unit of network output
  double cutoff = 0;                      // Å, the largest of any symmetry function
};

// n2p2's activation letter as the nn module's activation; throws naming the letter.
nn::Activation activation_of_letter(char letter);
PreparedModel prepare(const Model& model);

}  // namespace quasar::nnp
