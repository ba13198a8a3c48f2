// Modified Shepard interpolation (potential/shepard): data points from Cartesian derivatives, the
// interpolated energy and its analytic gradient, permutation invariance, the approximate method.
// References are independent of the code: an analytic surface written in shepard_surface.hpp (its
// derivatives checked here by finite differences) and finite differences of the interpolation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "shepard_surface.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using shepard::CartesianPoint;
using shepard::DataSet;
using shepard::Interpolant;
using test::TestSurface;

// O H3, pyramidal, and C H4 + H (5 atoms, 10 pairs for 9 internal coordinates).
std::vector<double> oh3_geometry() { return {0, 0, 0.1, 0.95, 0.1, -0.2, -0.45, 0.85, -0.25, -0.5, -0.8, -0.3}; }
std::vector<double> ch5_like_geometry() {
  return {0, 0, 0, 0.63, 0.63, 0.63, -0.63, -0.63, 0.63, -0.63, 0.63, -0.63, 0.63, -0.63, -0.63, 1.9, 1.8, 1.7};
}

std::vector<double> ch4_geometry() {
  std::vector<double> x = ch5_like_geometry();
  x.resize(15);
  return x;
}

std::vector<double> perturbed(std::vector<double> x, double amplitude, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (double& v : x) v += u(rng);
  return x;
}

CartesianPoint cartesian(const TestSurface& f, const std::vector<double>& x) {
  CartesianPoint p;
  p.positions = x;
  p.energy = f(x, &p.gradient, &p.hessian);
  return p;
}

DataSet make_set(const TestSurface& f, const std::vector<std::vector<double>>& geometries, bool full_group,
                 shepard::Parameters params = {}, double confidence = 0.15) {
  DataSet s;
  s.elements = f.elements;
  for (const auto& e : s.elements) s.masses.push_back(e == "H" ? 1.008 : (e == "O" ? 15.999 : 12.011));
  s.permutations = full_group ? shepard::full_permutation_group(s.elements) : shepard::identity_group(s.atoms());
  s.parameters = params;
  for (const auto& x : geometries)
    s.points.push_back(shepard::make_data_point(cartesian(f, x), std::vector<double>(static_cast<std::size_t>(s.pairs()), confidence)));
  return s;
}

