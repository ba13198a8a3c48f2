// Bad input of every other kind a run reads: EAM files, the TOML input of `quasar run`, DeePMD-kit's
// training input and MD checkpoints. Each must end in an InputError that names the file, the line
// or key, and what was expected; a checkpoint that fails leaves the simulation as it was.
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/md/settings.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/eam_file.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/registry.hpp"
#if QUASAR_WITH_DP
#include "quasar/potential/dp/train/input.hpp"
#endif
#include "support.hpp"

namespace quasar {
namespace {

class InputCheck : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("input-check"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  // The message of the InputError that f() must throw.
  template <class F>
  std::string error_of(F f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an InputError: " << e.what();
      return {};
    }
    ADD_FAILURE() << "no error";
    return {};
  }
  std::filesystem::path dir_;
};

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// A funcfl file with 10-point tables; `grid` replaces the grid line (line 3), `value` the first F(rho).
std::string funcfl(const std::string& grid = "10 0.1 10 0.5 4.5", const std::string& value = "-0.0") {
  std::string t = "analytic test tables\n29 63.55 3.615 FCC\n" + grid + "\n" + value;
  for (int k = 1; k < 30; ++k) t += (k % 5 == 0 ? "\n" : " ") + std::to_string(-0.1 * k);
  return t + "\n";
}

TEST_F(InputCheck, EamFiles) {
  EXPECT_NO_THROW(read_eam_funcfl(write("ok.eam", funcfl())));
  // Counts beyond what the file holds fail at the header, not as an allocation.
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("a.eam", funcfl("2000000000 0.1 10 0.5 4.5"))); }),
             "a.eam:3: the header asks for 2000000020 numbers (nrho values of F(rho), nr of Z(r) and of rho(r)) but only");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("b.eam", funcfl("-10 0.1 10 0.5 4.5"))); }),
             "b.eam:3: expected a non-negative integer for nrho");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("c.eam", funcfl("10 0.1 1e300 0.5 4.5"))); }),
             "c.eam:3: expected a non-negative integer for nr");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("d.eam", funcfl("10 0.1 10 nan 4.5"))); }),
             "d.eam:3: expected a finite number for dr, found 'nan'");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("e.eam", funcfl("10 0 10 0.5 4.5"))); }),
             "e.eam:3: drho, dr and the cutoff must be positive");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("f.eam", funcfl("10 0.1 10 0.5 450"))); }),
             "f.eam:3: the cutoff 450.000000 Å is beyond 100 Å");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("g.eam", funcfl("10 0.1 10 0.5 4.5", "inf"))); }),
             "g.eam:4: expected a finite number for F(rho), found 'inf'");
  EXPECT_HAS(error_of([&] { read_eam_funcfl(write("h.eam", funcfl("10 1e308 10 0.5 4.5"))); }),
             "h.eam:3: the tables' range (n - 1) * spacing is not finite");
  // setfl: element counts and names, masses.
  const std::string tables = "5 0.1 5 0.5 2.0\n1 1.0 3.6 fcc\n1 2 3 4 5\n1 2 3 4 5\n1 2 3 4 5\n";
  EXPECT_NO_THROW(read_eam_setfl(write("ok.eam.alloy", "a\nb\nc\n1 Cu\n" + tables)));
  EXPECT_HAS(error_of([&] { read_eam_setfl(write("s1.eam.alloy", "a\nb\nc\n1000000000 Cu\n" + tables)); }),
             "s1.eam.alloy:4: the header asks for 999999999 numbers (one name per element)");
  EXPECT_HAS(error_of([&] { read_eam_setfl(write("s2.eam.alloy", "a\nb\nc\n2 Cu Cu\n" + tables)); }),
             "s2.eam.alloy:4: element 'Cu' appears twice");
  std::string massless = tables;
  massless.replace(massless.find("1 1.0 3.6"), 9, "1 0.0 3.6");
  EXPECT_HAS(error_of([&] { read_eam_setfl(write("s3.eam.alloy", "a\nb\nc\n1 Cu\n" + massless)); }),
             "s3.eam.alloy:6: expected a positive mass");
}

