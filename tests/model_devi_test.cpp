// Model deviation: the spread of several models' forces and virials.
#include <cmath>
#include <fstream>

#include "quasar/io/extxyz.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/model_devi.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// Models evaluated together (one structure upload, one list per kind with the largest cutoff) give
// what each gives alone.
TEST(ModelDeviation, ModelsEvaluatedTogetherMatchEachAlone) {
  const Structure s = test::distorted_fcc({3, 3, 3}, 5.3, 0.05, 0.1, 17, {"Ar"});
  auto near = test::argon_lj(6.0), far = test::argon_lj(9.0);
  for (Backend b : test::backends()) {
    const auto all = evaluate_all({near.get(), far.get()}, s, b);
    // Measured 0 for the energies on the CPU and the H100 (they round at 2e-15 eV; the bound is not 0,
    // as the GPU sums in another order), forces 2.1e-17 eV/Å on the CPU and 3.5e-17 on the H100.
    test::MaxError de(std::string("energy, together - alone (eV) on ") + backend_name(b));
    test::MaxError df(std::string("forces, together - alone (eV/Å) on ") + backend_name(b));
    for (auto [k, p] : {std::pair{0, near.get()}, std::pair{1, far.get()}}) {
      const Evaluation one = evaluate(*p, s, b);
      de.add(all[k].energy, one.energy);
      for (std::size_t i = 0; i < s.size(); ++i)
        for (int m = 0; m < 3; ++m) df.add(all[k].forces[i][m], one.forces[i][m]);
    }
    EXPECT_TRUE(de.within(1e-13));
    EXPECT_TRUE(df.within(1e-15));
    EXPECT_GT(std::abs(all[0].energy - all[1].energy), 1e-3);
  }
}

TEST(ModelDeviation, TwoModelsHalfTheirDifference) {
  const std::string yaml = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  if (yaml.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  nlohmann::json dict = dp::read_model_dict(yaml);
  dp::DeepPotential a(dp::model_from_json(dict, "a"));
  // A second model: one fitting weight changed.
  dict["model"]["fitting"]["nets"]["networks"][0]["layers"][0]["@variables"]["w"]["value"][3][2] = 0.3;
  dp::DeepPotential b(dp::model_from_json(dict, "b"));
  Structure s;
  s.type_index("O");
  s.type_index("H");
  s.box = Box::orthorhombic(13, 13, 13);
  const double xyz[6][3] = {{12.83, 2.56, 2.18}, {12.09, 2.87, 2.74}, {0.25, 3.32, 1.68},
                            {3.36, 3.00, 1.81},  {3.51, 2.51, 2.60},  {4.27, 3.22, 1.56}};
  for (int i = 0; i < 6; ++i) {
    s.positions.push_back({xyz[i][0], xyz[i][1], xyz[i][2]});
    s.types.push_back(i % 3 == 0 ? 0 : 1);
  }
  const Evaluation ea = evaluate(a, s, Backend::Cpu), eb = evaluate(b, s, Backend::Cpu);
  double max_f = 0, min_f = 1e300, avg_f = 0, max_v = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double d = std::sqrt(norm2(ea.forces[i] - eb.forces[i])) / 2;  // two models: half the distance
    max_f = std::max(max_f, d);
    min_f = std::min(min_f, d);
    avg_f += d / 6;
  }
  for (int c = 0; c < 9; ++c) max_v = std::max(max_v, std::abs(ea.virial(c / 3, c % 3) - eb.virial(c / 3, c % 3)) / 2 / 6);
  const ModelDeviation d = model_deviation({&a, &b}, s, Backend::Cpu);
  EXPECT_GT(d.max_f, 1e-4);
  // Measured 0, 0, 0 and 2e-19 (the deviations are above 1e-4, rounding at 2e-20).
  EXPECT_NEAR(d.max_f, max_f, 1e-17);
  EXPECT_NEAR(d.min_f, min_f, 1e-17);
  EXPECT_NEAR(d.avg_f, avg_f, 1e-17);
  EXPECT_NEAR(d.max_v, max_v, 1e-17);
  const ModelDeviation same = model_deviation({&a, &a}, s, Backend::Cpu);
  EXPECT_EQ(same.max_f, 0.0);
  EXPECT_EQ(same.max_v, 0.0);
}

TEST(ModelDeviation, CommandLineWritesOneLinePerFrame) {
  const std::string yaml = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string cu = test::lammps_potential("Cu_u3.eam"), cuni = test::lammps_potential("CuNi.eam.alloy");
  if (cu.empty() || cuni.empty())
    return test::missing(test::Dependency::LammpsData, "lammps-data's EAM files are not installed");
  const auto dir = test::scratch_dir("devi");
  Structure s = test::distorted_fcc({2, 2, 2}, 3.6, 0.05, 0.08, 3);
  s.info["step"] = "100";
  Structure t = test::distorted_fcc({2, 2, 2}, 3.6, 0.05, 0.08, 4);
  t.info["step"] = "200";
  io::write_extxyz((dir / "traj.xyz").string(), {s, t});
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") + " model-devi --models " + cu +
                          " " + cuni + " --structure traj.xyz --output devi.out --device cpu";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "devi.out");
  std::string header, line;
  std::getline(in, header);
  EXPECT_NE(header.find("max_devi_v"), std::string::npos);
  std::vector<std::string> steps;
  while (std::getline(in, line)) steps.push_back(line.substr(0, line.find_first_not_of(' ') + 3));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[1].find("200"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quasar
