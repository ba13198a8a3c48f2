// Labelled data: deepmd/npy systems (.npy arrays), folders of systems, extended XYZ; `quasar test`.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/espresso.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/evaluate.hpp"
#include "support.hpp"

namespace quasar {
namespace {

// A version-1 .npy file: header padded to a multiple of 64 bytes, then the raw values.
std::string npy(const std::string& descr, const std::string& shape, const std::string& payload, bool fortran = false) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  while ((h.size() + 11) % 64) h += ' ';
  h += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size() & 0xff) + static_cast<char>(h.size() >> 8) + h +
         payload;
}
std::string f8(const std::vector<double>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

class Data : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("data"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string put(const std::string& rel, const std::string& bytes) {
    const auto p = dir_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  // A two-atom system, two frames, with energies, forces and virials.
  std::string small_system(const std::string& name) {
    put(name + "/type.raw", "0\n1\n");
    put(name + "/type_map.raw", "O H\n");
    put(name + "/set.000/box.npy", npy("<f8", "(2, 9)", f8({5, 0, 0, 0, 5, 0, 0, 0, 5, 6, 0, 0, 0, 6, 0, 0, 0, 6})));
    put(name + "/set.000/coord.npy", npy("<f8", "(2, 6)", f8({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1.1, 0})));
    put(name + "/set.000/energy.npy", npy("<f8", "(2,)", f8({-1.5, -2.5})));
    put(name + "/set.000/force.npy", npy("<f8", "(2, 6)", f8({1, 2, 3, -1, -2, -3, 0, 0, 0, 0, 0, 0})));
    return put(name + "/set.000/virial.npy", npy("<f8", "(2, 9)", f8({1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0})));
  }
  std::filesystem::path dir_;
};

TEST_F(Data, ReadsSystemsWithTheirLabels) {
  small_system("a");
  const auto frames = io::read_deepmd_system((dir_ / "a").string());
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].box.h(1, 1), 6.0);
  EXPECT_EQ(frames[1].positions[1].y, 1.1);
  EXPECT_EQ(frames[0].type_names, (std::vector<std::string>{"O", "H"}));
  EXPECT_EQ(*frames[1].energy, -2.5);
  EXPECT_EQ(frames[0].forces[1].z, -3.0);
  EXPECT_EQ((*frames[0].virial)(1, 2), 6.0);
  // A folder of systems: every system below it, in name order.
  small_system("many/x/b");
  EXPECT_EQ(io::read_labelled_frames((dir_ / "many").string()).size(), 2u);
  small_system("many/c");
  EXPECT_EQ(io::read_labelled_frames((dir_ / "many").string()).size(), 4u);
}

