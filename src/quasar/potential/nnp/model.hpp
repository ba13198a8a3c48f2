#pragma once
// A high-dimensional neural-network potential of Behler and Parrinello as n2p2 describes it (input.nn,
// scaling.data, weights.ZZZ.data): plain data, in the units of the model's files. `model_io.hpp` reads
// and writes it; the evaluators convert lengths and energies to the engine's units when they bind.
#include <map>
#include <string>
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
  bool core_alt = false;             // compact types: the subtype's suffix "a"
  int line = 0;                      // the line of input.nn that defined it (for messages)
};

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
  std::vector<Scaling> scaling;              // one per function, same order
  std::vector<double> weights;               // as weights.ZZZ.data, in file order
};

struct Model {
  std::vector<ElementModel> elements;        // sorted by atomic number
  CutoffKind cutoff = CutoffKind::Hard;
  double cutoff_alpha = 0;                   // inner cutoff as a fraction of each function's rc
  ScalingMode scaling = ScalingMode::None;
  double scale_min = 0, scale_max = 1;       // scale_min_short, scale_max_short
  // Network shape, the same for every element: hidden layer widths, then one activation letter per
  // layer (hidden layers and the output layer).
  std::vector<int> hidden;
  std::string activations;
  bool normalize_nodes = false;
  // Normalisation (all three or none): E* = (E - N mean_energy) conv_energy, lengths times conv_length.
  bool normalized = false;
  double mean_energy = 0, conv_energy = 1, conv_length = 1;
  // The units of the files, which n2p2 does not record: the length unit in Å, the energy unit in eV.
  double length_unit = 1, energy_unit = 1;
  double max_cutoff() const;                 // the largest rc of any function (model units)
  // Keywords n2p2 reads for training, with their values and lines, kept for `quasar train`.
  std::map<std::string, std::pair<std::string, int>> training_keywords;
};

}  // namespace quasar::nnp
