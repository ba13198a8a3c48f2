// The Shepard interpolation's batch evaluation on each backend (the CPU's threads, the GPU kernels
// of gpu_interpolant.cu): every configuration against the CPU's single evaluation (the reference,
// itself checked against finite differences in shepard_test), the data points against the analytic
// surface they come from, batched against single, the approximate method against the exact one,
// and the engine and `quasar shepard eval --device` on the backend.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "quasar/io/extxyz.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "shepard_surface.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using shepard::Interpolant;

struct Shape {
  const char* name;
  std::vector<std::string> elements;
  std::vector<double> geometry;
  int points;  // data points: NH4's more than one GPU weights block takes (128)
};

const double kA = 0.63;
const std::vector<Shape> kShapes = {
    {"OH3", {"O", "H", "H", "H"}, {0, 0, 0.1, 0.95, 0.1, -0.2, -0.45, 0.85, -0.25, -0.5, -0.8, -0.3}, 12},
    {"NH4", {"N", "H", "H", "H", "H"}, {0, 0, 0, kA, kA, kA, -kA, -kA, kA, -kA, kA, -kA, kA, -kA, -kA}, 200},
    {"CH5", {"C", "H", "H", "H", "H", "H"}, {0, 0, 0, kA, kA, kA, -kA, -kA, kA, -kA, kA, -kA, kA, -kA, -kA, 1.9, 1.8, 1.7}, 20},
    // 8 atoms: the general kernels (weights of 28 pairs, the whole warp per replica's Taylor term).
    {"C2H6", {"C", "C", "H", "H", "H", "H", "H", "H"},
     {0, 0, 0.765, 0, 0, -0.765, 1.02, 0, 1.16, -0.51, 0.88, 1.16, -0.51, -0.88, 1.16, -1.02, 0, -1.16, 0.51, -0.88,
      -1.16, 0.51, 0.88, -1.16},
     3}};

std::vector<double> perturbed(std::vector<double> x, double amplitude, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (double& v : x) v += u(rng);
  return x;
}

struct Surface {
  test::TestSurface f;
  std::vector<std::vector<double>> geometries;
  shepard::DataSet set;
  Surface(const Shape& s, shepard::Parameters params, unsigned seed = 3) : f{s.elements} {
    std::mt19937_64 rng(seed);
    set.elements = s.elements;
    set.masses.assign(s.elements.size(), 1.0);
    set.permutations = shepard::full_permutation_group(s.elements);
    set.parameters = params;
    for (int i = 0; i < s.points; ++i) {
      geometries.push_back(perturbed(s.geometry, 0.12, rng));
      shepard::CartesianPoint p;
      p.positions = geometries.back();
      p.energy = f(p.positions, &p.gradient, &p.hessian);
      set.points.push_back(shepard::make_data_point(p, std::vector<double>(static_cast<std::size_t>(set.pairs()), 0.15)));
    }
  }
};

// The batch methods on one backend.
class Evaluator {
 public:
  Evaluator(Backend b, const Interpolant& f, shepard::GpuLimits limits = {}) : f_(f) {
    if (b == Backend::Cuda) gpu_ = std::make_unique<shepard::GpuInterpolant>(f, limits);
  }
  void batch(const std::vector<double>& x, std::vector<double>& e, std::vector<double>& g) {
    e.assign(x.size() / static_cast<std::size_t>(3 * f_.atoms), 0.0);
    g.assign(x.size(), 0.0);
    if (gpu_) gpu_->evaluate_batch(x, e, g);
    else shepard::evaluate_batch(f_, x, e, g);
  }
  void groups(const std::vector<double>& x, const std::vector<int>& offsets, const std::vector<int>& centres,
              std::vector<double>& e, std::vector<double>& g) {
    e.assign(x.size() / static_cast<std::size_t>(3 * f_.atoms), 0.0);
    g.assign(x.size(), 0.0);
    if (gpu_) gpu_->evaluate_groups(x, offsets, centres, e, g);
    else shepard::evaluate_groups(f_, x, offsets, centres, e, g);
  }

