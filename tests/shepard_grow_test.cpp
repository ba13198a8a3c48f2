// Confidence lengths from the data (Bettens and Collins), the selections of the growth loop
// (h-weight and variance sampling) on constructed cases of known answer, and the growth loop
// itself against the analytic H + CH4 surface: its held-out RMS error falls as points are added.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "quasar/core/units.hpp"
#include "quasar/potential/shepard/cartesian_points.hpp"
#include "quasar/potential/shepard/confidence.hpp"
#include "quasar/potential/shepard/grow/grow.hpp"
#include "quasar/potential/shepard/grow/selection.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/surfaces/surface_potential.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using shepard::CartesianPoint;
using shepard::DataSet;

// V = c Z_0^3 + k sum_l (Z_l - z_ref)^2 for four atoms, Z_0 = 1/R(atom 0, atom 1). With four atoms
// the six inverse distances are the internal coordinates (zeta is an orthogonal rotation of Z), so
// a point's second-order expansion misses exactly c (Z_0 - Z_0(i))^3: the error model of the
// confidence lengths holds exactly, with a_0 = c and every other a_l = 0.
struct CubicSurface {
  double c = 0, k = 0.5, z_ref = 0.8;
  CartesianPoint operator()(const std::vector<double>& x) const {
    const int n = 4, n3 = 12;
    CartesianPoint p;
    p.positions = x;
    p.gradient.assign(n3, 0.0);
    p.hessian.assign(n3 * n3, 0.0);
    int l = 0;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b, ++l) {
        double r[3], rr = 0;
        for (int q = 0; q < 3; ++q) {
          r[q] = x[static_cast<std::size_t>(3 * a + q)] - x[static_cast<std::size_t>(3 * b + q)];
          rr += r[q] * r[q];
        }
        const double big_r = std::sqrt(rr), z = 1 / big_r;
        // V(Z): value, dV/dZ, d2V/dZ2.
        double v = k * (z - z_ref) * (z - z_ref), dv = 2 * k * (z - z_ref), ddv = 2 * k;
        if (l == 0) v += c * z * z * z, dv += 3 * c * z * z, ddv += 6 * c * z;
        p.energy += v;
        // dZ/dr = -r / R^3, d2Z/dr dr = -I / R^3 + 3 r r^T / R^5 (r = x_a - x_b).
        double gz[3], hz[3][3];
        for (int q = 0; q < 3; ++q) gz[q] = -r[q] * z * z * z;
        for (int q = 0; q < 3; ++q)
          for (int s = 0; s < 3; ++s) hz[q][s] = (q == s ? -z * z * z : 0.0) + 3 * r[q] * r[s] * std::pow(z, 5);
        for (int q = 0; q < 3; ++q) {
          p.gradient[static_cast<std::size_t>(3 * a + q)] += dv * gz[q];
          p.gradient[static_cast<std::size_t>(3 * b + q)] -= dv * gz[q];
        }
        for (int q = 0; q < 3; ++q)
          for (int s = 0; s < 3; ++s) {
            const double h = ddv * gz[q] * gz[s] + dv * hz[q][s];
            auto at = [&](int i, int j) { return static_cast<std::size_t>((3 * i + q) * n3 + 3 * j + s); };
            p.hessian[at(a, a)] += h;
            p.hessian[at(b, b)] += h;
            p.hessian[at(a, b)] -= h;
            p.hessian[at(b, a)] -= h;
          }
      }
    return p;
  }
};

// A pyramidal N H3 shape and small deterministic displacements of it.
std::vector<double> displaced(int k, double size) {
  std::vector<double> x{0, 0, 0.3, 0.95, 0, 0, -0.47, 0.82, 0, -0.47, -0.82, 0};
  uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(k + 1);
  for (double& v : x) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v += size * (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5);
  }
  return x;
}

DataSet cubic_set(const CubicSurface& f, int points, double size, double confidence = 0.3) {
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  for (int k = 0; k < points; ++k) c.points.push_back(f(displaced(k, size)));
  shepard::Parameters p;
  p.wtol = 0;
  return shepard::build_dataset(c, p, confidence, shepard::identity_group(4));
}

