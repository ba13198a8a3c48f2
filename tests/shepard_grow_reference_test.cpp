// The growth loop's reference program (grow/external_reference.hpp), through a fake one
// (tests/shepard_fake_reference.py: Morse pairs with analytic gradient and Hessian, standard library
// only): the points it returns against the same function written here, failures it lists, a
// program that fails, the [reference] table's errors, and the growth loop run on it. PySCF itself:
// tests/python/test_pyscf_reference.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "quasar/core/structure.hpp"
#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/grow/external_reference.hpp"
#include "quasar/potential/shepard/grow/grow.hpp"
#include "support.hpp"

namespace quasar {
namespace {

constexpr double kD = 4.7, kA = 1.9, kR0 = 0.74;  // the fake program's Morse pairs

// The Morse pair sum's energy and gradient (written independently of the fake program).
double morse(const std::vector<double>& x, std::vector<double>* gradient) {
  const std::size_t n = x.size() / 3;
  double e = 0;
  if (gradient) gradient->assign(x.size(), 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      double d[3], r = 0;
      for (int k = 0; k < 3; ++k) {
        d[k] = x[3 * i + k] - x[3 * j + k];
        r += d[k] * d[k];
      }
      r = std::sqrt(r);
      const double q = std::exp(-kA * (r - kR0));
      e += kD * (1 - q) * (1 - q) - kD;
      if (gradient)
        for (int k = 0; k < 3; ++k) {
          const double g = 2 * kD * kA * q * (1 - q) * d[k] / r;
          (*gradient)[3 * i + k] += g;
          (*gradient)[3 * j + k] -= g;
        }
    }
  return e;
}

bool have_python() { return std::system("python3 -c pass > /dev/null 2>&1") == 0; }

shepard::ExternalReference fake(const std::vector<std::string>& options = {}) {
  shepard::ExternalReference r;
  r.command = {"python3", test::source_path("tests/shepard_fake_reference.py")};
  r.description = "fake Morse pairs";
  r.command.insert(r.command.end(), options.begin(), options.end());
  return r;
}

// A failed run keeps its files and names the folder: the tests remove it.
void remove_kept_folder(const std::string& message) {
  const std::string key = "(kept in ";
  const std::size_t at = message.find(key);
  if (at == std::string::npos) return;
  const std::size_t end = message.find(')', at);
  std::filesystem::remove_all(message.substr(at + key.size(), end - at - key.size()));
}

const std::vector<std::string> kH3 = {"H", "H", "H"};
const std::vector<std::vector<double>> kConfigs = {{0, 0, 0, 0.74, 0, 0, 0.3, 1.9, 0.1},
                                                   {0, 0, 0, 0.9, 0.1, 0, -0.4, 1.2, 0.2},
                                                   {0.1, 0, 0, 1.3, 0.2, 0.1, 0.6, 0.9, -0.3}};

TEST(ShepardGrowReference, PointsMatchTheAnalyticFunction) {
  if (!have_python()) return test::missing(test::Dependency::Python, "no python3 to run the fake reference program");
  const shepard::ReferenceBatch b = shepard::run_external_reference(fake(), kH3, kConfigs);
  ASSERT_EQ(b.points.size(), kConfigs.size());
  double worst_e = 0, worst_g = 0, worst_h = 0;
  for (std::size_t c = 0; c < kConfigs.size(); ++c) {
    EXPECT_EQ(b.failures[c], "");
    const auto& p = b.points[c];
    EXPECT_EQ(p.positions, kConfigs[c]);
    std::vector<double> g;
    worst_e = std::max(worst_e, std::abs(p.energy - morse(kConfigs[c], &g)));
    for (std::size_t a = 0; a < 9; ++a) worst_g = std::max(worst_g, std::abs(p.gradient[a] - g[a]));
    // The Hessian against central differences of the gradient written here.
    const double h = 1e-5;
    for (std::size_t a = 0; a < 9; ++a) {
      std::vector<double> plus = kConfigs[c], minus = kConfigs[c], gp, gm;
      plus[a] += h;
      minus[a] -= h;
      morse(plus, &gp);
      morse(minus, &gm);
      for (std::size_t k = 0; k < 9; ++k) worst_h = std::max(worst_h, std::abs(p.hessian[a * 9 + k] - (gp[k] - gm[k]) / (2 * h)));
    }
  }
  test::print_measured("fake reference energy - Morse (eV)", worst_e);
  test::print_measured("fake reference gradient - Morse (eV/A)", worst_g);
  test::print_measured("fake reference Hessian - central differences (eV/A^2)", worst_h);
  EXPECT_LT(worst_e, 1e-12);
  EXPECT_LT(worst_g, 1e-12);
  EXPECT_LT(worst_h, 1e-7);  // differences of step 1e-5 Å: 1.4e-8 measured
}

TEST(ShepardGrowReference, FailuresAreListedAndTheRestKept) {
  if (!have_python()) return test::missing(test::Dependency::Python, "no python3 to run the fake reference program");
  const shepard::ReferenceBatch b = shepard::run_external_reference(fake({"--fail-every", "2"}), kH3, kConfigs);
  EXPECT_EQ(b.failures[0], "");
  EXPECT_EQ(b.failures[1], "the SCF did not converge (fake)");
  EXPECT_EQ(b.failures[2], "");
  EXPECT_NEAR(b.points[2].energy, morse(kConfigs[2], nullptr), 1e-12);
  EXPECT_TRUE(b.points[1].gradient.empty());
}

TEST(ShepardGrowReference, AFailingProgramNamesItsCommandAndOutput) {
  if (!have_python()) return test::missing(test::Dependency::Python, "no python3 to run the fake reference program");
  try {
    shepard::run_external_reference(fake({"--exit", "3"}), kH3, kConfigs);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("shepard_fake_reference.py --exit 3"), std::string::npos) << m;
    EXPECT_NE(m.find("exit status 3"), std::string::npos) << m;
    EXPECT_NE(m.find("fake reference: asked to fail"), std::string::npos) << m;
    remove_kept_folder(m);
  }
  try {
    shepard::run_external_reference(fake({"--write-nothing"}), kH3, kConfigs);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrote a points file that does not read"), std::string::npos) << e.what();
    remove_kept_folder(e.what());
  }
  shepard::ExternalReference missing;
  missing.command = {"/nonexistent/reference-program"};
  try {
    shepard::run_external_reference(missing, kH3, kConfigs);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/reference-program"), std::string::npos) << e.what();
  }
}

const char* kGrowInput = R"([qct]
molecule = ["H", "H"]
positions = [0.0, 0.0, 0.0, 0.74, 0.0, 0.0]
projectile = "H"
collision_energy = 1.0
b_max = 1.0
trajectories = 4
seed = 5
timestep_fs = 0.2
initial_separation = 4.0
stop_distance = 4.5
max_steps = 300
[grow]
start = [0, 0, 0, 0.74, 0, 0, 0.3, 3.0, 0,  0, 0, 0, 0.74, 0, 0, 0.4, 0, 4.0,  0, 0, 0, 0.9, 0, 0, 0.5, 1.2, 0]
iterations = 2
max_points = 40
h_weight_points = 3
variance_points = 3
)";

