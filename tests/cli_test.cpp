// The `quasar` executable end to end: exit codes, messages, eval's JSON, a short run.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/core/units.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/io/read.hpp"
#if QUASAR_WITH_DP
#include "quasar/potential/dp/model.hpp"
#endif
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "support.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

struct Result {
  int code;
  std::string out, err;
};

class Cli : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Result quasar(const std::string& args) {
    const std::string cmd = "cd " + dir_.string() + " && " + test::binary_path("quasar") + " " + args +
                            " > out.txt 2> err.txt";
    const int status = std::system(cmd.c_str());
    auto slurp = [&](const char* f) {
      std::ifstream in(dir_ / f);
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    };
    return {WEXITSTATUS(status), slurp("out.txt"), slurp("err.txt")};
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  // An example's input shortened to 20 steps (thermo every 10), with `from` replaced by `to`.
  std::string short_example(const std::string& rel, const std::string& from, const std::string& to) {
    std::ifstream in(test::source_path(rel));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    text.replace(text.find("steps = 1000"), 12, "steps = 20");
    text.replace(text.find("thermo_every = 100"), 18, "thermo_every = 10");
    text.replace(text.find(from), from.size(), to);
    return text;
  }
  std::filesystem::path dir_;
};

TEST_F(Cli, InfoHelpAndVersion) {
  const Result info = quasar("info");
  EXPECT_EQ(info.code, 0);
  EXPECT_NE(info.out.find("quasar " QUASAR_VERSION), std::string::npos);
  EXPECT_NE(info.out.find("GPUs:"), std::string::npos);
  EXPECT_EQ(quasar("--help").code, 0);
  EXPECT_EQ(quasar("run --help").code, 0);
  EXPECT_NE(quasar("eval --help").out.find("--structure"), std::string::npos);
  EXPECT_EQ(quasar("--version").out, "quasar " QUASAR_VERSION "\n");
  const Result bad = quasar("frobnicate");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_EQ(quasar("eval --model").code, 2);
  EXPECT_NE(quasar("train --help").out.find("input.json"), std::string::npos);
  const Result missing = quasar("train missing.json");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("missing.json"), std::string::npos);
  EXPECT_EQ(quasar("test --help").code, 0);
}

// A Tinker key and coordinates: the text output is Tinker's analyze (total and terms in kcal/mol with
// their counts), --json the engine's units; a setting not supported is an error naming its line.
TEST_F(Cli, EvalOfATinkerKeyPrintsWhatTinkerPrints) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  const std::string dir = test::shared_path("reference/amoeba/tinker-test-file");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string args = "eval --device cpu --model " + dir + "/tortor/trpcage.key --structure " + dir + "/tortor/trpcage.xyz";
  Result r = quasar(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" Total Potential Energy :                 -9.5128 Kcal/mole"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" Torsion-Torsion                         -9.5128                3"), std::string::npos) << r.out;
  r = quasar(args + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["energy"].get<double>(), -9.5128 * units::kcal_mol, 0.6e-4 * units::kcal_mol);
  EXPECT_NEAR(j["terms"]["tortor"].get<double>(), j["energy"].get<double>(), 1e-12);
  EXPECT_EQ(j["forces"].size(), 304u);
  // Every term of AMOEBA-bio-2018 (Tinker's total); what is not supported is refused at its line.
  r = quasar("eval --device cpu --model " + dir + "/vasopressin/vasopressin.key --structure " + dir + "/vasopressin/vasopressin.xyz");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" Total Potential Energy :                -38.6972 Kcal/mole"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Angle-Torsion"), std::string::npos) << "no entries here: not listed, as in Tinker's\n" << r.out;
  r = quasar("eval --device cpu --model " + dir + "/nacl/nacl_vdw_lambda.key --structure " + dir + "/nacl/nacl1.xyz");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("nacl_vdw_lambda.key:16: 'vdw-lambda': not yet supported"), std::string::npos) << r.err;
  // The electrostatic terms print under Tinker's names.
  r = quasar("eval --device cpu --model " + dir + "/localframe/localframe3_nonewald.key --structure " + dir +
             "/localframe/localframe2.xyz");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" Atomic Multipoles                     -107.5885              120"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" Polarization                           -18.4063              120"), std::string::npos) << r.out;
}