TEST(ShepardConfidence, CubicErrorAlongOneCoordinate) {
  shepard::ConfidenceSettings s;
  s.energy = 1e-3;
  s.prior_weight = 0.01;
  for (double c : {2.0, 16.0}) {
    CubicSurface f;
    f.c = c;
    DataSet set = cubic_set(f, 40, 0.3);
    shepard::bayes_confidence(set, s);
    const double expected = std::cbrt(s.energy / c);  // where c |dZ_0|^3 reaches the energy
    double worst = 0, shortest_other = 1e300;
    std::vector<double> others;
    for (const auto& p : set.points) {
      worst = std::max(worst, std::abs(p.confidence[0] / expected - 1));
      for (std::size_t l = 1; l < p.confidence.size(); ++l) {
        shortest_other = std::min(shortest_other, p.confidence[l]);
        others.push_back(p.confidence[l]);
      }
    }
    std::sort(others.begin(), others.end());
    test::print_measured("median other length / d_0", others[others.size() / 2] / expected);
    test::print_measured("largest relative deviation of d_0 from (energy / c)^(1/3), c = " + std::to_string(c), worst);
    test::print_measured("shortest other length / d_0", shortest_other / expected);
    EXPECT_LT(worst, 0.05);  // measured 1.2e-3 (the weak prior's pull)
    // Exact expansions along the others: longer lengths (measured: shortest 2.24 d_0, median 9.6 d_0, the floor 0.01 a0 capping them).
    EXPECT_GT(shortest_other, 1.5 * expected);
    EXPECT_GT(others[others.size() / 2], 3 * expected);
  }
}

TEST(ShepardConfidence, ExactExpansionsGetTheLongestLength) {
  CubicSurface f;  // harmonic in Z: every expansion exact
  DataSet set = cubic_set(f, 12, 0.3);
  shepard::ConfidenceSettings s;
  s.max_length = 7;
  shepard::bayes_confidence(set, s);
  for (const auto& p : set.points)
    for (double d : p.confidence) EXPECT_EQ(d, 7.0);
  DataSet one = cubic_set(f, 1, 0.3);
  s.fallback = 0.25;
  shepard::bayes_confidence(one, s);
  for (double d : one.points[0].confidence) EXPECT_EQ(d, 0.25);
}

// Leave-one-out errors written out: per data point j, a data set of the others (their lengths
// given, the same along every pair; or, without lengths, their own) interpolated at point j by the
// ordinary evaluation.
std::vector<double> leave_one_out_directly(const DataSet& set, const std::vector<double>& lengths = {}) {
  std::vector<double> errors;
  for (std::size_t j = 0; j < set.points.size(); ++j) {
    DataSet others = set;
    others.points.clear();
    for (std::size_t i = 0; i < set.points.size(); ++i)
      if (i != j) {
        others.points.push_back(set.points[i]);
        if (!lengths.empty()) others.points.back().confidence.assign(others.points.back().confidence.size(), lengths[i]);
      }
    errors.push_back(set.points[j].energy - shepard::evaluate(shepard::Interpolant::from(others), set.points[j].positions.data()));
  }
  return errors;
}

double rms_of(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return std::sqrt(s / static_cast<double>(x.size()));
}

TEST(ShepardConfidence, LeaveOneOutErrorsAgainstTheInterpolationWrittenOut) {
  CubicSurface f;
  f.c = 4;
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  for (int k = 0; k < 14; ++k) c.points.push_back(f(displaced(k, 0.4)));
  std::vector<double> lengths;
  for (int k = 0; k < 14; ++k) lengths.push_back(0.05 + 0.02 * k);
  double worst = 0;
  for (const auto weight : {shepard::WeightKind::TwoPart, shepard::WeightKind::OnePart})
    for (double wtol : {0.0, 1e-3}) {
      shepard::Parameters p;
      p.weight = weight;
      p.wtol = wtol;
      const DataSet set = shepard::build_dataset(c, p, 0.3, {});  // the 6 permutations of the hydrogens
      ASSERT_EQ(set.permutations.size(), 6u);
      const std::vector<double> fast = shepard::leave_one_out_errors(set, lengths, 1000);  // every replica
      const std::vector<double> direct = leave_one_out_directly(set, lengths);
      for (std::size_t j = 0; j < fast.size(); ++j) {
        ASSERT_GT(std::abs(direct[j]), 1e-6);  // the expansions miss something
        worst = std::max(worst, std::abs(fast[j] - direct[j]) / std::abs(direct[j]));
      }
    }
  test::print_measured("leave-one-out errors against the interpolation written out (relative)", worst);
  EXPECT_LT(worst, 1e-9);
}

