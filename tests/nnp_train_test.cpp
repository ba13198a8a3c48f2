// Training of Behler-Parrinello potentials as n2p2 does it (potential/nnp/train): the training
// keywords and their errors; symmetry-function statistics and normalisation against n2p2's
// nnp-scaling and nnp-norm; the Jacobians of energies and forces against finite differences; the
// Kalman filter against the dense formula; a short training on n2p2's water set and the files it
// writes, read back and evaluated by the inference code.
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/nn/kalman.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "quasar/potential/nnp/nnp_potential.hpp"
#include "quasar/potential/nnp/train/data.hpp"
#include "quasar/potential/nnp/train/networks.hpp"
#include "quasar/potential/nnp/train/settings.hpp"
#include "quasar/potential/nnp/train/training.hpp"
#include "support.hpp"

namespace quasar {
namespace {

namespace fs = std::filesystem;

std::string train_dir(const std::string& system) { return test::shared_path("reference/n2p2/train/" + system); }

// A writable copy of a training folder, with input.nn's lines edited: `replace` maps a keyword to its
// new line ("" removes it; a keyword not there is appended).
fs::path training_copy(const std::string& system, const std::string& name,
                       const std::vector<std::pair<std::string, std::string>>& replace = {}, bool scaling = true) {
  const fs::path from = train_dir(system), to = test::scratch_dir("nnp-train-" + name);
  fs::copy_file(from / "input.data", to / "input.data");
  if (scaling) fs::copy_file(from / "scaling.data", to / "scaling.data");
  std::ifstream in(from / "input.nn");
  std::ofstream out(to / "input.nn");
  std::vector<bool> used(replace.size(), false);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    bool replaced = false;
    for (std::size_t k = 0; k < replace.size(); ++k)
      if (key == replace[k].first) {
        if (!replace[k].second.empty()) out << replace[k].second << "\n";
        used[k] = replaced = true;
      }
    if (!replaced) out << line << "\n";
  }
  for (std::size_t k = 0; k < replace.size(); ++k)
    if (!used[k] && !replace[k].second.empty()) out << replace[k].second << "\n";
  return to;
}

#define QUASAR_REQUIRE_TRAINING_DATA()                                                                     \
  if (train_dir("H2O_RPBE-D3").empty())                                                                    \
  return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2/train is not here")

// The message of the InputError that reading the settings of `dir` throws ("" when none).
std::string settings_error(const fs::path& dir) {
  try {
    const nnp::Model m = nnp::read_input_nn(dir / "input.nn");
    nnp::read_training_settings(m, dir / "input.nn");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The line of input.nn that holds `key`, as the reader numbers lines.
long line_of(const fs::path& input_nn, const std::string& key) {
  std::ifstream in(input_nn);
  long n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::istringstream w(line);
    std::string k;
    if (w >> k && k == key) return n;
  }
  return 0;
}

TEST(NnpTrainSettings, WaterInputReadsAsN2p2ReadsIt) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const fs::path input = fs::path(train_dir("H2O_RPBE-D3")) / "input.nn";
  const nnp::TrainingSettings s = nnp::read_training_settings(nnp::read_input_nn(input), input);
  EXPECT_EQ(s.epochs, 2);
  EXPECT_EQ(s.test_fraction, 0.1);
  EXPECT_EQ(s.seed, 1234567u);
  EXPECT_TRUE(s.use_forces);
  EXPECT_EQ(s.force_weight, 10.0);
  EXPECT_EQ(s.energy.fraction, 1.0);
  EXPECT_EQ(s.force.fraction, 0.0041);
  EXPECT_EQ(s.force.batch, 1);
  EXPECT_EQ(s.energy.selection_at(0), nnp::Selection::Threshold);
  EXPECT_EQ(s.energy.threshold, 0.0);
  EXPECT_EQ(s.force.threshold, 1.0);
  EXPECT_EQ(s.force.trials, 3);
  EXPECT_EQ(s.updater, nnp::TrainingSettings::Updater::KalmanFilter);
  EXPECT_EQ(s.strategy, nnp::TrainingSettings::Strategy::Combined);
  EXPECT_FALSE(s.full_jacobian);  // jacobian_mode 1: one summed row per task, and one task here
  EXPECT_EQ(s.kalman.epsilon, 0.01);
  EXPECT_EQ(s.kalman.qtau, 2.302);
  EXPECT_EQ(s.kalman.etamax, 1.0);
  EXPECT_TRUE(s.kalman_eta_growth);
  EXPECT_TRUE(s.memorize);
  EXPECT_EQ(s.write_weights.every, 1);
}

TEST(NnpTrainSettings, BadKeywordsNameTheKeywordAndLine) {
  QUASAR_REQUIRE_TRAINING_DATA();
  struct Case {
    std::string key, line, expect;
  };
  const std::vector<Case> cases = {
      {"nguyen_widrow_weights_short", "nguyen_widrow_weights_short", "Nguyen-Widrow"},
      {"precondition_weights", "precondition_weights", "preconditioned"},
      {"repeated_energy_update", "repeated_energy_update", "repeated energy updates"},
      {"charge_fraction", "charge_fraction 0.1", "charges"},
      {"epochs", "epochs -1", "out of range"},
      {"epochs", "epochs two", "expected an integer"},
      {"test_fraction", "test_fraction 1.5", "out of range"},
      {"updater_type", "updater_type 2", "out of range"},
      {"selection_mode", "selection_mode 2 3", "a mode, then pairs"},
      {"kalman_type", "kalman_type 1", "kalman_lambda_short"},
      {"jacobian_mode", "jacobian_mode 3", "out of range"},
      {"main_error_metric", "main_error_metric RMS", "expected RMSEpa"},
      {"normalize_data_set", "normalize_data_set force", "'ref'"},
      {"weights_max", "weights_max -2.0", "above weights_min"},
      {"force_weight", "force_weight 0", "out of range"},
  };
  for (const Case& c : cases) {
    const fs::path dir = training_copy("H2O_RPBE-D3", "keywords", {{c.key, c.line}}, false);
    const std::string what = settings_error(dir);
    SCOPED_TRACE(c.line);
    EXPECT_NE(what.find(c.expect), std::string::npos) << what;
    // The fading-memory filter misses a keyword: the message names it, with no line.
    if (c.key == "kalman_type") continue;
    const std::string where = ":" + std::to_string(line_of(dir / "input.nn", c.key)) + ": " + c.key;
    EXPECT_NE(what.find(where), std::string::npos) << what;
  }
  // Threshold selection without its trials; a missing required keyword.
  const fs::path no_trials = training_copy("H2O_RPBE-D3", "keywords", {{"rmse_threshold_trials", ""}}, false);
  EXPECT_NE(settings_error(no_trials).find("needs rmse_threshold_trials"), std::string::npos) << settings_error(no_trials);
  const fs::path no_epochs = training_copy("H2O_RPBE-D3", "keywords", {{"epochs", ""}}, false);
  EXPECT_NE(settings_error(no_epochs).find("missing training keyword epochs"), std::string::npos);
  // Gradient descent takes jacobian_mode 0, as in n2p2.
  const fs::path gd = training_copy("H2O_RPBE-D3", "keywords", {{"updater_type", "updater_type 0"}}, false);
  EXPECT_NE(settings_error(gd).find("jacobian_mode"), std::string::npos) << settings_error(gd);
}

// nnp-scaling's statistics of the 20 structures of each training set. The expected rows were printed
// by n2p2 v2.3.0's `nnp-scaling 500` run in a copy of ../shared/reference/n2p2/train/<system> (input.nn,
// input.data; the shipped scaling.data comes from the full data sets); all rows of both files agree
// with Quasar's to 6.1e-14 (water) and 3.8e-13 (Cu2S) relative, sigma being the worst (n2p2's
// formula subtracts two large sums).
TEST(NnpTrainData, SymmetryFunctionStatisticsAsNnpScaling) {
  QUASAR_REQUIRE_TRAINING_DATA();
  struct Row {
    int element, function;
    double min, max, mean, sigma;
  };
  const std::vector<std::pair<std::string, std::vector<Row>>> systems = {
      {"H2O_RPBE-D3",
       {{1, 1, 1.3221693617312411E+00, 2.6431829268494322E+00, 2.1712109289368242E+00, 1.8491740949749857E-01},
        {1, 4, 6.8720926352748568E-01, 1.1734596705047007E+00, 9.8013669175527551E-01, 7.3842159315793229E-02},
        {1, 27, 6.2962266934873370E-04, 5.1814478231837708E-03, 2.0022000098156734E-03, 6.1375837903329471E-04},
        {2, 1, 1.7278003594190618E+00, 3.0200705624254796E+00, 2.5556245161257856E+00, 1.8104733161286221E-01},
        {2, 30, 4.2231192236936973E-03, 1.8846153205016290E-02, 1.0613759624824321E-02, 2.2975215777576458E-03}}},
      {"Cu2S_PBE",
       {{1, 1, 9.0599751834065580E-06, 1.0532468503252392E-04, 3.6847021293483688E-05, 1.7835227890378993E-05},
        {1, 6, 3.8952165155842460E+00, 4.3441311727516858E+00, 4.1103871329683788E+00, 1.0081266947925074E-01},
        {2, 1, 4.0474971172859392E-01, 7.5006567516920986E-01, 5.6847203729786222E-01, 6.0430206098982281E-02},
        {2, 66, 2.5963528414021817E+00, 3.5218793656644811E+00, 2.9921826210911235E+00, 1.5552052039741937E-01}}}};
  for (const auto& [system, rows] : systems) {
    const fs::path dir = train_dir(system);
    const nnp::Model model = nnp::read_input_nn(dir / "input.nn");
    const auto data = nnp::read_training_data(dir / "input.data", model, true);
    const auto stats = nnp::symmetry_function_statistics(model, data);
    ASSERT_EQ(stats.size(), model.elements.size());
    test::MaxError err(system + " scaling.data rows, relative");
    for (const Row& r : rows) {
      const nnp::Scaling& s = stats.at(r.element - 1).at(r.function - 1);
      err.add(s.min / r.min, 1);
      err.add(s.max / r.max, 1);
      err.add(s.mean / r.mean, 1);
      err.add(s.sigma / r.sigma, 1);
    }
    EXPECT_TRUE(err.within(1e-11));
  }
}

// nnp-norm's normalisation: the shipped input.nn of each training set holds what nnp-norm (n2p2
// v2.3.0) printed for these 20 structures (checked: identical digits), so it is the reference.
TEST(NnpTrainData, NormalisationAsNnpNorm) {
  QUASAR_REQUIRE_TRAINING_DATA();
  for (const std::string system : {"H2O_RPBE-D3", "Cu2S_PBE"}) {
    const fs::path dir = train_dir(system);
    const nnp::Model model = nnp::read_input_nn(dir / "input.nn");
    ASSERT_TRUE(model.normalized);
    const nnp::Normalization n = nnp::data_normalization(nnp::read_training_data(dir / "input.data", model, true));
    test::MaxError err(system + " mean_energy, conv_energy, conv_length, relative");
    err.add(n.mean_energy / model.mean_energy, 1);
    err.add(n.conv_energy / model.conv_energy, 1);
    err.add(n.conv_length / model.conv_length, 1);
    // Measured 0 for both: the same sums in the same order.
    EXPECT_TRUE(err.within(1e-14));
  }
}


// ---------------------------------------------------------------------------------------------------
// Jacobians of energies and force components against finite differences.

// A training on the water set (its shipped scaling.data; random initial weights) and one structure.
struct WaterNetworks {
  std::unique_ptr<nnp::N2p2Training> training;
  nnp::Model model;
  std::unique_ptr<nnp::TrainingNetworks> nets;
  nnp::TrainingStructure structure;
  nnp::StructureInputs inputs, kept;  // kept: with the symmetry functions' derivatives
  double conv_length = 1;
};

WaterNetworks water_networks() {
  WaterNetworks w;
  w.training = std::make_unique<nnp::N2p2Training>(training_copy("H2O_RPBE-D3", "networks"), Backend::Cpu);
  w.model = w.training->model();
  w.conv_length = w.model.conv_length;
  w.nets = std::make_unique<nnp::TrainingNetworks>(w.model, w.conv_length);
  // The smallest structure.
  const auto& data = w.training->structures();
  std::size_t smallest = 0;
  for (std::size_t s = 0; s < data.size(); ++s)
    if (data[s].size() < data[smallest].size()) smallest = s;
  w.structure = data[smallest];
  w.inputs = w.nets->inputs(w.structure);
  w.kept = w.nets->inputs(w.structure, true);
  return w;
}

// Weights to probe: in every element, first and last of each layer's weights and biases, and a few
// between.
std::vector<long> probe_weights(const nnp::Model& m, const nnp::TrainingNetworks& nets) {
  std::vector<long> out;
  for (std::size_t e = 0; e < m.elements.size(); ++e) {
    const auto sizes = m.elements[e].layer_sizes();
    long at = nets.offset(static_cast<int>(e));
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      const long nw = static_cast<long>(sizes[l - 1] * sizes[l]), nb = static_cast<long>(sizes[l]);
      for (long k : {0L, nw / 3, nw - 1}) out.push_back(at + k);
      for (long k : {0L, nb - 1}) out.push_back(at + nw + k);
      at += nw + nb;
    }
  }
  return out;
}