TEST_F(Cli, EvalJsonEqualsTheLibrary) {
  const std::string eam = test::lammps_potential("CuNi.eam.alloy");
  if (eam.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's CuNi.eam.alloy is not installed");
  const Structure a = test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 61, {"Cu", "Ni"});
  const Structure b = test::distorted_fcc({2, 2, 3}, 3.6, -0.1, 0.1, 62, {"Cu", "Ni"});
  io::write_extxyz((dir_ / "two.xyz").string(), {a, b});
  const Result r = quasar("eval --model " + eam + " --structure two.xyz --json --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  // The frames go as one batch: the library's batched evaluation, bit for bit, and the frame alone to
  // rounding (measured 2.3e-15 relative).
  Eam pot = Eam::from_setfl(eam);
  ForceField ff(std::shared_ptr<Potential>(std::shared_ptr<Potential>(), &pot));
  const std::vector<Structure> both{a, b};
  const Evaluation e = evaluate_batch(ff, both, Backend::Cpu)[1];
  EXPECT_EQ(j[1]["energy"].get<double>(), e.energy);
  EXPECT_EQ(j[1]["forces"][5][2].get<double>(), e.forces[5].z);
  EXPECT_EQ(j[1]["virial"][0][1].get<double>(), e.virial(0, 1));
  EXPECT_EQ(j[1]["forces"].size(), b.size());
  const Evaluation alone = evaluate(pot, b, Backend::Cpu);
  test::MaxError err("eval of a batch - the frame alone (relative)");
  err.add(j[1]["energy"].get<double>() / alone.energy, 1.0);
  err.add(j[1]["virial"][0][1].get<double>() / alone.virial(0, 1), 1.0);
  err.add(j[1]["forces"][5][2].get<double>() / alone.forces[5].z, 1.0);
  EXPECT_TRUE(err.within(3e-13));
}

// The training-data formats: every frame of a deepmd/npy system (a folder) and of an n2p2 input.data.
TEST_F(Cli, EvalReadsDeepmdSystemsAndN2p2Data) {
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  if (data.empty()) return test::missing(test::Dependency::SharedData, "../shared water data is missing");
  write("lj.toml", "[[potential]]\ntype = \"lj\"\ncutoff = 5.0\n[potential.species.O]\nepsilon = 0.0067\nsigma = 3.16\n"
                   "[potential.species.H]\nepsilon = 0.0\nsigma = 1.0\n");
  const Result r = quasar("eval --model lj.toml --structure " + data + " --json --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::vector<Structure> frames = io::read_frames(data);
  ASSERT_EQ(j.size(), frames.size());
  ASSERT_GT(frames.size(), 10u);
  ForceField lj = load_force_field((dir_ / "lj.toml").string());
  test::MaxError err("eval of a deepmd system - frames alone (relative)");
  for (std::size_t k : {std::size_t{0}, std::size_t{7}, frames.size() - 1}) {
    const Evaluation e = evaluate(lj, frames[k], Backend::Cpu);
    err.add(j[k]["energy"].get<double>() / e.energy, 1.0);
    err.add(j[k]["forces"][11][1].get<double>() / e.forces[11].y, 1.0);
  }
  // n2p2: two periodic structures and a molecule, in Å and eV.
  write("input.data",
        "begin\nlattice 4.0 0 0\nlattice 0 4.0 0\nlattice 0 0 4.0\natom 0 0 0 Ar 0 0 0 0 0\natom 2.1 1.9 0.1 Ar 0 0 0 0 0\n"
        "energy 0\ncharge 0\nend\nbegin\nlattice 5.0 0 0\nlattice 0.5 5.0 0\nlattice 0 0 5.0\natom 0 0 0 Ar 0 0 0 0 0\n"
        "energy 0\ncharge 0\nend\nbegin\natom 0 0 0 Ar 0 0 0 0 0\natom 3.7 0 0 Ar 0 0 0 0 0\natom 0 3.8 0.2 Ar 0 0 0 0 0\n"
        "energy 0\ncharge 0\nend\n");
  write("ar.toml", "[potential]\ntype = \"lj\"\ncutoff = 8.0\n[potential.species.Ar]\nepsilon = 0.0104\nsigma = 3.405\n");
  const Result n = quasar("eval --model ar.toml --structure input.data --json --device cpu");
  ASSERT_EQ(n.code, 0) << n.err;
  const auto jn = nlohmann::json::parse(n.out);
  const std::vector<Structure> structures = io::read_frames((dir_ / "input.data").string());
  ASSERT_EQ(jn.size(), 3u);
  ASSERT_EQ(structures.size(), 3u);
  ForceField ar = load_force_field((dir_ / "ar.toml").string());
  for (std::size_t k = 0; k < 3; ++k) err.add(jn[k]["energy"].get<double>() / evaluate(ar, structures[k], Backend::Cpu).energy, 1.0);
  // Batches against frames alone: measured 5.6e-16 relative.
  EXPECT_TRUE(err.within(6e-14));
}

// A LAMMPS dump with numbered types only (as `dump custom id type x y z` writes it): eval and
// model-devi read every frame, named by --type-map; model-devi's steps are the dump's timesteps.
TEST_F(Cli, EvalAndModelDeviOnALammpsDump) {
  const std::string eam = test::lammps_potential("CuNi.eam.alloy");
  if (eam.empty()) GTEST_SKIP() << "lammps-data's CuNi.eam.alloy is not installed";
  const std::vector<Structure> frames = {test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 63, {"Cu", "Ni"}),
                                         test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 64, {"Cu", "Ni"})};
  std::ostringstream dump;
  dump.precision(17);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Structure& s = frames[k];
    const LammpsBounds b = lammps_bounds(s.box);
    ASSERT_NE(b.xy, 0.0) << "a tilted cell";
    dump << "ITEM: TIMESTEP\n" << 100 * k << "\nITEM: NUMBER OF ATOMS\n" << s.size()
         << "\nITEM: BOX BOUNDS xy xz yz pp pp pp\n"
         << b.xlo + std::min({0.0, b.xy, b.xz, b.xy + b.xz}) << " " << b.xhi + std::max({0.0, b.xy, b.xz, b.xy + b.xz}) << " " << b.xy << "\n"
         << b.ylo + std::min(0.0, b.yz) << " " << b.yhi + std::max(0.0, b.yz) << " " << b.xz << "\n"
         << b.zlo << " " << b.zhi << " " << b.yz << "\nITEM: ATOMS id type x y z\n";
    for (std::size_t i = s.size(); i-- > 0;)  // LAMMPS writes atoms in any order
      dump << i + 1 << " " << s.types[i] + 1 << " " << s.positions[i].x << " " << s.positions[i].y << " " << s.positions[i].z << "\n";
  }
  write("traj.lammpstrj", dump.str());
  const Result r = quasar("eval --model " + eam + " --structure traj.lammpstrj --type-map Cu,Ni --json --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  Eam pot = Eam::from_setfl(eam);
  const Evaluation e = evaluate(pot, frames[1], Backend::Cpu);
  // The cell comes back through LAMMPS's bounding box: energies agree to 1e-12 eV (measured 0).
  EXPECT_NEAR(j[1]["energy"].get<double>(), e.energy, 1e-12);
  EXPECT_NEAR(j[1]["forces"][5][2].get<double>(), e.forces[5].z, 1e-12);
  const Result unnamed = quasar("eval --model " + eam + " --structure traj.lammpstrj --device cpu");
  EXPECT_EQ(unnamed.code, 1);
  EXPECT_NE(unnamed.err.find("'1'"), std::string::npos) << unnamed.err;
  const Result devi = quasar("model-devi --models " + eam + " " + eam + " --structure traj.lammpstrj --type-map Cu,Ni --device cpu");
  ASSERT_EQ(devi.code, 0) << devi.err;
  EXPECT_NE(devi.out.find("\n           0"), std::string::npos) << devi.out;
  EXPECT_NE(devi.out.find("\n         100"), std::string::npos) << devi.out;
  const Result bad = quasar("eval --model " + eam + " --structure traj.lammpstrj --type-map Cu,,Ni");
  EXPECT_EQ(bad.code, 2);
}