shepard::GrowSettings settings_of(const std::string& text) {
  const toml::table root = parse_toml_text(text, "grow.toml");
  const ConfigTable top{&root, "grow.toml", ""};
  return shepard::grow_settings_from_config(top.require_sub("grow"), top.require_sub("qct"));
}

// The loop on a program: points added, failures counted and skipped (every fourth chosen
// configuration of a run), the data set written, and the data points the program's values.
TEST(ShepardGrowReference, GrowsOnAProgramAndSkipsItsFailures) {
  if (!have_python()) return test::missing(test::Dependency::Python, "no python3 to run the fake reference program");
  const auto dir = test::scratch_dir("shepard-grow-reference");
  shepard::GrowSettings s = settings_of(kGrowInput);
  s.output = (dir / "h3.shepard").string();
  shepard::GrowReference reference;
  reference.program = fake({"--fail-every", "4"});
  std::ostringstream log;
  const shepard::GrowResult r = shepard::grow(s, reference, Backend::Cpu, &log);
  std::cout << log.str();
  ASSERT_EQ(r.iterations.size(), 3u);
  long failed = 0;
  for (std::size_t k = 0; k + 1 < r.iterations.size(); ++k) {
    const auto& it = r.iterations[k];
    EXPECT_EQ(it.failed, (it.added + it.skipped + it.failed) / 4);
    failed += it.failed;
  }
  EXPECT_GT(failed, 0);
  EXPECT_EQ(static_cast<long>(r.failures.size()), failed);
  EXPECT_NE(r.failures.front().find("the SCF did not converge (fake)"), std::string::npos);
  EXPECT_NE(log.str().find("failed in the reference"), std::string::npos);
  EXPECT_NE(log.str().find("reference fake Morse pairs"), std::string::npos);
  // The molecule's modes from the program's Hessians: H2's Morse frequency a sqrt(2 D / mu) / (2 pi c).
  const std::string key = "frequencies (cm^-1): ";
  ASSERT_NE(log.str().find(key), std::string::npos);
  const double wavenumber = std::stod(log.str().substr(log.str().find(key) + key.size()));
  const double mu = 0.5 * element_mass("H") * 1.66053906660e-27, omega = kA * 1e10 * std::sqrt(2 * kD * 1.602176634e-19 / mu);
  EXPECT_NEAR(wavenumber, omega / (2 * 3.141592653589793 * 2.99792458e10), 0.06);  // printed to 0.1 cm^-1
  EXPECT_GT(r.iterations.back().points, 3);
  EXPECT_EQ(shepard::read_dataset(s.output).points.size(), r.set.points.size());
  for (const auto& p : r.set.points) EXPECT_NEAR(p.energy, morse(p.positions, nullptr), 1e-12);
  std::filesystem::remove_all(dir);

  // A start point the program cannot compute stops the loop, naming it.
  reference.program = fake({"--fail-every", "2"});
  try {
    shepard::grow(s, reference, Backend::Cpu, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("start point 2: the SCF did not converge (fake)"), std::string::npos) << e.what();
  }
}