// The [md], [output], [neighbor] and [potential] checks of `quasar run` on TOML text.
class RunInputCheck : public InputCheck {
 protected:
  std::string settings_error(const std::string& text) {
    const toml::table root = parse_toml_text(text, "in.toml");
    return error_of([&] { md::md_settings_from_config(ConfigTable{&root, "in.toml", ""}, dir_); });
  }
  std::string potential_error(const std::string& text) {
    const toml::table root = parse_toml_text("[potential]\n" + text, "in.toml");
    return error_of([&] { make_potential(ConfigTable{&root, "in.toml", ""}.require_sub("potential"), dir_); });
  }
};

TEST_F(RunInputCheck, NumbersAreFiniteAndInRange) {
  EXPECT_HAS(settings_error("[md]\ntemperature_K = nan\n"), "in.toml:2: 'md.temperature_K': expected a finite number");
  EXPECT_HAS(settings_error("[md]\ntimestep_fs = inf\n"), "in.toml:2: 'md.timestep_fs': expected a finite number");
  EXPECT_HAS(settings_error("[md]\n\nbarostat_every = 3000000000\n"),
             "in.toml:3: 'md.barostat_every': expected an integer >= 1 and <= 2147483647, found 3000000000");
  EXPECT_HAS(settings_error("[md]\nfmax = -1e-3\n"), "in.toml:2: 'md.fmax': must be positive");
  EXPECT_HAS(settings_error("[neighbor]\nskin = 1e9\n"), "in.toml:2: 'neighbor.skin': expected 0 to 100 Å");
  EXPECT_HAS(settings_error("[neighbor]\nsort_every = -5\n"), "in.toml:2: 'neighbor.sort_every': expected an integer >= 0");
  EXPECT_HAS(settings_error("[md]\npressure_bar = 9007199254740993\n"),
             "in.toml:2: 'md.pressure_bar': expected a number that a double holds exactly");
  EXPECT_HAS(settings_error("[output]\nthermo_every = 0\n"), "in.toml:2: 'output.thermo_every': must be at least 1");
}