TEST_F(Cli, RunWritesThermoAndRestarts) {
  write("in.toml", R"(
device = "cpu"
[structure]
lattice = "fcc"
element = "Ar"
a = 5.3
repeat = [3, 3, 3]
[potential]
type = "lj"
cutoff = 8.0
shift = true
[potential.species.Ar]
epsilon = 0.0104
sigma = 3.405
[md]
integrator = "bussi"
timestep_fs = 5
steps = 40
temperature_K = 80
[output]
thermo_every = 10
thermo_csv = "thermo.csv"
trajectory = "traj.xyz"
trajectory_every = 20
checkpoint = "run.chk"
checkpoint_every = 20
)");
  const Result r = quasar("run in.toml");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream csv(dir_ / "thermo.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header, "step,time_ps,temp_K,ke_eV,pe_eV,etot_eV,press_bar,vol_A3,conserved_eV");
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 5);
  EXPECT_EQ(io::read_extxyz((dir_ / "traj.xyz").string()).size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "run.chk"));
  // Continue to step 60 from the checkpoint written at step 40.
  std::ifstream in(dir_ / "in.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.replace(text.find("steps = 40"), 10, "steps = 60\nrestart = \"run.chk\"");
  write("more.toml", text);
  const Result more = quasar("run more.toml");
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_NE(more.out.find("\n        60 "), std::string::npos) << more.out;
}