// Four-point central difference of f(weights) in weight k.
template <class F>
double weight_derivative(nnp::TrainingNetworks& nets, std::vector<double> w, long k, double h, F f) {
  const double w0 = w[k];
  double v[4];
  const double steps[4] = {2, 1, -1, -2};
  for (int i = 0; i < 4; ++i) {
    w[k] = w0 + steps[i] * h;
    nets.set_weights(w.data());
    v[i] = f();
  }
  w[k] = w0;
  nets.set_weights(w.data());
  return (-v[0] + 8 * v[1] - 8 * v[2] + v[3]) / (12 * h);
}

TEST(NnpTrainJacobian, EnergyAndForceGradientsMatchFiniteDifferences) {
  QUASAR_REQUIRE_TRAINING_DATA();
  WaterNetworks w = water_networks();
  nnp::TrainingNetworks& nets = *w.nets;
  const std::vector<double> weights = nets.weights();
  const std::size_t n = weights.size();
  std::vector<double> je(n, 0.0), jf(n, 0.0);
  const double e0 = nets.energy(w.structure, w.inputs, je.data());
  EXPECT_EQ(e0, nets.energy(w.structure, w.inputs));
  const int atom = 1, component = 2;
  const double f0 = nets.force(w.structure, w.inputs, atom, component, jf.data());
  EXPECT_EQ(f0, nets.force(w.structure, w.inputs, atom, component));
  // The same from the kept derivatives of the symmetry functions.
  std::vector<double> jk(n, 0.0);
  test::MaxError kept("dF/dw from kept derivatives against recomputed ones, relative to the largest");
  const double fk = nets.force(w.structure, w.kept, atom, component, jk.data());
  double largest_e = 0, largest_f = 0;
  for (std::size_t k = 0; k < n; ++k) largest_e = std::max(largest_e, std::abs(je[k]));
  for (std::size_t k = 0; k < n; ++k) largest_f = std::max(largest_f, std::abs(jf[k]));
  kept.add(fk / std::abs(f0), f0 / std::abs(f0));
  for (std::size_t k = 0; k < n; ++k) kept.add(jk[k] / largest_f, jf[k] / largest_f);
  test::MaxError de("dE/dw against differences, relative to the largest"),
      df("dF/dw against differences, relative to the largest");
  const double h = 1e-3;
  for (long k : probe_weights(w.model, nets)) {
    de.add(je[k] / largest_e,
           weight_derivative(nets, weights, k, h, [&] { return nets.energy(w.structure, w.inputs); }) / largest_e);
    df.add(jf[k] / largest_f, weight_derivative(nets, weights, k, h, [&] {
             return nets.force(w.structure, w.inputs, atom, component);
           }) / largest_f);
  }
  // Measured 4e-13 and 1.2e-12.
  EXPECT_TRUE(de.within(4e-11));
  EXPECT_TRUE(df.within(1e-10));
  EXPECT_TRUE(kept.within(1e-13));
}

