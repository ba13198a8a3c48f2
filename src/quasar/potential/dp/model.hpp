#pragma once
// Deep Potential energy models with the se_e2_a descriptor, as DeePMD-kit v3 serialises them
// (backend-independent .yaml; the same dictionary is what .dp files hold as JSON).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quasar/nn/network.hpp"

namespace quasar::dp {

struct SeE2A {
  double rcut = 0, rcut_smth = 0, env_protection = 0;
  std::vector<int> sel;  // neighbour slots per type
  int axis_neuron = 0;
  bool type_one_side = true;
  std::vector<nn::Network> embeddings;  // ntypes (one side) or ntypes^2 (index centre + neighbour * ntypes)
  std::vector<double> davg, dstd;   // [ntypes][nnei][4]
  std::vector<char> excluded;       // [ntypes][ntypes]: environment rows of these pairs are zeroed
  int nnei() const {
    int n = 0;
    for (int s : sel) n += s;
    return n;
  }
  int m() const { return embeddings.empty() ? 0 : embeddings.front().out_dim(); }
  const nn::Network& embedding(int centre, int neighbour, int ntypes) const {
    return embeddings[type_one_side ? neighbour : centre + neighbour * ntypes];
  }
};

// Settings of the tabulated embedding (compress.hpp), kept in model files as model.quasar_compress.
struct Compression {
  double min_nbor_dist = 0;  // Å: closest neighbour distance the fine table must cover
  double step = 0.01;        // fine stride in the normalised input
  int extrapolate = 5;
};

struct DpModel {
  std::vector<std::string> type_map;
  SeE2A descriptor;
  std::vector<nn::Network> fitting;     // per centre type
  std::vector<double> bias_atom_e;  // per type
  std::vector<double> out_bias;     // per type
  std::vector<char> atom_excluded;  // per type: atomic energy set to zero
  std::vector<char> pair_excluded;  // [ntypes][ntypes]: neighbours dropped from the list (slots become padding)
  // Frame and atomic parameters appended (normalised) to the fitting input after the descriptor.
  int numb_fparam = 0, numb_aparam = 0;
  std::vector<double> fparam_avg, fparam_inv_std, aparam_avg, aparam_inv_std;
  bool compressed = false;
  Compression compression;
  int ntypes() const { return static_cast<int>(type_map.size()); }
};

// The model dictionary (top level with "model", or the model itself); `origin` names the file in
// errors, which say what is not supported.
DpModel model_from_json(const nlohmann::json& root, const std::string& origin);
// A .yaml or .dp file (model_io.hpp).
DpModel read_dp_model(const std::string& path);
// The model as DeePMD-kit's model dictionary (with model_def_script), ready for write_model_dict.
nlohmann::json model_to_dict(const DpModel& model);
// A YAML document as JSON (numbers, booleans and null recognised in plain scalars).
nlohmann::json yaml_file_to_json(const std::string& path);

}  // namespace quasar::dp
