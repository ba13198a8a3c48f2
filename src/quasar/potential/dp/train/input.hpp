#pragma once
// DeePMD-kit's training input (input.json) for se_e2_a energy models: the model, learning_rate,
// loss and training sections. Keys that would change the result and are not supported, or are
// unknown, are errors naming the key; "_comment..." keys and display-only keys are ignored.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quasar::dp {

struct TrainInput {
  // model
  std::vector<std::string> type_map;
  std::vector<int> sel;
  double rcut = 6, rcut_smth = 0.5, env_protection = 0;
  std::vector<int> embedding_neuron = {10, 20, 40}, fitting_neuron = {120, 120, 120};
  int axis_neuron = 4;
  bool embedding_resnet_dt = false, fitting_resnet_dt = true, type_one_side = false;
  std::string activation = "tanh", fitting_activation = "tanh", precision = "float64";
  std::vector<std::pair<int, int>> exclude_types;
  unsigned descriptor_seed = 1, fitting_seed = 1;
  // learning_rate (exponential decay from start_lr to stop_lr over numb_steps)
  double start_lr = 1e-3, stop_lr = 1e-8;
  long decay_steps = 5000;
  // loss prefactors: pref = limit + (start - limit) lr / start_lr
  double start_pref_e = 0.02, limit_pref_e = 1, start_pref_f = 1000, limit_pref_f = 1, start_pref_v = 0,
         limit_pref_v = 0;
  // training
  std::vector<std::string> training_systems, validation_systems;
  int batch_size = 0;  // frames per step; 0: "auto" (at least 32 atoms per batch)
  int validation_batches = 1, validation_batch_size = 1;
  long numb_steps = 1000, disp_freq = 100, save_freq = 1000;
  unsigned seed = 1;
  std::string disp_file = "lcurve.out", save_ckpt = "model.ckpt";
  int stat_frames = 10;  // frames per system (spread over it) for the statistics (data_stat_nbatch)
};

// Paths of systems are relative to base_dir (the input file's folder).
TrainInput parse_train_input(const nlohmann::json& root, const std::string& origin, const std::string& base_dir);
TrainInput read_train_input(const std::string& path);

}  // namespace quasar::dp