// The force of the Jacobian pass is minus the derivative of the energy along the atom's displacement
// (in the training length unit, conv_length times the file's), and equals the force of the gradient
// pass that the learning curve uses.
TEST(NnpTrainJacobian, ForcesAreMinusTheEnergyDerivative) {
  QUASAR_REQUIRE_TRAINING_DATA();
  WaterNetworks w = water_networks();
  const nnp::TrainingNetworks& nets = *w.nets;
  std::vector<double> all, from_kept;
  const double e = nets.energy_and_forces(w.structure, w.inputs, all);
  const double e_kept = nets.energy_and_forces(w.structure, w.kept, from_kept);
  EXPECT_EQ(e, e_kept);
  double largest = 0;
  for (double f : all) largest = std::max(largest, std::abs(f));
  test::MaxError passes("forces of the tangent and gradient passes, relative to the largest"),
      difference("forces against energy differences, relative to the largest"),
      kept("forces from kept derivatives against recomputed ones, relative to the largest");
  for (std::size_t k = 0; k < all.size(); ++k) kept.add(from_kept[k] / largest, all[k] / largest);
  const double h = 1e-4;  // in the file's length unit (bohr)
  for (int atom : {0, 1, static_cast<int>(w.structure.size()) - 1})
    for (int c = 0; c < 3; ++c) {
      const double f = nets.force(w.structure, w.inputs, atom, c);
      passes.add(f / largest, all[3 * atom + c] / largest);
      double v[4];
      const double steps[4] = {2, 1, -1, -2};
      for (int i = 0; i < 4; ++i) {
        nnp::TrainingStructure moved = w.structure;
        moved.positions[atom][c] += steps[i] * h;
        v[i] = nets.energy(moved, nets.inputs(moved));
      }
      const double dedx = (-v[0] + 8 * v[1] - 8 * v[2] + v[3]) / (12 * h);
      difference.add(f / largest, -dedx / w.conv_length / largest);
    }
  // Measured 7.8e-16 and 1.3e-11.
  EXPECT_TRUE(passes.within(1e-13));
  EXPECT_TRUE(difference.within(1e-9));
  EXPECT_TRUE(kept.within(1e-13));
}

