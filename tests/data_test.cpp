// Labelled data: deepmd/npy systems (.npy arrays), folders of systems, n2p2 input.data, extended XYZ;
// `quasar convert` and `quasar test`.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/espresso.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/core/units.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
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
  EXPECT_THROW(io::read_npy(put("fortran.npy", npy("<f8", "(2, 2)", f8({1, 2, 3, 4}), true))), InputError);
  EXPECT_EQ(io::read_npy(put("fortran1.npy", npy("<f8", "(1, 2)", f8({1, 2}), true))).values, (std::vector<double>{1, 2}))
      << "one dimension longer than 1: the same layout in either order";
  const auto f4 = io::read_npy(put("f4.npy", npy("<f4", "(1, 1)", std::string("\x00\x00\xc0\x3f", 4))));
  EXPECT_EQ(f4.shape, (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(f4.values, (std::vector<double>{1.5}));
  EXPECT_THROW(io::read_labelled_frames((dir_ / "nothing").string()), InputError);
  std::filesystem::create_directories(dir_ / "empty");
  EXPECT_THROW(io::read_labelled_frames((dir_ / "empty").string()), InputError);
}

TEST_F(Data, DeePMDKitWaterData) {
  const std::string dir = test::shared_path("reference/deepmd/water-data");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
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
  // The printed values (Ry, Ry/bohr) in eV and eV/Å: measured 0 (they round at 1e-13 and 4e-16).
  EXPECT_NEAR(*s.energy, -63.15786947 * 13.605693122994, 1e-11);
  EXPECT_NEAR(s.forces[0].y, -0.09363621 * 13.605693122994 / 0.529177210903, 1e-14);
  // The virial's trace / 3V is the pressure pw.x prints (kbar; 1 kbar = 6.2415091e-4 eV/Å^3), to
  // 0.01 kbar, so to 3.1e-6 eV/Å^3 at best; measured 3.0e-6.
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
TEST_F(Data, N2p2TrainingSets) {
  const std::string cu2s = test::shared_path("reference/n2p2/train/Cu2S_PBE/input.data");
  const std::string water = test::shared_path("reference/n2p2/train/H2O_RPBE-D3/input.data");
  if (cu2s.empty() || water.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  // Cu2S is in Å and eV: read as training data directly.
  const auto c = io::read_labelled_frames(cu2s);
  ASSERT_EQ(c.size(), 20u);
  EXPECT_EQ(c[0].size(), 144u);
  EXPECT_EQ(c[0].type_names, (std::vector<std::string>{"S", "Cu"}));
  EXPECT_DOUBLE_EQ(*c[0].energy, -571.723972);
  EXPECT_DOUBLE_EQ(*c[1].energy, -570.358649);
  EXPECT_DOUBLE_EQ(c[0].box.h(1, 0), -0.444607);
  EXPECT_DOUBLE_EQ(c[0].box.h(2, 2), 12.064082);
  EXPECT_DOUBLE_EQ(c[0].positions[0].z, 10.16037);
  EXPECT_DOUBLE_EQ(c[0].forces[0].y, 0.152265);
  EXPECT_FALSE(c[0].virial.has_value());
  // Water is in bohr and hartree.
  const auto w = io::read_n2p2_data(water, units::parse_file_units("bohr,hartree"));
  ASSERT_EQ(w.size(), 20u);
  EXPECT_EQ(w[0].size(), 192u);
  EXPECT_DOUBLE_EQ(w[0].box.h(0, 0), 24.623508 * units::bohr);
  EXPECT_DOUBLE_EQ(w[0].positions[0].x, 3.735290838 * units::bohr);
  EXPECT_DOUBLE_EQ(w[0].forces[0].z, -0.027992554 * units::hartree / units::bohr);
  EXPECT_DOUBLE_EQ(*w[0].energy, -4900.37328433 * units::hartree);
  EXPECT_DOUBLE_EQ(w[0].charges[0], -0.226389360);
  // `quasar convert` writes the same frames as extended XYZ.
  const std::string out = (dir_ / "water.xyz").string();
  const std::string cmd = test::binary_path("quasar") + " convert --units bohr,hartree --output " + out + " " + water +
                          " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto back = io::read_extxyz(out);
  ASSERT_EQ(back.size(), 20u);
  EXPECT_NEAR(*back[3].energy, *w[3].energy, 1e-9);          // measured 0 (it rounds at 1.5e-11 eV)
  EXPECT_NEAR(back[3].forces[7].x, w[3].forces[7].x, 1e-14);  // measured 0
}

// The writer against the file it read: n2p2's water set read in bohr and hartree (to Å and eV) and
// written back in bohr and hartree gives the file's numbers, through the library and `quasar convert`.
TEST_F(Data, N2p2WriterGivesBackTheFile) {
  const std::string water = test::shared_path("reference/n2p2/train/H2O_RPBE-D3/input.data");
  if (water.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const units::FileUnits bohr_ha = units::parse_file_units("bohr,hartree");
  const std::string lib = (dir_ / "lib.data").string(), cli = (dir_ / "cli.data").string();
  io::write_n2p2_data(lib, io::read_n2p2_data(water, bohr_ha), bohr_ha);
  const std::string xyz = (dir_ / "water.xyz").string();
  const std::string quasar = test::binary_path("quasar");
  ASSERT_EQ(std::system((quasar + " convert --units bohr,Ha --output " + xyz + " " + water + " > /dev/null").c_str()), 0);
  ASSERT_EQ(std::system((quasar + " convert --output-format n2p2 --units bohr,Ha --output " + cli + " " + xyz +
                         " > /dev/null").c_str()),
            0);
  // Word by word: keywords and element names equal, numbers within relative 1e-15 (the unit conversion
  // there and back rounds; measured 1.9e-16). The extended XYZ carries no charges, so `convert` writes 0.
  auto words = [](const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    return w;
  };
  const auto ref = words(water);
  for (const auto& [path, charges] : {std::pair{lib, true}, std::pair{cli, false}}) {
    const auto got = words(path);
    ASSERT_EQ(got.size(), ref.size()) << path;
    double worst = 0, charge_sum = 0;
    std::string line_key;
    for (std::size_t k = 0, column = 0; k < ref.size(); ++k, ++column) {
      if (!std::isdigit(static_cast<unsigned char>(ref[k].back()))) {  // a keyword or an element name
        if (ref[k] == "begin" || ref[k] == "lattice" || ref[k] == "atom" || ref[k] == "energy" || ref[k] == "charge" ||
            ref[k] == "end" || ref[k] == "comment")
          line_key = ref[k], column = 0;
        EXPECT_EQ(got[k], ref[k]) << path << " word " << k;
        continue;
      }
      const double r = std::stod(ref[k]), g = std::stod(got[k]);
      if (line_key == "atom" && column == 5) charge_sum += r;
      if (line_key == "charge") {  // the file's total charge is 0, the writer's the sum of the atoms' charges
        EXPECT_NEAR(g, charges ? charge_sum : 0.0, 1e-12) << path << " word " << k;
        charge_sum = 0;
        continue;
      }
      if (line_key == "atom" && column == 5 && !charges) {
        EXPECT_EQ(g, 0.0);
        continue;
      }
      worst = std::max(worst, std::abs(g - r) / std::max(std::abs(r), 1e-300));
    }
    EXPECT_LT(worst, 1e-15) << path;
    std::cout << path << ": largest relative difference " << worst << "\n";
  }
  // Structures n2p2 cannot hold are refused before anything is written.
  auto frames = io::read_n2p2_data(water, bohr_ha);
  frames.resize(2);
  frames[1].energy.reset();
  const std::string bad = (dir_ / "bad.data").string();
  try {
    io::write_n2p2_data(bad, frames);
    ADD_FAILURE() << "no error for a frame without energy";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 1: a structure without an energy"), std::string::npos) << e.what();
  }
  frames[1] = frames[0];
  frames[1].box.periodic[2] = 0;
  EXPECT_THROW(io::write_n2p2_data(bad, frames), Error);
  frames[1].box.periodic[2] = 1;
  frames[1].forces.clear();
  EXPECT_THROW(io::write_n2p2_data(bad, frames), Error);
  EXPECT_FALSE(std::filesystem::exists(bad));
}

TEST_F(Data, N2p2WithoutCellAndMalformed) {
  const std::string molecule = put("molecule.data",
                                   "begin\ncomment water\natom 0 0 0 O 0 0 0.1 0.2 0.3\natom 0.96 0 0 H 0 0 -0.1 0 0\n"
                                   "atom -0.24 0.93 0 H 0 0 0 -0.2 -0.3\nenergy -14.2\ncharge 0\nend\n");
  const auto m = io::read_labelled_frames(molecule);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].box.periodic[0], 0);
  EXPECT_EQ(m[0].info.at("comment"), "water");
  EXPECT_DOUBLE_EQ(m[0].forces[2].z, -0.3);
  // Each mistake names the file and line.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"begin\natom 0 0 0 O 0 0 0 0 0\nenergy 1\n", ":3: the file ends inside a structure"},
      {"begin\natom 0 0 0 O 0 0 0 0\nenergy 1\nend\n", ":2: 'atom' needs 9 values"},
      {"begin\natom 0 0 x O 0 0 0 0 0\nenergy 1\nend\n", ":2:"},
      {"begin\nlattice 1 0 0\nlattice 0 1 0\natom 0 0 0 O 0 0 0 0 0\nenergy 1\nend\n", "zero or three lattice lines"},
      {"begin\natom 0 0 0 O 0 0 0 0 0\nend\n", "without an energy"},
      {"begin\natom 0 0 0 O 0 0 0 0 0\nstress 1\nenergy 1\nend\n", ":3: unknown keyword 'stress'"},
      {"begin\natom 0 0 0 O 0 0 0 0 0\nbegin\n", ":3: 'begin' before the previous structure's 'end'"},
  };
  for (std::size_t k = 0; k < bad.size(); ++k) {
    const std::string path = put("bad" + std::to_string(k) + ".data", bad[k].first);
    try {
      io::read_n2p2_data(path);
      ADD_FAILURE() << "no error for case " << k;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad[k].second), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(units::parse_file_units("nm,ev"), Error);
  EXPECT_THROW(units::parse_file_units("bohr"), Error);
}

TEST_F(Data, TestCommandReportsTheErrors) {
  QUASAR_REQUIRE_FAMILY("deepmd");
  const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string water = test::shared_path("reference/deepmd/water-data/data_0");
  if (model.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  auto frames = io::read_deepmd_system(water);
  frames.resize(3);
  frames[1].virial = Mat3{{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}}};
  for (auto& f : frames) f.virial = f.virial ? f.virial : Mat3{};
  io::write_extxyz((dir_ / "three.xyz").string(), frames);
  const auto back = io::read_extxyz((dir_ / "three.xyz").string());
  const std::unique_ptr<Potential> pot = load_model(model);
  double e2 = 0, f2 = 0, v2 = 0;
  for (const auto& s : back) {
    const Evaluation e = evaluate(*pot, s, Backend::Cpu);
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
  // Measured 0, 3.3e-16 and 6.9e-18 (the errors are 0.96 eV/atom, 0.79 eV/Å, 0.022 eV/atom).
  EXPECT_NEAR(j.at("energy_rmse_per_atom").get<double>(), std::sqrt(e2), 1e-14);
  EXPECT_NEAR(j.at("force_rmse").get<double>(), std::sqrt(f2), 1e-14);
  EXPECT_NEAR(j.at("virial_rmse_per_atom").get<double>(), std::sqrt(v2), 1e-15);
  EXPECT_NE(std::system((test::binary_path("quasar") + " test --model " + model + " > /dev/null 2>&1").c_str()), 0);
}

}  // namespace
}  // namespace quasar
