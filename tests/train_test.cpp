// Training: the loss gradient against finite differences for every parameter class.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>

#include "quasar/io/deepmd_npy.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/dp/train/gpu_loss.hpp"
#include "quasar/potential/dp/train/input.hpp"
#include "quasar/potential/dp/train/loss.hpp"
#include "quasar/potential/dp/train/trainable.hpp"
#include "quasar/train/trainer.hpp"
#include "support.hpp"

namespace quasar {
namespace {

class LossGradient : public testing::Test {
 protected:
  void SetUp() override {
    const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
    const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
    if (model.empty() || data.empty())
      return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
    model_ = dp::read_dp_model(model);
    // Twelve atoms of a water frame (six O, six H) with made-up labels: small enough for many
    // finite differences, and every term of the loss non-zero.
    const Structure full = io::read_deepmd_system(data)[5];
    frame_.box = full.box;
    frame_.type_names = full.type_names;
    frame_.type_masses = full.type_masses;
    for (std::size_t i : {0, 1, 2, 3, 4, 5, 64, 65, 66, 67, 68, 69}) {
      frame_.positions.push_back(full.positions[i]);
      frame_.types.push_back(full.types[i]);
      frame_.forces.push_back(full.forces[i]);
    }
    frame_.energy = -1100.0;
    frame_.virial = Mat3{{{3.0, 0.5, -0.2}, {0.5, -1.0, 0.1}, {-0.2, 0.1, 2.0}}};
  }

  // Analytic gradient against central differences of the loss, for a few entries of every
  // parameter array the selector returns, to `tol` x max(1, |difference|).
  void check(const dp::LossWeights& w, const char* what, double tol) {
    dp::ModelGrad g;
    g.zero_like(model_);
    loss_(model_, frame_, w, &g);
    using Pick = std::function<std::vector<double>*(dp::DpModel&, int)>;
    using GPick = std::function<const std::vector<double>*(const dp::ModelGrad&, int)>;
    struct Class {
      const char* name;
      Pick p;
      GPick gp;
      int net, layer;
    };
    std::vector<Class> classes;
    for (int net : {0, 1})
      for (int layer : {0, 2}) {
        classes.push_back({"embedding w", [](dp::DpModel& m, int k) { return &m.descriptor.embeddings[k / 10].layers[k % 10].w; },
                           [](const dp::ModelGrad& q, int k) { return &q.emb[k / 10].w[k % 10]; }, net, layer});
        classes.push_back({"embedding b", [](dp::DpModel& m, int k) { return &m.descriptor.embeddings[k / 10].layers[k % 10].b; },
                           [](const dp::ModelGrad& q, int k) { return &q.emb[k / 10].b[k % 10]; }, net, layer});
      }
    for (int net : {0, 1})
      for (int layer : {0, 1, 3}) {
        classes.push_back({"fitting w", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].w; },
                           [](const dp::ModelGrad& q, int k) { return &q.fit[k / 10].w[k % 10]; }, net, layer});
        classes.push_back({"fitting b", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].b; },
                           [](const dp::ModelGrad& q, int k) { return &q.fit[k / 10].b[k % 10]; }, net, layer});
        classes.push_back({"fitting idt", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].idt; },
                           [](const dp::ModelGrad& q, int k) { return &q.fit[k / 10].idt[k % 10]; }, net, layer});
      }
    int checked = 0;
    test::MaxError err(std::string(what) + ": gradient - finite difference, relative");
    for (const Class& c : classes) {
      const int key = c.net * 10 + c.layer;
      const std::vector<double>& analytic = *c.gp(g, key);
      for (std::size_t e : {std::size_t{0}, analytic.size() / 2, analytic.size() - 1}) {
        if (analytic.empty()) break;
        dp::DpModel m = model_;
        double& v = (*c.p(m, key))[e];
        const double v0 = v, h = 1e-4 * std::max(1.0, std::abs(v0));
        v = v0 + h;
        const double lp = loss_(m, frame_, w, nullptr).loss;
        v = v0 - h;
        const double lm = loss_(m, frame_, w, nullptr).loss;
        const double fd = (lp - lm) / (2 * h);
        const double scale = std::max(1.0, std::abs(fd));
        EXPECT_NEAR(analytic[e], fd, tol * scale)
            << what << ": " << c.name << " net " << c.net << " layer " << c.layer << " entry " << e;
        err.add(analytic[e] / scale, fd / scale);
        ++checked;
      }
    }
    EXPECT_TRUE(err.within(tol));
    EXPECT_GT(checked, 40);
  }

  dp::DpModel model_;
  Structure frame_;
  // The loss under test: the CPU reference, or the GPU one.
  std::function<train::FrameLoss(const dp::DpModel&, const Structure&, const dp::LossWeights&, dp::ModelGrad*)>
      loss_ = dp::frame_loss;
};

