// Training: the loss gradient against finite differences for every parameter class.
#include <cmath>
#include <fstream>
#include <functional>

#include "quasar/io/deepmd_npy.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/train/input.hpp"
#include "quasar/train/loss.hpp"
#include "quasar/train/trainer.hpp"
#include "support.hpp"

namespace quasar {
namespace {

class LossGradient : public testing::Test {
 protected:
  void SetUp() override {
    const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
    const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
    if (model.empty() || data.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
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
  // parameter array the selector returns.
  void check(const train::LossWeights& w, const char* what) {
    train::ModelGrad g;
    g.zero_like(model_);
    train::frame_loss(model_, frame_, w, &g);
    using Pick = std::function<std::vector<double>*(dp::DpModel&, int)>;
    using GPick = std::function<const std::vector<double>*(const train::ModelGrad&, int)>;
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
                           [](const train::ModelGrad& q, int k) { return &q.emb[k / 10].w[k % 10]; }, net, layer});
        classes.push_back({"embedding b", [](dp::DpModel& m, int k) { return &m.descriptor.embeddings[k / 10].layers[k % 10].b; },
                           [](const train::ModelGrad& q, int k) { return &q.emb[k / 10].b[k % 10]; }, net, layer});
      }
    for (int net : {0, 1})
      for (int layer : {0, 1, 3}) {
        classes.push_back({"fitting w", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].w; },
                           [](const train::ModelGrad& q, int k) { return &q.fit[k / 10].w[k % 10]; }, net, layer});
        classes.push_back({"fitting b", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].b; },
                           [](const train::ModelGrad& q, int k) { return &q.fit[k / 10].b[k % 10]; }, net, layer});
        classes.push_back({"fitting idt", [](dp::DpModel& m, int k) { return &m.fitting[k / 10].layers[k % 10].idt; },
                           [](const train::ModelGrad& q, int k) { return &q.fit[k / 10].idt[k % 10]; }, net, layer});
      }
    int checked = 0;
    for (const Class& c : classes) {
      const int key = c.net * 10 + c.layer;
      const std::vector<double>& analytic = *c.gp(g, key);
      for (std::size_t e : {std::size_t{0}, analytic.size() / 2, analytic.size() - 1}) {
        if (analytic.empty()) break;
        dp::DpModel m = model_;
        double& v = (*c.p(m, key))[e];
        const double v0 = v, h = 1e-4 * std::max(1.0, std::abs(v0));
        v = v0 + h;
        const double lp = train::frame_loss(m, frame_, w, nullptr).loss;
        v = v0 - h;
        const double lm = train::frame_loss(m, frame_, w, nullptr).loss;
        const double fd = (lp - lm) / (2 * h);
        EXPECT_NEAR(analytic[e], fd, 1e-6 * std::max(1.0, std::abs(fd)))
            << what << ": " << c.name << " net " << c.net << " layer " << c.layer << " entry " << e;
        ++checked;
      }
    }
    EXPECT_GT(checked, 40);
  }

  dp::DpModel model_;
  Structure frame_;
};

TEST_F(LossGradient, EnergyTerm) { check({1.0, 0.0, 0.0}, "energy"); }
TEST_F(LossGradient, ForceTerm) { check({0.0, 1.0, 0.0}, "force"); }
TEST_F(LossGradient, VirialTerm) { check({0.0, 0.0, 1.0}, "virial"); }

TEST_F(LossGradient, LossValue) {
  const train::FrameLoss l = train::frame_loss(model_, frame_, {0.5, 2.0, 3.0}, nullptr);
  EXPECT_NEAR(l.loss, 0.5 * l.energy_error * l.energy_error / 12 + 2.0 * l.force_sq / 36 + 3.0 * l.virial_sq / (9 * 12),
              1e-12 * l.loss);
  EXPECT_GT(l.force_sq, 0.0);
}

TEST(TrainInput, ReadsDeePMDKitsWaterInput) {
  const std::string path = test::shared_path("reference/deepmd/water-se_e2_a-input.json");
  if (path.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
  const train::TrainInput in = train::read_train_input(path);
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
    train::parse_train_input(bad, "in.json", ".");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.descriptor.frobnicate"), std::string::npos) << e.what();
  }
  bad = nlohmann::json::parse(std::ifstream(path));
  bad["model"]["descriptor"]["type"] = "se_atten";
  EXPECT_THROW(train::parse_train_input(bad, "in.json", "."), InputError);
}

// A small model on one water frame: the statistics, Adam and the schedule fit it.
class Training : public testing::Test {
 protected:
  void SetUp() override {
    const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
    if (data.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
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
  std::filesystem::path dir_;
  std::string frames_;
  train::TrainInput in_;
};

TEST_F(Training, FitsAFrameAndWritesTheModel) {
  train::Trainer t(in_);
  const Structure one = io::read_extxyz(frames_)[0];
  const train::LossSummary before = t.evaluate({&one}, 0);
  t.run((dir_ / "model").string(), nullptr);
  const train::LossSummary after = t.evaluate({&one}, t.step());
  // Forces are learnt over thousands of steps; 40 small ones must already go downhill.
  EXPECT_LT(after.rmse_f, (1 - 2e-4) * before.rmse_f);
  EXPECT_LT(after.rmse, (1 - 2e-4) * before.rmse);
  // The model written equals the one trained.
  const dp::DpModel back = dp::read_dp_model((dir_ / "model.dp").string());
  EXPECT_EQ(train::frame_loss(back, one, {1, 1, 0}, nullptr).loss, train::frame_loss(t.model(), one, {1, 1, 0}, nullptr).loss);
  std::ifstream curve(in_.disp_file);
  std::string header;
  std::getline(curve, header);
  EXPECT_NE(header.find("rmse_f_trn"), std::string::npos);
}

TEST_F(Training, ResumesExactly) {
  train::Trainer a(in_);
  for (int k = 0; k < 4; ++k) a.train_step();
  const std::string ckpt = (dir_ / "resume.ckpt").string();
  a.save_checkpoint(ckpt);
  for (int k = 0; k < 4; ++k) a.train_step();
  train::Trainer b(in_, ckpt);
  EXPECT_EQ(b.step(), 4);
  for (int k = 0; k < 4; ++k) b.train_step();
  const auto& wa = a.model().fitting[1].layers[1].w;
  const auto& wb = b.model().fitting[1].layers[1].w;
  EXPECT_EQ(wa, wb);
  EXPECT_EQ(a.model().descriptor.embeddings[0].layers[0].b, b.model().descriptor.embeddings[0].layers[0].b);
}

}  // namespace
}  // namespace quasar