// ---------------------------------------------------------------------------------------------------
// The Kalman filter against its dense formula, written out with full matrices.

struct DenseKalman {
  int n;
  std::vector<double> p, w;  // P full, column-major
  double q, eta, lambda;
  nn::KalmanSettings s;
  DenseKalman(int size, const nn::KalmanSettings& settings, std::vector<double> state)
      : n(size), p(std::size_t(size) * size, 0.0), w(std::move(state)), s(settings) {
    for (int i = 0; i < n; ++i) p[i + std::size_t(n) * i] = 1 / s.epsilon;
    q = s.q0;
    eta = s.eta0;
    lambda = s.kind == nn::KalmanSettings::Kind::FadingMemory ? s.lambda : 1.0;
  }
  // Gauss-Jordan inverse of a small matrix.
  static std::vector<double> inverse(std::vector<double> a, int m) {
    std::vector<double> inv(std::size_t(m) * m, 0.0);
    for (int i = 0; i < m; ++i) inv[i + std::size_t(m) * i] = 1;
    for (int c = 0; c < m; ++c) {
      const double d = a[c + std::size_t(m) * c];
      for (int j = 0; j < m; ++j) a[c + std::size_t(m) * j] /= d, inv[c + std::size_t(m) * j] /= d;
      for (int r = 0; r < m; ++r) {
        if (r == c) continue;
        const double f = a[r + std::size_t(m) * c];
        for (int j = 0; j < m; ++j) {
          a[r + std::size_t(m) * j] -= f * a[c + std::size_t(m) * j];
          inv[r + std::size_t(m) * j] -= f * inv[c + std::size_t(m) * j];
        }
      }
    }
    return inv;
  }
  void update(const std::vector<double>& xi, const std::vector<double>& h, int m) {
    const bool standard = s.kind == nn::KalmanSettings::Kind::Standard;
    if (standard && eta < s.etamax) eta *= std::exp(s.etatau);
    std::vector<double> x(std::size_t(n) * m, 0.0), a(std::size_t(m) * m, 0.0), k(std::size_t(n) * m, 0.0);
    for (int o = 0; o < m; ++o)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) x[i + std::size_t(n) * o] += p[i + std::size_t(n) * j] * h[j + std::size_t(n) * o];
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < m; ++c)
        for (int i = 0; i < n; ++i) a[r + std::size_t(m) * c] += h[i + std::size_t(n) * r] * x[i + std::size_t(n) * c];
    for (int r = 0; r < m; ++r) a[r + std::size_t(m) * r] += standard ? 1 / eta : lambda;
    const std::vector<double> ai = inverse(a, m);
    for (int c = 0; c < m; ++c)
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < m; ++l) k[i + std::size_t(n) * c] += x[i + std::size_t(n) * l] * ai[l + std::size_t(m) * c];
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double kx = 0;
        for (int l = 0; l < m; ++l) kx += k[i + std::size_t(n) * l] * x[j + std::size_t(n) * l];
        p[i + std::size_t(n) * j] = (p[i + std::size_t(n) * j] - kx) / lambda + (i == j ? q : 0.0);
      }
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < m; ++l) w[i] += k[i + std::size_t(n) * l] * xi[l];
    if (q > s.qmin) q *= std::exp(-s.qtau);
    if (!standard) lambda = s.nu * lambda + 1 - s.nu;
  }
};