// Measured 1.3e-7 (energy), 4.7e-10 (force) and 3.1e-10 (virial) relative.
TEST_F(LossGradient, EnergyTerm) { check({1.0, 0.0, 0.0}, "energy", 1e-6); }
TEST_F(LossGradient, ForceTerm) { check({0.0, 1.0, 0.0}, "force", 1e-8); }
TEST_F(LossGradient, VirialTerm) { check({0.0, 0.0, 1.0}, "virial", 1e-8); }

// The GPU loss: its gradient equals the CPU reference's entry by entry, for every term and for a
// whole water frame, and matches finite differences of its own loss.
TEST_F(LossGradient, GpuMatchesCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  dp::GpuLoss gpu;
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  const Structure whole = io::read_deepmd_system(data)[5];
  Structure labelled = whole;
  labelled.virial = frame_.virial;
  for (const Structure* f : {&frame_, &labelled})
    for (const dp::LossWeights w : {dp::LossWeights{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 2.0, 3.0}}) {
      dp::ModelGrad gc, gg;
      gc.zero_like(model_);
      gg.zero_like(model_);
      const train::FrameLoss lc = dp::frame_loss(model_, *f, w, &gc);
      const train::FrameLoss lg = gpu.frame_loss(model_, *f, w, &gg);
      // H100, the largest over the frames and weights (also layer by layer): loss 4e-14 relative,
      // energy error 3.6e-12 eV, force_sq 0 (the bound is not 0, as the GPU sums in another order),
      // virial_sq 2.4e-15 relative.
      std::printf("measured %zu atoms, weights %g %g %g, GPU - CPU: loss %.2g relative, energy error %.2g eV, "
                  "force_sq %.2g and virial_sq %.2g relative\n",
                  f->size(), w.pe, w.pf, w.pv, std::abs(lg.loss - lc.loss) / lc.loss,
                  std::abs(lg.energy_error - lc.energy_error), std::abs(lg.force_sq - lc.force_sq) / lc.force_sq,
                  std::abs(lg.virial_sq - lc.virial_sq) / std::max(1.0, lc.virial_sq));
      EXPECT_NEAR(lg.loss, lc.loss, 1e-12 * lc.loss);
      EXPECT_NEAR(lg.energy_error, lc.energy_error, 1e-10);
      EXPECT_NEAR(lg.force_sq, lc.force_sq, 1e-14 * lc.force_sq);
      EXPECT_NEAR(lg.virial_sq, lc.virial_sq, 1e-13 * std::max(1.0, lc.virial_sq));
      double scale = 0, worst = 0;
      auto each = [&](const nn::NetworkGrad& a, const nn::NetworkGrad& b, auto fn) {
        for (std::size_t l = 0; l < a.w.size(); ++l) {
          for (std::size_t e = 0; e < a.w[l].size(); ++e) fn(a.w[l][e], b.w[l][e]);
          for (std::size_t e = 0; e < a.b[l].size(); ++e) fn(a.b[l][e], b.b[l][e]);
          for (std::size_t e = 0; e < a.idt[l].size(); ++e) fn(a.idt[l][e], b.idt[l][e]);
        }
      };
      auto compare = [&](double c, double g) {
        scale = std::max(scale, std::abs(c));
        worst = std::max(worst, std::abs(c - g));
      };
      for (std::size_t k = 0; k < gc.emb.size(); ++k) each(gc.emb[k], gg.emb[k], compare);
      for (std::size_t k = 0; k < gc.fit.size(); ++k) each(gc.fit[k], gg.fit[k], compare);
      EXPECT_GT(scale, 0.0);
      test::print_measured("gradient, GPU - CPU, relative to the largest entry", worst / scale);
      // H100: at most 2.9e-14 (also layer by layer).
      EXPECT_LT(worst, 1e-12 * scale) << f->size() << " atoms, weights " << w.pe << " " << w.pf << " " << w.pv;
    }
  loss_ = [&gpu](const dp::DpModel& m, const Structure& f, const dp::LossWeights& w, dp::ModelGrad* g) {
    return gpu.frame_loss(m, f, w, g);
  };
  check({0.5, 2.0, 3.0}, "gpu, all terms", 1e-6);  // H100: 8.8e-8; as the energy term on the CPU
}