// The fitted lengths: their leave-one-out RMS error, recomputed directly, is the one reported and no
// worse than that of the best constant length found by scanning with the direct evaluation.
TEST(ShepardConfidence, FittedLengthsMinimiseTheLeaveOneOutError) {
  CubicSurface f;
  f.c = 4;
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  for (int k = 0; k < 16; ++k) c.points.push_back(f(displaced(k, k < 8 ? 0.15 : 0.6)));  // a dense and a sparse half
  shepard::Parameters p;
  p.wtol = 0;
  DataSet set = shepard::build_dataset(c, p, 0.3, shepard::identity_group(4));
  shepard::FittedSettings s;
  s.window = 0;         // every point counts
  s.pair_exponent = 0;  // the same length along every pair, as the scan below
  s.tolerance = 0;      // the least RMS itself
  const shepard::FittedLengths fit = shepard::fitted_confidence(set, s);
  std::vector<double> lengths;
  for (const auto& q : set.points) {
    for (double d : q.confidence) ASSERT_EQ(d, q.confidence[0]);  // the same along every pair
    lengths.push_back(q.confidence[0]);
  }
  const double direct = rms_of(leave_one_out_directly(set, lengths));
  double best_constant = 1e300, best_length = 0;
  for (double d = 0.01; d < 3; d *= 1.05) {
    const double r = rms_of(leave_one_out_directly(set, std::vector<double>(lengths.size(), d)));
    if (r < best_constant) best_constant = r, best_length = d;
  }
  test::print_measured("fitted leave-one-out RMS (eV), reported vs written out (relative)", std::abs(fit.leave_one_out_rms / direct - 1));
  test::print_measured("fitted leave-one-out RMS / best constant length's (" + std::to_string(best_length) + "/A)", direct / best_constant);
  test::print_measured("fitted exponent", fit.exponent);
  EXPECT_NEAR(fit.leave_one_out_rms, direct, 1e-10 * direct);
  EXPECT_LE(direct, best_constant * 1.01);  // the grid's scales are 2^(1/8) apart; the direct scan's 1.05
  // With a tolerance: a scale no longer, an RMS within it of the least.
  s.tolerance = 0.02;
  DataSet tolerant = set;
  const shepard::FittedLengths shorter = shepard::fitted_confidence(tolerant, s);
  EXPECT_LE(shorter.scale, fit.scale);
  EXPECT_LE(shorter.leave_one_out_rms, 1.02 * fit.leave_one_out_rms * (1 + 1e-12));
  // Within an energy window: the RMS over the points in it only.
  double lowest = 1e300;
  for (const auto& q : set.points) lowest = std::min(lowest, q.energy);
  std::vector<double> energies;
  for (const auto& q : set.points) energies.push_back(q.energy - lowest);
  std::sort(energies.begin(), energies.end());
  s.window = 0.5 * (energies[11] + energies[12]);  // 12 of the 16
  const shepard::FittedLengths windowed = shepard::fitted_confidence(set, s);
  EXPECT_EQ(windowed.counted, 12);
  lengths.clear();
  for (const auto& q : set.points) lengths.push_back(q.confidence[0]);
  const std::vector<double> all = leave_one_out_directly(set, lengths);
  std::vector<double> within;
  for (std::size_t j = 0; j < all.size(); ++j)
    if (set.points[j].energy - lowest <= s.window) within.push_back(all[j]);
  EXPECT_NEAR(windowed.leave_one_out_rms, rms_of(within), 1e-10 * rms_of(within));
  // Lengths per pair: d_il / d_i0 = (sigma_l / sigma_0)^(1/2), sigma_l the spread of Z_l over the
  // points (the identity group: no other images), and the leave-one-out RMS reported is theirs.
  s.window = 0;
  s.pair_exponent = 0.5;
  const shepard::FittedLengths paired = shepard::fitted_confidence(set, s);
  std::vector<double> sigma;
  for (int l = 0; l < 6; ++l) {
    double sum = 0, sum2 = 0;
    for (const auto& q : set.points) {
      const double* x = q.positions.data();
      int a = 0, b = 1, m = 0;
      for (int i = 0; i < 4; ++i)
        for (int k = i + 1; k < 4; ++k, ++m)
          if (m == l) a = i, b = k;
      const double z = 1 / std::sqrt(std::pow(x[3 * a] - x[3 * b], 2) + std::pow(x[3 * a + 1] - x[3 * b + 1], 2) +
                                     std::pow(x[3 * a + 2] - x[3 * b + 2], 2));
      sum += z, sum2 += z * z;
    }
    const double mean = sum / 16;
    sigma.push_back(std::sqrt(sum2 / 16 - mean * mean));
  }
  double worst_ratio = 0;
  for (const auto& q : set.points)
    for (int l = 1; l < 6; ++l)
      worst_ratio = std::max(worst_ratio, std::abs(q.confidence[static_cast<std::size_t>(l)] / q.confidence[0] /
                                                       std::sqrt(sigma[static_cast<std::size_t>(l)] / sigma[0]) - 1));
  test::print_measured("per-pair length ratios against (sigma_l / sigma_0)^(1/2) (relative)", worst_ratio);
  EXPECT_LT(worst_ratio, 1e-8);
  const double paired_direct = rms_of(leave_one_out_directly(set));
  EXPECT_NEAR(paired.leave_one_out_rms, paired_direct, 1e-10 * paired_direct);
  s.pair_exponent = 0;
  // Too few points to learn from: every length the fallback.
  DataSet few = shepard::build_dataset(c, p, 0.3, shepard::identity_group(4));
  few.points.resize(5);
  s.fallback = 0.7;
  EXPECT_EQ(shepard::fitted_confidence(few, s).exponent, 0.0);
  for (const auto& q : few.points)
    for (double d : q.confidence) EXPECT_EQ(d, 0.7);
}

