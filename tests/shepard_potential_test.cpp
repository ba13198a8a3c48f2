// The Shepard surface in the engine (type "shepard", .shepard files) and on the command line
// (`quasar shepard build|eval`, `quasar eval`). References: the interpolation called directly, and
// the analytic test surface at the data points, which the interpolation reproduces.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/cartesian_points.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "shepard_surface.hpp"
#include "support.hpp"

namespace quasar {
namespace {

const test::TestSurface kSurface{{"O", "H", "H", "H"}};

std::vector<double> geometry(std::mt19937_64& rng, double amplitude) {
  std::vector<double> x = {0, 0, 0.1, 0.95, 0.1, -0.2, -0.45, 0.85, -0.25, -0.5, -0.8, -0.3};
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (double& v : x) v += u(rng);
  return x;
}

shepard::CartesianPoints ab_initio_points(int count) {
  std::mt19937_64 rng(21);
  shepard::CartesianPoints c;
  c.elements = kSurface.elements;
  for (int i = 0; i < count; ++i) {
    shepard::CartesianPoint p;
    p.positions = geometry(rng, 0.12);
    p.energy = kSurface(p.positions, &p.gradient, &p.hessian);
    c.points.push_back(std::move(p));
  }
  return c;
}

Structure molecule(const std::vector<double>& x, const std::vector<std::string>& elements) {
  Structure s;
  for (std::size_t a = 0; a < elements.size(); ++a) {
    s.types.push_back(s.type_index(elements[a]));
    s.positions.push_back({x[3 * a], x[3 * a + 1], x[3 * a + 2]});
  }
  s.box = Box::enclosing(s.positions);
  return s;
}

class ShepardPotential : public testing::Test {
 protected:
  std::filesystem::path dir = test::scratch_dir("shepard_potential");
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(ShepardPotential, EngineEvaluationEqualsTheInterpolation) {
  const shepard::DataSet set = shepard::build_dataset(ab_initio_points(8), {}, 0.15);
  const std::string path = (dir / "oh3.shepard").string();
  shepard::write_dataset(path, set);
  const shepard::Interpolant f = shepard::Interpolant::from(set);
  ForceField ff = load_force_field(path);
  std::mt19937_64 rng(4);
  std::vector<Structure> frames;
  std::vector<std::vector<double>> xs;
  for (int k = 0; k < 5; ++k) {
    xs.push_back(geometry(rng, 0.15));
    frames.push_back(molecule(xs.back(), set.elements));
  }
  // A molecule in a periodic cell across its boundary: made whole by minimum images.
  frames[4].box = Box::orthorhombic(5, 5, 5);
  for (auto& r : frames[4].positions) r.x += 4.5;
  for (std::size_t a = 0; a < 4; ++a) xs[4][3 * a] += 4.5;
  const std::vector<Evaluation> got = evaluate_batch(ff, frames, Backend::Cpu, true);
  test::MaxError ee("engine - interpolation energy (eV)"), ef("engine forces + gradient (eV/Å)"),
      ew("engine virial - sum r F (eV)"), es("single - batch energy (eV)"), ea("per-atom energy sum - energy (eV)");
  for (std::size_t k = 0; k < frames.size(); ++k) {
    std::vector<double> g(12);
    ee.add(got[k].energy, shepard::evaluate(f, xs[k].data(), g.data()));
    Mat3 w{};
    for (std::size_t a = 0; a < 4; ++a) {
      const double force[3] = {got[k].forces[a].x, got[k].forces[a].y, got[k].forces[a].z};
      for (int c = 0; c < 3; ++c) {
        ef.add(force[c], -g[3 * a + static_cast<std::size_t>(c)]);
        for (int d = 0; d < 3; ++d) w(c, d) += xs[k][3 * a + static_cast<std::size_t>(c)] * force[d];
      }
    }
    for (int c = 0; c < 3; ++c)
      for (int d = 0; d < 3; ++d) ew.add(got[k].virial(c, d), w(c, d));
    double sum = 0;
    for (double e : got[k].atom_energy) sum += e;
    ea.add(sum, got[k].energy);
    es.add(evaluate(ff, frames[k], Backend::Cpu).energy, got[k].energy);
  }
  // Measured 5e-15, 2e-13 (the molecule across the cell's boundary: its wrapped positions), 2e-15, 0, 0.
  EXPECT_TRUE(ee.within(1e-12));
  EXPECT_TRUE(ef.within(1e-11));
  EXPECT_TRUE(ew.within(1e-12));
  EXPECT_TRUE(ea.within(1e-12));
  EXPECT_TRUE(es.within(1e-12));

  // From a TOML table, and the errors of a wrong molecule.
  std::ofstream(dir / "model.toml") << "[potential]\ntype = \"shepard\"\nfile = \"oh3.shepard\"\n";
  ForceField from_toml = load_force_field((dir / "model.toml").string());
  EXPECT_EQ(evaluate(from_toml, frames[0], Backend::Cpu).energy, got[0].energy);
  std::ofstream(dir / "bad.toml") << "[potential]\ntype = \"shepard\"\nfile = \"oh3.shepard\"\ncutoff = 3\n";
  EXPECT_THROW(load_force_field((dir / "bad.toml").string()), InputError);
  Structure swapped = molecule(xs[0], {"H", "O", "H", "H"});
  EXPECT_THROW(evaluate(ff, swapped, Backend::Cpu), Error);
  Structure water = molecule({0, 0, 0, 0.96, 0, 0, -0.24, 0.93, 0}, {"O", "H", "H"});
  EXPECT_THROW(evaluate(ff, water, Backend::Cpu), Error);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(ShepardPotential, CommandLineBuildsAndEvaluates) {
  const shepard::CartesianPoints points = ab_initio_points(6);
  shepard::write_cartesian_points((dir / "points.txt").string(), points);
  EXPECT_EQ(shepard::read_cartesian_points((dir / "points.txt").string()).points.size(), 6u);
  std::vector<Structure> frames;
  for (const auto& p : points.points) frames.push_back(molecule(p.positions, points.elements));
  io::write_extxyz((dir / "frames.xyz").string(), frames);
  auto run = [&](const std::string& args) {
    const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") + " " + args + " > out.txt 2> err.txt";
    const int status = std::system(cmd.c_str());
    return WEXITSTATUS(status);
  };
  ASSERT_EQ(run("shepard build points.txt oh3.shepard --confidence 0.15 --wtol 1e-9"), 0) << read_text(dir / "err.txt");
  EXPECT_NE(read_text(dir / "out.txt").find("6 data points x 6 permutations"), std::string::npos);
  ASSERT_EQ(run("shepard eval oh3.shepard frames.xyz"), 0) << read_text(dir / "err.txt");
  // Each data point's energy and gradient come back (the numbers printed with 15 digits).
  std::istringstream out(read_text(dir / "out.txt"));
  std::string line;
  std::getline(out, line);  // the header
  test::MaxError ee("shepard eval energy at the data points (eV)"), eg("shepard eval gradient at the data points (eV/Å)");
  for (const auto& p : points.points) {
    ASSERT_TRUE(std::getline(out, line));
    std::istringstream words(line);
    int index = 0;
    double e = 0;
    words >> index >> e;
    ee.add(e, p.energy);
    for (double g_ref : p.gradient) {
      double g = 0;
      words >> g;
      eg.add(g, g_ref);
    }
  }
  // Measured 4e-14 and 3e-14: the numbers printed with 15 significant digits.
  EXPECT_TRUE(ee.within(1e-12));
  EXPECT_TRUE(eg.within(1e-12));
  ASSERT_EQ(run("eval --model oh3.shepard --structure frames.xyz --device cpu --json"), 0) << read_text(dir / "err.txt");
  EXPECT_NE(read_text(dir / "out.txt").find("\"shepard\""), std::string::npos);
  // Bad input: usage errors (2) and input errors (1) naming what is wrong.
  EXPECT_EQ(run("shepard build points.txt x.shepard"), 2);
  EXPECT_NE(read_text(dir / "err.txt").find("--confidence"), std::string::npos);
  EXPECT_EQ(run("shepard build points.txt x.shepard --confidence 0.1 --weight three-part"), 2);
  EXPECT_EQ(run("shepard fit"), 2);
  std::ofstream(dir / "bad.txt") << "shepard-points 1\natoms 3\nelements O H H\npoints 1\npoint 1\nenergy 1\npositions\n0 0 0\n1 0 0\n2 0 0\n"
                                    "gradient\n0 0 0\n0 0 0\n0 0 0\nhessian\n";
  for (int r = 0; r < 9; ++r) std::ofstream(dir / "bad.txt", std::ios::app) << "0 0 0 0 0 0 0 0 0\n";
  EXPECT_EQ(run("shepard build bad.txt x.shepard --confidence 0.1"), 1);
  EXPECT_NE(read_text(dir / "err.txt").find("bad.txt: point 1: shepard data point: the geometry is linear"), std::string::npos)
      << read_text(dir / "err.txt");
  std::ofstream(dir / "bad.txt", std::ios::app) << "more\n";
  EXPECT_EQ(run("shepard build bad.txt x.shepard --confidence 0.1"), 1);
  EXPECT_NE(read_text(dir / "err.txt").find("bad.txt:25: unexpected text"), std::string::npos) << read_text(dir / "err.txt");
}

}  // namespace
}  // namespace quasar
