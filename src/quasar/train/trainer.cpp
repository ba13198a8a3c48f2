#include "quasar/train/trainer.hpp"

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/read.hpp"

namespace quasar::train {

namespace {

// Running sums of frame losses, summarised as the learning curve reports them.
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

std::unique_ptr<TrainingRun> make_run(TrainingJob job, const std::string& restart) {
  if (job.run) {
    if (!restart.empty()) job.run->restart(restart);
    return std::move(job.run);
  }
  return std::make_unique<Trainer>(std::move(job), restart);
}

Trainer::Trainer(TrainingJob job, const std::string& restart)
    : Trainer(std::move(job.model), std::move(job.settings), restart) {}

Trainer::Trainer(std::unique_ptr<TrainableModel> model, TrainSettings settings, const std::string& restart)
    : model_(std::move(model)), settings_(std::move(settings)), adam_(model_->backend()), rng_(settings_.seed) {
  train_ = load(settings_.training_systems);
  valid_ = load(settings_.validation_systems);
  if (!restart.empty()) {
    load_checkpoint(restart);
    return;
  }
  std::vector<const Structure*> stat;
  for (const auto& sys : train_) {  // stat_frames of each system, spread over it
    const std::size_t take =
        std::min<std::size_t>(sys.size(), static_cast<std::size_t>(std::max(1, settings_.stat_frames)));
    for (std::size_t k = 0; k < take; ++k) stat.push_back(&sys[k * sys.size() / take]);
  }
  model_->initialise(stat);
  adam_.reset(model_->parameters().size);
}

Trainer::~Trainer() = default;

void Trainer::checkpoint_every(long every) {
  if (every < 1) throw Error("--checkpoint-every " + std::to_string(every) + ": the trainer needs at least 1 step");
  settings_.save_freq = every;
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

LossSummary Trainer::evaluate(const std::vector<const Structure*>& frames, long step) {
  const double lr = learning_rate(step);
  Tally t;
  for (const Structure* s : frames) t.add(model_->frame_loss(*s, lr, false));
  return t.summary();
}

LossSummary Trainer::train_step() {
  const std::vector<const Structure*> frames = batch(train_, settings_.batch_size, 1);
  const double lr = learning_rate(step_);
  Tally tally;
  model_->zero_gradient();
  for (const Structure* s : frames) tally.add(model_->frame_loss(*s, lr, true));
  adam_.step(model_->parameters(), lr, step_ + 1, tally.frames);  // on the batch-mean loss
  model_->parameters_changed();
  ++step_;
  return tally.summary();
}

std::vector<std::string> Trainer::run(const std::string& output, std::ostream* log) {
  const TrainSettings& in = settings_;
  std::ofstream curve(in.disp_file, step_ == 0 ? std::ios::trunc : std::ios::app);
  if (!curve) throw Error("cannot write the learning curve " + in.disp_file);
  if (step_ == 0) {
    curve << "#" << std::setw(9) << "step";
    for (const std::string& c : model_->curve_columns()) curve << std::setw(13) << c;
    curve << std::setw(13) << "lr" << std::setw(11) << "wall_s" << "\n";
  }
  auto validation = [&]() {
    std::vector<const Structure*> frames;
    for (const auto& sys : valid_)
      for (int b = 0; b < in.validation_batches; ++b)
        for (int k = 0; k < in.validation_batch_size; ++k)
          frames.push_back(&sys[(b * in.validation_batch_size + k) % sys.size()]);
    return frames.empty() ? LossSummary{} : evaluate(frames, step_);
  };
  const auto start = std::chrono::steady_clock::now();
  while (step_ < in.numb_steps) {
    const long s = step_;
    const double lr = learning_rate(s);
    const LossSummary trn = train_step();
    if (s % in.disp_freq == 0 || step_ == in.numb_steps) {
      const LossSummary val = validation();
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      curve << std::setw(10) << s << std::scientific << std::setprecision(5);
      for (double v : model_->curve_values(val, trn)) curve << std::setw(13) << v;
      curve << std::setw(13) << lr << std::defaultfloat << std::fixed << std::setprecision(1) << std::setw(11) << wall
            << std::defaultfloat << "\n"
            << std::flush;
      if (log)
        *log << "step " << s << "/" << in.numb_steps << "  loss " << trn.rmse << "  E/atom " << trn.rmse_e << " eV  F "
             << trn.rmse_f << " eV/A  lr " << lr << "  " << wall << " s\n"
             << std::flush;
    }
    if (step_ % in.save_freq == 0) save_checkpoint(in.save_ckpt);
  }
  if (step_ % in.save_freq != 0) save_checkpoint(in.save_ckpt);  // else just saved
  return model_->write_model(output);
}

// Checkpoint: the model's files beside it, then the optimiser state, step and random stream.
void Trainer::save_checkpoint(const std::string& path) {
  model_->write_checkpoint(path);
  const std::vector<double> m = adam_.first_moment(), v = adam_.second_moment();
  io::write_file_atomically(path, [&](std::ostream& o) {
    std::ostringstream rng;
    rng << rng_;
    o << "quasar-train-checkpoint 1\n" << step_ << "\n" << rng.str() << "\n" << m.size() << "\n" << std::setprecision(17);
    for (std::size_t k = 0; k < m.size(); ++k) o << m[k] << " " << v[k] << "\n";
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
  model_->read_checkpoint(path);
  const long have = model_->parameters().size;
  if (static_cast<long>(count) != have)
    throw InputError(path, 4, "the optimiser state holds " + std::to_string(count) + " parameters, the checkpoint's model " +
                                  std::to_string(have));
  std::vector<double> m(count), v(count);
  for (std::size_t k = 0; k < count; ++k)
    if (!(in >> m[k] >> v[k]) || !std::isfinite(m[k]) || !std::isfinite(v[k]) || v[k] < 0)
      throw InputError(path, static_cast<long>(k) + 5, "expected two finite moments (the second non-negative)");
  adam_.reset(have);
  adam_.set_moments(m, v);
}

}  // namespace quasar::train