// Central differences of a scalar function of x, step h.
template <class F>
std::vector<double> numeric_gradient(F&& fn, std::vector<double> x, double h) {
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double up = fn(x);
    x[i] = x0 - h;
    const double down = fn(x);
    x[i] = x0;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

TEST(ShepardSurface, OwnDerivativesAgreeWithFiniteDifferences) {
  for (const auto& [elements, x0] : {std::pair{std::vector<std::string>{"O", "H", "H", "H"}, oh3_geometry()},
                                     std::pair{std::vector<std::string>{"C", "H", "H", "H", "H", "H"}, ch5_like_geometry()}}) {
    const TestSurface f{elements};
    std::vector<double> g, h;
    f(x0, &g, &h);
    test::MaxError eg("test surface gradient vs central differences (eV/Å)"),
        eh("test surface Hessian vs central differences of its gradient (eV/Å²)");
    const auto ng = numeric_gradient([&](const std::vector<double>& x) { return f(x); }, x0, 1e-5);
    for (std::size_t i = 0; i < g.size(); ++i) eg.add(g[i], ng[i]);
    const std::size_t n3 = x0.size();
    for (std::size_t j = 0; j < n3; ++j) {
      const auto col = numeric_gradient(
          [&](const std::vector<double>& x) {
            std::vector<double> gx;
            f(x, &gx);
            return gx[j];
          },
          x0, 1e-5);
      for (std::size_t i = 0; i < n3; ++i) eh.add(h[i * n3 + j], col[i]);
    }
    EXPECT_TRUE(eg.within(1e-7));  // measured 4e-9 and 9e-10
    EXPECT_TRUE(eh.within(1e-6));  // measured 2e-8 and 8e-9
  }
}

// One data point with wtol 0: V is its Taylor expansion T(zeta(x)). T reproduces E and the
// gradient at the point, its Hessian (finite differences of the analytic gradient) is the Cartesian
// Hessian, and T - E falls as h^3 along a line.
TEST(ShepardTaylor, TransformationReproducesCartesianDerivatives) {
  for (const auto& [elements, geometry] : {std::pair{std::vector<std::string>{"O", "H", "H", "H"}, oh3_geometry()},
                                           std::pair{std::vector<std::string>{"C", "H", "H", "H", "H"},
                                                     ch4_geometry()}}) {
    const std::vector<double>& x0 = geometry;  // a variable the lambdas below may capture (C++17 rules in clang)
    const TestSurface f{elements};
    shepard::Parameters params;
    params.wtol = 0;
    const Interpolant in = Interpolant::from(make_set(f, {x0}, false, params));
    std::vector<double> g_ref, h_ref, g(x0.size());
    const double e_ref = f(x0, &g_ref, &h_ref);
    test::MaxError ee("Taylor energy at its point (eV)"), eg("Taylor gradient at its point (eV/Å)"),
        eh("Taylor Hessian (differences of its gradient) vs Cartesian Hessian (eV/Å²)");
    ee.add(shepard::evaluate(in, x0.data(), g.data()), e_ref);
    for (std::size_t i = 0; i < g.size(); ++i) eg.add(g[i], g_ref[i]);
    const std::size_t n3 = x0.size();
    for (std::size_t j = 0; j < n3; ++j) {
      const auto col = numeric_gradient(
          [&](const std::vector<double>& x) {
            std::vector<double> gx(n3);
            shepard::evaluate(in, x.data(), gx.data());
            return gx[j];
          },
          x0, 1e-5);
      for (std::size_t i = 0; i < n3; ++i) eh.add(col[i], h_ref[i * n3 + j]);
    }
    EXPECT_TRUE(ee.within(1e-12));  // measured 0 and 0
    EXPECT_TRUE(eg.within(1e-13));  // measured 9e-16 and 2e-15
    EXPECT_TRUE(eh.within(1e-6));   // measured 2e-8 and 5e-9 (the differences' own error)
    // Third-order error: halving the step divides T - f by about 8.
    std::mt19937_64 rng(7);
    const auto dir = perturbed(std::vector<double>(n3, 0.0), 1.0, rng);
    auto error = [&](double h) {
      std::vector<double> x = x0;
      for (std::size_t i = 0; i < n3; ++i) x[i] += h * dir[i];
      return std::abs(shepard::evaluate(in, x.data()) - f(x));
    };
    const double ratio = error(0.005) / error(0.0025);
    test::print_measured("Taylor error ratio for halved steps (8 for a third-order error)", ratio);
    // Measured 8.0 (4 atoms) and 12.9 (5 atoms, where a fourth-order part still shows at this step:
    // 14.5, 13.9, 12.9 from step 0.04 down); a second-order error would give 4.
    EXPECT_GT(ratio, 7.0);
    EXPECT_LT(ratio, 16.0);
  }
}

TEST(ShepardTaylor, RefusesLinearAndDiatomicGeometries) {
  const TestSurface f{{"H", "H", "H"}};
  const std::vector<double> linear = {0, 0, 0, 0.9, 0, 0, 1.9, 0, 0};
  EXPECT_THROW(shepard::make_data_point(cartesian(f, linear), {0.1, 0.1, 0.1}), Error);
  const TestSurface f2{{"H", "H"}};
  EXPECT_THROW(shepard::make_data_point(cartesian(f2, {0, 0, 0, 0.7, 0, 0}), {0.1}), Error);
  // A bent triatomic is fine.
  EXPECT_NO_THROW(shepard::make_data_point(cartesian(f, {0, 0, 0, 0.9, 0, 0, 1.9, 0.3, 0}), {0.1, 0.1, 0.1}));
}

struct Oh3Set {
  TestSurface f{{"O", "H", "H", "H"}};
  std::vector<std::vector<double>> geometries;
  explicit Oh3Set(int points, unsigned seed = 3) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < points; ++i) geometries.push_back(perturbed(oh3_geometry(), 0.12, rng));
  }
};

