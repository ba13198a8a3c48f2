#include "quasar/potential/nnp/train/settings.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::nnp {

Selection PropertyPlan::selection_at(long epoch) const {
  Selection s = Selection::Random;
  for (const auto& [from, mode] : selection)
    if (from <= epoch) s = mode;
  return s;
}

namespace {

// n2p2's training keywords of a 2G potential that Quasar reads (the rest of n2p2's list is refused).
const std::set<std::string>& known_keywords() {
  static const std::set<std::string> k = {"random_seed",
                                          "test_fraction",
                                          "epochs",
                                          "normalize_data_set",
                                          "use_short_forces",
                                          "rmse_threshold",
                                          "rmse_threshold_energy",
                                          "rmse_threshold_force",
                                          "rmse_threshold_trials",
                                          "rmse_threshold_trials_energy",
                                          "rmse_threshold_trials_force",
                                          "energy_fraction",
                                          "force_fraction",
                                          "force_energy_ratio",
                                          "use_old_weights_short",
                                          "nguyen_widrow_weights_short",
                                          "weights_min",
                                          "weights_max",
                                          "main_error_metric",
                                          "write_trainpoints",
                                          "write_trainforces",
                                          "write_weights_epoch",
                                          "write_neuronstats",
                                          "write_trainlog",
                                          "updater_type",
                                          "parallel_mode",
                                          "jacobian_mode",
                                          "update_strategy",
                                          "selection_mode",
                                          "selection_mode_energy",
                                          "selection_mode_force",
                                          "task_batch_size_energy",
                                          "task_batch_size_force",
                                          "gradient_type",
                                          "gradient_eta",
                                          "gradient_adam_eta",
                                          "gradient_adam_beta1",
                                          "gradient_adam_beta2",
                                          "gradient_adam_epsilon",
                                          "kalman_type",
                                          "kalman_epsilon",
                                          "kalman_eta",
                                          "kalman_etatau",
                                          "kalman_etamax",
                                          "kalman_q0",
                                          "kalman_qtau",
                                          "kalman_qmin",
                                          "kalman_lambda_short",
                                          "kalman_nue_short",
                                          "memorize_symfunc_results",
                                          "force_weight",
                                          "conv_charge"};
  return k;
}

// Why Quasar refuses a training keyword n2p2 knows ("" when it does not).
std::string refusal(const std::string& key) {
  if (key.find("charge") != std::string::npos && key != "conv_charge")
    return "charges are trained only for n2p2's 4G and Q potentials, which Quasar does not train";
  if (key == "precondition_weights") return "preconditioned initial weights are not supported (n2p2 refuses them too)";
  if (key == "repeated_energy_update")
    return "repeated energy updates are not supported (n2p2 refuses them with forces)";
  return "";
}

class Keywords {
 public:
  Keywords(const Model& m, std::filesystem::path file) : m_(m), file_(std::move(file)) {}

