// The symmetry functions of Behler-Parrinello potentials (potential/nnp/symmetry_functions.hpp and the
// CPU reference descriptor.*) against a direct evaluation written from the formulas
// (nnp_symmetry_direct.hpp), finite differences, unit changes and invariances.
//
// The direct evaluation follows n2p2 (v2.3.0, commit 61daa0d), whose definitions were read in its
// sources (facts only):
// - CutoffFunction.cpp: f_c = 1 below the inner cutoff alpha rc for cos, exp and poly1-4, a function of
//   x = (r - alpha rc) / (rc - alpha rc) above; hard, tanhu and tanh ignore alpha; tanh is tanhu times
//   coth(1)^3; every SF takes r < rc (strict).
// - CoreFunction.h: the cores p1..p4 and e on [0, 1]; the suffix "a" (SymFncBaseComp.cpp: only after
//   p1..p4; any "e..." is the plain e core) substitutes x -> (2 - x) x, in the radial window only
//   (SymFncBaseCompAng.cpp gives the angle window the same core without it).
// - CompactFunction.h: a window [l, r] is core(|x - (l + r)/2| / ((r - l)/2)); the SFs test l < x < r.
// - SymFncExpAngn.cpp, SymFncExpAngw.cpp: the angular sums run over j < k of the neighbour list with
//   (e_j, e_k) = (e1, e2) or (e2, e1), so each unordered pair once; 2^(1 - zeta) in front; terms with
//   1 + lambda cos <= 0 dropped; type 3 requires r_jk < rc, type 9 has no r_jk at all.
// - SymGrpExpAngn.cpp, SymGrpExpAngw.cpp (the groups n2p2 evaluates by default, without
//   N2P2_NO_SF_GROUPS): types 3 and 9 use no shift when rs <= 0; type 13 (SymGrpExpAngnWeighted.cpp)
//   uses rs as given.
// - SymFncExpRadWeighted.cpp, SymFncExpAngnWeighted.cpp, SymFncComp*Weighted.cpp: weights Z_j and
//   Z_j Z_k over neighbours of every element.
// - SymFncCompAngn.cpp, SymFncCompAngw.cpp: rl < r_ij, r_ik < rc; type 21 and 24 also rl < r_jk < rc,
//   22 and 25 no r_jk; pairs whose computed cos is <= -1 or >= 1 are dropped (theta = 0 or 180
//   degrees, even where the window does not vanish), as are angles outside [left, right].
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

#include "nnp_symmetry_direct.hpp"
#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "support.hpp"

