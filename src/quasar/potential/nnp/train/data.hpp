#pragma once
// n2p2's training data as training sees it: the structures of input.data with their atoms mapped to
// the model's elements and their labels, the neighbours of every atom within the model's cutoff,
// and the statistics n2p2's tools compute from them: nnp-scaling's scaling.data (minimum, maximum,
// mean and spread of every symmetry function over all atoms of an element) and nnp-norm's
// normalisation (mean_energy, conv_energy, conv_length). Everything is in the units of the files.
#include <filesystem>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/model.hpp"

namespace quasar::nnp {

struct TrainingStructure {
  long index = 0;  // position in input.data, from 0
  Box box;         // periodic in no direction when input.data gives no lattice
  std::vector<Vec3> positions;
  std::vector<int> element;      // model element of every atom
  std::vector<int> per_element;  // atoms of each element
  double energy = 0;             // reference energy less the atom_energy offsets
  std::vector<Vec3> forces;      // reference forces
  std::size_t size() const { return positions.size(); }
};

// Every structure of input.data; InputError for an element the model lacks, or a structure without
// an energy (or without forces when `need_forces`).
std::vector<TrainingStructure> read_training_data(const std::filesystem::path& input_data, const Model& model,
                                                  bool need_forces);

// The neighbours of each atom closer than `cutoff` (every periodic image), and which atom each is.
struct Neighborhood {
  std::vector<std::vector<NeighborEntry>> entries;
  std::vector<std::vector<int>> atoms;
};
Neighborhood neighborhood(const TrainingStructure& s, double cutoff);

// nnp-scaling's statistics of the raw symmetry functions of every element over all atoms of the
// structures, summed in n2p2's order (structure by structure, atom by atom); sigma is n2p2's
// sqrt((sum G^2 - (sum G)^2 / n) / (n - 1)). Throws Error for an element without atoms.
std::vector<std::vector<Scaling>> symmetry_function_statistics(const Model& model,
                                                               const std::vector<TrainingStructure>& structures);

// nnp-norm's normalisation: mean_energy the mean over structures of the energy per atom, conv_energy
// 1 / its standard deviation, conv_length the standard deviation of the force components (about their
// mean) times conv_energy.
struct Normalization {
  double mean_energy = 0, conv_energy = 1, conv_length = 1;
};
Normalization data_normalization(const std::vector<TrainingStructure>& structures);

}  // namespace quasar::nnp