 private:
  const Interpolant& f_;
  std::unique_ptr<shepard::GpuInterpolant> gpu_;
};

std::vector<double> configurations(const Shape& s, int count, double amplitude, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x;
  for (int c = 0; c < count; ++c) {
    const auto y = perturbed(s.geometry, amplitude, rng);
    x.insert(x.end(), y.begin(), y.end());
  }
  return x;
}

class ShepardBatch : public testing::TestWithParam<Backend> {};

std::string label(const Shape& s, const shepard::Parameters& p) {
  std::ostringstream out;
  out << s.name << ", " << shepard::weight_kind_name(p.weight) << ", p " << p.p << ", q " << p.q << ", wtol " << p.wtol;
  return out.str();
}

TEST_P(ShepardBatch, EqualsTheCpuEvaluationOfEachConfiguration) {
  std::vector<shepard::Parameters> settings(5);
  settings[1].wtol = 0;     // every replica kept: the lists outgrow their first size
  settings[2].wtol = 1e-3;  // few kept
  settings[3].weight = shepard::WeightKind::OnePart;
  settings[4].p = 3;  // the GPU's general two-part form (p = 2, q = 12 has one of its own)
  settings[4].q = 9;
  for (const Shape& s : kShapes)
    for (const auto& params : settings) {
      const Surface surface(s, params);
      const Interpolant f = Interpolant::from(surface.set);
      Evaluator ev(GetParam(), f);
      // 37 configurations: two full tiles of 16 and a partial one.
      const std::vector<double> x = configurations(s, 37, 0.15, 17);
      std::vector<double> e, g;
      ev.batch(x, e, g);
      const std::size_t n3 = s.geometry.size();
      test::MaxError ee("batch - CPU single energy (eV), " + label(s, params)),
          eg("batch - CPU single gradient (eV/Å), " + label(s, params));
      for (std::size_t c = 0; c < e.size(); ++c) {
        std::vector<double> g_ref(n3);
        ee.add(e[c], shepard::evaluate(f, x.data() + c * n3, g_ref.data()));
        for (std::size_t i = 0; i < n3; ++i) eg.add(g[c * n3 + i], g_ref[i]);
      }
      // CPU: 0 (the same code). H100 (kernels before the per-point tables): 2e-13 eV and 1.6e-11
      // eV/Å at worst over the cases (other summation orders).
      EXPECT_TRUE(ee.within(1e-11));
      EXPECT_TRUE(eg.within(1e-10));
    }
}

TEST_P(ShepardBatch, ReproducesEveryDataPoint) {
  for (const Shape& s : kShapes)
    for (auto kind : {shepard::WeightKind::TwoPart, shepard::WeightKind::OnePart}) {
      shepard::Parameters params;
      params.weight = kind;
      const Surface surface(s, params);
      const Interpolant f = Interpolant::from(surface.set);
      Evaluator ev(GetParam(), f);
      std::vector<double> x;
      for (const auto& y : surface.geometries) x.insert(x.end(), y.begin(), y.end());
      std::vector<double> e, g;
      ev.batch(x, e, g);
      const std::size_t n3 = s.geometry.size();
      test::MaxError ee(std::string("energy at the data points (eV), ") + label(s, params)),
          eg(std::string("gradient at the data points (eV/Å), ") + label(s, params));
      for (std::size_t c = 0; c < e.size(); ++c) {
        std::vector<double> g_ref;
        ee.add(e[c], surface.f(surface.geometries[c], &g_ref));
        for (std::size_t i = 0; i < n3; ++i) eg.add(g[c * n3 + i], g_ref[i]);
      }
      // The CPU measured 0 and 3e-15 (OH3, shepard_test); the GPU's Z has the CPU's roundings, so
      // that Z - Z(i) = 0 there too: the H100 measured 0 and 6.2e-15 (kernels before the per-point
      // tables).
      EXPECT_TRUE(ee.within(1e-12));
      EXPECT_TRUE(eg.within(1e-12));
    }
}