TEST(ShepardInterpolation, ReproducesEveryDataPoint) {
  for (auto kind : {shepard::WeightKind::TwoPart, shepard::WeightKind::OnePart}) {
    const Oh3Set s(12);
    shepard::Parameters params;
    params.weight = kind;
    const Interpolant in = Interpolant::from(make_set(s.f, s.geometries, true, params));
    EXPECT_EQ(in.group, 6);
    EXPECT_EQ(in.points, 72);
    test::MaxError ee(std::string("energy at the data points (eV), ") + shepard::weight_kind_name(kind)),
        eg(std::string("gradient at the data points (eV/Å), ") + shepard::weight_kind_name(kind));
    for (const auto& x : s.geometries) {
      std::vector<double> g(x.size()), g_ref;
      const double e_ref = s.f(x, &g_ref);
      ee.add(shepard::evaluate(in, x.data(), g.data()), e_ref);
      for (std::size_t i = 0; i < g.size(); ++i) eg.add(g[i], g_ref[i]);
    }
    EXPECT_TRUE(ee.within(1e-12));  // measured 0
    EXPECT_TRUE(eg.within(1e-13));  // measured 3e-15
  }
}

TEST(ShepardInterpolation, InvariantUnderPermutationsOfIdenticalAtoms) {
  const Oh3Set s(10);
  const Interpolant in = Interpolant::from(make_set(s.f, s.geometries, true));
  std::mt19937_64 rng(11);
  test::MaxError ee("V(P x) - V(x) (eV)"), eg("gradient of V(P x) vs P gradient (eV/Å)");
  for (int trial = 0; trial < 5; ++trial) {
    const auto x = perturbed(oh3_geometry(), 0.15, rng);
    std::vector<double> g(x.size());
    const double v = shepard::evaluate(in, x.data(), g.data());
    for (const auto& perm : shepard::full_permutation_group(s.f.elements)) {
      std::vector<double> y(x.size()), gy(x.size());
      for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k) y[static_cast<std::size_t>(3 * perm[static_cast<std::size_t>(a)] + k)] = x[static_cast<std::size_t>(3 * a + k)];
      ee.add(shepard::evaluate(in, y.data(), gy.data()), v);
      for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k)
          eg.add(gy[static_cast<std::size_t>(3 * perm[static_cast<std::size_t>(a)] + k)], g[static_cast<std::size_t>(3 * a + k)]);
    }
  }
  EXPECT_TRUE(ee.within(1e-13));  // measured 5e-15
  EXPECT_TRUE(eg.within(1e-12));  // measured 9e-14
}

TEST(ShepardInterpolation, GradientAgreesWithFiniteDifferences) {
  // No pruning (a smooth surface), and pruning at 1e-4, where the set kept is the same at every
  // step of the differences (checked) and the gradient is that of the renormalised weights.
  for (auto [kind, wtol] : {std::pair{shepard::WeightKind::TwoPart, 0.0}, std::pair{shepard::WeightKind::OnePart, 0.0},
                            std::pair{shepard::WeightKind::TwoPart, 1e-4}}) {
    const Oh3Set s(8);
    shepard::Parameters params;
    params.weight = kind;
    params.wtol = wtol;
    const Interpolant in = Interpolant::from(make_set(s.f, s.geometries, true, params));
    std::mt19937_64 rng(5);
    test::MaxError eg(std::string("analytic gradient vs central differences (eV/Å), ") + shepard::weight_kind_name(kind) +
                      ", wtol " + std::to_string(wtol));
    for (int trial = 0; trial < 6; ++trial) {
      const auto x = perturbed(oh3_geometry(), 0.15, rng);
      std::vector<double> g(x.size());
      shepard::evaluate(in, x.data(), g.data());
      shepard::Workspace ws;
      shepard::evaluate(in, x.data(), nullptr, ws);
      const std::vector<int> kept = ws.set;
      bool same_set = true;
      const auto ng = numeric_gradient(
          [&](const std::vector<double>& y) {
            const double v = shepard::evaluate(in, y.data(), nullptr, ws);
            same_set = same_set && ws.set == kept;
            return v;
          },
          x, 1e-6);
      ASSERT_TRUE(same_set) << "a point crossed wtol within the differences' step";
      if (wtol > 0) {
        EXPECT_LT(kept.size(), static_cast<std::size_t>(in.points));
      }
      for (std::size_t i = 0; i < g.size(); ++i) eg.add(g[i], ng[i]);
    }
    // Measured 6e-9 (two-part), 6e-9 (one-part), 7e-9 (pruned): the differences' own error.
    EXPECT_TRUE(eg.within(1e-7));
  }
}