// Configurations (12 numbers each) around a centre, displaced by `size`.
void cluster(std::vector<double>& out, const std::vector<double>& centre, int count, double size, int seed) {
  for (int k = 0; k < count; ++k) {
    std::vector<double> x = displaced(seed + k, size);
    const std::vector<double> base = displaced(-1, 0);  // undisplaced shape
    for (std::size_t i = 0; i < x.size(); ++i) out.push_back(centre[i] + x[i] - base[i]);
  }
}

TEST(ShepardSelection, HWeightPicksTheDenseRegionFarFromData) {
  CubicSurface f;
  f.c = 1;
  const std::vector<double> a = displaced(-1, 0);
  std::vector<double> b = a;
  b[3] += 0.4;  // one N-H bond stretched
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  c.points.push_back(f(a));
  const DataSet set = shepard::build_dataset(c, {}, 0.1, shepard::identity_group(4));
  const shepard::Interpolant interp = shepard::Interpolant::from(set);
  // Four configurations around the data point, four as tight around B: B's cluster is chosen.
  std::vector<double> configs;
  cluster(configs, a, 4, 0.02, 10);
  cluster(configs, b, 4, 0.02, 20);
  const std::vector<int> one = shepard::select_by_h_weight(interp, set.permutations, configs, 1, 0.1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_GE(one[0], 4);
  // Both clusters far from the data point: the more often visited one (six against two).
  std::vector<double> c2;
  std::vector<double> d = a;
  d[5] += 0.4;
  cluster(c2, b, 2, 0.02, 30);
  cluster(c2, d, 6, 0.02, 40);
  const std::vector<int> pick = shepard::select_by_h_weight(interp, set.permutations, c2, 1, 0.1);
  ASSERT_EQ(pick.size(), 1u);
  EXPECT_GE(pick[0], 2);
}

TEST(ShepardSelection, VarianceIsTheWeightedSpreadAndPeaksBetweenPoints) {
  CubicSurface f;
  f.c = 3;
  const std::vector<double> p1 = displaced(-1, 0);
  std::vector<double> p2 = p1;
  p2[3] += 0.3;
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  c.points = {f(p1), f(p2)};
  shepard::Parameters params;
  params.weight = shepard::WeightKind::OnePart;
  params.wtol = 0;
  const double d = 0.2;
  const DataSet set = shepard::build_dataset(c, params, d, shepard::identity_group(4));
  const shepard::Interpolant interp = shepard::Interpolant::from(set);
  // Each point's expansion alone: a data set of that point only.
  auto alone = [&](int i) {
    shepard::CartesianPoints ci = c;
    ci.points = {c.points[static_cast<std::size_t>(i)]};
    return shepard::Interpolant::from(shepard::build_dataset(ci, params, d, shepard::identity_group(4)));
  };
  const shepard::Interpolant f1 = alone(0), f2 = alone(1);
  std::vector<double> mid = p1, near1 = p1;
  mid[3] += 0.15;
  near1[3] += 0.05;
  double worst = 0;
  shepard::Workspace ws;
  for (const auto* x : {&mid, &near1}) {
    std::vector<double> z(6), z1(6), z2(6);
    shepard::inverse_distances(x->data(), 4, z.data());
    shepard::inverse_distances(p1.data(), 4, z1.data());
    shepard::inverse_distances(p2.data(), 4, z2.data());
    double u1 = 0, u2 = 0;
    for (int l = 0; l < 6; ++l) u1 += std::pow((z[l] - z1[l]) / d, 4), u2 += std::pow((z[l] - z2[l]) / d, 4);
    const double w1 = (1 / u1) / (1 / u1 + 1 / u2), w2 = 1 - w1;
    const double t1 = shepard::evaluate(f1, x->data()), t2 = shepard::evaluate(f2, x->data());
    const double v = w1 * t1 + w2 * t2, expected = w1 * (t1 - v) * (t1 - v) + w2 * (t2 - v) * (t2 - v);
    const double got = shepard::interpolation_variance(interp, x->data(), ws);
    ASSERT_GT(expected, 0);
    worst = std::max(worst, std::abs(got / expected - 1));
  }
  test::print_measured("interpolation variance against the weights and expansions written out (relative)", worst);
  EXPECT_LT(worst, 1e-10);
  EXPECT_EQ(shepard::interpolation_variance(interp, p1.data(), ws), 0.0);
  // Candidates: the two data points, a point near the first, the midpoint: the midpoint first, then
  // (at least 0.01 in Z away from it) the point near the first; the data points never.
  std::vector<double> configs;
  for (const std::vector<double>* x : std::initializer_list<const std::vector<double>*>{&p1, &p2, &near1, &mid}) configs.insert(configs.end(), x->begin(), x->end());
  const std::vector<int> chosen = shepard::select_by_variance(interp, configs, 3, 0.01);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0], 3);
  EXPECT_EQ(chosen[1], 2);
}