// A timestep far too large stops the run with the step, the atom and the reason, exit status 1,
// and the checkpoint of the good run stays byte for byte.
TEST_F(Cli, RunStopsAtAFaultAndKeepsTheCheckpoint) {
  Structure s = io::make_lattice("fcc", "Ar", 5.26, {3, 3, 3});
  s.ids.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.ids[i] = 1001 + static_cast<long>(i);
  io::write_lammps_data((dir_ / "ar.data").string(), s);
  const std::string input = R"(
device = "cpu"
[structure]
file = "ar.data"
[potential]
type = "lj"
cutoff = 8.0
[potential.species.Ar]
epsilon = 0.0104
sigma = 3.405
[md]
integrator = "bussi"
timestep_fs = 5
steps = 20
temperature_K = 40
[output]
thermo_every = 10
checkpoint = "run.chk"
checkpoint_every = 10
)";
  write("in.toml", input);
  ASSERT_EQ(quasar("run in.toml").code, 0);
  std::ifstream chk(dir_ / "run.chk", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(chk)), std::istreambuf_iterator<char>());
  // 500 fs at 40 K moves a typical argon atom 0.8 Å in the first step, more than half the 1 Å skin.
  std::string more = input;
  more.replace(more.find("timestep_fs = 5"), 15, "timestep_fs = 500");
  more.replace(more.find("steps = 20"), 10, "steps = 40\nrestart = \"run.chk\"");
  write("more.toml", more);
  const Result r = quasar("run more.toml");
  EXPECT_EQ(r.code, 1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(quasar: error: atom (\d+) \(id (\d+)\) moved [0-9.]+ Å in )"
                                                      R"(one step at step 21, more than half the neighbour-list skin \(1 Å\))")))
      << r.err;
  EXPECT_EQ(std::stol(m[2]), 1001 + std::stol(m[1])) << "the id is the data file's";
  std::ifstream after(dir_ / "run.chk", std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(after)), std::istreambuf_iterator<char>()), good);
}