TEST_F(RunInputCheck, TomlSyntaxNamesTheLine) {
  try {
    parse_toml_text("[md]\nsteps = 3\nsteps = 4\n", "in.toml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "in.toml");
    EXPECT_EQ(e.line(), 3);
  }
  const std::string path = write("bad.toml", "[md]\n\nsteps = [1,\n");
  EXPECT_HAS(error_of([&] { parse_toml_file(path); }), "bad.toml:");
}

TEST_F(RunInputCheck, Potentials) {
  const std::string species = "[potential.species.Ar]\nepsilon = 0.01\nsigma = 3.4\n";
  EXPECT_HAS(potential_error("type = \"lj\"\ncutoff = 1000.0\n" + species),
             "in.toml:3: 'potential.cutoff': expected a cutoff in (0, 100] Å");
  EXPECT_HAS(potential_error("type = \"lj\"\ncutoff = 8.0\n[potential.species.Ar]\nepsilon = 0.01\nsigma = -3.4\n"),
             "in.toml:6: 'potential.species.Ar.sigma': expected a positive length");
  EXPECT_HAS(potential_error("type = \"lj\"\ncutoff = 8.0\n" + species + "cutoff = -1.0\n"),
             "'potential.species.Ar.cutoff': expected 0 (the global cutoff) or a cutoff in (0, 100] Å");
  EXPECT_HAS(potential_error("type = \"eam\"\nfile = \"Cu_u3.eam\"\n"), "in.toml:3: 'potential.file': EAM file '");
  EXPECT_HAS(potential_error("type = \"eam\"\n[potential.files]\nCu = \"nowhere.eam\"\n"),
             "in.toml:4: 'potential.files.Cu': EAM file '");
  if (potential_registry().find("deepmd")) {
    EXPECT_HAS(potential_error("type = \"deepmd\"\nfile = \"nowhere.dp\"\n"), "in.toml:3: 'potential.file': model file '");
  }
  // A file named in the input that exists but is broken names that file and its line.
  write("broken.eam", funcfl("10 0.1 10 0.5 x"));
  EXPECT_HAS(potential_error("type = \"eam\"\nfile = \"broken.eam\"\n"), "broken.eam:3: expected a number for the cutoff, found 'x'");
}

#if QUASAR_WITH_DP  // the Deep Potential's training input, built with it
// DeePMD-kit's training input (the water example, one key changed at a time).
class TrainInputCheck : public InputCheck {
 protected:
  void SetUp() override {
    InputCheck::SetUp();
    const std::string path = test::shared_path("reference/deepmd/water-se_e2_a-input.json");
    if (path.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
    input_ = nlohmann::json::parse(std::ifstream(path));
  }
  std::string error_after(const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = input_;
    change(j);
    return error_of([&] { dp::parse_train_input(j, "in.json", dir_.string()); });
  }
  nlohmann::json input_;
};

TEST_F(TrainInputCheck, KeysTypesAndRanges) {
  EXPECT_NO_THROW(dp::parse_train_input(input_, "in.json", dir_.string()));
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["sel"] = {46, -92}; }),
             "in.json: input.model.descriptor.sel[1]: expected an integer from 0 to 100000, found -92");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["rcut"] = "six"; }),
             "in.json: input.model.descriptor.rcut: expected a number, found string");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["rcut_smth"] = 7.0; }),
             "input.model.descriptor.rcut_smth: expected less than rcut");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["neuron"] = {25, 0}; }),
             "input.model.descriptor.neuron[1]: expected an integer from 1 to 4096, found 0");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["axis_neuron"] = 200; }),
             "input.model.descriptor.axis_neuron: expected at most the last embedding width 100");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["activation_function"] = "tanhh"; }),
             "input.model.descriptor.activation_function: unsupported activation function 'tanhh'");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["descriptor"]["exclude_types"] = {{0, 5}}; }),
             "input.model.descriptor.exclude_types[0][1]: expected an integer from 0 to 1, found 5");
  EXPECT_HAS(error_after([](auto& j) { j["model"]["type_map"] = {"O", "O"}; }),
             "input.model.type_map[1]: empty or repeated type name 'O'");
  EXPECT_HAS(error_after([](auto& j) { j["learning_rate"]["start_lr"] = -1e-3; }),
             "input.learning_rate.start_lr: expected a positive number");
  EXPECT_HAS(error_after([](auto& j) { j["training"]["numb_steps"] = 1e30; }),
             "input.training.numb_steps: expected an integer from 0 to 1099511627776, found 1e+30");
  EXPECT_HAS(error_after([](auto& j) { j["training"]["training_data"]["systems"] = 5; }),
             "input.training.training_data.systems: expected a string or a list of strings, found number");
  EXPECT_HAS(error_after([](auto& j) { j["training"]["training_data"]["batch_size"] = 0; }),
             "input.training.training_data.batch_size: expected an integer from 1 to 1000000, found 0");
  EXPECT_HAS(error_after([](auto& j) { j["loss"]["start_pref_f"] = -1; }),
             "input.loss.start_pref_f: expected a non-negative prefactor");
}

TEST_F(TrainInputCheck, JsonSyntaxNamesTheLine) {
  const std::string path = write("in.json", "{\n  \"model\": {\n    \"type_map\": [\"O\",, \"H\"]\n  }\n}\n");
  EXPECT_HAS(error_of([&] { dp::read_train_input(path); }), "in.json:3: JSON error: ");
}
#endif