TEST(ShepardGrow, PermutationsOfTheListedAtoms) {
  const auto g = shepard::permutations_of({1, 2, 3, 4}, 6);
  EXPECT_EQ(g.size(), 24u);
  EXPECT_EQ(g[0], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(shepard::permutation_group_problem(g, {"C", "H", "H", "H", "H", "H"}), "");
  for (const auto& p : g) EXPECT_EQ(p[5], 5);
}

// H + CH4 on the analytic surface: C, H1..H4, then H'.
std::vector<double> tetrahedral(double c_h, double h_prime) {
  const double polar = std::acos(-1.0 / 3), kPi = 3.141592653589793;
  std::vector<double> x{0, 0, 0, 0, 0, c_h};
  for (int k = 0; k < 3; ++k)
    x.insert(x.end(), {1.09 * std::sin(polar) * std::cos(2 * kPi * k / 3), 1.09 * std::sin(polar) * std::sin(2 * kPi * k / 3),
                       1.09 * std::cos(polar)});
  x.insert(x.end(), {0, 0, h_prime});
  return x;
}

const char* kGrowInput = R"([qct]
molecule = ["C", "H", "H", "H", "H"]
positions = [0.0, 0.0, 0.0, 0.629, 0.629, 0.629, -0.629, -0.629, 0.629, -0.629, 0.629, -0.629, 0.629, -0.629, -0.629]
projectile = "H"
collision_energy = 35.0
b_max = 1.0
trajectories = 10
seed = 11
timestep_fs = 0.2
initial_separation = 5.0
stop_distance = 5.5
max_steps = 1000
[grow]
permute = [1, 2, 3, 4]
iterations = 2
max_points = 40
h_weight_points = 5
variance_points = 5
held_out = 200
)";

