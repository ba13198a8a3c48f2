// eps^-1 unfolded from the irreducible q-points (gw/epsilon_unfold.*): the rotated matrices against
// Epsilon computed directly at each q, and Sigma from Si.test's own three q-points (q0, L, X) against
// Si.test and against Sigma from eps^-1 computed at all eight q-points of the grid.
#include "gw_sigma_support.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/epsilon_unfold.hpp"

namespace quasar {
namespace {

// The point of `eps` at `want` modulo G (not q0).
const gw::EpsilonOfQ* find_q(const gw::EpsilonResult& eps, const gw::Vec3d& want) {
  for (const auto& e : eps.q) {
    bool same = !e.q0;
    for (int d = 0; d < 3; ++d) same = same && std::abs(std::remainder(e.q[d] - want[d], 1.0)) < 1e-9;
    if (same) return &e;
  }
  return nullptr;
}

// Epsilon on Si.test's own epsilon.inp: q0, L = (0, 0, 1/2), X = (0, 1/2, 1/2).
const gw::EpsilonResult& irreducible_epsilon() {
  static const gw::EpsilonResult eps = [] {
    device::Context ctx(Backend::Cpu);
    const gw::Vec3d q0{0, 0, 0.001};
    const gw::Wavefunctions wfn = gw::load_mean_field(ref("WFN.in"), ctx);
    const gw::Wavefunctions wfnq = gw::load_mean_field(ref("WFNq.in"), ctx, &q0);
    return gw::compute_epsilon(gw::read_epsilon_input(ref("epsilon.inp")), wfn, &wfnq, ctx);
  }();
  return eps;
}

// eps^-1 at every q of the grid rotated from the irreducible L and X points by rotate_epsilon, for
// each space-group operation x -> R x + t with P q_irr = q + G0 (P = R^-T): the G-vectors (|q+G|^2 <
// 7 Ry, sorted) equal the direct run's, in its order, and every matrix element equals the direct one
// to rounding (6.7e-16 measured) for all 48 operations; dropping the translations (36 of them are half
// lattice vectors) moves elements by 0.26.
TEST(GwSigmaUnfold, RotatedEpsilonEqualsDirect) {
  if (!have_reference()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const SiMeanFields& m = si();
  const gw::Matrix3 metric = gw::reciprocal_metric(m.inner);
  const std::vector<gw::CrystalOperation> ops = gw::crystal_operations(gw::read_epm_input(ref("WFN_co.in")));
  ASSERT_EQ(ops.size(), 48u);
  int translated = 0;
  for (const auto& o : ops) translated += o.translation != gw::Vec{0, 0, 0};
  EXPECT_EQ(translated, 36);
  const std::vector<const gw::EpsilonOfQ*> irreducible = {find_q(m.eps, {0, 0, 0.5}), find_q(m.eps, {0, 0.5, 0.5})};
  ASSERT_TRUE(irreducible[0] && irreducible[1]);
  test::MaxError with("eps^-1 rotated with the translations - direct");
  double without = 0;
  int rotations = 0;
  for (const auto& e : m.eps.q) {
    if (e.q0) continue;
    for (const gw::EpsilonOfQ* irr : irreducible)
      for (const gw::CrystalOperation& op : ops) {
        gw::EpsilonOfQ r, plain;
        try {
          r = gw::rotate_epsilon(*irr, op, e.q, metric, m.inner.gvectors);
        } catch (const Error&) {
          continue;  // this operation does not map irr onto e.q
        }
        ++rotations;
        gw::CrystalOperation untranslated = op;
        untranslated.translation = {0, 0, 0};
        plain = gw::rotate_epsilon(*irr, untranslated, e.q, metric);
        ASSERT_EQ(r.gvectors, e.gvectors);
        for (std::size_t g = 0; g < e.size(); ++g) EXPECT_NEAR(r.coulomb[g], e.coulomb[g], 1e-9 * e.coulomb[g]);
        for (std::size_t i = 0; i < e.epsilon_inverse.size(); ++i) {
          with.add(std::abs(r.epsilon_inverse[i] - e.epsilon_inverse[i]), 0.0);
          without = std::max(without, std::abs(plain.epsilon_inverse[i] - e.epsilon_inverse[i]));
        }
      }
  }
  EXPECT_EQ(rotations, 4 * 12 + 3 * 16);  // each L point by 12 operations, each X point by 16
  EXPECT_TRUE(with.within(1e-13));
  EXPECT_GT(without, 0.1);

  // unfold_epsilon from the three irreducible points: the five other points, each equal to the direct.
  const gw::EpsilonResult& three = irreducible_epsilon();
  for (const bool berkeleygw : {false, true}) {
    const std::vector<gw::IntMatrix3> list = berkeleygw ? berkeleygw_si_operations() : std::vector<gw::IntMatrix3>{};
    const std::vector<gw::EpsilonOfQ> five = gw::unfold_epsilon(three, m.inner.kpoints, ops, list, metric, m.inner.gvectors);
    ASSERT_EQ(five.size(), 5u);
    test::MaxError same(berkeleygw ? "unfolded by BerkeleyGW's rule - direct" : "unfolded by the first operation - direct");
    for (const auto& u : five) {
      const gw::EpsilonOfQ* d = find_q(m.eps, u.q);
      ASSERT_TRUE(d);
      ASSERT_EQ(u.gvectors, d->gvectors);
      for (std::size_t i = 0; i < u.epsilon_inverse.size(); ++i) same.add(std::abs(u.epsilon_inverse[i] - d->epsilon_inverse[i]), 0.0);
    }
    EXPECT_TRUE(same.within(1e-13));
  }
}

// A q-point that no operation reaches from the file's points is refused by name: with q0 and L only,
// the X points of the grid cannot be unfolded (the L points can), by unfold_epsilon and by Sigma.
TEST(GwSigmaUnfold, RefusesUnreachableQ) {
  if (!have_reference()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const SiMeanFields& m = si();
  gw::EpsilonResult two = irreducible_epsilon();
  ASSERT_EQ(two.q.size(), 3u);
  two.q.pop_back();
  const std::vector<gw::CrystalOperation> ops = gw::crystal_operations(gw::read_epm_input(ref("WFN_co.in")));
  try {
    gw::unfold_epsilon(two, {{0, 0.5, 0.5}}, ops, {}, gw::reciprocal_metric(m.inner), m.inner.gvectors);
    ADD_FAILURE() << "X unfolded from L";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lack q = (0.000000, 0.500000, 0.500000)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gw::unfold_epsilon(two, {{0.5, 0, 0}, {0.5, 0.5, 0.5}}, ops, {}, gw::reciprocal_metric(m.inner), {}).size(), 2u);
  // compute_sigma refuses before summing, naming an X point of the grid.
  gw::SigmaSettings s;
  s.model = gw::SigmaModel::Cohsex;
  s.bands = 5;
  s.kpoints = {{0, 0, 0}};
  try {
    gw::compute_sigma(s, m.inner, &two, {}, &m.density);
    ADD_FAILURE() << "Sigma ran without eps^-1 at X";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sigma: the dielectric matrices lack q = ("), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("add it (or a point of its star) to epsilon.inp"), std::string::npos) << e.what();
  }
}

// Sigma from eps^-1 at Si.test's three q-points (unfolded to the grid) and from eps^-1 computed at all
// eight: every Si.test match of both within its precision, and every element of the two equal.
void expect_same(const gw::SigmaResult& a, const gw::SigmaResult& b, const std::string& what) {
  test::MaxError diff(what + ": Sigma from 3 q-points - from 8 (eV)");
  ASSERT_EQ(a.k.size(), b.k.size());
  for (std::size_t k = 0; k < a.k.size(); ++k)
    for (int part = 0; part < 2; ++part) {
      const auto& x = part ? a.k[k].offdiagonal : a.k[k].diagonal;
      const auto& y = part ? b.k[k].offdiagonal : b.k[k].diagonal;
      ASSERT_EQ(x.size(), y.size());
      for (std::size_t i = 0; i < x.size(); ++i)
        for (auto f : {&gw::SigmaElement::x, &gw::SigmaElement::sx, &gw::SigmaElement::ch, &gw::SigmaElement::sig,
                       &gw::SigmaElement::eqp1, &gw::SigmaElement::znk})
          diff.add(x[i].*f, y[i].*f);
    }
  EXPECT_TRUE(diff.within(1e-11));
}

// GPP (sig_GPP.inp: 18 bands, the static remainder, off-diagonal elements, the whole q-grid): every
// match (k-point lines, Emf, X, SX - X, CH with and without the remainder, Eqp1, Znk, the off-diagonal
// elements) within Si.test's precision (2e-5 eV, 1e-6 from its "zero by symmetry" line on).
TEST(GwSigmaUnfold, GppFromThreeAndEightQMatchesSiTest) {
  if (!have_reference()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  gw::SigmaResult from3, from8;
  const double d3 = run_and_compare("sig_GPP.inp", "sig_GPP.out", &irreducible_epsilon(), &from3);
  const double d8 = run_and_compare("sig_GPP.inp", "sig_GPP.out", nullptr, &from8);
  std::printf("GPP: largest deviation from Si.test %.2e eV (3 q-points), %.2e eV (8)\n", d3, d8);
  expect_same(from3, from8, "GPP");
}

// COHSEX (BerkeleyGW ran it on the symmetry-reduced q-grid: each q of the grid taking the Monte Carlo
// averages of v of its star's first point, WFN_co's listed points heading their stars) and the COHSEX
// off-diagonal run at L: every match within Si.test's 2e-6 eV. Hartree-Fock reads no eps^-1
// (GwSigma.HartreeFockMatchesSiTest).
TEST(GwSigmaUnfold, CohsexFromThreeAndEightQMatchesSiTest) {
  if (!have_reference()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  gw::SigmaResult from3, from8;
  const double d3 = run_and_compare("sig_COHSEX.inp", "sig_COHSEX.out", &irreducible_epsilon(), &from3);
  const double d8 = run_and_compare("sig_COHSEX.inp", "sig_COHSEX.out", nullptr, &from8);
  std::printf("COHSEX: largest deviation from Si.test %.2e eV (3 q-points), %.2e eV (8)\n", d3, d8);
  expect_same(from3, from8, "COHSEX");
  std::printf("COHSEX at L, off-diagonal, from 3 q-points: largest deviation %.2e eV\n",
              compare(cohsex_at_l(), "sig_COHSEX_offdiag.out", &irreducible_epsilon()));
}

}  // namespace
}  // namespace quasar
