// N2p2Training's setup (training.hpp): the model, its scaling and normalisation, the data, the sets,
// the update plan, the initial weights and the updaters.
#include "quasar/potential/nnp/train/training.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "quasar/potential/nnp/train/random.hpp"

namespace quasar::nnp {

N2p2Training::N2p2Training(const std::filesystem::path& input, Backend backend) : backend_(backend), rng_(0) {
  setup_model(input);
  // Through seed_seq: the twister's first draws after a plain integer seed are poorly mixed.
  std::seed_seq seq{static_cast<unsigned>(settings_.seed & 0xffffffffu), static_cast<unsigned>(settings_.seed >> 32)};
  rng_.seed(seq);
  setup_sets_and_plan();
  if (!settings_.use_old_weights) initial_weights();
  if (const std::string p = model_problem(model_); !p.empty()) throw Error(input_nn_.string() + ": " + p);
  const double conv_energy = model_.normalized ? model_.conv_energy : 1.0;
  const double conv_length = model_.normalized ? model_.conv_length : 1.0;
  const double mean = model_.normalized ? model_.mean_energy : 0.0;
  for (const TrainingStructure& s : data_) {
    energy_ref_.push_back((s.energy - static_cast<double>(s.size()) * mean) * conv_energy);
    std::vector<double> f;
    for (const Vec3& v : s.forces)
      for (int k = 0; k < 3; ++k) f.push_back(v[k] * conv_energy / conv_length);
    force_ref_.push_back(std::move(f));
  }
  nets_ = std::make_unique<TrainingNetworks>(model_, conv_length);
  inputs_.resize(data_.size());
  if (backend_ == Backend::Cuda) gpu_ = std::make_unique<GpuJacobians>(*nets_);
  // One updater for all weights, or one per element.
  const double per_epoch = static_cast<double>(plan_[0].updates + plan_[1].updates);
  const bool combined = settings_.strategy == TrainingSettings::Strategy::Combined;
  const std::vector<double> w = nets_->weights();
  const int updaters = combined ? 1 : nets_->element_count();
  for (int u = 0; u < updaters; ++u) {
    const long n = combined ? nets_->parameter_count() : nets_->parameter_count(u);
    const long at = combined ? 0 : nets_->offset(u);
    updaters_.push_back(make_updater(settings_, backend_, n, per_epoch));
    states_.emplace_back(backend_, static_cast<std::size_t>(n));
    states_.back().upload(w.data() + at, static_cast<std::size_t>(n));
    errors_.emplace_back(backend_);
    jacobians_.emplace_back(backend_);
  }
}

N2p2Training::~N2p2Training() = default;

void N2p2Training::setup_model(const std::filesystem::path& input) {
  std::error_code ec;
  input_nn_ = std::filesystem::is_directory(input, ec) ? input / "input.nn" : input;
  dir_ = input_nn_.parent_path();
  if (dir_.empty()) dir_ = ".";
  if (!std::filesystem::is_regular_file(input_nn_, ec)) throw InputError(input_nn_.string(), 0, "no such file");
  model_ = read_input_nn(input_nn_);
  settings_ = read_training_settings(model_, input_nn_);
  const std::filesystem::path data_file = dir_ / "input.data";
  if (!std::filesystem::is_regular_file(data_file, ec))
    throw InputError(data_file.string(), 0, "the training structures (n2p2's input.data) are missing");
  data_ = read_training_data(data_file, model_, settings_.use_forces);
  if (std::filesystem::is_regular_file(dir_ / "scaling.data", ec)) {
    read_scaling(dir_ / "scaling.data", model_);
  } else {
    const auto stats = symmetry_function_statistics(model_, data_);
    for (std::size_t e = 0; e < model_.elements.size(); ++e) model_.elements[e].scaling = stats[e];
    computed_scaling_ = true;
  }
  if (settings_.normalize_data_set) {
    const Normalization n = data_normalization(data_);
    model_.normalized = true;
    model_.mean_energy = n.mean_energy;
    model_.conv_energy = n.conv_energy;
    model_.conv_length = n.conv_length;
  }
  if (settings_.use_old_weights)
    for (ElementModel& e : model_.elements) read_weights(dir_ / weights_file_name(e.atomic_number), e);
}

void N2p2Training::setup_sets_and_plan() {
  in_test_.assign(data_.size(), 0);
  long energy_patterns = 0, force_patterns = 0;
  for (std::size_t s = 0; s < data_.size(); ++s) {
    in_test_[s] = uniform01(rng_) < settings_.test_fraction;
    if (in_test_[s]) continue;
    energy_candidates_.push_back(static_cast<int>(s));
    ++energy_patterns;
    if (!settings_.use_forces) continue;
    for (std::size_t a = 0; a < data_[s].size(); ++a)
      for (int c = 0; c < 3; ++c) force_candidates_.push_back({static_cast<int>(s), static_cast<int>(a), c});
    force_patterns += 3 * static_cast<long>(data_[s].size());
  }
  if (energy_candidates_.empty())
    throw Error(input_nn_.string() + ": no training structure (test_fraction " +
                std::to_string(settings_.test_fraction) + " kept all " + std::to_string(data_.size()) +
                " for testing)");
  // n2p2's plan: per update `batch` candidates; per epoch fraction x patterns / batch updates, or one
  // update of them all (task_batch_size 0).
  auto plan = [](Plan& p, long batch, double fraction, long patterns) {
    if (batch == 0) {
      p.batch = static_cast<long>(static_cast<double>(patterns) * fraction);
      p.updates = 1;
    } else {
      p.batch = batch;
      p.updates = static_cast<long>(static_cast<double>(patterns) * fraction / static_cast<double>(batch));
    }
  };
  plan(plan_[0], settings_.energy.batch, settings_.energy.fraction, energy_patterns);
  if (settings_.use_forces) {
    const double fraction =
        settings_.force_energy_ratio_given
            ? static_cast<double>(energy_patterns) * settings_.force_energy_ratio / static_cast<double>(force_patterns)
            : settings_.force.fraction;
    plan(plan_[1], settings_.force.batch, fraction, force_patterns);
  }
  for (const Plan& p : plan_)
    if (p.updates > 0 && p.batch < 1)
      throw Error(input_nn_.string() +
                  ": an update of the whole fraction holds no candidate (raise energy_fraction "
                  "or force_fraction)");
}

void N2p2Training::initial_weights() {
  // Uniform in [min, max) element by element in n2p2's order; then, by default, weights into tanh layers
  // times sqrt(6 / (inputs + outputs)) (Glorot and Bengio) and every bias zero. With
  // nguyen_widrow_weights_short, n2p2's Nguyen-Widrow scaling instead: in every hidden layer of n
  // neurons after m, each neuron's incoming weights rescaled to the norm beta = 0.7 n^(1/m) and its bias
  // multiplied by beta (both twice that for tanh layers); then n2p2 halves the output neuron's first
  // weight only (its loop runs over the output layer's one neuron), which is kept so that the same
  // draws give n2p2's weights.
  const double lo = settings_.weights_min, hi = settings_.weights_max;
  for (ElementModel& e : model_.elements) {
    e.weights.resize(e.parameter_count());
    for (double& w : e.weights) w = lo + uniform01(rng_) * (hi - lo);
    const std::vector<std::size_t> sizes = e.layer_sizes();
    std::size_t at = 0;
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      const std::size_t in = sizes[l - 1], out = sizes[l], nw = in * out;  // weight (j, k) at j * out + k
      const bool tanh = e.activations[l - 1] == 't', output = l + 1 == sizes.size();
      if (!settings_.nguyen_widrow) {
        if (tanh)
          for (std::size_t k = 0; k < nw; ++k) e.weights[at + k] *= std::sqrt(6.0 / static_cast<double>(in + out));
        for (std::size_t k = 0; k < out; ++k) e.weights[at + nw + k] = 0.0;
      } else if (!output) {
        const double beta = 0.7 * std::pow(static_cast<double>(out), 1.0 / static_cast<double>(in));
        const double twice = tanh ? 2.0 : 1.0;
        for (std::size_t k = 0; k < out; ++k) {
          double norm = 0;
          for (std::size_t j = 0; j < in; ++j) norm += e.weights[at + j * out + k] * e.weights[at + j * out + k];
          norm = std::sqrt(norm);
          for (std::size_t j = 0; j < in; ++j) e.weights[at + j * out + k] *= twice * beta / norm;
          e.weights[at + nw + k] *= twice * beta;
        }
      } else {
        e.weights[at] *= 0.5;
      }
      at += nw + out;
    }
  }
}

Model N2p2Training::model() const {
  Model m = model_;
  const std::vector<double> w = nets_->weights();
  for (std::size_t e = 0; e < m.elements.size(); ++e) {
    const auto begin = w.begin() + nets_->offset(static_cast<int>(e));
    m.elements[e].weights.assign(begin, begin + nets_->parameter_count(static_cast<int>(e)));
  }
  return m;
}

const StructureInputs& N2p2Training::inputs(std::size_t s) {
  if (!inputs_[s]) inputs_[s] = std::make_unique<StructureInputs>(nets_->inputs(data_[s], keep_derivatives()));
  return *inputs_[s];
}

void N2p2Training::release(std::size_t s) {
  if (!settings_.memorize) inputs_[s].reset();
}

}  // namespace quasar::nnp