shepard::GrowSettings grow_input(const std::string& text, const std::string& extra = "") {
  const toml::table root = parse_toml_text(text + extra, "grow.toml");
  const ConfigTable top{&root, "grow.toml", ""};
  return shepard::grow_settings_from_config(top.require_sub("grow"), top.require_sub("qct"));
}

TEST(ShepardGrow, RmsErrorFallsOnTheAnalyticSurface) {
  // Reactant (H' 3.5 Å beyond H1), near the saddle (C-H1 1.39 Å, H1-H' 0.87 Å), products (H2 apart).
  std::ostringstream start;
  start << std::setprecision(17) << "start = [";
  for (const auto& x : {tetrahedral(1.09, 3.5), tetrahedral(1.39, 2.26), tetrahedral(3.0, 3.74)})
    for (double v : x) start << v << ", ";
  start << "]\n";
  for (const std::string lengths : {"constant", "fitted"}) {
    SCOPED_TRACE(lengths);
    shepard::GrowSettings s = grow_input(kGrowInput, start.str() + "confidence = \"" + lengths + "\"\n");
    ForceField reference;
    reference.add(std::make_shared<AnalyticSurfacePotential>("ch5-cbg2009", "C", "H"), "surface");
    std::ostringstream log;
    const shepard::GrowResult r = shepard::grow(s, reference, Backend::Cpu, &log);
    std::cout << log.str();
    ASSERT_GE(r.iterations.size(), 2u);
    const double first = r.iterations.front().rms, last = r.iterations.back().rms;
    test::print_measured(lengths + " lengths: held-out RMS error at the start (eV)", first);
    test::print_measured(lengths + " lengths: held-out RMS error at the end (eV)", last);
    test::print_measured(lengths + " lengths: within 1 eV at the end (eV)", r.iterations.back().window_rms);
    EXPECT_GT(r.iterations.back().points, r.iterations.front().points);
    EXPECT_LT(last, 0.5 * first);
    // The window holds some of the held-out configurations, not all (the trajectories climb higher).
    EXPECT_GT(r.iterations.back().window_count, 0);
    EXPECT_LT(r.iterations.back().window_count, 200);
    EXPECT_LE(r.iterations.back().window_rms, r.iterations.back().max_error);
    if (lengths == "fitted") {
      EXPECT_GT(r.iterations.back().leave_one_out_rms, 0);  // fitted from 10 points on
    }
    // Every data point reproduces the reference there (energy), replicated over the 24 permutations.
    EXPECT_EQ(r.set.permutations.size(), 24u);
    const shepard::Interpolant f = shepard::Interpolant::from(r.set);
    for (const auto& p : r.set.points) {
      EXPECT_NEAR(shepard::evaluate(f, p.positions.data()), p.energy, 1e-9 * std::abs(p.energy));
    }
  }
}