class NnpKalman : public testing::TestWithParam<Backend> {};

TEST_P(NnpKalman, UpdatesFollowTheDenseFormula) {
  const int n = 7;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto kind : {nn::KalmanSettings::Kind::Standard, nn::KalmanSettings::Kind::FadingMemory}) {
    nn::KalmanSettings s;
    s.kind = kind;
    s.epsilon = 0.5;
    s.q0 = 0.02, s.qtau = 0.3, s.qmin = 0.01;  // q reaches qmin within the updates
    s.eta0 = 0.2, s.etatau = 0.4, s.etamax = 0.5;
    s.lambda = 0.9, s.nu = 0.8;
    std::vector<double> w0(n);
    for (double& x : w0) x = u(rng);
    nn::KalmanFilter filter(GetParam(), n, s);
    DenseKalman dense(n, s, w0);
    Array<double> state(GetParam(), n), error(GetParam()), jacobian(GetParam());
    state.upload(w0.data(), n);
    test::MaxError ew("Kalman state against the dense formula"), ep("Kalman P (lower triangle) against the dense formula");
    for (int m : {1, 3, 2, 1}) {
      std::vector<double> xi(m), h(std::size_t(n) * m);
      for (double& x : xi) x = u(rng);
      for (double& x : h) x = u(rng);
      error.assign(xi);
      jacobian.assign(h);
      filter.update(state, error, jacobian, m);
      dense.update(xi, h, m);
      const std::vector<double> w = state.to_vector(), p = filter.covariance();
      for (int i = 0; i < n; ++i) ew.add(w[i], dense.w[i]);
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) ep.add(p[i + std::size_t(n) * j], dense.p[i + std::size_t(n) * j]);
    }
    EXPECT_EQ(filter.updates(), 4);
    EXPECT_NEAR(filter.q(), dense.q, 1e-15);
    EXPECT_NEAR(filter.eta(), dense.eta, 1e-15);
    EXPECT_NEAR(filter.lambda(), dense.lambda, 1e-15);
    // Measured on the CPU: 2.2e-16 (state), 5.6e-16 (P).
    EXPECT_TRUE(ew.within(5e-14));
    EXPECT_TRUE(ep.within(5e-14));
  }
}

