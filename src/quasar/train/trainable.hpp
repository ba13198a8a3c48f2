#pragma once
// What the trainer (train/trainer.hpp) needs of a model family: the loss of a labelled frame and its
// gradient with respect to flat parameters on the family's backend, a new model with statistics
// from the data, the model's files at checkpoints and at the end, and its learning-curve columns.
// The Deep Potential implements it (potential/dp/train/); the family's registry entry makes it
// from a training input (`quasar train`). A family whose method is not the generic trainer's gives
// its own TrainingRun instead (TrainingJob::run).
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/nn/parameters.hpp"
#include "quasar/nn/schedule.hpp"

namespace quasar::train {

// The loss of one frame, with the sums the learning curve reports.
struct FrameLoss {
  double loss = 0;
  double energy_error = 0;  // prediction - label (eV), 0 when the frame has no energy
  double force_sq = 0;      // sum of squared force component errors (eV^2/Å^2)
  double virial_sq = 0;     // sum of squared virial component errors (eV^2)
  int atoms = 0;
};

// Root mean squares over a set of frames: of the loss, of the energy error per atom (eV) and of the
// force components (eV/Å).
struct LossSummary {
  double rmse = 0, rmse_e = 0, rmse_f = 0;
};

class TrainableModel {
 public:
  virtual ~TrainableModel() = default;
  // Where the loss is evaluated and the parameters live.
  virtual Backend backend() const = 0;
  // A new model: initial parameters, and statistics (normalisation, energy bias) from these frames.
  virtual void initialise(const std::vector<const Structure*>& frames) = 0;
  // The loss of a frame with the current parameters at learning rate lr (a family's loss weights
  // may follow the schedule); with `gradient`, its gradient is added to the batch gradient.
  virtual FrameLoss frame_loss(const Structure& frame, double lr, bool gradient) = 0;
  virtual void zero_gradient() = 0;
  // The parameters and the batch gradient as flat arrays on backend(), for the optimiser; after a
  // step changed them, parameters_changed() lets the model take them up.
  virtual nn::Parameters parameters() = 0;
  virtual void parameters_changed() {}
  // The model files of a checkpoint written at `path` (beside the trainer's file, e.g. path.dp),
  // and the model back from them.
  virtual void write_checkpoint(const std::string& path) = 0;
  virtual void read_checkpoint(const std::string& path) = 0;
  // The trained model's files, named from `prefix`; returns their names.
  virtual std::vector<std::string> write_model(const std::string& prefix) = 0;
  // The learning curve's columns between the step and the learning rate: their names and, for a
  // display step, their values from the validation and training summaries.
  virtual std::vector<std::string> curve_columns() const = 0;
  virtual std::vector<double> curve_values(const LossSummary& validation, const LossSummary& training) const = 0;
};

// What a training input asks of the trainer: the data, the batches, the schedule and the outputs.
struct TrainSettings {
  std::vector<std::string> training_systems, validation_systems;
  int batch_size = 0;  // frames per step; 0: "auto" (at least 32 atoms per batch)
  int validation_batches = 1, validation_batch_size = 1;
  int stat_frames = 10;  // frames per system (spread over it) for the model's statistics
  long numb_steps = 1000, disp_freq = 100, save_freq = 1000;
  unsigned seed = 1;  // of the batches' random stream
  std::string disp_file = "lcurve.out", save_ckpt = "model.ckpt";
  nn::ExponentialDecay learning_rate;
};

// A training run from start to end: the generic Trainer (trainer.hpp) over a TrainableModel, or a
// family's own procedure (n2p2's epochs of single updates for the Behler-Parrinello family).
class TrainingRun {
 public:
  virtual ~TrainingRun() = default;
  // Trains, writing what the method writes as it goes and, at the end, the model's files named from
  // `output` (returned). Progress lines go to `log`.
  virtual std::vector<std::string> run(const std::string& output, std::ostream* log) = 0;
  // Checkpoints every `every` steps or epochs, whichever the method counts (`quasar train
  // --checkpoint-every`). The default refuses: the run has no checkpoints.
  virtual void checkpoint_every(long every) {
    throw Error("--checkpoint-every " + std::to_string(every) + ": this training has no checkpoints");
  }
  // Continues from a checkpoint (`quasar train --restart`), before run(). The default refuses.
  virtual void restart(const std::string& checkpoint) {
    throw Error("--restart " + checkpoint + ": this family's training has no checkpoints to restart from");
  }
};

// A training run as a family reads it from its input file: either a model and the generic trainer's
// settings, or (`run` set) the family's own run.
struct TrainingJob {
  std::unique_ptr<TrainableModel> model;
  TrainSettings settings;
  Precision precision = Precision::Double;  // of the GPU evaluation (the CPU trains in double)
  std::unique_ptr<TrainingRun> run;
};

}  // namespace quasar::train
