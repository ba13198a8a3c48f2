// Training: the loss gradient against finite differences for every parameter class.
#include <cmath>
#include <functional>

#include "quasar/io/deepmd_npy.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/train/loss.hpp"
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

}  // namespace
}  // namespace quasar