// The small LJ system of fuzz/checkpoint.cpp, and a checkpoint of it after 10 steps.
class CheckpointCheck : public InputCheck {
 protected:
  void SetUp() override {
    InputCheck::SetUp();
    sim_ = make();
    sim_->run_to(10);
    good_ = (dir_ / "good.chk").string();
    sim_->write_checkpoint(good_);
    std::ifstream in(good_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    bytes_ = ss.str();
    header_end_ = bytes_.find('\n', bytes_.find('\n') + 1) + 1;
    sim_ = make();  // a fresh run to restart
  }
  static std::unique_ptr<md::Simulation> make() {
    Structure s = io::make_lattice("fcc", "Ar", 5.3, {2, 2, 2}, 0.0);
    auto lj = std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.0104, 3.405, 0.0}}}, 5.0, true,
                                             false, std::vector<LjPairOverride>{});
    md::MdSettings settings;
    settings.integrator.kind = "langevin";
    settings.integrator.temperature = 80;
    settings.skin = 0.5;
    settings.output.progress = false;
    settings.output.thermo_screen = false;
    return std::make_unique<md::Simulation>(s, lj, settings, Backend::Cpu);
  }
  // Loading `text` fails with a message holding `part`, and the simulation is unchanged.
  void expect_rejected(const std::string& text, const std::string& part) {
    const auto x = sim_->atoms().x.to_vector();
    const long step = sim_->step();
    EXPECT_HAS(error_of([&] { sim_->read_checkpoint(write("bad.chk", text)); }), part);
    EXPECT_EQ(sim_->atoms().x.to_vector(), x);
    EXPECT_EQ(sim_->step(), step);
  }
  std::string with_header(const std::string& from, const std::string& to) const {
    std::string t = bytes_;
    const auto at = t.find(from);
    EXPECT_LT(at, header_end_) << from;
    return t.replace(at, from.size(), to);
  }
  // The checkpoint with one value of its per-atom arrays (at `offset` bytes into them) replaced.
  template <class T>
  std::string with_value(std::size_t offset, T value) const {
    std::string t = bytes_;
    std::memcpy(&t[header_end_ + offset], &value, sizeof(T));
    return t;
  }

  std::unique_ptr<md::Simulation> sim_;
  std::string good_, bytes_;
  std::size_t header_end_ = 0;
};