// A program that fails in the second iteration stops the loop with its command named, and the data
// set written after the first stays (start points, the modes' one run and the first iteration: 3 runs).
TEST(ShepardGrowReference, AFailureMidwayKeepsTheDataSetWritten) {
  if (!have_python()) return test::missing(test::Dependency::Python, "no python3 to run the fake reference program");
  const auto dir = test::scratch_dir("shepard-grow-reference-midway");
  shepard::GrowSettings s = settings_of(kGrowInput);
  s.output = (dir / "h3.shepard").string();
  shepard::GrowReference reference;
  reference.program = fake({"--calls", (dir / "calls.txt").string(), "--fail-after", "3"});
  try {
    shepard::grow(s, reference, Backend::Cpu, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("exit status 4"), std::string::npos) << m;
    EXPECT_NE(m.find("fake reference: run 4 fails"), std::string::npos) << m;
    remove_kept_folder(m);
  }
  EXPECT_GT(shepard::read_dataset(s.output).points.size(), 3u);  // the start points and the first iteration's
  std::filesystem::remove_all(dir);
}

TEST(ShepardGrowReference, BadInputNamesTheKey) {
  auto message = [](const std::string& table) {
    const toml::table root = parse_toml_text("[reference]\n" + table, "grow.toml");
    const ConfigTable top{&root, "grow.toml", ""};
    try {
      shepard::external_reference_from_config(top.require_sub("reference"), ".");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("basis = \"sto-3g\"\nspin = 1\n"), "no error");
  EXPECT_EQ(message("type = \"command\"\ncommand = [\"python3\", \"x.py\"]\n"), "no error");
  for (const auto& [table, key] : std::vector<std::pair<std::string, std::string>>{
           {"type = \"orca\"\n", "reference.type"},
           {"spin = -1\n", "reference.spin"},
           {"basis = \"\"\n", "reference.basis"},
           {"method = \"b3 lyp\"\n", "reference.method"},
           {"conv_tol = 2.0\n", "reference.conv_tol"},
           {"script = \"no-such-script.py\"\n", "reference.script"},
           {"command = [\"x\"]\n", "command"},  // a key of type = "command" under "pyscf"
           {"type = \"command\"\n", "reference.command"},
           {"type = \"command\"\ncommand = []\n", "reference.command"},
           {"type = \"command\"\ncommand = [\"x\"]\nbasis = \"sto-3g\"\n", "basis"}}) {
    const std::string m = message(table);
    EXPECT_NE(m.find(key), std::string::npos) << table << " -> " << m;
    EXPECT_NE(m.find("grow.toml"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace quasar
