#pragma once
// The Deep Potential as the trainer sees it (train/trainable.hpp): DeePMD-kit's loss with its
// prefactors following the learning rate, the CPU reference (loss.hpp) or the GPU loss
// (gpu_loss.hpp) in double or mixed32, a new se_e2_a model with DeePMD-kit's statistics
// (model_init.hpp), and the model in DeePMD-kit's formats (.yaml and .dp).
#include <memory>
#include <string>
#include <vector>

#include "quasar/potential/dp/train/gpu_loss.hpp"
#include "quasar/potential/dp/train/input.hpp"
#include "quasar/potential/dp/train/loss.hpp"
#include "quasar/train/trainable.hpp"

namespace quasar::dp {

class DpTrainable : public train::TrainableModel {
 public:
  // On the GPU the networks run in `precision` (double or mixed32); the CPU is double.
  explicit DpTrainable(TrainInput input, Backend backend = Backend::Cpu, Precision precision = Precision::Double);
  ~DpTrainable() override;

  Backend backend() const override { return backend_; }
  void initialise(const std::vector<const Structure*>& frames) override;
  train::FrameLoss frame_loss(const Structure& frame, double lr, bool gradient) override;
  void zero_gradient() override;
  nn::Parameters parameters() override;
  void parameters_changed() override;
  void write_checkpoint(const std::string& path) override;  // path.dp
  void read_checkpoint(const std::string& path) override;
  std::vector<std::string> write_model(const std::string& prefix) override;  // prefix.yaml and prefix.dp
  std::vector<std::string> curve_columns() const override;
  std::vector<double> curve_values(const train::LossSummary& validation,
                                   const train::LossSummary& training) const override;

  // DeePMD-kit's prefactors: pref = limit + (start - limit) lr / start_lr.
  LossWeights weights(double lr) const;
  // The model as trained so far (brought back from the GPU when training there).
  const DpModel& model();

 private:
  void set_model(DpModel model);  // and its flat parameters (CPU) or the GPU's copy
  void sync();                    // the GPU's parameters into model_

  TrainInput in_;
  Backend backend_;
  DpModel model_;
  std::unique_ptr<GpuLoss> gpu_;  // null: the CPU reference
  bool gpu_stale_ = false;        // model_ behind the GPU's parameters
  // CPU: the flat parameters, where each net's layers lie in them, and the batch gradient.
  std::vector<double> values_, flat_gradient_;
  std::vector<std::vector<nn::LayerOffsets>> at_;
  ModelGrad grad_;
};

// The trainer's settings in a DeePMD-kit input (its training and learning_rate sections).
train::TrainSettings train_settings(const TrainInput& in);

}  // namespace quasar::dp