// deterministic = true (or --deterministic) is accepted everywhere; on the CPU it changes nothing, so
// the thermo lines are the same text with and without it. A misspelling lists the key.
TEST_F(Cli, DeterministicIsAcceptedAndChangesNothingOnTheCpu) {
  const std::string input = R"(
[structure]
lattice = "fcc"
element = "Ar"
a = 5.3
repeat = [3, 3, 3]
[potential]
type = "lj"
cutoff = 8.0
[potential.species.Ar]
epsilon = 0.0104
sigma = 3.405
[md]
integrator = "langevin"
timestep_fs = 5
steps = 30
temperature_K = 80
[output]
thermo_every = 10
)";
  write("plain.toml", "device = \"cpu\"\n" + input);
  write("det.toml", "device = \"cpu\"\ndeterministic = true\n" + input);
  const Result plain = quasar("run plain.toml"), det = quasar("run det.toml"), flag = quasar("run plain.toml --deterministic");
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(det.code, 0) << det.err;
  ASSERT_EQ(flag.code, 0) << flag.err;
  const auto thermo = [](const std::string& out) { return out.substr(out.find("step")); };
  EXPECT_EQ(thermo(det.out), thermo(plain.out));
  EXPECT_EQ(thermo(flag.out), thermo(plain.out));
  EXPECT_NE(det.out.find("deterministic sums"), std::string::npos) << det.out;
  write("typo.toml", "determinstic = true\n" + input);
  const Result typo = quasar("run typo.toml");
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.err.find("typo.toml:1: unknown key 'determinstic'; valid keys: structure potential md output neighbor "
                          "device deterministic"),
            std::string::npos)
      << typo.err;
  write("bad.toml", "deterministic = \"yes\"\n" + input);
  const Result bad = quasar("run bad.toml");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("bad.toml:1:"), std::string::npos) << bad.err;
  const std::string eam = test::lammps_potential("Cu_u3.eam");
  if (eam.empty()) return;
  io::write_extxyz((dir_ / "cu.xyz").string(), {test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 63)});
  const Result e1 = quasar("eval --model " + eam + " --structure cu.xyz --json --device cpu");
  const Result e2 = quasar("eval --model " + eam + " --structure cu.xyz --json --device cpu --deterministic");
  ASSERT_EQ(e2.code, 0) << e2.err;
  EXPECT_EQ(e1.out, e2.out);
}

TEST_F(Cli, BadInputNamesFileLineAndKey) {
  write("unknown.toml", "[structure]\nlattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2,2,2]\n"
                        "[potential]\ntype = \"eam\"\nfile = \"x.eam\"\n[md]\nsteps = 10\ntimestep = 1\n");
  Result r = quasar("run unknown.toml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("unknown.toml:11: unknown key 'md.timestep'; valid keys in [md]: integrator timestep_fs"),
            std::string::npos) << r.err;
  write("missing.toml", "[structure]\nfile = \"nowhere.xyz\"\n[potential]\ntype = \"lj\"\n");
  r = quasar("run missing.toml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.toml:2: 'structure.file': structure file"), std::string::npos) << r.err;
  write("syntax.toml", "[md]\nsteps = = 3\n");
  r = quasar("run syntax.toml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("syntax.toml:2:"), std::string::npos) << r.err;
  write("type.toml", "[structure]\nlattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2,2,2]\n[potential]\ntype = \"morse\"\n");
  r = quasar("run type.toml");
  std::string types;  // the families this build has: lj, eam, bond/harmonic, angle/harmonic, deepmd
  for (const PotentialFamily& f : potential_registry().families()) types += (types.empty() ? "" : ", ") + f.name;
  EXPECT_NE(r.err.find("unknown potential type \"morse\"; valid types: " + types), std::string::npos) << r.err;
  r = quasar("run nothere.toml");
  EXPECT_EQ(r.code, 1);
}