TEST_F(Data, MalformedDataNamesTheFile) {
  small_system("a");
  put("a/set.000/energy.npy", npy("<f8", "(3,)", f8({1, 2, 3})));
  try {
    io::read_deepmd_system((dir_ / "a").string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("energy.npy"), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::read_npy(put("not.npy", "hello")), InputError);
  EXPECT_THROW(io::read_npy(put("c16.npy", npy("<c16", "(2,)", ""))), InputError);
  EXPECT_THROW(io::read_npy(put("short.npy", npy("<f8", "(4,)", f8({1})))), InputError);
  EXPECT_THROW(io::read_npy(put("fortran.npy", npy("<f8", "(1,)", f8({1}), true))), InputError);
  const auto f4 = io::read_npy(put("f4.npy", npy("<f4", "(1, 1)", std::string("\x00\x00\xc0\x3f", 4))));
  EXPECT_EQ(f4.shape, (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(f4.values, (std::vector<double>{1.5}));
  EXPECT_THROW(io::read_labelled_frames((dir_ / "nothing").string()), InputError);
  std::filesystem::create_directories(dir_ / "empty");
  EXPECT_THROW(io::read_labelled_frames((dir_ / "empty").string()), InputError);
}

TEST_F(Data, DeePMDKitWaterData) {
  const std::string dir = test::shared_path("reference/deepmd/water-data");
  if (dir.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
  const auto all = io::read_labelled_frames(dir);
  EXPECT_EQ(all.size(), 400u);
  EXPECT_EQ(all[0].size(), 192u);
  EXPECT_TRUE(all[0].energy.has_value());
  EXPECT_EQ(all[0].forces.size(), 192u);
  EXPECT_EQ(io::read_deepmd_frame(dir + "/data_0", 0, 3).size(), 192u);
  EXPECT_THROW(io::read_deepmd_frame(dir + "/data_0", 0, 80), InputError);
}

// A pw.x scf output of our silicon data (8 atoms, LDA): units and the virial's sign.
TEST_F(Data, QuantumEspressoOutput) {
  const std::string path = test::source_path("tests/data/si8-scf.out");
  ASSERT_TRUE(io::is_pw_output(path));
  const Structure s = io::read_pw_output(path);
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"Si"}));
  EXPECT_NEAR(*s.energy, -63.15786947 * 13.605693122994, 1e-6);
  EXPECT_NEAR(s.forces[0].y, -0.09363621 * 13.605693122994 / 0.529177210903, 1e-9);
  // The virial's trace / 3V is the pressure pw.x prints (kbar; 1 kbar = 6.2415091e-4 eV/Å^3).
  const Mat3& w = *s.virial;
  EXPECT_NEAR((w(0, 0) + w(1, 1) + w(2, 2)) / (3 * s.box.volume()), -24.49 * 6.2415091e-4, 1e-5);
  // Malformed: unconverged, truncated.
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  put("bad.out", text.substr(0, text.find("Forces acting") + 200));
  EXPECT_THROW(io::read_pw_output((dir_ / "bad.out").string()), InputError);
  put("unconverged.out", text + "\n     convergence NOT achieved after 100 iterations: stopping\n");
  EXPECT_THROW(io::read_pw_output((dir_ / "unconverged.out").string()), InputError);
  EXPECT_FALSE(io::is_pw_output(put("x.txt", "hello")));
}

// `quasar test` against the errors computed here from the library's own evaluation.
TEST_F(Data, TestCommandReportsTheErrors) {
  const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string water = test::shared_path("reference/deepmd/water-data/data_0");
  if (model.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
  auto frames = io::read_deepmd_system(water);
  frames.resize(3);
  frames[1].virial = Mat3{{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}}};
  for (auto& f : frames) f.virial = f.virial ? f.virial : Mat3{};
  io::write_extxyz((dir_ / "three.xyz").string(), frames);
  const auto back = io::read_extxyz((dir_ / "three.xyz").string());
  dp::DeepPotential pot = dp::DeepPotential::from_file(model);
  double e2 = 0, f2 = 0, v2 = 0;
  for (const auto& s : back) {
    const Evaluation e = evaluate(pot, s, Backend::Cpu);
    e2 += std::pow((e.energy - *s.energy) / 192.0, 2) / 3.0;
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int c = 0; c < 3; ++c) f2 += std::pow(e.forces[i][c] - s.forces[i][c], 2) / (3.0 * 192 * 3);
    for (int c = 0; c < 9; ++c) v2 += std::pow((e.virial(c / 3, c % 3) - (*s.virial)(c / 3, c % 3)) / 192.0, 2) / 27.0;
  }
  const std::string cmd = test::binary_path("quasar") + " test --device cpu --json --model " + model + " --data " +
                          (dir_ / "three.xyz").string() + " > " + (dir_ / "out.json").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir_ / "out.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("frames"), 3);
  EXPECT_EQ(j.at("atoms"), 576);
  EXPECT_NEAR(j.at("energy_rmse_per_atom").get<double>(), std::sqrt(e2), 1e-9);
  EXPECT_NEAR(j.at("force_rmse").get<double>(), std::sqrt(f2), 1e-9);
  EXPECT_NEAR(j.at("virial_rmse_per_atom").get<double>(), std::sqrt(v2), 1e-9);
  EXPECT_NE(std::system((test::binary_path("quasar") + " test --model " + model + " > /dev/null 2>&1").c_str()), 0);
}

}  // namespace
}  // namespace quasar