TEST_P(ShepardBatch, BatchedEqualsSingleAndRepeats) {
  const Shape& s = kShapes[2];
  const Surface surface(s, {});
  const Interpolant f = Interpolant::from(surface.set);
  Evaluator ev(GetParam(), f);
  const std::vector<double> x = configurations(s, 21, 0.15, 23);
  std::vector<double> e, g, e2, g2;
  ev.batch(x, e, g);
  ev.batch(x, e2, g2);
  EXPECT_EQ(e, e2);  // the same bits run after run: every sum in a fixed order
  EXPECT_EQ(g, g2);
  const std::size_t n3 = s.geometry.size();
  test::MaxError ee("batched - single energy (eV)"), eg("batched - single gradient (eV/Å)");
  for (std::size_t c = 0; c < e.size(); ++c) {
    const std::vector<double> one(x.begin() + static_cast<std::ptrdiff_t>(c * n3),
                                  x.begin() + static_cast<std::ptrdiff_t>((c + 1) * n3));
    ev.batch(one, e2, g2);
    ee.add(e[c], e2[0]);
    for (std::size_t i = 0; i < n3; ++i) eg.add(g[c * n3 + i], g2[i]);
  }
  // 0 expected on both: a configuration's arithmetic does not depend on its place in the batch.
  EXPECT_TRUE(ee.within(1e-13));
  EXPECT_TRUE(eg.within(1e-13));
}

TEST_P(ShepardBatch, InvariantUnderPermutationsOfIdenticalAtoms) {
  const Shape& s = kShapes[2];
  const Surface surface(s, {});
  const Interpolant f = Interpolant::from(surface.set);
  Evaluator ev(GetParam(), f);
  const auto group = shepard::full_permutation_group(s.elements);
  const std::vector<double> x0 = configurations(s, 3, 0.15, 37);
  const std::size_t n3 = s.geometry.size(), atoms = n3 / 3;
  // Every configuration under every 7th permutation of the 120, in one batch.
  std::vector<double> x;
  std::vector<std::pair<std::size_t, std::size_t>> made;  // (configuration, permutation)
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t p = 0; p < group.size(); p += 7) {
      std::vector<double> y(n3);
      for (std::size_t a = 0; a < atoms; ++a)
        for (std::size_t k = 0; k < 3; ++k)
          y[3 * static_cast<std::size_t>(group[p][a]) + k] = x0[c * n3 + 3 * a + k];
      x.insert(x.end(), y.begin(), y.end());
      made.emplace_back(c, p);
    }
  std::vector<double> e, g;
  ev.batch(x, e, g);
  test::MaxError ee("V(P x) - V(x) on the backend (eV)"), eg("gradient of V(P x) - P gradient (eV/Å)");
  for (std::size_t m = 0; m < made.size(); ++m) {
    const auto [c, p] = made[m];
    std::size_t identity = 0;
    while (made[identity].first != c) ++identity;  // permutation 0 (the identity) comes first
    ee.add(e[m], e[identity]);
    for (std::size_t a = 0; a < atoms; ++a)
      for (std::size_t k = 0; k < 3; ++k)
        eg.add(g[m * n3 + 3 * static_cast<std::size_t>(group[p][a]) + k], g[identity * n3 + 3 * a + k]);
  }
  // The CPU measured 2e-14 and 1.2e-12 (the rounding of different sums' orders); the H100 7.1e-14
  // and 6.2e-12 (kernels before the per-point tables).
  EXPECT_TRUE(ee.within(1e-12));
  EXPECT_TRUE(eg.within(1e-10));
}