TEST_F(Cli, DpCompressWritesATabulatedModel) {
  QUASAR_REQUIRE_FAMILY("deepmd");
#if QUASAR_WITH_DP
  const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  if (model.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  const Result ok = quasar("dp compress " + model + " c.dp --min-dist 0.8 --step 0.02");
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("largest deviation from the nets"), std::string::npos);
  const dp::DpModel m = dp::read_dp_model((dir_ / "c.dp").string());
  EXPECT_TRUE(m.compressed);
  EXPECT_EQ(m.compression.step, 0.02);
  const Result missing = quasar("dp compress " + model + " d.dp");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--min-dist"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "d.dp"));
  EXPECT_EQ(quasar("dp compress nothere.yaml e.dp --min-dist 1").code, 1);
  EXPECT_EQ(quasar("dp frobnicate").code, 2);
  // Precision modes are for the GPU; the CPU says so.
  const Result cpu = quasar("eval --model c.dp --structure x.xyz --device cpu --precision mixed99");
  EXPECT_EQ(cpu.code, 1);
  EXPECT_NE(cpu.err.find("valid: double, mixed32, mixed16"), std::string::npos);
#endif
}

// The README's embedded default: Deep Potential MD of silicon with the model trained on our data.
TEST_F(Cli, SiliconExampleRuns) {
  QUASAR_REQUIRE_FAMILY("deepmd");
  write("si.toml", short_example("examples/silicon/md.toml", "\"model.dp\"",
                                  "\"" + test::source_path("examples/silicon/model.dp") + "\""));
  const Result r = quasar("run si.toml --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("216 atoms, deepmd potential, bussi dynamics on cpu"), std::string::npos) << r.out;
}

// The polymer melt: topology from the data file, three terms; eval names each term's energy.
TEST_F(Cli, PolymerMeltExampleRuns) {
  const std::string data = test::source_path("examples/polymer-melt/melt.data");
  write("melt.toml", short_example("examples/polymer-melt/input.toml", "\"melt.data\"", "\"" + data + "\""));
  const Result r = quasar("run melt.toml --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("128 atoms, lj + bond + angle force field, langevin dynamics on cpu"), std::string::npos) << r.out;
  const Result e = quasar("eval --model melt.toml --structure " + data + " --json --device cpu");
  ASSERT_EQ(e.code, 0) << e.err;
  const auto j = nlohmann::json::parse(e.out);
  const Structure s = io::read_lammps_data(data);
  ForceField ff = load_force_field((dir_ / "melt.toml").string());
  const Evaluation want = evaluate(ff, s, Backend::Cpu);
  EXPECT_EQ(j["energy"].get<double>(), want.energy);
  EXPECT_EQ(j["terms"]["lj"].get<double>(), want.terms[0].energy);
  EXPECT_EQ(j["terms"]["bond"].get<double>(), want.terms[1].energy);
  EXPECT_EQ(j["terms"]["angle"].get<double>(), want.terms[2].energy);
  EXPECT_GT(j["terms"]["bond"].get<double>(), 0.0);
}

TEST_F(Cli, EmbeddedDefaultExampleRuns) {
  if (test::lammps_potential("Cu_u3.eam").empty())
    return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  write("default.toml", short_example("examples/cu-eam-nve/input.toml", "/usr/share/lammps/potentials/Cu_u3.eam",
                                       test::lammps_potential("Cu_u3.eam")));
  const Result r = quasar("run default.toml --device cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("4000 atoms, eam potential, nve dynamics on cpu"), std::string::npos);
}

}  // namespace
}  // namespace quasar