// Points added along a path between two geometries: the error midway between them falls.
TEST(ShepardInterpolation, ErrorFallsAsPointsAreAddedAlongAPath) {
  const TestSurface f{{"O", "H", "H", "H"}};
  std::mt19937_64 rng(9);
  const auto a = oh3_geometry(), b = perturbed(oh3_geometry(), 0.3, rng);
  auto along = [&](double t) {
    std::vector<double> x(a.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = (1 - t) * a[i] + t * b[i];
    return x;
  };
  double last = INFINITY;
  for (int segments : {1, 2, 4, 8, 16}) {
    std::vector<std::vector<double>> points;
    for (int k = 0; k <= segments; ++k) points.push_back(along(static_cast<double>(k) / segments));
    shepard::Parameters params;
    params.wtol = 0;
    const Interpolant in = Interpolant::from(make_set(f, points, true, params, 0.05));
    double sum = 0;
    const int samples = 64;
    for (int k = 0; k < samples; ++k) {
      const auto x = along((k + 0.5) / samples);
      sum += std::pow(shepard::evaluate(in, x.data()) - f(x), 2);
    }
    const double rms = std::sqrt(sum / samples);
    test::print_measured("RMS error along the path with " + std::to_string(segments + 1) + " points (eV)", rms);
    EXPECT_LT(rms, last / 4);  // measured 0.028, 3.7e-3, 5.0e-4, 2.0e-5, 3.4e-6 eV: ratios 6 to 25
    last = rms;
  }
}

TEST(ShepardInterpolation, ApproximateMethodEqualsExactWithTheCompleteSet) {
  const Oh3Set s(6);
  shepard::Parameters params;
  params.wtol = 0;
  const Interpolant in = Interpolant::from(make_set(s.f, s.geometries, true, params));
  std::mt19937_64 rng(13);
  std::vector<double> configs;
  std::vector<int> offsets{0}, centres;
  for (int g = 0; g < 4; ++g) {
    const auto centre = perturbed(oh3_geometry(), 0.1, rng);
    centres.push_back(offsets.back() + 2);
    for (int k = 0; k < 7; ++k) {
      const auto x = k == 2 ? centre : perturbed(centre, 0.02, rng);
      configs.insert(configs.end(), x.begin(), x.end());
    }
    offsets.push_back(offsets.back() + 7);
  }
  const std::size_t m = static_cast<std::size_t>(offsets.back());
  std::vector<double> e_exact(m), g_exact(configs.size()), e_approx(m), g_approx(configs.size());
  shepard::evaluate_batch(in, configs, e_exact, g_exact);
  shepard::evaluate_groups(in, configs, offsets, centres, e_approx, g_approx);
  test::MaxError ee("approximate - exact energy, complete set (eV)"), eg("approximate - exact gradient (eV/Å)"),
      eb("batch - single energy (eV)");
  for (std::size_t c = 0; c < m; ++c) {
    ee.add(e_approx[c], e_exact[c]);
    eb.add(e_exact[c], shepard::evaluate(in, configs.data() + 12 * c));
  }
  for (std::size_t i = 0; i < configs.size(); ++i) eg.add(g_approx[i], g_exact[i]);
  EXPECT_TRUE(ee.within(1e-13));  // measured 0: the same points in the same order
  EXPECT_TRUE(eg.within(1e-13));
  EXPECT_TRUE(eb.within(1e-13));

  // With pruning the neighbour set is smaller and the approximation stays close near the centre.
  Interpolant pruned = in;
  pruned.parameters.wtol = 1e-3;
  shepard::evaluate_batch(pruned, configs, e_exact, g_exact);
  shepard::evaluate_groups(pruned, configs, offsets, centres, e_approx, g_approx);
  test::MaxError ep("approximate - exact energy with wtol 1e-3 (eV)");
  for (std::size_t c = 0; c < m; ++c) ep.add(e_approx[c], e_exact[c]);
  EXPECT_TRUE(ep.within(1e-2));  // measured 4e-4
}

// The fast path (vectorised weights of every replica, Taylor terms as sums of rows) against the
// scalar reference, configuration by configuration: the same kept sets, and V and dV/dx to
// rounding, for each weight form (one-part with p = 3 and two-part with p = 3, q = 9 take the fast
// path's general branches), at the data points themselves, for C H5's whole group (120 elements)
// and for a molecule of 9 atoms (rows too wide for the fast Taylor terms, which then are the
// reference's).
TEST(ShepardInterpolation, FastPathEqualsTheReference) {
  struct Case {
    std::vector<std::string> elements;
    std::vector<double> geometry;
    bool full_group;
    int points;
  };
  const std::vector<Case> cases = {
      {{"O", "H", "H", "H"}, oh3_geometry(), true, 12},
      {{"C", "H", "H", "H", "H", "H"}, ch5_like_geometry(), true, 6},
      {{"C", "C", "O", "H", "H", "H", "H", "H", "H"},
       {0, 0, 0, 1.5, 0.1, 0, 2.2, 1.2, 0.3, -0.5, 1.0, 0.1, -0.4, -0.5, 0.9, -0.4, -0.6, -0.8, 2.0, -0.9, 0.2,
        1.6, 0.3, -1.1, 3.1, 1.1, 0.5},
       false, 10}};
  std::vector<shepard::Parameters> settings(6);
  settings[1].wtol = 0;
  settings[2].wtol = 1e-3;
  settings[3].weight = shepard::WeightKind::OnePart;
  settings[4].weight = shepard::WeightKind::OnePart;
  settings[4].p = 3;
  settings[5].p = 3;
  settings[5].q = 9;
  test::MaxError ee("fast - reference energy (eV)"), eg("fast - reference gradient (eV/Å)");
  int differing_sets = 0;
  for (const Case& c : cases)
    for (const auto& params : settings) {
      const TestSurface f{c.elements};
      std::mt19937_64 rng(7);
      std::vector<std::vector<double>> geometries, configs;
      for (int i = 0; i < c.points; ++i) geometries.push_back(perturbed(c.geometry, 0.12, rng));
      for (int k = 0; k < 12; ++k) configs.push_back(perturbed(c.geometry, 0.15, rng));
      configs.push_back(geometries[0]);
      configs.push_back(geometries[3]);
      const Interpolant in = Interpolant::from(make_set(f, geometries, c.full_group, params));
      shepard::Workspace ws, ws_ref;
      for (const auto& x : configs) {
        std::vector<double> g(x.size()), g_ref(x.size());
        const double e = shepard::evaluate(in, x.data(), g.data(), ws);
        std::vector<double> z(static_cast<std::size_t>(in.pairs));
        shepard::inverse_distances(x.data(), in.atoms, z.data());
        shepard::select_neighbours_reference(in, z.data(), ws_ref.set, ws_ref);
        const double e_ref = shepard::interpolate_reference(in, x.data(), ws_ref.set, g_ref.data(), ws_ref);
        differing_sets += ws.set != ws_ref.set;
        ee.add(e, e_ref);
        for (std::size_t i = 0; i < x.size(); ++i) eg.add(g[i], g_ref[i]);
      }
    }
  EXPECT_EQ(differing_sets, 0);
  EXPECT_TRUE(ee.within(1e-12));
  EXPECT_TRUE(eg.within(1e-11));
}

TEST(ShepardInterpolation, PermutationGroups) {
  EXPECT_EQ(shepard::full_permutation_group({"O", "H", "H", "H"}).size(), 6u);
  EXPECT_EQ(shepard::full_permutation_group({"N", "H", "H", "H", "H"}).size(), 24u);
  EXPECT_EQ(shepard::full_permutation_group({"C", "H", "H", "H", "H", "H"}).size(), 120u);
  const std::vector<std::string> el{"O", "H", "H", "H"};
  EXPECT_EQ(shepard::permutation_group_problem(shepard::full_permutation_group(el), el), "");
  EXPECT_NE(shepard::permutation_group_problem({{0, 1, 2, 3}, {1, 0, 2, 3}}, el), "");      // mixes O and H
  EXPECT_NE(shepard::permutation_group_problem({{0, 1, 2, 3}, {0, 2, 3, 1}}, el), "");      // not closed
  EXPECT_NE(shepard::permutation_group_problem({{0, 2, 1, 3}}, el), "");                    // no identity
  EXPECT_NE(shepard::permutation_group_problem({{0, 1, 2, 3}, {0, 1, 1, 3}}, el), "");      // not a permutation
}

}  // namespace
}  // namespace quasar
