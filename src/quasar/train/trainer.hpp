#pragma once
// Training a Deep Potential on the CPU or the GPU (the loss and its gradient per frame from
// loss.hpp or gpu_loss.hpp; the same steps either way): Adam on DeePMD-kit's loss with its exponential learning-rate decay and prefactor schedule,
// batches drawn from the systems in proportion to their sizes, a learning curve, checkpoints
// from which a run resumes exactly, and the final model in DeePMD-kit's formats.
#include <iosfwd>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/train/gpu_loss.hpp"
#include "quasar/train/input.hpp"
#include "quasar/train/loss.hpp"

namespace quasar::train {

struct LossSummary {
  double rmse = 0, rmse_e = 0, rmse_f = 0;  // sqrt(loss); energy per atom (eV); force components (eV/Å)
};

class Trainer {
 public:
  // Reads the data, builds the model and its statistics (or restores a checkpoint).
  // On the GPU the networks run in `precision` (double or mixed32); the CPU is double.
  Trainer(TrainInput input, const std::string& restart = "", Backend backend = Backend::Cpu,
          Precision precision = Precision::Double);
  ~Trainer();
  // Runs to numb_steps, writing the learning curve (disp_file), checkpoints (save_ckpt) every
  // save_freq steps and, at the end, `output`.yaml and `output`.dp. Progress lines go to `log`.
  void run(const std::string& output, std::ostream* log);

  double learning_rate(long step) const;
  LossWeights weights(long step) const;
  // Loss summary over frames with the current model and the weights of `step`.
  LossSummary evaluate(const std::vector<const Structure*>& frames, long step) const;
  const dp::DpModel& model();  // brought back from the GPU when training there
  long step() const { return step_; }
  // One Adam step on a batch; returns its loss summary before the update.
  LossSummary train_step();
  void save_checkpoint(const std::string& path);

 private:
  void init_model();  // a new model with statistics from the training data
  void sync();        // the GPU's parameters and moments into model_, m_, v_
  std::vector<const Structure*> batch(std::vector<std::vector<Structure>>& systems, int size, int frames);
  void load_checkpoint(const std::string& path);

  TrainInput in_;
  dp::DpModel model_;
  std::vector<std::vector<Structure>> train_, valid_;
  std::vector<double> m_, v_;  // Adam moments, in parameter order
  long step_ = 0;
  std::mt19937_64 rng_;
  std::unique_ptr<GpuLoss> gpu_;  // null: the CPU reference
  bool gpu_stale_ = false;        // model_, m_, v_ behind the GPU's
};

}  // namespace quasar::train