  bool has(const std::string& k) const { return m_.training_keywords.count(k) > 0; }
  long line(const std::string& k) const { return has(k) ? m_.training_keywords.at(k).second : 0; }
  [[noreturn]] void fail(const std::string& k, const std::string& msg) const {
    throw InputError(file_.string(), line(k), k + ": " + msg);
  }
  std::vector<std::string> words(const std::string& k) const {
    std::vector<std::string> out;
    std::istringstream in(has(k) ? m_.training_keywords.at(k).first : std::string());
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }
  void require(const std::string& k, const std::string& why) const {
    if (!has(k)) throw InputError(file_.string(), 0, "missing training keyword " + k + " (" + why + ")");
  }
  double number_of(const std::string& k, const std::string& w) const {
    double v = 0;
    const char* end = w.data() + w.size();
    const auto r = std::from_chars(w.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) fail(k, "expected a number, got '" + w + "'");
    return v;
  }
  long integer_of(const std::string& k, const std::string& w, long lo, long hi) const {
    long v = 0;
    const char* b = w.data() + (w.size() > 1 && w[0] == '+' ? 1 : 0);
    const char* end = w.data() + w.size();
    const auto r = std::from_chars(b, end, v);
    if (r.ec != std::errc() || r.ptr != end) fail(k, "expected an integer, got '" + w + "'");
    if (v < lo || v > hi)
      fail(k, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  std::string one(const std::string& k) const {
    const auto w = words(k);
    if (w.size() != 1) fail(k, "expected one value, got " + std::to_string(w.size()));
    return w[0];
  }
  // A number in [lo, hi] (open at the ends marked), or `fallback` when absent.
  double number(const std::string& k, double fallback, double lo, double hi, bool lo_open = false) const {
    if (!has(k)) return fallback;
    const double v = number_of(k, one(k));
    if (v < lo || v > hi || (lo_open && v == lo)) fail(k, "value out of range (" + std::to_string(v) + ")");
    return v;
  }
  long integer(const std::string& k, long fallback, long lo, long hi) const {
    return has(k) ? integer_of(k, one(k), lo, hi) : fallback;
  }

 private:
  const Model& m_;
  std::filesystem::path file_;
};

void read_selection(const Keywords& k, const std::string& key, PropertyPlan& plan) {
  const auto w = k.words(key);
  if (w.size() % 2 != 1) k.fail(key, "expected a mode, then pairs of epoch and mode (n2p2's schedule)");
  plan.selection.clear();
  plan.selection[0] = Selection(k.integer_of(key, w[0], 0, 2));
  for (std::size_t i = 1; i < w.size(); i += 2)
    plan.selection[k.integer_of(key, w[i], 0, 1L << 40)] = Selection(k.integer_of(key, w[i + 1], 0, 2));
}

WriteSchedule read_schedule(const Keywords& k, const std::string& key) {
  WriteSchedule s;
  if (!k.has(key)) return s;
  const auto w = k.words(key);
  if (w.size() > 2) k.fail(key, "expected at most two integers (every, always up to)");
  s.every = w.empty() ? 1 : k.integer_of(key, w[0], 0, 1L << 40);
  if (w.size() == 2) s.always = k.integer_of(key, w[1], 0, 1L << 40);
  return s;
}

}  // namespace

TrainingSettings read_training_settings(const Model& model, const std::filesystem::path& input_nn) {
  const Keywords k(model, input_nn);
  for (const auto& [key, value] : model.training_keywords) {
    if (const std::string why = refusal(key); !why.empty()) k.fail(key, why);
    if (!known_keywords().count(key)) k.fail(key, "not supported by Quasar's training");
  }
  TrainingSettings s;
  k.require("epochs", "the number of epochs");
  s.epochs = k.integer("epochs", 0, 0, 1L << 40);
  k.require("test_fraction", "the share of structures kept for testing");
  s.test_fraction = k.number("test_fraction", 0, 0, 1);
  k.require("random_seed", "the seed of the random numbers");
  s.seed = static_cast<unsigned long>(k.integer("random_seed", 0, 0, 1L << 62));
  s.use_forces = k.has("use_short_forces");
  s.force_weight = k.number("force_weight", 1.0, 0, 1e300, true);
  s.memorize = k.has("memorize_symfunc_results");
  s.use_old_weights = k.has("use_old_weights_short");
  s.nguyen_widrow = k.has("nguyen_widrow_weights_short");

  // Update plans and candidate selection.
  k.require("energy_fraction", "the share of energies used per epoch; short_energy_fraction");
  s.energy.fraction = k.number("energy_fraction", 0, 0, 1e6);
  k.require("task_batch_size_energy", "energy candidates per update");
  s.energy.batch = k.integer("task_batch_size_energy", 1, 0, 1L << 30);
  if (s.use_forces) {
    s.force_energy_ratio_given = k.has("force_energy_ratio");
    s.force_energy_ratio = k.number("force_energy_ratio", 0, 0, 1e6);
    if (!s.force_energy_ratio_given) k.require("force_fraction", "the share of force components used per epoch");
    s.force.fraction = k.number("force_fraction", 0, 0, 1e6);
    k.require("task_batch_size_force", "force candidates per update");
    s.force.batch = k.integer("task_batch_size_force", 1, 0, 1L << 30);
  }
  for (PropertyPlan* p : {&s.energy, &s.force}) {
    const std::string name = p == &s.energy ? "energy" : "force";
    if (k.has("selection_mode")) read_selection(k, "selection_mode", *p);
    if (k.has("selection_mode_" + name)) read_selection(k, "selection_mode_" + name, *p);
    p->threshold = k.number("rmse_threshold", 0, 0, 1e300);
    p->threshold = k.number("rmse_threshold_" + name, p->threshold, 0, 1e300);
    p->trials = k.integer("rmse_threshold_trials", 0, 1, 1L << 30);
    p->trials = k.integer("rmse_threshold_trials_" + name, p->trials, 1, 1L << 30);
    bool threshold = false;
    for (const auto& [epoch, mode] : p->selection) threshold |= mode == Selection::Threshold;
    if (threshold && p->trials < 1 && (name == "energy" || s.use_forces))
      k.fail(k.has("selection_mode_" + name) ? "selection_mode_" + name : "selection_mode",
             "the threshold selection (2) needs rmse_threshold_trials (or rmse_threshold_trials_" + name + ")");
  }

  // The updater.
  k.require("updater_type", "0 gradient descent, 1 Kalman filter");
  s.updater = TrainingSettings::Updater(k.integer("updater_type", 1, 0, 1));
  k.integer("parallel_mode", 0, 0, 1);  // which MPI ranks update: one process here
  const long jacobian = k.integer("jacobian_mode", 0, 0, 2);
  s.full_jacobian = jacobian == 2;
  s.strategy = TrainingSettings::Strategy(k.integer("update_strategy", 0, 0, 1));
  if (s.updater == TrainingSettings::Updater::GradientDescent) {
    if (jacobian != 0) k.fail("jacobian_mode", "gradient descent takes jacobian_mode 0 (summed gradients), as in n2p2");
    k.require("gradient_type", "0 fixed step, 1 Adam");
    s.descent = TrainingSettings::Descent(k.integer("gradient_type", 0, 0, 1));
    if (s.descent == TrainingSettings::Descent::Fixed) {
      k.require("gradient_eta", "the step size of gradient descent");
      s.gradient_eta = k.number("gradient_eta", 0, 0, 1e300, true);
    } else {
      for (const char* key :
           {"gradient_adam_eta", "gradient_adam_beta1", "gradient_adam_beta2", "gradient_adam_epsilon"})
        k.require(key, "Adam's parameters");
      s.adam_eta = k.number("gradient_adam_eta", 0, 0, 1e300, true);
      s.adam_beta1 = k.number("gradient_adam_beta1", 0, 0, 1);
      s.adam_beta2 = k.number("gradient_adam_beta2", 0, 0, 1);
      if (s.adam_beta1 == 1) k.fail("gradient_adam_beta1", "must lie below 1");
      if (s.adam_beta2 == 1) k.fail("gradient_adam_beta2", "must lie below 1");
      s.adam_epsilon = k.number("gradient_adam_epsilon", 0, 0, 1e300, true);
    }
  } else {
    k.require("kalman_type", "0 standard, 1 fading memory");
    nn::KalmanSettings& kf = s.kalman;
    kf.kind = k.integer("kalman_type", 0, 0, 1) == 0 ? nn::KalmanSettings::Kind::Standard
                                                     : nn::KalmanSettings::Kind::FadingMemory;
    for (const char* key : {"kalman_epsilon", "kalman_q0", "kalman_qtau", "kalman_qmin"})
      k.require(key, "the Kalman filter's parameters");
    kf.epsilon = k.number("kalman_epsilon", 0, 0, 1e300, true);
    kf.q0 = k.number("kalman_q0", 0, 0, 1e300);
    kf.qtau = k.number("kalman_qtau", 0, 0, 1e300);
    kf.qmin = k.number("kalman_qmin", 0, 0, 1e300);
    if (kf.kind == nn::KalmanSettings::Kind::Standard) {
      k.require("kalman_eta", "the standard Kalman filter's learning rate");
      kf.eta0 = k.number("kalman_eta", 0, 0, 1e300, true);
      s.kalman_eta_growth = k.has("kalman_etatau") && k.has("kalman_etamax");
      kf.etatau = s.kalman_eta_growth ? k.number("kalman_etatau", 0, 0, 1e300) : 0.0;
      kf.etamax = s.kalman_eta_growth ? k.number("kalman_etamax", 0, 0, 1e300, true) : kf.eta0;
    } else {
      k.require("kalman_lambda_short", "the fading-memory filter's forgetting factor");
      k.require("kalman_nue_short", "the fading-memory filter's relaxation of the forgetting factor");
      kf.lambda = k.number("kalman_lambda_short", 0, 0, 1, true);
      kf.nu = k.number("kalman_nue_short", 0, 0, 1);
    }
  }

  // Initial weights.
  if (!s.use_old_weights) {
    k.require("weights_min", "the lower bound of the random initial weights");
    k.require("weights_max", "the upper bound of the random initial weights");
  }
  s.weights_min = k.number("weights_min", -1, -1e300, 1e300);
  s.weights_max = k.number("weights_max", 1, -1e300, 1e300);
  if (!(s.weights_min < s.weights_max)) k.fail("weights_max", "must lie above weights_min");

  if (k.has("normalize_data_set")) {
    const auto w = k.words("normalize_data_set");
    if (w.size() != 1 || w[0] != "ref")
      k.fail("normalize_data_set",
             "Quasar computes n2p2's normalisation 'ref' (mean and spread of the reference energies and forces); "
             "other modes are not supported");
    s.normalize_data_set = true;
  }
  if (k.has("main_error_metric")) {
    s.error_metric = k.one("main_error_metric");
    if (s.error_metric != "RMSEpa" && s.error_metric != "RMSE" && s.error_metric != "MAEpa" && s.error_metric != "MAE")
      k.fail("main_error_metric", "expected RMSEpa, RMSE, MAEpa or MAE, got '" + s.error_metric + "'");
  }
  s.write_energies = read_schedule(k, "write_trainpoints");
  s.write_forces = read_schedule(k, "write_trainforces");
  s.write_weights = read_schedule(k, "write_weights_epoch");
  read_schedule(k, "write_neuronstats");  // checked; neuron statistics are not written
  return s;
}

}  // namespace quasar::nnp
