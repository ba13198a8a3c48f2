#pragma once
// n2p2's training keywords of input.nn (kept by the reader in Model::training_keywords), read into
// what Quasar's n2p2-style training uses. Every keyword is checked (type, range, the combinations
// n2p2 accepts); a keyword whose feature Quasar does not train (charges, preconditioned or
// Nguyen-Widrow weights, repeated energy updates) is an InputError naming it and its line. The
// keywords that only steer n2p2's MPI parallelism or its output are accepted with their documented
// meaning (docs/user-guide.md).
#include <filesystem>
#include <map>
#include <string>

#include "quasar/nn/kalman.hpp"
#include "quasar/potential/nnp/model.hpp"

namespace quasar::nnp {

// How update candidates are picked (selection_mode): in random order, the largest errors first, or
// in random order skipping those whose error is below a threshold times the training RMSE.
enum class Selection { Random = 0, Sort = 1, Threshold = 2 };

// The update plan of one property (energies or forces).
struct PropertyPlan {
  double fraction = 0;  // energy_fraction / force_fraction: share of the patterns used per epoch
  long batch = 1;       // task_batch_size_*: candidates per update (0: the whole fraction at once)
  std::map<long, Selection> selection{{0, Selection::Random}};  // epoch -> mode from that epoch on
  double threshold = 0;                                         // rmse_threshold(_energy|_force)
  long trials = 0;                                              // rmse_threshold_trials(_energy|_force)
  Selection selection_at(long epoch) const;
};

// When comparison and weight files are written (write_* keywords): at epochs that are multiples of
// `every`, and at every epoch up to `always`; never when every is 0.
struct WriteSchedule {
  long every = 0, always = 0;
  bool at(long epoch) const { return every > 0 && (epoch % every == 0 || epoch <= always); }
};

struct TrainingSettings {
  long epochs = 0;
  double test_fraction = 0;
  unsigned long seed = 0;   // random_seed
  bool use_forces = false;  // use_short_forces
  double force_weight = 1;  // force_weight: scales the force errors and Jacobians
  PropertyPlan energy, force;
  bool force_energy_ratio_given = false;
  double force_energy_ratio = 0;  // force_energy_ratio: force updates per energy update, replacing force_fraction

  enum class Updater { GradientDescent = 0, KalmanFilter = 1 };
  Updater updater = Updater::KalmanFilter;
  enum class Descent { Fixed = 0, Adam = 1 };
  Descent descent = Descent::Fixed;
  double gradient_eta = 0, adam_eta = 0, adam_beta1 = 0.9, adam_beta2 = 0.999, adam_epsilon = 1e-8;
  nn::KalmanSettings kalman;       // qtau and etatau as input.nn gives them (per epoch, not yet per update)
  bool kalman_eta_growth = false;  // kalman_etatau and kalman_etamax given

  enum class Strategy { Combined = 0, PerElement = 1 };
  Strategy strategy = Strategy::Combined;
  // jacobian_mode: 0 and 1 sum the Jacobians of a batch into one observation (one process is one
  // task), 2 gives each candidate its own.
  bool full_jacobian = false;

  double weights_min = -1, weights_max = 1;
  bool use_old_weights = false;     // use_old_weights_short: start from the folder's weights files
  bool nguyen_widrow = false;       // nguyen_widrow_weights_short: n2p2's Nguyen-Widrow scaling of the initial weights
  bool normalize_data_set = false;  // normalize_data_set ref: mean_energy, conv_* from the data
  bool memorize = false;            // memorize_symfunc_results

  std::string error_metric = "RMSEpa";                        // main_error_metric: what the progress lines show
  WriteSchedule write_energies, write_forces, write_weights;  // write_trainpoints, _trainforces, _weights_epoch
};

// The settings of a model read from `input_nn` (the file named in errors). Throws InputError naming
// the keyword and its line.
TrainingSettings read_training_settings(const Model& model, const std::filesystem::path& input_nn);

}  // namespace quasar::nnp