// mixed32 on the GPU against the double CPU reference on a whole water frame, every term: the
// loss to 1e-6 and every gradient entry to 1e-5 of the largest (measured on the H100: 9e-8 and 5e-7).
TEST_F(LossGradient, GpuMixed32NearDouble) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  dp::GpuLoss gpu(Precision::Mixed32);
  Structure f = io::read_deepmd_system(test::shared_path("reference/deepmd/water-data/data_0"))[5];
  f.virial = frame_.virial;
  const dp::LossWeights w{0.5, 2.0, 3.0};
  dp::ModelGrad gc, gg;
  gc.zero_like(model_);
  gg.zero_like(model_);
  const train::FrameLoss lc = dp::frame_loss(model_, f, w, &gc);
  const train::FrameLoss lg = gpu.frame_loss(model_, f, w, &gg);
  double scale = 0, worst = 0;
  auto compare = [&](const nn::NetworkGrad& a, const nn::NetworkGrad& b) {
    for (std::size_t l = 0; l < a.w.size(); ++l)
      for (const auto& [x, y] : {std::pair{&a.w[l], &b.w[l]}, std::pair{&a.b[l], &b.b[l]}, std::pair{&a.idt[l], &b.idt[l]}})
        for (std::size_t e = 0; e < x->size(); ++e) {
          scale = std::max(scale, std::abs((*x)[e]));
          worst = std::max(worst, std::abs((*x)[e] - (*y)[e]));
        }
  };
  for (std::size_t k = 0; k < gc.emb.size(); ++k) compare(gc.emb[k], gg.emb[k]);
  for (std::size_t k = 0; k < gc.fit.size(); ++k) compare(gc.fit[k], gg.fit[k]);
  std::printf("measured mixed32 vs double: loss %.2g relative, gradient %.2g of the largest entry\n",
              std::abs(lg.loss - lc.loss) / lc.loss, worst / scale);
  EXPECT_NEAR(lg.loss, lc.loss, 1e-6 * lc.loss);
  EXPECT_LT(worst, 1e-5 * scale);
}

TEST_F(LossGradient, LossValue) {
  const train::FrameLoss l = dp::frame_loss(model_, frame_, {0.5, 2.0, 3.0}, nullptr);
  EXPECT_NEAR(l.loss, 0.5 * l.energy_error * l.energy_error / 12 + 2.0 * l.force_sq / 36 + 3.0 * l.virial_sq / (9 * 12),
              1e-14 * l.loss);  // measured 0
  EXPECT_GT(l.force_sq, 0.0);
}

