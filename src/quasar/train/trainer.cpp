#include "quasar/train/trainer.hpp"

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/train/model_init.hpp"

namespace quasar::train {

namespace {

// Every trainable parameter with its gradient, in one fixed order.
template <class F>
void for_each_param(dp::DpModel& m, const ModelGrad* g, F f) {
  std::size_t k = 0;
  auto net = [&](dp::Network& n, const NetworkGrad* ng) {
    for (std::size_t l = 0; l < n.layers.size(); ++l) {
      dp::Layer& L = n.layers[l];
      for (std::size_t i = 0; i < L.w.size(); ++i) f(k++, L.w[i], ng ? ng->w[l][i] : 0.0);
      for (std::size_t i = 0; i < L.b.size(); ++i) f(k++, L.b[i], ng ? ng->b[l][i] : 0.0);
      for (std::size_t i = 0; i < L.idt.size(); ++i) f(k++, L.idt[i], ng ? ng->idt[l][i] : 0.0);
    }
  };
  for (std::size_t e = 0; e < m.descriptor.embeddings.size(); ++e) net(m.descriptor.embeddings[e], g ? &g->emb[e] : nullptr);
  for (std::size_t e = 0; e < m.fitting.size(); ++e) net(m.fitting[e], g ? &g->fit[e] : nullptr);
}

// Running sums of frame losses, summarised as DeePMD-kit's learning curve reports them.
struct Tally {
  double loss = 0, e2 = 0, f2 = 0, components = 0, frames = 0;
  void add(const FrameLoss& l) {
    loss += l.loss;
    e2 += std::pow(l.energy_error / l.atoms, 2);
    f2 += l.force_sq;
    components += 3.0 * l.atoms;
    frames += 1;
  }
  LossSummary summary() const { return {std::sqrt(loss / frames), std::sqrt(e2 / frames), std::sqrt(f2 / components)}; }
};

std::vector<std::vector<Structure>> load(const std::vector<std::string>& paths) {
  std::vector<std::vector<Structure>> out;
  for (const auto& p : paths) {
    out.push_back(io::read_labelled_frames(p));
    if (out.back().empty()) throw InputError(p, 0, "no frames");
  }
  return out;
}

}  // namespace

Trainer::Trainer(TrainInput input, const std::string& restart, Backend backend, Precision precision)
    : in_(std::move(input)), rng_(in_.seed),
      gpu_(backend == Backend::Cuda ? std::make_unique<GpuLoss>(precision) : nullptr) {
  train_ = load(in_.training_systems);
  valid_ = load(in_.validation_systems);
  if (!restart.empty()) {
    load_checkpoint(restart);
  } else {
    init_model();
  }
  if (gpu_) {
    gpu_->set_model(model_);
    gpu_->set_moments(m_, v_);
  }
}

void Trainer::init_model() {
  model_ = make_model(in_);
  std::vector<const Structure*> stat;
  for (const auto& sys : train_) {  // stat_frames of each system, spread over it
    const std::size_t take = std::min<std::size_t>(sys.size(), static_cast<std::size_t>(std::max(1, in_.stat_frames)));
    for (std::size_t k = 0; k < take; ++k) stat.push_back(&sys[k * sys.size() / take]);
  }
  set_statistics(model_, stat, gpu_ ? Backend::Cuda : Backend::Cpu);
  std::size_t count = 0;
  for_each_param(model_, nullptr, [&](std::size_t, double&, double) { ++count; });
  m_.assign(count, 0.0);
  v_.assign(count, 0.0);
}

double Trainer::learning_rate(long step) const {
  // Staircase exponential decay reaching stop_lr at numb_steps, as DeePMD-kit's "exp": a
  // decay_steps as long as the run becomes 100 steps (or numb_steps / 100 + 1 for short runs).
  long ds = in_.decay_steps;
  if (ds >= in_.numb_steps) ds = in_.numb_steps / 10 > 100 ? 100 : in_.numb_steps / 100 + 1;
  const double rate = std::exp(std::log(std::max(in_.stop_lr, 1e-10) / in_.start_lr) /
                               (static_cast<double>(in_.numb_steps) / static_cast<double>(ds)));
  return std::max(in_.start_lr * std::pow(rate, static_cast<double>(step / ds)), in_.stop_lr);
}

LossWeights Trainer::weights(long step) const {
  const double r = learning_rate(step) / in_.start_lr;
  return {in_.limit_pref_e + (in_.start_pref_e - in_.limit_pref_e) * r,
          in_.limit_pref_f + (in_.start_pref_f - in_.limit_pref_f) * r,
          in_.limit_pref_v + (in_.start_pref_v - in_.limit_pref_v) * r};
}

std::vector<const Structure*> Trainer::batch(std::vector<std::vector<Structure>>& systems, int size, int frames) {
  // A system with probability proportional to its frames, then `size` of its frames ("auto":
  // enough for 32 atoms).
  std::vector<double> w;
  for (const auto& s : systems) w.push_back(static_cast<double>(s.size()));
  std::discrete_distribution<std::size_t> pick_sys(w.begin(), w.end());
  auto& sys = systems[pick_sys(rng_)];
  const int n = static_cast<int>(sys.front().size());
  const int b = size > 0 ? size : std::max(1, (32 + n - 1) / n);
  std::uniform_int_distribution<std::size_t> pick(0, sys.size() - 1);
  std::vector<const Structure*> out;
  for (int k = 0; k < b * std::max(frames, 1); ++k) out.push_back(&sys[pick(rng_)]);
  return out;
}

Trainer::~Trainer() = default;

const dp::DpModel& Trainer::model() {
  sync();
  return model_;
}

void Trainer::sync() {
  if (!gpu_ || !gpu_stale_) return;
  gpu_->download(model_);
  gpu_->moments(m_, v_);
  gpu_stale_ = false;
}

LossSummary Trainer::evaluate(const std::vector<const Structure*>& frames, long step) const {
  const LossWeights w = weights(step);
  Tally t;
  for (const Structure* s : frames) t.add(gpu_ ? gpu_->frame_loss(*s, w, false) : frame_loss(model_, *s, w, nullptr));
  return t.summary();
}

LossSummary Trainer::train_step() {
  const std::vector<const Structure*> frames = batch(train_, in_.batch_size, 1);
  const LossWeights w = weights(step_);
  const double lr = learning_rate(step_);
  const long t = step_ + 1;
  Tally tally;
  if (gpu_) {  // parameters, gradient and moments stay on the GPU
    gpu_->zero_gradient();
    for (const Structure* s : frames) tally.add(gpu_->frame_loss(*s, w, true));
    gpu_->adam_step(lr, t, tally.frames);
    gpu_stale_ = true;
    ++step_;
    return tally.summary();
  }
  ModelGrad g;
  g.zero_like(model_);
  for (const Structure* s : frames) tally.add(frame_loss(model_, *s, w, &g));
  const double n = tally.frames;
  // Adam on the batch-mean loss.
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  const double c1 = 1 - std::pow(b1, static_cast<double>(t)), c2 = 1 - std::pow(b2, static_cast<double>(t));
  for_each_param(model_, &g, [&](std::size_t k, double& p, double grad) {
    grad /= n;
    m_[k] = b1 * m_[k] + (1 - b1) * grad;
    v_[k] = b2 * v_[k] + (1 - b2) * grad * grad;
    p -= lr * (m_[k] / c1) / (std::sqrt(v_[k] / c2) + eps);
  });
  ++step_;
  return tally.summary();
}

void Trainer::run(const std::string& output, std::ostream* log) {
  std::ofstream curve(in_.disp_file, step_ == 0 ? std::ios::trunc : std::ios::app);
  if (!curve) throw Error("cannot write the learning curve " + in_.disp_file);
  if (step_ == 0)
    curve << "#" << std::setw(9) << "step" << std::setw(13) << "rmse_val" << std::setw(13) << "rmse_trn" << std::setw(13)
          << "rmse_e_val" << std::setw(13) << "rmse_e_trn" << std::setw(13) << "rmse_f_val" << std::setw(13)
          << "rmse_f_trn" << std::setw(13) << "lr" << std::setw(11) << "wall_s" << "\n";
  auto validation = [&]() {
    std::vector<const Structure*> frames;
    for (const auto& sys : valid_)
      for (int b = 0; b < in_.validation_batches; ++b)
        for (int k = 0; k < in_.validation_batch_size; ++k) frames.push_back(&sys[(b * in_.validation_batch_size + k) % sys.size()]);
    return frames.empty() ? LossSummary{} : evaluate(frames, step_);
  };
  const auto start = std::chrono::steady_clock::now();
  while (step_ < in_.numb_steps) {
    const long s = step_;
    const double lr = learning_rate(s);
    const LossSummary trn = train_step();
    if (s % in_.disp_freq == 0 || step_ == in_.numb_steps) {
      const LossSummary val = validation();
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      curve << std::setw(10) << s << std::scientific << std::setprecision(5) << std::setw(13) << val.rmse << std::setw(13)
            << trn.rmse << std::setw(13) << val.rmse_e << std::setw(13) << trn.rmse_e << std::setw(13) << val.rmse_f
            << std::setw(13) << trn.rmse_f << std::setw(13) << lr << std::defaultfloat << std::fixed
            << std::setprecision(1) << std::setw(11) << wall << std::defaultfloat << "\n"
            << std::flush;
      if (log)
        *log << "step " << s << "/" << in_.numb_steps << "  loss " << trn.rmse << "  E/atom " << trn.rmse_e << " eV  F "
             << trn.rmse_f << " eV/A  lr " << lr << "  " << wall << " s\n"
             << std::flush;
    }
    if (step_ % in_.save_freq == 0) save_checkpoint(in_.save_ckpt);
  }
  if (step_ % in_.save_freq != 0) save_checkpoint(in_.save_ckpt);  // else just saved
  const nlohmann::json dict = dp::model_to_dict(model());
  dp::write_model_dict(output + ".yaml", dict);
  dp::write_model_dict(output + ".dp", dict);
}

// Checkpoint: the model (.dp beside it) and the optimiser state, step and random stream.
void Trainer::save_checkpoint(const std::string& path) {
  sync();
  dp::write_model_dict(path + ".dp", dp::model_to_dict(model_));
  io::write_file_atomically(path, [&](std::ostream& o) {
    std::ostringstream rng;
    rng << rng_;
    o << "quasar-train-checkpoint 1\n" << step_ << "\n" << rng.str() << "\n" << m_.size() << "\n"
      << std::setprecision(17);
    for (std::size_t k = 0; k < m_.size(); ++k) o << m_[k] << " " << v_[k] << "\n";
  });
}

void Trainer::load_checkpoint(const std::string& path) {
  std::ifstream in(path);
  std::string magic;
  int version = 0;
  if (!(in >> magic >> version) || magic != "quasar-train-checkpoint" || version != 1)
    throw InputError(path, 1, "not a Quasar training checkpoint");
  std::size_t count = 0;
  long step = 0;
  if (!(in >> step >> rng_ >> count)) throw InputError(path, 2, "truncated checkpoint");
  if (step < 0) throw InputError(path, 2, "negative step " + std::to_string(step));
  step_ = step;
  // The count must be the model's, checked before the optimiser state is allocated.
  model_ = dp::read_dp_model(path + ".dp");
  std::size_t have = 0;
  for_each_param(model_, nullptr, [&](std::size_t, double&, double) { ++have; });
  if (have != count)
    throw InputError(path, 4, "the optimiser state holds " + std::to_string(count) + " parameters, the model in " + path +
                                  ".dp " + std::to_string(have));
  m_.resize(count);
  v_.resize(count);
  for (std::size_t k = 0; k < count; ++k)
    if (!(in >> m_[k] >> v_[k]) || !std::isfinite(m_[k]) || !std::isfinite(v_[k]) || v_[k] < 0)
      throw InputError(path, static_cast<long>(k) + 5, "expected two finite moments (the second non-negative)");
}

}  // namespace quasar::train