namespace quasar::nnp {
namespace {

using namespace test_sf;

// ---- tests ----------------------------------------------------------------------------------------

// Values of the formulas at points worked out by hand.
TEST(NnpSymmetry, CutoffsAndCoresAtKnownPoints) {
  SfParams<double> p;
  p.rc = 4, p.inv_rc = 0.25, p.inner = 0, p.inv_width = 0.25;
  test::MaxError err("cutoffs and cores at known points");
  for (int core = kCoreP1; core <= kCoreP4; ++core) {
    err.add(core_fdf(core, 0.5).f, 0.5);  // every polynomial core is 1/2 at the middle
    err.add(core_fdf(core, 0.0).f, 1.0);
    err.add(core_fdf(core, 1.0).f, 0.0);
    err.add(core_fdf(core, 1.0).df, 0.0);
    err.add(core_fdf(core, 0.25, true).f, core_fdf(core, 0.4375).f);  // (2 - 1/4) / 4
  }
  err.add(core_fdf(kCoreExp, 0.5).f, std::exp(-1.0 / 3));
  err.add(core_fdf(kCoreExp, 1.0).f, 0.0);
  p.shape = kCutTanh;
  err.add(cutoff_fdf(p, 0.0).f, 1.0);
  p.shape = kCutTanhU;
  err.add(cutoff_fdf(p, 0.0).f, std::pow(std::tanh(1.0), 3));
  p.shape = kCutCos;
  err.add(cutoff_fdf(p, 2.0).f, 0.5);
  err.add(cutoff_fdf(p, 2.0).df, -M_PI / 8);
  p.inner = 1, p.inv_width = 1.0 / 3;  // alpha = 1/4
  err.add(cutoff_fdf(p, 0.9).f, 1.0);
  err.add(cutoff_fdf(p, 2.5).f, 0.5);
  EXPECT_TRUE(err.within(1e-15));  // measured 1.1e-16
  // Near x = 1 the cores keep their relative precision (n2p2's Horner forms lose it there). The
  // polynomial p_m is 1 - I_x(m+1, m+1) (the regularised incomplete beta function), so p_m(1 - u) =
  // sum_{j=m+1}^{2m+1} C(2m+1, j) u^j (1 - u)^(2m+1-j), a sum of positive terms; the e core at 1 - u
  // is exp(1 - 1 / (u (2 - u))); the cos cutoff there is sin^2(pi u / 2).
  test::MaxError rel("cores and the cos cutoff near x = 1, relative");
  for (double u : {0x1p-7, 0x1p-10, 0x1p-17}) {  // 1 - u exact in double
    for (int m = 1; m <= 4; ++m) {
      const int n = 2 * m + 1;
      Real want = 0, binomial = 1;  // C(n, j)
      for (int j = 0; j <= n; ++j) {
        if (j > m) want += binomial * std::pow(Real(u), j) * std::pow(1 - Real(u), n - j);
        binomial = binomial * (n - j) / (j + 1);
      }
      rel.add(core_fdf(m, 1 - u).f / double(want), 1.0);
    }
    rel.add(core_fdf(kCoreExp, 1 - u).f / double(std::exp(1 - 1 / (Real(u) * (2 - Real(u))))), 1.0);
    p.shape = kCutCos, p.inner = 0, p.inv_width = 0.25;
    rel.add(cutoff_fdf(p, 4 - 4 * u).f / double(std::pow(std::sin(kPi * Real(u) / 2), 2)), 1.0);
  }
  EXPECT_TRUE(rel.within(2e-14));  // measured 2.2e-16
}

TEST(NnpSymmetry, ValuesMatchTheDirectEvaluation) {
  std::mt19937_64 rng(11);
  test::MaxError err("values against the direct evaluation, relative to the weights of their terms");
  for (const Model& m : all_models()) {
    const Descriptor d(m, 1.0);
    std::vector<std::vector<bool>> seen(m.elements.size());
    for (int trial = 0; trial < 6; ++trial) {
      const std::vector<Atom3> nb = random_cluster(rng, 18, boundaries(m, 1));
      for (int c = 0; c < int(m.elements.size()); ++c) {
        const Direct want = direct_values(m, c, nb);
        const std::vector<double> got = values(d, c, entries(nb));
        ASSERT_EQ(got.size(), want.G.size());
        seen[c].resize(got.size());
        for (std::size_t s = 0; s < got.size(); ++s) {
          err.add(got[s] / want.scale[s], want.G[s] / want.scale[s]);
          if (std::abs(want.G[s]) > 1e-10) seen[c][s] = true;
        }
      }
    }
    // Every function is exercised: none is zero in all clusters.
    for (std::size_t c = 0; c < seen.size(); ++c)
      for (std::size_t s = 0; s < seen[c].size(); ++s)
        EXPECT_TRUE(seen[c][s]) << "function " << s << " of element " << c << " (cutoff " << int(m.cutoff) << ")";
  }
  EXPECT_TRUE(err.within(5e-14));  // measured 7.2e-16
}

// sum_s g_s dG_s/d(d_j) for one function at a time (g = e_s) against central differences of values()
// (five points, error O(h^4)).
TEST(NnpSymmetry, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(5);
  test::MaxError err("gradient against central differences (h = 1e-4 Å), relative to max(1, |G|, |dG|)");
  const double h = 1e-4;
  for (const Model& m : all_models()) {
    const Descriptor d(m, 1.0);
    for (int trial = 0; trial < 2; ++trial) {
      const std::vector<Atom3> nb = random_cluster(rng, 14, boundaries(m, 1));
      for (int c = 0; c < int(m.elements.size()); ++c) {
        const int n = d.count(c);
        if (n == 0) continue;
        const std::vector<NeighborEntry> base = entries(nb);
        // Finite differences of every function at once: fd[(3 j + a) n + s].
        std::vector<double> fd(3 * nb.size() * n);
        for (std::size_t j = 0; j < nb.size(); ++j)
          for (int a = 0; a < 3; ++a) {
            auto shifted = [&](double by) {
              std::vector<Atom3> moved = nb;
              (&moved[j].x)[a] += by;
              return values(d, c, entries(moved));
            };
            const std::vector<double> p1 = shifted(h), m1 = shifted(-h), p2 = shifted(2 * h), m2 = shifted(-2 * h);
            for (int s = 0; s < n; ++s) fd[(3 * j + a) * n + s] = (8 * (p1[s] - m1[s]) - (p2[s] - m2[s])) / (12 * h);
          }
        const std::vector<double> G = values(d, c, base);
        for (int s = 0; s < n; ++s) {
          std::vector<double> g(n, 0.0), grad(3 * nb.size(), 0.0);
          g[s] = 1;
          d.gradient(c, base, g.data(), grad.data());
          // The differences' rounding grows with |G| / h: the scale is the larger of |G| (per Å) and
          // the largest component, at least 1.
          double scale = std::max(1.0, std::abs(G[s]));
          for (double x : grad) scale = std::max(scale, std::abs(x));
          for (std::size_t q = 0; q < grad.size(); ++q) err.add(grad[q] / scale, fd[q * n + s] / scale);
        }
      }
    }
  }
  EXPECT_TRUE(err.within(1e-9));  // measured 1.6e-11
}

// The one-call terms (radial_term(p, r), angular_term(p, g)), as a kernel may use them, summed here
// over neighbours and pairs j != k (halved), in T = double and float, against the Descriptor.
template <class T>
void sum_terms(const Descriptor& d, int c, const std::vector<NeighborEntry>& nb, const std::vector<double>& g,
               std::vector<double>& G, std::vector<double>& grad) {
  const std::vector<double>& Z = d.atomic_numbers();
  G.assign(d.count(c), 0.0);
  grad.assign(3 * nb.size(), 0.0);
  for (int s = 0; s < d.count(c); ++s) {
    const SfParams<T> p = d.functions(c)[s].template cast<T>();
    for (std::size_t j = 0; j < nb.size(); ++j) {
      const NeighborEntry& a = nb[j];
      const T dj[3] = {T(a.dx), T(a.dy), T(a.dz)};
      if (!sf_angular(p.type)) {
        if (!sf_accepts(p, a.element)) continue;
        const Fdf<T> t = radial_term(p, T(a.r));
        const double w = sf_weighted(p.type) ? Z[a.element] : 1.0;
        G[s] += w * double(t.f);
        for (int q = 0; q < 3; ++q) grad[3 * j + q] += g[s] * w * double(t.df * dj[q] / T(a.r));
        continue;
      }
      for (std::size_t k = 0; k < nb.size(); ++k) {
        const NeighborEntry& b = nb[k];
        if (k == j || !sf_accepts(p, a.element, b.element)) continue;
        const T dk[3] = {T(b.dx), T(b.dy), T(b.dz)};
        const AngularTerm<T> t = angular_term(p, pair_geometry(dj, T(a.r), dk, T(b.r)));
        const double w = 0.5 * (sf_weighted(p.type) ? Z[a.element] * Z[b.element] : 1.0);
        G[s] += w * double(t.value);
        for (int q = 0; q < 3; ++q) {
          grad[3 * j + q] += g[s] * w * double(t.jj * dj[q] + t.jk * dk[q]);
          grad[3 * k + q] += g[s] * w * double(t.jk * dj[q] + t.kk * dk[q]);
        }
      }
    }
  }
}

TEST(NnpSymmetry, OneCallTermsInDoubleAndFloat) {
  std::mt19937_64 rng(29);
  test::MaxError in_double("one-call terms in double against the Descriptor, relative to max(1, |G|) and max(1, |dG|)");
  test::MaxError in_float("one-call terms in float against the Descriptor, relative to the weights and max(1, |dG|)");
  for (const Model& m : all_models()) {
    const Descriptor d(m, 1.0);
    const std::vector<Atom3> atoms = random_cluster(rng, 16, boundaries(m, 1));
    const std::vector<NeighborEntry> nb = entries(atoms);
    for (int c = 0; c < int(m.elements.size()); ++c) {
      const int n = d.count(c);
      std::vector<double> g(n), want_grad(3 * nb.size(), 0.0), G, grad;
      for (int s = 0; s < n; ++s) g[s] = std::cos(0.7 * s);
      const std::vector<double> want = values(d, c, nb);
      const std::vector<double> scale = direct_values(m, c, atoms).scale;
      d.gradient(c, nb, g.data(), want_grad.data());
      double grad_scale = 1;
      for (double x : want_grad) grad_scale = std::max(grad_scale, std::abs(x));
      sum_terms<double>(d, c, nb, g, G, grad);
      for (int s = 0; s < n; ++s) in_double.add(G[s] / std::max(1.0, std::abs(want[s])), want[s] / std::max(1.0, std::abs(want[s])));
      for (std::size_t q = 0; q < grad.size(); ++q) in_double.add(grad[q] / grad_scale, want_grad[q] / grad_scale);
      sum_terms<float>(d, c, nb, g, G, grad);
      for (int s = 0; s < n; ++s) in_float.add(G[s] / scale[s], want[s] / scale[s]);
      for (std::size_t q = 0; q < grad.size(); ++q) in_float.add(grad[q] / grad_scale, want_grad[q] / grad_scale);
    }
  }
  EXPECT_TRUE(in_double.within(1e-13));  // measured 8.9e-16
  EXPECT_TRUE(in_float.within(1e-4));    // measured 2e-6
}

// A model in bohr on positions in Å gives the values of the direct evaluation in bohr, and the same
// values and gradients as the model converted to Å.
TEST(NnpSymmetry, LengthUnitsChangeNothing) {
  std::mt19937_64 rng(3);
  test::MaxError values_err("values of a model in bohr against the direct evaluation in bohr");
  test::MaxError same_err("values and gradients, model in bohr against the same model in Å");
  const std::vector<Model> in_bohr = all_models(kBohr), in_angstrom = all_models(1.0);
  for (std::size_t i = 0; i < in_bohr.size(); ++i) {
    const Descriptor db(in_bohr[i], kBohr), da(in_angstrom[i], 1.0);
    EXPECT_NEAR(db.cutoff(), da.cutoff(), 1e-14);
    const std::vector<Atom3> nb = random_cluster(rng, 16, boundaries(in_angstrom[i], 1));  // Å
    for (int c = 0; c < int(in_bohr[i].elements.size()); ++c) {
      const int n = db.count(c);
      const Direct want = direct_values(in_bohr[i], c, scaled(nb, 1 / kBohr));
      const std::vector<double> gb = values(db, c, entries(nb)), ga = values(da, c, entries(nb));
      std::vector<double> g(n), grad_b(3 * nb.size()), grad_a(3 * nb.size());
      for (int s = 0; s < n; ++s) g[s] = 1.0 + 0.1 * s;
      db.gradient(c, entries(nb), g.data(), grad_b.data());
      da.gradient(c, entries(nb), g.data(), grad_a.data());
      for (int s = 0; s < n; ++s) {
        values_err.add(gb[s] / want.scale[s], want.G[s] / want.scale[s]);
        same_err.add(gb[s] / want.scale[s], ga[s] / want.scale[s]);
      }
      double scale = 1;
      for (double x : grad_a) scale = std::max(scale, std::abs(x));
      for (std::size_t q = 0; q < grad_a.size(); ++q) same_err.add(grad_b[q] / scale, grad_a[q] / scale);
    }
  }
  EXPECT_TRUE(values_err.within(3e-14));  // measured 3.3e-16
  EXPECT_TRUE(same_err.within(4e-14));    // measured 4.4e-16
}

// Rotating the neighbours leaves the values and rotates the gradients; reordering them reorders the
// gradients.
TEST(NnpSymmetry, RotationAndPermutationInvariance) {
  std::mt19937_64 rng(17);
  test::MaxError err("values and gradients after a rotation and a permutation");
  for (const Model& m : all_models()) {
    const Descriptor d(m, 1.0);
    const std::vector<Atom3> nb = random_cluster(rng, 16, boundaries(m, 1));
    // A rotation from a random unit quaternion.
    std::normal_distribution<double> normal;
    double q[4];
    double qn = 0;
    for (double& x : q) {
      x = normal(rng);
      qn += x * x;
    }
    for (double& x : q) x /= std::sqrt(qn);
    const auto [w, x, y, z] = std::tuple{q[0], q[1], q[2], q[3]};
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    std::vector<int> order(nb.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<Atom3> moved;
    for (int i : order) {
      const Atom3& a = nb[i];
      moved.push_back({R[0][0] * a.x + R[0][1] * a.y + R[0][2] * a.z, R[1][0] * a.x + R[1][1] * a.y + R[1][2] * a.z,
                       R[2][0] * a.x + R[2][1] * a.y + R[2][2] * a.z, a.element});
    }
    for (int c = 0; c < int(m.elements.size()); ++c) {
      const int n = d.count(c);
      const std::vector<double> g0 = values(d, c, entries(nb)), g1 = values(d, c, entries(moved));
      std::vector<double> g(n), grad0(3 * nb.size()), grad1(3 * nb.size());
      for (int s = 0; s < n; ++s) g[s] = std::sin(1.0 + s);
      d.gradient(c, entries(nb), g.data(), grad0.data());
      d.gradient(c, entries(moved), g.data(), grad1.data());
      for (int s = 0; s < n; ++s) err.add(g1[s] / std::max(1.0, std::abs(g0[s])), g0[s] / std::max(1.0, std::abs(g0[s])));
      double scale = 1;
      for (double v : grad0) scale = std::max(scale, std::abs(v));
      for (std::size_t j = 0; j < nb.size(); ++j) {
        const int i = order[j];  // moved[j] is nb[i] rotated
        for (int a = 0; a < 3; ++a) {
          double want = 0;
          for (int b = 0; b < 3; ++b) want += R[a][b] * grad0[3 * i + b];
          err.add(grad1[3 * j + a] / scale, want / scale);
        }
      }
    }
  }
  EXPECT_TRUE(err.within(2e-12));  // measured 2.5e-14
}

// n2p2 drops pairs at exactly 0 and 180 degrees from the compact angular types, even where the
// window is 1 there; a pair slightly off the line counts.
TEST(NnpSymmetry, CollinearPairsAreDroppedFromCompactWindows) {
  Model m = base_model();
  for (int type : {21, 22, 24, 25}) {
    const bool weighted = type >= 24;
    add(m, H, compact_sf(type, weighted ? -1 : O, weighted ? -1 : O, 0, 6.0, 150, 210));  // centred on 180
    add(m, H, compact_sf(type, weighted ? -1 : O, weighted ? -1 : O, 0, 6.0, -30, 30));   // centred on 0
  }
  const Descriptor d(m, 1.0);
  auto G = [&](std::vector<NeighborEntry> nb) { return values(d, H, nb); };
  // Opposite: theta = 180 exactly; same side: theta = 0 exactly.
  for (double v : G({{2, 0, 0, 2, O}, {-2.5, 0, 0, 2.5, O}})) EXPECT_EQ(v, 0.0);
  for (double v : G({{2, 0, 0, 2, O}, {3.5, 0, 0, 3.5, O}})) EXPECT_EQ(v, 0.0);
  // 1e-4 rad off the line the windows see nearly their peak: the 180-degree ones (even functions)
  // opposite, the 0-degree ones (odd) on the same side.
  const double t = 1e-4;
  const std::vector<double> opposite = G({{2, 0, 0, 2, O}, {-2.5 * std::cos(t), 2.5 * std::sin(t), 0, 2.5, O}});
  const std::vector<double> same_side = G({{2, 0, 0, 2, O}, {3.5 * std::cos(t), 3.5 * std::sin(t), 0, 3.5, O}});
  for (int f = 0; f < 8; f += 2) {
    EXPECT_GT(opposite[f], 0.01) << "function " << f;
    EXPECT_GT(same_side[f + 1], 0.01) << "function " << f + 1;
  }
}

// n2p2's groups of types 3 and 9 use no shift when rs <= 0; type 13 keeps a negative rs.
TEST(NnpSymmetry, NegativeShiftsFollowN2p2) {
  Model m = base_model();
  add(m, H, exp_sf(3, O, O, 0.1, -0.7, 5.0, 1, 2));
  add(m, H, exp_sf(3, O, O, 0.1, 0.0, 5.0, 1, 2));
  add(m, H, exp_sf(9, O, O, 0.1, -0.7, 5.0, 1, 2));
  add(m, H, exp_sf(9, O, O, 0.1, 0.0, 5.0, 1, 2));
  add(m, H, exp_sf(13, -1, -1, 0.1, -0.7, 5.0, 1, 2));
  add(m, H, exp_sf(13, -1, -1, 0.1, 0.0, 5.0, 1, 2));
  const Descriptor d(m, 1.0);
  const std::vector<double> G = values(d, H, {{1.5, 0, 0, 1.5, O}, {0, 2.0, 0.3, std::hypot(2.0, 0.3), O}});
  EXPECT_GT(G[1], 0.0);
  EXPECT_EQ(G[0], G[1]);
  EXPECT_EQ(G[2], G[3]);
  EXPECT_GT(std::abs(G[4] - G[5]), 1e-3 * G[5]);
}

// "e" with the suffix a is the plain e core in n2p2.
TEST(NnpSymmetry, ExpCoreIgnoresTheSuffix) {
  std::mt19937_64 rng(23);
  const Model plain = compact_model(WindowCore::Exp, false), suffixed = compact_model(WindowCore::Exp, true);
  const Descriptor dp(plain, 1.0), ds(suffixed, 1.0);
  const std::vector<NeighborEntry> nb = entries(random_cluster(rng, 14, {}));
  EXPECT_EQ(values(dp, H, nb), values(ds, H, nb));
}

TEST(NnpSymmetry, RefusesWhatN2p2Refuses) {
  auto refused = [](SymmetryFunction f, double alpha = 0) {
    Model m = base_model();
    m.cutoff_alpha = alpha;
    add(m, H, f);
    try {
      Descriptor d(m, 1.0);
    } catch (const Error& e) {
      return std::string(e.what()).find("input.nn line") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused(compact_sf(20, O, -1, 3.0, 3.0)));             // rlow = rc
  EXPECT_TRUE(refused(compact_sf(22, O, O, 0, 5.0, -10, 50)));       // below 0, not centred on 0
  EXPECT_TRUE(refused(compact_sf(22, O, O, 0, 5.0, 170, 230)));      // beyond 180, not centred on 180
  EXPECT_TRUE(refused(compact_sf(22, O, O, 0, 5.0, 90, 90)));        // empty window
  EXPECT_TRUE(refused(exp_sf(2, O, -1, 0.1, 0, 5.0), 1.0));          // alpha = 1
  EXPECT_TRUE(refused(exp_sf(7, O, -1, 0.1, 0, 5.0)));               // no such type
  EXPECT_TRUE(refused(exp_sf(3, O, 5, 0.1, 0, 5.0, 1, 1)));          // no such element
  EXPECT_FALSE(refused(compact_sf(22, O, O, 0, 5.0, -40, 40)));
}

}  // namespace
}  // namespace quasar::nnp