TEST(TrainInput, ReadsDeePMDKitsWaterInput) {
  const std::string path = test::shared_path("reference/deepmd/water-se_e2_a-input.json");
  if (path.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  const dp::TrainInput in = dp::read_train_input(path);
  EXPECT_EQ(in.sel, (std::vector<int>{46, 92}));
  EXPECT_EQ(in.embedding_neuron, (std::vector<int>{25, 50, 100}));
  EXPECT_EQ(in.fitting_neuron, (std::vector<int>{240, 240, 240}));
  EXPECT_EQ(in.axis_neuron, 16);
  EXPECT_TRUE(in.fitting_resnet_dt);
  EXPECT_EQ(in.batch_size, 0);  // "auto"
  EXPECT_EQ(in.validation_batches, 3);
  EXPECT_EQ(in.numb_steps, 1000000);
  EXPECT_EQ(in.stop_lr, 3.51e-8);
  EXPECT_EQ(in.start_pref_f, 1000);
  EXPECT_NE(in.training_systems[0].find("data/data_0"), std::string::npos);
  nlohmann::json bad = nlohmann::json::parse(std::ifstream(path));
  bad["model"]["descriptor"]["frobnicate"] = 1;
  try {
    dp::parse_train_input(bad, "in.json", ".");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.descriptor.frobnicate"), std::string::npos) << e.what();
  }
  bad = nlohmann::json::parse(std::ifstream(path));
  bad["model"]["descriptor"]["type"] = "se_atten";
  EXPECT_THROW(dp::parse_train_input(bad, "in.json", "."), InputError);
}

// A small model on one water frame: the statistics, Adam and the schedule fit it.
class Training : public testing::Test {
 protected:
  void SetUp() override {
    const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
    if (data.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
    dir_ = test::scratch_dir("train");
    frames_ = (dir_ / "one.xyz").string();
    io::write_extxyz(frames_, {io::read_deepmd_system(data)[0]});
    in_.type_map = {"O", "H"};
    in_.sel = {46, 92};
    in_.embedding_neuron = {4, 8};
    in_.axis_neuron = 2;
    in_.fitting_neuron = {16, 16};
    in_.type_one_side = true;
    in_.start_lr = in_.stop_lr = 0.001;
    in_.decay_steps = 10;
    in_.start_pref_e = in_.limit_pref_e = 1;
    in_.start_pref_f = in_.limit_pref_f = 1;
    in_.training_systems = {frames_};
    in_.numb_steps = 40;
    in_.disp_file = (dir_ / "lcurve.out").string();
    in_.save_ckpt = (dir_ / "model.ckpt").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A trainer of the Deep Potential that in_ describes (restarted from a checkpoint when given).
  train::Trainer trainer(Backend b = Backend::Cpu, Precision p = Precision::Double, const std::string& restart = "") const {
    return train::Trainer(std::make_unique<dp::DpTrainable>(in_, b, p), dp::train_settings(in_), restart);
  }
  static const dp::DpModel& dp_model(train::Trainer& t) { return static_cast<dp::DpTrainable&>(t.model()).model(); }
  std::filesystem::path dir_;
  std::string frames_;
  dp::TrainInput in_;
};

TEST_F(Training, FitsAFrameAndWritesTheModel) {
  train::Trainer t = trainer();
  const Structure one = io::read_extxyz(frames_)[0];
  const train::LossSummary before = t.evaluate({&one}, 0);
  t.run((dir_ / "model").string(), nullptr);
  const train::LossSummary after = t.evaluate({&one}, t.step());
  // Forces are learnt over thousands of steps; 40 small ones must already go downhill.
  EXPECT_LT(after.rmse_f, (1 - 2e-4) * before.rmse_f);
  EXPECT_LT(after.rmse, (1 - 2e-4) * before.rmse);
  // The model written equals the one trained.
  const dp::DpModel back = dp::read_dp_model((dir_ / "model.dp").string());
  EXPECT_EQ(dp::frame_loss(back, one, {1, 1, 0}, nullptr).loss, dp::frame_loss(dp_model(t), one, {1, 1, 0}, nullptr).loss);
  std::ifstream curve(in_.disp_file);
  std::string header;
  std::getline(curve, header);
  EXPECT_NE(header.find("rmse_f_trn"), std::string::npos);
}

TEST_F(Training, ResumesExactly) {
  train::Trainer a = trainer();
  for (int k = 0; k < 4; ++k) a.train_step();
  const std::string ckpt = (dir_ / "resume.ckpt").string();
  a.save_checkpoint(ckpt);
  for (int k = 0; k < 4; ++k) a.train_step();
  train::Trainer b = trainer(Backend::Cpu, Precision::Double, ckpt);
  EXPECT_EQ(b.step(), 4);
  for (int k = 0; k < 4; ++k) b.train_step();
  const auto& wa = dp_model(a).fitting[1].layers[1].w;
  const auto& wb = dp_model(b).fitting[1].layers[1].w;
  EXPECT_EQ(wa, wb);
  EXPECT_EQ(dp_model(a).descriptor.embeddings[0].layers[0].b, dp_model(b).descriptor.embeddings[0].layers[0].b);
}

// `quasar train --checkpoint-every N` replaces save_freq (steps, at least one).
TEST_F(Training, CheckpointEveryReplacesSaveFreq) {
  train::Trainer t = trainer();
  t.checkpoint_every(7);
  EXPECT_EQ(t.settings().save_freq, 7);
  EXPECT_THROW(t.checkpoint_every(0), Error);
}

// DeePMD-kit 3.2's "exp" schedule: the learning rates its lcurve.out printed for the water input
// cut to 1000 steps (decay_steps 5000 longer than the run: 11-step stairs), to the half unit of
// their last printed digit (measured 7.5e-11 and 1.1e-10), and DeePMD-kit's formula for the full run.
TEST_F(Training, LearningRateAsDeePMDKit) {
  in_.start_lr = 1e-3;
  in_.stop_lr = 3.51e-8;
  in_.decay_steps = 5000;
  in_.numb_steps = 1000;
  const train::Trainer short_run = trainer();
  EXPECT_DOUBLE_EQ(short_run.learning_rate(10), 1e-3);
  EXPECT_NEAR(short_run.learning_rate(950), 6.1e-8, 0.05e-8);
  EXPECT_NEAR(short_run.learning_rate(1000), 3.9e-8, 0.05e-8);
  in_.numb_steps = 1000000;
  const train::Trainer full = trainer();
  EXPECT_DOUBLE_EQ(full.learning_rate(4999), 1e-3);
  EXPECT_NEAR(full.learning_rate(5000), 1e-3 * std::pow(3.51e-5, 0.005), 1e-17);  // measured 0
  EXPECT_NEAR(full.learning_rate(1000000), 3.51e-8, 1e-20);                       // measured 1.9e-22
}

// The GPU trainer takes the same steps as the CPU one: after ten Adam steps every parameter
// agrees to rounding.
TEST_F(Training, GpuTakesTheCpuSteps) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  train::Trainer cpu = trainer(), gpu = trainer(Backend::Cuda);
  // H100: rmse 5.5e-12 relative, weights 1.7e-11 (also layer by layer).
  double rmse = 0;
  for (int k = 0; k < 10; ++k) {
    const train::LossSummary c = cpu.train_step(), g = gpu.train_step();
    rmse = std::max(rmse, std::abs(g.rmse - c.rmse) / c.rmse);
    EXPECT_NEAR(g.rmse, c.rmse, 1e-10 * c.rmse) << "step " << k;
  }
  test::print_measured("GPU - CPU training: rmse, relative", rmse);
  double worst = 0;
  auto compare = [&](const nn::Network& a, const nn::Network& b) {
    for (std::size_t l = 0; l < a.layers.size(); ++l)
      for (std::size_t e = 0; e < a.layers[l].w.size(); ++e)
        worst = std::max(worst, std::abs(a.layers[l].w[e] - b.layers[l].w[e]));
  };
  for (std::size_t k = 0; k < dp_model(cpu).fitting.size(); ++k) compare(dp_model(cpu).fitting[k], dp_model(gpu).fitting[k]);
  for (std::size_t k = 0; k < dp_model(cpu).descriptor.embeddings.size(); ++k)
    compare(dp_model(cpu).descriptor.embeddings[k], dp_model(gpu).descriptor.embeddings[k]);
  test::print_measured("GPU - CPU training: weights after 10 steps", worst);
  EXPECT_LT(worst, 1e-10);
}

// mixed32 training follows double training closely over ten steps.
TEST_F(Training, GpuMixed32FollowsDouble) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  train::Trainer d = trainer(Backend::Cuda), f = trainer(Backend::Cuda, Precision::Mixed32);
  // H100: rmse 1.4e-6 relative (also layer by layer).
  double rmse = 0;
  for (int k = 0; k < 10; ++k) {
    const train::LossSummary a = d.train_step(), b = f.train_step();
    rmse = std::max(rmse, std::abs(b.rmse - a.rmse) / a.rmse);
    EXPECT_NEAR(b.rmse, a.rmse, 1e-5 * a.rmse) << "step " << k;
  }
  test::print_measured("mixed32 - double training: rmse, relative", rmse);
}

}  // namespace
}  // namespace quasar
