// Training of Behler-Parrinello potentials as n2p2 does it (potential/nnp/train): the training
// keywords and their errors; symmetry-function statistics and normalisation against n2p2's
// nnp-scaling and nnp-norm; a short training on n2p2's water set and the files it writes, read back
// and evaluated by the inference code; the other updaters and strategies; the command line. The
// arithmetic (Jacobians, Kalman filter) is in nnp_train_jacobian_test.cpp.
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "nnp_train_support.hpp"
#include "quasar/core/error.hpp"
#include "quasar/io/n2p2_data.hpp"
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
using test::train_dir;
using test::training_copy;

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
  EXPECT_NE(settings_error(no_trials).find("needs rmse_threshold_trials"), std::string::npos)
      << settings_error(no_trials);
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

// The other updaters and strategies take a step that lowers the training errors of their epoch:
// per-element Kalman filters, n2p2's Adam and fixed-step gradient descent, sorted candidates, the
// fading-memory filter, and a full Jacobian of several candidates per update.
TEST(NnpTrainRun, OtherUpdatersAndStrategiesTrain) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const std::vector<std::vector<std::pair<std::string, std::string>>> variants = {
      {{"update_strategy", "update_strategy 1"}},
      {{"updater_type", "updater_type 0"},
       {"jacobian_mode", "jacobian_mode 0"},
       {"selection_mode", "selection_mode 0"}},
      {{"updater_type", "updater_type 0"},
       {"jacobian_mode", "jacobian_mode 0"},
       {"gradient_type", "gradient_type 0"},
       {"gradient_eta", "gradient_eta 1e-7"}},
      {{"selection_mode", "selection_mode 1"}},
      {{"kalman_type", "kalman_type 1"},
       {"kalman_lambda_short", "kalman_lambda_short 0.96"},
       {"kalman_nue_short", "kalman_nue_short 0.995"}},
      {{"jacobian_mode", "jacobian_mode 2"},
       {"task_batch_size_energy", "task_batch_size_energy 2"},
       {"task_batch_size_force", "task_batch_size_force 3"}},
  };
  int k = 0;
  for (auto v : variants) {
    v.push_back({"use_short_forces", ""});  // energies only: a quick epoch
    v.push_back({"epochs", "epochs 1"});
    const fs::path dir = training_copy("H2O_RPBE-D3", "variant", v);
    nnp::N2p2Training training(dir, Backend::Cpu);
    training.compute_errors();
    const double before = training.train_errors().rmse_pa;
    training.train_epoch();
    training.compute_errors();
    const double after = training.train_errors().rmse_pa;
    test::print_measured("variant " + std::to_string(k++) + " energy RMSE epoch 1 / epoch 0", after / before);
    EXPECT_LT(after, before) << v.front().second;
  }
}

// `quasar train FOLDER` end to end, and what the command refuses.
TEST(NnpTrainRun, CommandLine) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const fs::path dir = training_copy("H2O_RPBE-D3", "cli", {{"epochs", "epochs 0"}, {"memorize_symfunc_results", ""}});
  auto quasar = [&](const std::string& args, std::string& out) {
    const std::string cmd =
        "cd " + dir.string() + " && " + test::binary_path("quasar") + " " + args + " > out.txt 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "out.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return WEXITSTATUS(status);
  };
  std::string out;
  ASSERT_EQ(quasar("train . --device cpu --output trained", out), 0) << out;
  EXPECT_NE(out.find("epoch     0/0"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir / "trained" / "weights.008.data"));
  EXPECT_TRUE(fs::exists(dir / "trained" / "learning-curve.out"));
  EXPECT_EQ(quasar("train input.nn --device cpu --precision mixed32", out), 1);
  EXPECT_NE(out.find("double precision"), std::string::npos) << out;
  EXPECT_EQ(quasar("train input.nn --device cpu --restart model.ckpt", out), 1);
  EXPECT_NE(out.find("model.ckpt: cannot open the checkpoint"), std::string::npos) << out;
  EXPECT_NE((quasar("train --help", out), out).find("nnp-train"), std::string::npos);
}

