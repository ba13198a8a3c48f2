#pragma once
// A high-dimensional neural-network potential of Behler and Parrinello as n2p2 describes it (input.nn,
// scaling.data, weights.ZZZ.data): plain data, in the units of the model's files. `model_io.hpp` reads
// and writes it; the evaluators convert lengths and energies to the engine's units when they bind.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace quasar::nnp {

// n2p2's cutoff_type numbers.
enum class CutoffKind : int { Hard = 0, Cos = 1, TanhU = 2, Tanh = 3, Exp = 4, Poly1 = 5, Poly2 = 6, Poly3 = 7, Poly4 = 8 };

// Cores of the compact window functions (types 20-25): the subtypes p1..p4 and e.
enum class WindowCore : int { P1 = 1, P2 = 2, P3 = 3, P4 = 4, Exp = 5 };

// Scaling modes of the symmetry functions (n2p2's scale_symmetry_functions, center_..., ..._sigma).
enum class ScalingMode : int { None, Scale, Center, ScaleCenter, ScaleSigma };

// One symmetry function of one centre element, with the parameters as input.nn gives them (lengths in
// the model's unit, angles in degrees).
struct SymmetryFunction {
  int type = 0;     // n2p2's type: 2, 3, 9, 12, 13, 20, 21, 22, 23, 24, 25
  int centre = 0;   // element index of the centre (elements sorted by atomic number)
  int e1 = -1;      // neighbour element (types 2, 20) or first neighbour (3, 9, 21, 22); -1 for weighted types
  int e2 = -1;      // second neighbour element of angular types, e1 <= e2; -1 otherwise
  double eta = 0, rs = 0, rc = 0, lambda = 0, zeta = 0;  // exponential types (2, 3, 9, 12, 13)
  double rlow = 0, left = 0, right = 0;                  // compact types: radial window [rlow, rc], angles
  WindowCore core = WindowCore::P2;  // compact types: the subtype
  bool core_alt = false;             // compact types: the subtype's suffix "a" (polynomial cores only)
  int line = 0;                      // the line of input.nn that defined it (for messages)
};

// Whether `type` is one of the compact window types (20-25), which have a subtype and no cutoff function.
bool is_compact_type(int type);
// The subtype of a compact function as input.nn writes it: "p1".."p4", "p1a".."p4a" or "e".
std::string compact_subtype(WindowCore core, bool alt);

// n2p2's order of the symmetry functions of one centre element (its SymFnc comparison operators): type
// first, then per type, on the parameters as n2p2 holds them after normalisation (lengths times
// conv_length, eta divided by conv_length squared; pass 1 for a model without normalisation):
//   2: rc, eta, rs, e1              3, 9: rc, eta, rs, zeta, lambda, e1, e2
//   12: rc, eta, rs                 13: rc, eta, rs, zeta, lambda
//   20: subtype (as text), e1, rc, rlow        21, 22: subtype, e1, e2, rc, rlow, left, right
//   23: subtype, rc, rlow                      24, 25: subtype, rc, rlow, left, right
// Element indices compare as numbers (the atomic-number order). Functions equal in every key compare equal.
bool n2p2_before(const SymmetryFunction& a, const SymmetryFunction& b, double conv_length);

// One row of scaling.data: the statistics of a symmetry function over the training set.
struct Scaling {
  double min = 0, max = 0, mean = 0, sigma = 0;
};

// One element's atomic network: n2p2's weights.ZZZ.data values in file order (for each layer: for
// each source neuron j, for each target neuron k the weight a_jk; then the layer's biases).
struct ElementModel {
  std::string symbol;
  int atomic_number = 0;
  double atom_energy = 0;                    // atom_energy offset (model units), 0 when not given
  std::vector<SymmetryFunction> functions;   // in n2p2's sorted order: the network's input order
  std::vector<Scaling> scaling;              // one per function, same order (empty: not read)
  // Network shape (n2p2 allows it per element): hidden layer widths, then one activation letter per
  // layer (hidden layers and the output layer), as global_activation_short writes them.
  std::vector<int> hidden;
  std::string activations;
  std::vector<double> weights;               // as weights.ZZZ.data, in file order (empty: not read)

  // Neurons per layer: the inputs (one per symmetry function), the hidden layers, the one output.
  std::vector<std::size_t> layer_sizes() const;
  // Weights and biases of the network: for each layer, inputs x outputs + outputs.
  std::size_t parameter_count() const;
};

struct Model {
  std::vector<ElementModel> elements;        // sorted by atomic number
  CutoffKind cutoff = CutoffKind::Hard;
  double cutoff_alpha = 0;                   // inner cutoff as a fraction of each function's rc
  ScalingMode scaling = ScalingMode::None;
  double scale_min = 0, scale_max = 1;       // scale_min_short, scale_max_short
  bool normalize_nodes = false;
  // Normalisation (all three or none): E* = (E - N mean_energy) conv_energy, lengths times conv_length.
  bool normalized = false;
  double mean_energy = 0, conv_energy = 1, conv_length = 1;
  // The units of the files, which n2p2 does not record: the length unit in Å, the energy unit in eV.
  double length_unit = 1, energy_unit = 1;
  double max_cutoff() const;                 // the largest rc of any function (model units)
  // Keywords n2p2 reads for training (and conv_charge, which a 2G potential does not use), under
  // n2p2's main name (short_energy_fraction is kept as energy_fraction), with the value text (words
  // joined by single spaces, "" for a flag) and the line of input.nn, kept for `quasar train`.
  std::map<std::string, std::pair<std::string, int>> training_keywords;
};

// Sorts each element's functions into n2p2's order (n2p2_before; stable for functions that compare
// equal), their scaling rows with them.
void sort_symmetry_functions(Model& model);

// The first difference between two models, "" when they are identical: every number bit for bit (so
// 0 and -0 differ), every function in the same order. The lines of input.nn (SymmetryFunction::line
// and those of training_keywords) record where a model came from and are not compared.
std::string model_difference(const Model& a, const Model& b);

}  // namespace quasar::nnp
