#include "quasar/potential/dp/train/trainable.hpp"

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/dp/train/model_init.hpp"

namespace quasar::dp {

DpTrainable::DpTrainable(TrainInput input, Backend backend, Precision precision)
    : in_(std::move(input)), backend_(backend),
      gpu_(backend == Backend::Cuda ? std::make_unique<GpuLoss>(precision) : nullptr) {}

DpTrainable::~DpTrainable() = default;

void DpTrainable::set_model(DpModel model) {
  model_ = std::move(model);
  gpu_stale_ = false;
  if (gpu_) {
    gpu_->set_model(model_);
    return;
  }
  values_.clear();
  at_.clear();
  for (const nn::Network& n : model_.descriptor.embeddings) at_.push_back(nn::append_parameters(n, values_));
  for (const nn::Network& n : model_.fitting) at_.push_back(nn::append_parameters(n, values_));
  grad_.zero_like(model_);
}

void DpTrainable::initialise(const std::vector<const Structure*>& frames) {
  DpModel m = make_model(in_);
  set_statistics(m, frames, backend_);
  set_model(std::move(m));
}

LossWeights DpTrainable::weights(double lr) const {
  const double r = lr / in_.start_lr;
  return {in_.limit_pref_e + (in_.start_pref_e - in_.limit_pref_e) * r,
          in_.limit_pref_f + (in_.start_pref_f - in_.limit_pref_f) * r,
          in_.limit_pref_v + (in_.start_pref_v - in_.limit_pref_v) * r};
}

train::FrameLoss DpTrainable::frame_loss(const Structure& frame, double lr, bool gradient) {
  if (gpu_) return gpu_->frame_loss(frame, weights(lr), gradient);
  return dp::frame_loss(model_, frame, weights(lr), gradient ? &grad_ : nullptr);
}

void DpTrainable::zero_gradient() {
  if (gpu_) gpu_->zero_gradient();
  else grad_.zero_like(model_);
}

nn::Parameters DpTrainable::parameters() {
  if (gpu_) return gpu_->parameters();
  flat_gradient_.clear();
  for (const nn::NetworkGrad& g : grad_.emb) nn::append_gradient(g, flat_gradient_);
  for (const nn::NetworkGrad& g : grad_.fit) nn::append_gradient(g, flat_gradient_);
  nn::Parameters p;
  p.size = static_cast<long>(values_.size());
  p.values = values_.data();
  p.gradient = flat_gradient_.data();
  return p;
}

void DpTrainable::parameters_changed() {
  if (gpu_) {
    gpu_stale_ = true;  // the step changed them on the GPU
    return;
  }
  const std::size_t ne = model_.descriptor.embeddings.size();
  for (std::size_t k = 0; k < at_.size(); ++k)
    nn::read_parameters(values_, at_[k], k < ne ? model_.descriptor.embeddings[k] : model_.fitting[k - ne]);
}

void DpTrainable::sync() {
  if (!gpu_ || !gpu_stale_) return;
  gpu_->download(model_);
  gpu_stale_ = false;
}

const DpModel& DpTrainable::model() {
  sync();
  return model_;
}

void DpTrainable::write_checkpoint(const std::string& path) { write_model_dict(path + ".dp", model_to_dict(model())); }

void DpTrainable::read_checkpoint(const std::string& path) { set_model(read_dp_model(path + ".dp")); }

std::vector<std::string> DpTrainable::write_model(const std::string& prefix) {
  const nlohmann::json dict = model_to_dict(model());
  write_model_dict(prefix + ".yaml", dict);
  write_model_dict(prefix + ".dp", dict);
  return {prefix + ".yaml", prefix + ".dp"};
}

std::vector<std::string> DpTrainable::curve_columns() const {
  return {"rmse_val", "rmse_trn", "rmse_e_val", "rmse_e_trn", "rmse_f_val", "rmse_f_trn"};
}

std::vector<double> DpTrainable::curve_values(const train::LossSummary& val, const train::LossSummary& trn) const {
  return {val.rmse, trn.rmse, val.rmse_e, trn.rmse_e, val.rmse_f, trn.rmse_f};
}

train::TrainSettings train_settings(const TrainInput& in) {
  train::TrainSettings s;
  s.training_systems = in.training_systems;
  s.validation_systems = in.validation_systems;
  s.batch_size = in.batch_size;
  s.validation_batches = in.validation_batches;
  s.validation_batch_size = in.validation_batch_size;
  s.stat_frames = in.stat_frames;
  s.numb_steps = in.numb_steps;
  s.disp_freq = in.disp_freq;
  s.save_freq = in.save_freq;
  s.seed = in.seed;
  s.disp_file = in.disp_file;
  s.save_ckpt = in.save_ckpt;
  s.learning_rate = {in.start_lr, in.stop_lr, in.decay_steps, in.numb_steps};
  return s;
}

}  // namespace quasar::dp
