#pragma once
// Training any family's model (train/trainable.hpp) on labelled frames, on the CPU or the GPU
// (where the model's loss and parameters live): Adam on the batch-mean loss with a learning-rate
// schedule, batches drawn from the systems in proportion to their sizes, a learning curve,
// checkpoints (the model's files, the optimiser's moments and the random stream) from which a run
// resumes exactly, and the model's files at the end.
#include <iosfwd>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "quasar/nn/adam.hpp"
#include "quasar/train/trainable.hpp"

namespace quasar::train {

class Trainer : public TrainingRun {
 public:
  // Reads the data, then initialises the model with statistics from it (or restores a checkpoint).
  Trainer(std::unique_ptr<TrainableModel> model, TrainSettings settings, const std::string& restart = "");
  // A family's training job (TrainingJob).
  explicit Trainer(TrainingJob job, const std::string& restart = "");
  ~Trainer() override;
  // Runs to numb_steps, writing the learning curve (disp_file), checkpoints (save_ckpt) every
  // save_freq steps and, at the end, the model's files named from `output` (returned). Progress
  // lines go to `log`.
  std::vector<std::string> run(const std::string& output, std::ostream* log) override;
  // save_freq (steps), from the command line; at least 1.
  void checkpoint_every(long every) override;

  double learning_rate(long step) const { return settings_.learning_rate.at(step); }
  // Loss summary over frames with the current model at the learning rate of `step`.
  LossSummary evaluate(const std::vector<const Structure*>& frames, long step);
  TrainableModel& model() { return *model_; }
  const TrainSettings& settings() const { return settings_; }
  long step() const { return step_; }
  // One Adam step on a batch; returns its loss summary before the update.
  LossSummary train_step();
  void save_checkpoint(const std::string& path);

 private:
  std::vector<const Structure*> batch(std::vector<std::vector<Structure>>& systems, int size, int frames);
  void load_checkpoint(const std::string& path);

  std::unique_ptr<TrainableModel> model_;
  TrainSettings settings_;
  std::vector<std::vector<Structure>> train_, valid_;
  nn::Adam adam_;
  long step_ = 0;
  std::mt19937_64 rng_;
};

// The run of a training job: the family's own (restarted from `restart` when one is given, as the
// family's TrainingRun::restart does), or the generic trainer over the job's model.
std::unique_ptr<TrainingRun> make_run(TrainingJob job, const std::string& restart = "");

}  // namespace quasar::train