TEST_F(CheckpointCheck, HeaderAndSizes) {
  const std::size_t n = 32;
  expect_rejected("QUASAR-CHECKPOINT 3" + bytes_.substr(bytes_.find('\n')),
                  "bad.chk:1: checkpoint format 'QUASAR-CHECKPOINT 3'; this build reads 'QUASAR-CHECKPOINT 2'");
  expect_rejected("QUASAR-CHECKPOINT 1" + bytes_.substr(bytes_.find('\n')),
                  "bad.chk:1: checkpoint format 1 (per-atom arrays in sorted order) was written by an earlier version");
  // 96 bytes per atom: the order (8), x..fz (9 x 8), type, ix, iy, iz (4 x 4).
  expect_rejected(bytes_.substr(0, bytes_.size() - 8), "checkpoint has " + std::to_string(n * 96 - 8) +
                                                           " bytes after its header, expected " + std::to_string(n * 96) +
                                                           " for 32 atoms and 0 bytes of term states");
  expect_rejected(bytes_ + "x", "expected " + std::to_string(n * 96) + " for 32 atoms");
  expect_rejected(with_header("\"atoms\":32", "\"atoms\":1000000000000"), "bad.chk:2: checkpoint has 1000000000000 atoms");
  expect_rejected(with_header("\"term_state\":[]", "\"term_state\":[{\"term\":\"lj\",\"bytes\":8}]"),
                  "expected " + std::to_string(n * 96 + 8) + " for 32 atoms and 8 bytes of term states");
  expect_rejected(with_header("\"term_state\":[]", "\"term_state\":[{\"term\":\"lj\",\"bytes\":-8}]"),
                  "header key 'term_state': expected {\"term\": name, \"bytes\": size} entries within the file");
  expect_rejected(with_header("\"atoms\":32", "\"atoms\":\"32\""), "bad.chk:2: header key 'atoms': expected an integer");
  expect_rejected(with_header("\"step\":10", "\"step\":-10"), "header key 'step': expected a non-negative step");
  expect_rejected(with_header("\"cell\":[10.6,0.0", "\"cell\":[0.0,0.0"), "header key 'cell': cell matrix is singular");
  expect_rejected(with_header("\"cell\":[10.6,0.0", "\"cell\":[0.5,0.0"), "header key 'cell': a periodic direction is thinner");
  expect_rejected(with_header("\"pbc\":[1,1,1]", "\"pbc\":[1,1,0]"), "header key 'pbc': periodicity differs");
  expect_rejected(with_header("\"integrator\":\"langevin\"", "\"integrator\":\"nve\""),
                  "checkpoint was written by integrator 'nve', the input asks for 'langevin'");
  expect_rejected(with_header("{\"name\":\"iz\",\"type\":\"i32\",\"width\":1}", "{\"name\":\"iz\",\"type\":\"i64\",\"width\":1}"),
                  "header key 'properties': the per-atom properties (x y z vx vy vz fx fy fz type ix iy iz) differ from "
                  "this run's (x y z vx vy vz fx fy fz type ix iy iz)");
  expect_rejected(with_header("{\"name\":\"type\",", "{\"name\":\"charge\",\"type\":\"f64\",\"width\":1},{\"name\":\"type\","),
                  "the per-atom properties (x y z vx vy vz fx fy fz charge type ix iy iz) differ");
  expect_rejected(with_header("\"properties\":[", "\"properties\":7,\"x\":["), "the per-atom properties () differ");
  // The integrator state: nine numbers.
  const auto at = bytes_.find("\"state\":[");
  std::string short_state = bytes_;
  short_state.erase(at + 9, short_state.find(',', at) - (at + 9) + 1);
  expect_rejected(short_state, "header key 'state': expected 9 numbers");
}

// The fuzz target's seeds are checkpoints this build reads (they are of the same system).
TEST_F(CheckpointCheck, FuzzSeedsLoad) {
  for (const char* name : {"argon-32-langevin-step-10.chk", "argon-32-langevin-step-1000.chk"}) {
    sim_ = make();
    sim_->read_checkpoint(test::source_path(std::string("fuzz/seeds/checkpoint/") + name));
    EXPECT_GT(sim_->step(), 0) << name;
  }
}

TEST_F(CheckpointCheck, PerAtomArrays) {
  // The order (input index of the atom at each position) first, then every property in input order.
  const std::size_t n = 32, id = 0, x = n * 8, vy = x + 4 * n * 8, type = x + 9 * n * 8;
  expect_rejected(with_value(x + 8 * 5, std::nan("")), "checkpoint: x of atom 5 is not finite");
  expect_rejected(with_value(vy, HUGE_VAL), "checkpoint: vy of atom 0 is not finite");
  expect_rejected(with_value(x, 50.0), "checkpoint: atom 0 lies outside the cell (fractional coordinate 4.71698");
  expect_rejected(with_value(type + 4 * 3, 1), "has type 1, the input's atom has type 0");
  long id0 = 0;
  std::memcpy(&id0, &bytes_[header_end_ + id], sizeof id0);
  expect_rejected(with_value(id + 8, id0), "checkpoint: atom ids are not a permutation of 0..31 (atom 1 has id");
  expect_rejected(with_value(id, -1L), "(atom 0 has id -1)");
  // After all that, the good checkpoint still restarts the run.
  sim_->read_checkpoint(good_);
  EXPECT_EQ(sim_->step(), 10);
}

}  // namespace
}  // namespace quasar