// A batch cut into pieces (few configurations at once, and lists that outgrow the memory allowed,
// so that a piece is taken again smaller) gives what one piece gives.
TEST_P(ShepardBatch, PiecesGiveWhatOneBatchGives) {
  const Shape& s = kShapes[1];
  shepard::Parameters params;
  params.wtol = 0;  // every one of the 4800 replicas kept: the lists grow from 512 entries
  const Surface surface(s, params);
  const Interpolant f = Interpolant::from(surface.set);
  // Pieces of 8, then of 2 when the lists have grown to 4800 entries (8 x 4800 x 16 bytes > 200000);
  // groups two at a time.
  Evaluator whole(GetParam(), f), pieces(GetParam(), f, {8, 200000}), group_pieces(GetParam(), f, {2, 1 << 20});
  const std::vector<double> x = configurations(s, 21, 0.15, 29);
  std::vector<double> e, g, e2, g2;
  whole.batch(x, e, g);
  pieces.batch(x, e2, g2);
  EXPECT_EQ(e, e2);  // the same arithmetic for each configuration
  EXPECT_EQ(g, g2);
  std::vector<int> offsets{0, 4, 9, 10, 15, 21}, centres{1, 4, 9, 14, 15};
  whole.groups(x, offsets, centres, e, g);
  group_pieces.groups(x, offsets, centres, e2, g2);
  EXPECT_EQ(e, e2);
  EXPECT_EQ(g, g2);
  std::vector<double> e_ref(e.size()), g_ref(g.size());
  shepard::evaluate_groups(f, x, offsets, centres, e_ref, g_ref);
  test::MaxError ee("approximate method in pieces - CPU energy (eV)"),
      eg("approximate method in pieces - CPU gradient (eV/Å)");
  for (std::size_t c = 0; c < e.size(); ++c) ee.add(e2[c], e_ref[c]);
  for (std::size_t i = 0; i < g.size(); ++i) eg.add(g2[i], g_ref[i]);
  EXPECT_TRUE(ee.within(5e-12));  // CPU: 0; H100: 6e-14 (kernels before the per-point tables)
  EXPECT_TRUE(eg.within(1e-10));
}

