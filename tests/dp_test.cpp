// Deep Potential inference against DeePMD-kit's own expected values (deeppot-testcase.yaml).
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "support.hpp"

namespace quasar {
namespace {

struct Case {
  Structure s;
  std::vector<double> atomic_energy, force, atomic_virial, descriptor;
};

std::vector<double> numbers(const nlohmann::json& j) {
  std::vector<double> v;
  if (j.is_null()) return v;
  for (const auto& x : j) v.push_back(x.get<double>());
  return v;
}

std::vector<Case> read_cases(const std::string& path) {
  const nlohmann::json root = dp::yaml_file_to_json(path);
  std::vector<std::string> type_map;
  for (const auto& t : root.at("type_map")) type_map.push_back(t.get<std::string>());
  std::vector<Case> cases;
  for (const auto& r : root.at("results")) {
    Case c;
    const auto coord = numbers(r.at("coord"));
    const auto box = numbers(r.at("box"));
    for (const auto& name : type_map) c.s.type_index(name);
    for (std::size_t i = 0; i < coord.size() / 3; ++i) {
      c.s.positions.push_back({coord[3 * i], coord[3 * i + 1], coord[3 * i + 2]});
      c.s.types.push_back(r.at("atype")[i].get<int>());
    }
    if (box.empty()) c.s.box = Box::from_matrix({{{60, 0, 0}, {0, 60, 0}, {0, 0, 60}}}, {-20, -20, -20}, {false, false, false});
    else c.s.box = Box::from_matrix({{{box[0], box[1], box[2]}, {box[3], box[4], box[5]}, {box[6], box[7], box[8]}}});
    c.atomic_energy = numbers(r.at("atomic_energy"));
    c.force = numbers(r.at("force"));
    c.atomic_virial = numbers(r.at("atomic_virial"));
    if (r.contains("descriptor")) c.descriptor = numbers(r.at("descriptor"));
    cases.push_back(c);
  }
  return cases;
}

class DeepPotentialReference : public testing::Test {
 protected:
  void SetUp() override {
    model_ = test::shared_path("reference/deepmd/deeppot_sea.yaml");
    cases_ = test::shared_path("reference/deepmd/deeppot-testcase.yaml");
    if (model_.empty() || cases_.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
  }
  std::string model_, cases_;
};

TEST_F(DeepPotentialReference, ReadsTheModel) {
  const dp::DpModel m = dp::read_dp_yaml(model_);
  EXPECT_EQ(m.type_map, (std::vector<std::string>{"O", "H"}));
  EXPECT_EQ(m.descriptor.sel, (std::vector<int>{46, 92}));
  EXPECT_EQ(m.descriptor.m(), 12);
  EXPECT_EQ(m.descriptor.axis_neuron, 2);
  EXPECT_EQ(m.fitting.size(), 2u);
  EXPECT_EQ(m.fitting[0].layers.size(), 4u);
  EXPECT_EQ(m.fitting[0].layers[1].idt.size(), 10u);
}

TEST_F(DeepPotentialReference, MatchesDeePMDKitOnAllThreeCases) {
  dp::DeepPotential pot = dp::DeepPotential::from_file(model_);
  const auto cases = read_cases(cases_);
  ASSERT_EQ(cases.size(), 3u);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const Case& c = cases[k];
    const Evaluation e = evaluate(pot, c.s, Backend::Cpu, true);
    double etot = 0;
    for (std::size_t i = 0; i < c.s.size(); ++i) {
      EXPECT_NEAR(e.atom_energy[i], c.atomic_energy[i], 1e-10);
      etot += c.atomic_energy[i];
      for (int m = 0; m < 3; ++m) EXPECT_NEAR(e.forces[i][m], c.force[3 * i + m], 1e-10) << "atom " << i;
      for (int q = 0; q < 9; ++q)
        EXPECT_NEAR(e.atom_virial[i](q / 3, q % 3), c.atomic_virial[9 * i + q], 1e-10) << "atom " << i << " " << q;
    }
    EXPECT_NEAR(e.energy, etot, 1e-10);
    if (k == 0) {
      EXPECT_NEAR(e.energy, -929.7371700503966, 1e-10);
    }
    if (!c.descriptor.empty()) {
      AtomState atoms(Backend::Cpu, c.s);
      NeighborList list(Backend::Cpu, {pot.cutoff(), 0.0, ListKind::Full, 0});
      list.build(atoms);
      const auto d = pot.descriptors(atoms, list.ref());
      ASSERT_EQ(d.size(), c.descriptor.size());
      for (std::size_t q = 0; q < d.size(); ++q) EXPECT_NEAR(d[q], c.descriptor[q], 1e-10) << q;
    }
  }
}

TEST_F(DeepPotentialReference, ForcesAndVirialAreEnergyDerivatives) {
  dp::DeepPotential pot = dp::DeepPotential::from_file(model_);
  const Structure s0 = read_cases(cases_)[2].s;
  const Evaluation e = evaluate(pot, s0, Backend::Cpu);
  const double h = 1e-5;
  for (std::size_t i = 0; i < s0.size(); ++i)
    for (int m = 0; m < 3; ++m) {
      Structure p = s0, q = s0;
      p.positions[i][m] += h;
      q.positions[i][m] -= h;
      EXPECT_NEAR(e.forces[i][m], -(evaluate(pot, p, Backend::Cpu).energy - evaluate(pot, q, Backend::Cpu).energy) / (2 * h), 1e-7);
    }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      auto strained = [&](double d) {
        Structure s = s0;
        Mat3 def = identity3();
        def(a, b) += d;
        s.box.set_matrix(s0.box.h * def);
        for (auto& r : s.positions) r = r * def;
        return evaluate(pot, s, Backend::Cpu).energy;
      };
      EXPECT_NEAR(e.virial(a, b), -(strained(h) - strained(-h)) / (2 * h), 1e-7) << a << b;
    }
}

TEST_F(DeepPotentialReference, LoadsThroughTheRegistry) {
  auto pot = load_model(model_);
  EXPECT_EQ(pot->name(), "deepmd");
  EXPECT_DOUBLE_EQ(pot->cutoff(), 6.0);
  const Evaluation e = evaluate(*pot, read_cases(cases_)[0].s, Backend::Cpu);
  EXPECT_NEAR(e.energy, -929.7371700503966, 1e-10);
}

TEST(DeepPotentialFiles, UnsupportedModelsAreRejectedWithTheReason) {
  nlohmann::json m = {{"model", {{"type", "standard"}, {"type_map", {"A"}}, {"descriptor", {{"type", "se_atten"}}}}}};
  try {
    dp::model_from_json(m, "x.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.yaml: model.descriptor.type: descriptor 'se_atten' is not supported"),
              std::string::npos) << e.what();
  }
  m["model"]["@version"] = 99;
  EXPECT_THROW(dp::model_from_json(m, "x.yaml"), InputError);
}

}  // namespace
}  // namespace quasar