// With --device cuda the Kalman filter runs through cuBLAS and the errors of every epoch come from the
// inference kernels; the Jacobians stay on the CPU. An epoch (random selection, so that no decision
// hangs on a rounding) takes the CPU's steps.
// nguyen_widrow_weights_short: the same uniform draws as without it (the same seed), rescaled as n2p2
// does: every hidden neuron's incoming weights to the norm 2 beta (tanh layers), beta = 0.7 n^(1/m),
// in the Glorot-Bengio start's direction; the biases drawn, not zero; the output neuron's first weight
// halved and its others as drawn.
TEST(NnpTrainSetup, NguyenWidrowScalesTheDrawsAsN2p2) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const nnp::N2p2Training glorot(training_copy("H2O_RPBE-D3", "glorot"), Backend::Cpu);
  const nnp::N2p2Training nw(
      training_copy("H2O_RPBE-D3", "nguyen-widrow", {{"nguyen_widrow_weights_short", "nguyen_widrow_weights_short"}}),
      Backend::Cpu);
  const nnp::Model a = glorot.model(), b = nw.model();
  test::MaxError norm("hidden neurons' weight norm - 2 beta"), direction("direction against Glorot-Bengio's"),
      output("output weights against the draws (the first halved)");
  long nonzero_biases = 0;
  for (std::size_t e = 0; e < a.elements.size(); ++e) {
    const std::vector<std::size_t> sizes = a.elements[e].layer_sizes();
    const std::vector<double>&wa = a.elements[e].weights, &wb = b.elements[e].weights;
    std::size_t at = 0;
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      const std::size_t in = sizes[l - 1], out = sizes[l], nw_count = in * out;
      if (l + 1 == sizes.size()) {  // linear output layer: Glorot-Bengio leaves the draws as they are
        for (std::size_t j = 0; j < in; ++j) output.add(wb[at + j], (j == 0 ? 0.5 : 1.0) * wa[at + j]);
      } else {
        ASSERT_EQ(a.elements[e].activations[l - 1], 't');
        const double beta = 0.7 * std::pow(static_cast<double>(out), 1.0 / static_cast<double>(in));
        for (std::size_t k = 0; k < out; ++k) {
          double na = 0, nb = 0;
          for (std::size_t j = 0; j < in; ++j) {
            na += wa[at + j * out + k] * wa[at + j * out + k];
            nb += wb[at + j * out + k] * wb[at + j * out + k];
          }
          norm.add(std::sqrt(nb), 2 * beta);
          for (std::size_t j = 0; j < in; ++j)
            direction.add(wb[at + j * out + k] / std::sqrt(nb), wa[at + j * out + k] / std::sqrt(na));
          nonzero_biases += wb[at + nw_count + k] != 0;
          EXPECT_EQ(wa[at + nw_count + k], 0.0);
        }
      }
      at += nw_count + out;
    }
  }
  // The same arithmetic in another order: measured 6.7e-16, 1.7e-16 and 0.
  EXPECT_TRUE(norm.within(1e-14));
  EXPECT_TRUE(direction.within(1e-14));
  EXPECT_TRUE(output.within(1e-15));
  EXPECT_GT(nonzero_biases, 0);
}

// Every way n2p2 trains here, on the GPU as on the CPU: one updater or one per element, derivatives
// kept or recomputed (the GPU keeps them either way), energies and forces or energies alone.
TEST(NnpTrainRun, GpuEpochTakesTheCpuSteps) {
  QUASAR_REQUIRE_TRAINING_DATA();
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  const std::vector<std::vector<std::pair<std::string, std::string>>> variants{
      {},
      {{"update_strategy", "update_strategy 1"}},
      {{"memorize_symfunc_results", ""}},
      {{"use_short_forces", ""}, {"force_weight", ""}, {"short_force_fraction", ""},
       {"short_force_error_threshold", ""}, {"task_batch_size_force", ""}}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    auto keys = variants[v];
    keys.push_back({"selection_mode", "selection_mode 0"});
    keys.push_back({"epochs", "epochs 1"});
    const fs::path dir = training_copy("H2O_RPBE-D3", "gpu-" + std::to_string(v), keys);
    nnp::N2p2Training cpu(dir, Backend::Cpu), gpu(dir, Backend::Cuda);
    const std::string name = " (variant " + std::to_string(v) + ")";
    test::MaxError errors("GPU - CPU errors of the initial weights, relative" + name),
        after("GPU - CPU errors after an epoch, relative" + name),
        weights("GPU - CPU weights after an epoch, relative to the largest" + name);
    auto compare = [](test::MaxError& err, const nnp::ErrorMetrics& g, const nnp::ErrorMetrics& c) {
      err.add(g.rmse_pa / c.rmse_pa, 1);
      err.add(g.mae / c.mae, 1);
      if (c.force_rmse > 0) err.add(g.force_rmse / c.force_rmse, 1), err.add(g.force_mae / c.force_mae, 1);
    };
    cpu.compute_errors();
    gpu.compute_errors();
    compare(errors, gpu.train_errors(), cpu.train_errors());
    compare(errors, gpu.test_errors(), cpu.test_errors());
    cpu.train_epoch();
    gpu.train_epoch();
    cpu.compute_errors();
    gpu.compute_errors();
    compare(after, gpu.train_errors(), cpu.train_errors());
    const std::vector<double> wc = cpu.networks().weights(), wg = gpu.networks().weights();
    double largest = 0;
    for (double w : wc) largest = std::max(largest, std::abs(w));
    for (std::size_t k = 0; k < wc.size(); ++k) weights.add(wg[k] / largest, wc[k] / largest);
    // Measured on the H100, variants 0 to 3: 2.6e-11; 2.1e-11 to 2.9e-11; 2.5e-14 to 1.8e-12.
    EXPECT_TRUE(errors.within(1e-10));
    EXPECT_TRUE(after.within(1e-9));
    EXPECT_TRUE(weights.within(2e-10));
  }
}

}  // namespace
}  // namespace quasar