// The commands: `build --confidence bayes|fitted` writes the lengths bayes_confidence or fitted_confidence gives; `grow` on the
// example, shortened, writes a data set that reads back with the points it reports.
TEST(ShepardGrow, Commands) {
  const auto dir = test::scratch_dir("shepard-grow-cli");
  CubicSurface f;
  f.c = 2;
  shepard::CartesianPoints c;
  c.elements = {"N", "H", "H", "H"};
  for (int k = 0; k < 10; ++k) c.points.push_back(f(displaced(k, 0.3)));
  shepard::write_cartesian_points((dir / "points.txt").string(), c);
  const std::string quasar = test::binary_path("quasar");
  ASSERT_EQ(std::system(("cd " + dir.string() + " && " + quasar +
                         " shepard build points.txt bayes.shepard --confidence bayes --group identity > build.txt 2>&1").c_str()), 0);
  DataSet expected = shepard::build_dataset(shepard::read_cartesian_points((dir / "points.txt").string()), {}, 1.0,
                                            shepard::identity_group(4));
  shepard::bayes_confidence(expected);
  EXPECT_EQ(shepard::dataset_difference(shepard::read_dataset((dir / "bayes.shepard").string()), expected), "");
  ASSERT_EQ(std::system(("cd " + dir.string() + " && " + quasar +
                         " shepard build points.txt fitted.shepard --confidence fitted --group identity > fitted.txt 2>&1").c_str()), 0);
  DataSet fitted = shepard::build_dataset(shepard::read_cartesian_points((dir / "points.txt").string()), {}, 1.0,
                                          shepard::identity_group(4));
  shepard::FittedSettings fs;
  fs.fallback = 1.0;
  shepard::fitted_confidence(fitted, fs);
  EXPECT_EQ(shepard::dataset_difference(shepard::read_dataset((dir / "fitted.shepard").string()), fitted), "");

  std::ifstream in(test::source_path("examples/shepard-grow-h-ch4/input.toml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string input = text.str();
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"trajectories = 20", "trajectories = 4"}, {"iterations = 20", "iterations = 1"},
           {"held_out = 300", "held_out = 50"}, {"max_steps = 1000", "max_steps = 300"}}) {
    ASSERT_NE(input.find(from), std::string::npos) << from;
    input.replace(input.find(from), from.size(), to);
  }
  std::ofstream(dir / "input.toml") << input;
  ASSERT_EQ(std::system(("cd " + dir.string() + " && " + quasar + " shepard grow input.toml > out.txt 2>&1").c_str()), 0);
  std::stringstream out;
  out << std::ifstream(dir / "out.txt").rdbuf();
  EXPECT_NE(out.str().find("grow: iteration 1: "), std::string::npos) << out.str();
  const DataSet grown = shepard::read_dataset((dir / "h-ch4.shepard").string());
  EXPECT_NE(out.str().find("wrote " + (dir / "h-ch4.shepard").string() + ": " + std::to_string(grown.points.size()) + " data points"),
            std::string::npos) << out.str();
  EXPECT_GT(grown.points.size(), 3u);
  EXPECT_EQ(grown.permutations.size(), 24u);
  std::filesystem::remove_all(dir);
}

TEST(ShepardGrow, BadInputNamesTheKey) {
  auto message = [&](const std::string& extra) {
    try {
      grow_input(kGrowInput, extra);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string start = "start = [0,0,0, 0,0,1.09, 1,0,-0.3, -0.5,0.9,-0.3, -0.5,-0.9,-0.3, 0,0,3]\n";
  EXPECT_EQ(message(start), "no error");
  auto expect = [&](const std::string& extra, const std::string& key) {
    const std::string m = message(extra);
    EXPECT_NE(m.find(key), std::string::npos) << extra << " -> " << m;
    EXPECT_NE(m.find("grow.toml"), std::string::npos) << m;
  };
  expect("start = [0, 0, 0]\n", "grow.start");
  expect(start + "confidence = \"guess\"\n", "grow.confidence");
  expect(start + "target_rms_meV = -1\n", "grow.target_rms_meV");
  expect(start + "rms_window = 0\n", "grow.rms_window");
  expect(start + "fit_neighbours = 0\n", "grow.fit_neighbours");
  expect(start + "fit_window = -1\n", "grow.fit_window");
  expect(start + "fit_pair_exponent = -1\n", "grow.fit_pair_exponent");
  std::string two = kGrowInput;
  two.replace(two.find("max_points = 40"), 15, "max_points = 0");
  try {
    grow_input(two, start);
    ADD_FAILURE() << "a budget below the start points accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grow.max_points"), std::string::npos) << e.what();
  }
  expect(start + "points = 2\n", "variance_points");  // the unknown key: the valid ones are listed
  std::string mixed = kGrowInput;
  mixed.replace(mixed.find("permute = [1, 2, 3, 4]"), 22, "permute = [0, 1]");
  try {
    grow_input(mixed, start);
    ADD_FAILURE() << "mixed elements accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grow.permute"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quasar