TEST_P(ShepardBatch, ApproximateEqualsExactWithTheCompleteSet) {
  for (const Shape& s : {kShapes[0], kShapes[2]}) {
    shepard::Parameters params;
    params.wtol = 0;
    const Surface surface(s, params);
    const Interpolant f = Interpolant::from(surface.set);
    Evaluator ev(GetParam(), f);
    std::mt19937_64 rng(13);
    std::vector<double> x;
    std::vector<int> offsets{0}, centres;
    for (int grp = 0; grp < 5; ++grp) {
      const auto centre = perturbed(s.geometry, 0.1, rng);
      const int size = 3 + grp;  // groups of different sizes, the centre somewhere inside
      centres.push_back(offsets.back() + grp % size);
      for (int k = 0; k < size; ++k) {
        const auto y = k == grp % size ? centre : perturbed(centre, 0.02, rng);
        x.insert(x.end(), y.begin(), y.end());
      }
      offsets.push_back(offsets.back() + size);
    }
    std::vector<double> e_exact, g_exact, e_approx, g_approx;
    ev.batch(x, e_exact, g_exact);
    ev.groups(x, offsets, centres, e_approx, g_approx);
    test::MaxError ee(std::string("approximate - exact energy, complete set (eV), ") + s.name),
        eg(std::string("approximate - exact gradient, complete set (eV/Å), ") + s.name);
    for (std::size_t c = 0; c < e_exact.size(); ++c) ee.add(e_approx[c], e_exact[c]);
    for (std::size_t i = 0; i < x.size(); ++i) eg.add(g_approx[i], g_exact[i]);
    EXPECT_TRUE(ee.within(1e-13));  // 0 expected: the same points in the same order
    EXPECT_TRUE(eg.within(1e-13));

    // With pruning the centre's set serves its group: the CPU's evaluate_groups is the reference.
    Interpolant pruned = f;
    pruned.parameters.wtol = 1e-3;
    Evaluator ev_pruned(GetParam(), pruned);
    ev_pruned.groups(x, offsets, centres, e_approx, g_approx);
    std::vector<double> e_ref(e_approx.size()), g_ref(x.size());
    shepard::evaluate_groups(pruned, x, offsets, centres, e_ref, g_ref);
    test::MaxError ep(std::string("approximate method with wtol 1e-3 - CPU (eV), ") + s.name),
        gp(std::string("approximate method gradient with wtol 1e-3 - CPU (eV/Å), ") + s.name);
    for (std::size_t c = 0; c < e_ref.size(); ++c) ep.add(e_approx[c], e_ref[c]);
    for (std::size_t i = 0; i < x.size(); ++i) gp.add(g_approx[i], g_ref[i]);
    EXPECT_TRUE(ep.within(3e-12));  // CPU: 0; H100: 3.6e-14 (kernels before the per-point tables)
    EXPECT_TRUE(gp.within(1e-10));
  }
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

TEST_P(ShepardBatch, EngineOnTheBackendEqualsTheInterpolation) {
  const Shape& s = kShapes[0];
  const Surface surface(s, {});
  const std::filesystem::path dir = test::scratch_dir("shepard_batch_engine");
  const std::string path = (dir / "oh3.shepard").string();
  shepard::write_dataset(path, surface.set);
  const Interpolant f = Interpolant::from(shepard::read_dataset(path));
  ForceField ff = load_force_field(path);
  const std::vector<double> x = configurations(s, 6, 0.15, 31);
  std::vector<Structure> frames;
  for (std::size_t k = 0; k < 6; ++k)
    frames.push_back(molecule(std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(12 * k),
                                                  x.begin() + static_cast<std::ptrdiff_t>(12 * (k + 1))),
                              s.elements));
  const std::vector<Evaluation> got = evaluate_batch(ff, frames, GetParam(), true);
  test::MaxError ee("engine on the backend - CPU interpolation energy (eV)"),
      ef("engine forces + CPU gradient (eV/Å)");
  for (std::size_t k = 0; k < frames.size(); ++k) {
    std::vector<double> g(12);
    ee.add(got[k].energy, shepard::evaluate(f, x.data() + 12 * k, g.data()));
    for (std::size_t a = 0; a < 4; ++a) {
      ef.add(got[k].forces[a].x, -g[3 * a]);
      ef.add(got[k].forces[a].y, -g[3 * a + 1]);
      ef.add(got[k].forces[a].z, -g[3 * a + 2]);
    }
  }
  // CPU measured 5e-15 (shepard_potential_test); the H100 3.6e-15 (kernels before the per-point tables).
  EXPECT_TRUE(ee.within(5e-13));
  EXPECT_TRUE(ef.within(1e-10));
  std::filesystem::remove_all(dir);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_P(ShepardBatch, CommandLineEvaluatesOnTheDevice) {
  const Shape& s = kShapes[0];
  const Surface surface(s, {});
  const std::filesystem::path dir = test::scratch_dir("shepard_batch_cli");
  shepard::write_dataset((dir / "oh3.shepard").string(), surface.set);
  std::vector<Structure> frames;
  for (const auto& y : surface.geometries) frames.push_back(molecule(y, s.elements));
  io::write_extxyz((dir / "frames.xyz").string(), frames);
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") +
                          " shepard eval oh3.shepard frames.xyz --device " + backend_name(GetParam()) +
                          " > out.txt 2> err.txt";
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0) << read_text(dir / "err.txt");
  std::istringstream out(read_text(dir / "out.txt"));
  std::string line;
  std::getline(out, line);  // the header
  test::MaxError ee("shepard eval --device energy at the data points (eV)"),
      eg("shepard eval --device gradient at the data points (eV/Å)");
  for (const auto& y : surface.geometries) {
    ASSERT_TRUE(std::getline(out, line));
    std::istringstream words(line);
    int index = 0;
    double e = 0;
    words >> index >> e;
    std::vector<double> g_ref;
    ee.add(e, surface.f(y, &g_ref));
    for (double want : g_ref) {
      double got = 0;
      words >> got;
      eg.add(got, want);
    }
  }
  // CPU measured 4e-14 and 3e-14 (15 significant digits printed, shepard_potential_test).
  EXPECT_TRUE(ee.within(1e-12));
  EXPECT_TRUE(eg.within(1e-12));
  std::filesystem::remove_all(dir);
}

QUASAR_INSTANTIATE_BACKENDS(ShepardBatch);

}  // namespace
}  // namespace quasar
