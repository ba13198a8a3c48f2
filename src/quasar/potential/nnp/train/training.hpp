#pragma once
// n2p2's training of a Behler-Parrinello potential (what nnp-train does, on one process): from a
// folder holding input.nn (with n2p2's training keywords, train/settings.hpp), input.data and
// scaling.data (computed as nnp-scaling does when missing).
//
// Setup: the structures are split at random into training and test sets (test_fraction), the weights
// start uniform in [weights_min, weights_max) with n2p2's Glorot-Bengio scaling of tanh layers and
// zero biases or its Nguyen-Widrow scaling (nguyen_widrow_weights_short), or from the weights files
// (use_old_weights_short), the labels go to the training
// units. Each epoch: the update candidates (training energies; with forces every force component of
// the training structures) are shuffled, or sorted by their error (selection mode 1); the energy and
// force updates of the epoch's plan (energy_fraction, force_fraction, task_batch_size_*) are mixed in
// random order; each update takes its candidates (in threshold mode 2 the first of up to
// rmse_threshold_trials whose error exceeds rmse_threshold times the training RMSE, else the one with
// the largest error), their errors and Jacobians (force ones times force_weight), and one step of the
// updater (train/updaters.hpp): one for all weights, or one per element whose share of an energy
// error is its share of the atoms and of a force error its share of the atom's neighbours. After each
// epoch: the errors of every structure, the learning curve, the weights and comparison files.
//
// With the GPU backend the updaters' states, the errors of each epoch (the inference kernels) and the
// Jacobians (gpu_jacobians.hpp) are there, the Kalman filters run there (cuBLAS): every training
// structure's inputs, and with forces their derivatives, are computed there before the first update
// (from neighbourhoods listed on the CPU's threads; the CPU keeps none, whatever
// memorize_symfunc_results says: it saves the CPU's memory, and the GPU's holds them), and the weights
// stay there through an epoch.
//
// Checkpoints (checkpoint.cpp; docs/formats/nnp-training-checkpoint.md) hold everything the next
// epoch depends on: the weights, the updaters' states, the random stream, the candidates' order, the
// errors of the last epoch and the learning curve so far; a run restarted from one continues as the
// uninterrupted run does (bit for bit on the CPU).
//
// The random numbers come from one 64-bit Mersenne twister seeded with random_seed; they are not
// n2p2's (GSL's), so runs match n2p2's statistically, not number for number. In threshold mode an
// update takes the candidate of the largest error when none exceeds the threshold (n2p2 takes the
// last one tried, though its log reports the largest).
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/device/array.hpp"
#include "quasar/potential/nnp/model.hpp"
#include "quasar/potential/nnp/train/data.hpp"
#include "quasar/potential/nnp/train/gpu_jacobians.hpp"
#include "quasar/potential/nnp/train/networks.hpp"
#include "quasar/potential/nnp/train/outputs.hpp"
#include "quasar/potential/nnp/train/settings.hpp"
#include "quasar/potential/nnp/train/updaters.hpp"
#include "quasar/train/trainable.hpp"

namespace quasar::nnp {

class N2p2Training : public train::TrainingRun {
 public:
  // `input`: input.nn or the folder holding it. The Kalman filter runs on `backend`.
  N2p2Training(const std::filesystem::path& input, Backend backend);
  ~N2p2Training() override;

  // Epoch 0 (the initial weights), then the input's epochs, writing into the folder `output`
  // learning-curve.out, weights.ZZZ.NNNNNN.out and the comparison files as the write_* keywords ask,
  // and at the end the potential (input.nn, scaling.data, weights.ZZZ.data). Returns the model files.
  std::vector<std::string> run(const std::string& output, std::ostream* log) override;
  // Checkpoints, in the folder `output` as training.ckpt: after every `every` epochs (0: at the end
  // only); by default after the epochs whose weights files write_weights_epoch asks for. Always after
  // the last epoch.
  void checkpoint_every(long every) override;
  // Continues from a checkpoint of this input's training (before run()): everything is checked
  // against this run before anything changes (InputError naming the file and what is wrong).
  void restart(const std::string& checkpoint) override;
  void write_checkpoint(const std::string& path);