QUASAR_INSTANTIATE_BACKENDS(NnpKalman);

// ---------------------------------------------------------------------------------------------------
// Training on n2p2's water set (20 structures, input.nn's Kalman filter, 2 epochs), and its files.

// The columns of learning-curve.out by the names of its header.
std::map<std::string, std::vector<double>> read_curve(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    if (line.rfind("#", 0) == 0) {
      std::string first, word;
      w >> first >> word;
      if (word == "epoch") {  // the line of column names
        names = {word};
        while (w >> word) names.push_back(word);
      }
      continue;
    }
    rows.emplace_back();
    for (double v; w >> v;) rows.back().push_back(v);
  }
  std::map<std::string, std::vector<double>> out;
  for (const auto& r : rows) {
    EXPECT_EQ(r.size(), names.size());
    for (std::size_t c = 0; c < std::min(r.size(), names.size()); ++c) out[names[c]].push_back(r[c]);
  }
  return out;
}

TEST(NnpTrainRun, WaterLearningCurveFallsAndTheFilesReadBack) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const fs::path dir = training_copy("H2O_RPBE-D3", "run");
  nnp::N2p2Training training(dir, Backend::Cpu);
  EXPECT_GT(training.planned_updates(false), 0);
  EXPECT_GT(training.planned_updates(true), 0);
  std::ostringstream log;
  const fs::path out = dir / "out";
  const std::vector<std::string> files = training.run(out.string(), &log);
  EXPECT_NE(log.str().find("epoch     2/2"), std::string::npos) << log.str();
  const auto curve = read_curve(out / "learning-curve.out");
  ASSERT_EQ(curve.at("epoch"), (std::vector<double>{0, 1, 2}));
  // Energies and forces of the training structures, in the files' units (Ha/atom, Ha/bohr).
  for (const char* column : {"RMSEpa_Etrain_pu", "RMSE_Ftrain_pu"}) {
    const std::vector<double>& c = curve.at(column);
    test::print_measured(std::string(column) + " epoch 2 / epoch 0", c[2] / c[0]);
    EXPECT_LT(c[2], c[0]) << column;
  }
  // The training units are the physical ones times the normalisation.
  const nnp::Model model = training.model();
  EXPECT_NEAR(curve.at("RMSEpa_Etrain_iu")[2], curve.at("RMSEpa_Etrain_pu")[2] * model.conv_energy,
              1e-6 * curve.at("RMSEpa_Etrain_iu")[2]);
  for (int e : {1, 8})
    for (const char* epoch : {"000000", "000001", "000002"})
      EXPECT_TRUE(fs::exists(out / ("weights.00" + std::to_string(e) + "." + epoch + ".out")));
  EXPECT_TRUE(fs::exists(out / "trainpoints.000002.out"));
  EXPECT_TRUE(fs::exists(out / "testforces.000002.out"));
  ASSERT_EQ(files.size(), 4u);

  // The potential written at the end: the same model read back, and the inference code's energies
  // and forces equal to the training's predictions (in the files' units).
  const nnp::Model back = nnp::read_model(out);
  EXPECT_EQ(nnp::model_difference(back, model), "");
  nnp::NnpPotential potential = nnp::NnpPotential::from_files(out);
  const nnp::TrainingNetworks& nets = training.networks();
  test::MaxError energy("energy of the written potential against the training's, relative"),
      force("forces of the written potential against the training's, relative to the largest");
  const std::vector<Structure> frames = io::read_n2p2_data((dir / "input.data").string());
  for (std::size_t s : {std::size_t(0), frames.size() - 1}) {
    const nnp::TrainingStructure& t = training.structures()[s];
    std::vector<double> f;
    const double e_star = nets.energy_and_forces(t, nets.inputs(t), f);
    double offsets = 0;
    for (int el : t.element) offsets += model.elements[el].atom_energy;
    const double e = e_star / model.conv_energy + static_cast<double>(t.size()) * model.mean_energy + offsets;
    const Evaluation got = evaluate(potential, frames[s], Backend::Cpu);
    energy.add(got.energy / e, 1);
    double largest = 0;
    for (double x : f) largest = std::max(largest, std::abs(x));
    const double unit = model.conv_length / model.conv_energy;
    for (std::size_t a = 0; a < t.size(); ++a)
      for (int c = 0; c < 3; ++c) force.add(got.forces[a][c] / (largest * unit), f[3 * a + c] / largest);
  }
  // Measured 2.9e-15 and 3.4e-14.
  EXPECT_TRUE(energy.within(1e-13));
  EXPECT_TRUE(force.within(3e-12));
}

}  // namespace
}  // namespace quasar