  // The model with its scaling, normalisation and current weights.
  Model model() const;
  const TrainingSettings& settings() const { return settings_; }
  long epoch() const { return epoch_; }
  // Structures and which are test structures.
  const std::vector<TrainingStructure>& structures() const { return data_; }
  bool is_test(std::size_t s) const { return in_test_[s] != 0; }
  // Updates of the current epoch's plan (energies, forces) and the weights each updater steps.
  long planned_updates(bool forces) const { return forces ? plan_[1].updates : plan_[0].updates; }
  // The errors of the current weights (after compute_errors), in the training units.
  const ErrorMetrics& train_errors() const { return train_metrics_; }
  const ErrorMetrics& test_errors() const { return test_metrics_; }
  const TrainingNetworks& networks() const { return *nets_; }

  // The errors of every structure with the current weights: on the CPU, or, when the run's backend is
  // the GPU, by the inference kernels (NnpPotential in double precision).
  void compute_errors();
  // One epoch of updates (then compute_errors() for its errors).
  void train_epoch();

 private:
  struct ForceCandidate {
    int s, a, c;
  };
  struct Plan {
    long batch = 1;    // candidates per update
    long updates = 0;  // updates per epoch
    std::size_t position = 0;
  };
  struct Candidate {
    int s = 0, a = 0, c = 0;
  };

  void setup_model(const std::filesystem::path& input);
  void setup_sets_and_plan();
  void initial_weights();
  // memorize_symfunc_results keeps every structure's inputs and, with forces, their derivatives.
  bool keep_derivatives() const { return settings_.memorize && settings_.use_forces; }
  const StructureInputs& inputs(std::size_t s);
  void release(std::size_t s);
  double reference(const Candidate& c, bool forces) const;
  double current_error(const Candidate& c, bool forces);
  double relative_error(const Candidate& c, bool forces, double prediction) const;
  void upload_inputs(std::size_t s);  // structure s's inputs and derivatives to the GPU, once
  void upload_all_inputs();           // those of every training structure
  Candidate select(bool forces);
  void update(bool forces);
  void update_on_gpu(bool forces);  // the Jacobians on the GPU (gpu_jacobians.hpp)
  std::vector<double> element_shares(const TrainingStructure& s, const std::vector<int>* neighbors) const;
  void write_epoch_files(const std::filesystem::path& dir);
  void pull_weights();  // the updaters' states into the networks
  void predict_on_cpu();
  void predict_on_gpu();

  std::filesystem::path dir_, input_nn_;
  Model model_;
  TrainingSettings settings_;
  Backend backend_;
  std::vector<TrainingStructure> data_;
  std::vector<Structure> frames_;  // input.data as the inference code reads it (GPU errors)
  std::vector<char> in_test_;
  std::vector<double> energy_ref_;              // training units
  std::vector<std::vector<double>> force_ref_;  // training units, 3 n per structure
  std::unique_ptr<TrainingNetworks> nets_;
  std::vector<std::unique_ptr<StructureInputs>> inputs_;
  std::unique_ptr<GpuJacobians> gpu_;  // with the GPU, kept derivatives and one updater
  Array<double> gpu_jacobian_{Backend::Cuda}, gpu_weights_{Backend::Cuda};
  std::mt19937_64 rng_;
  std::vector<int> energy_candidates_;
  std::vector<ForceCandidate> force_candidates_;
  Plan plan_[2];  // energies, forces
  std::vector<std::unique_ptr<WeightUpdater>> updaters_;
  std::vector<Array<double>> states_, errors_, jacobians_;  // per updater, on backend_
  std::vector<double> energy_pred_;
  std::vector<std::vector<double>> force_pred_;
  ErrorMetrics train_metrics_, test_metrics_;
  long epoch_ = 0;
  bool computed_scaling_ = false;
  long checkpoint_every_ = -1;  // -1: at the weights files' epochs
  bool restarted_ = false;      // a checkpoint gave the state, the errors of epoch_ and the curve so far
  std::string curve_text_;      // learning-curve.out as written so far
};

}  // namespace quasar::nnp
