// The permanent multipoles' explicit pair formulas (mpole_forms.hpp) against the generic Cartesian
// tensors (multipole_pair.hpp, checked against Tinker in amoeba_electrostatics_test) over random
// geometries, moments (quadrupoles with a trace, as parameter files give them), m scales and Ewald's
// alpha: the energy, its gradient and both sites' dE/dM. Then the GPU kernel's per-site gather
// (mpole_site.hpp) run on the host over the tables the GPU gets (mpole_tables), against the CPU's
// multipole_energy on the test systems: this checks the kernel's arithmetic and pair selection here;
// amoeba_mpole_gpu_test checks the launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "quasar/potential/amoeba/mpole_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/multipole_pair.hpp"
#include "amoeba_multipoles.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

// The largest |got - want| over the largest |want| of a set of values.
double relative(const double* want, const double* got, int n) {
  double scale = 1e-300, worst = 0;
  for (int k = 0; k < n; ++k) scale = std::max(scale, std::abs(want[k]));
  for (int k = 0; k < n; ++k)
    if (!(std::abs(got[k] - want[k]) <= worst)) worst = std::abs(got[k] - want[k]);
  return worst / scale;
}

amoeba::Moments random_moments(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  amoeba::Moments m{};
  m[0] = u(rng);
  for (int c = 1; c < 4; ++c) m[static_cast<std::size_t>(c)] = 0.5 * u(rng);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) m[static_cast<std::size_t>(4 + 3 * a + b)] = m[static_cast<std::size_t>(4 + 3 * b + a)] = 0.3 * u(rng);
  return m;
}

TEST(AmoebaMpoleForms, PairFormulasMatchTheGenericTensors) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> u(-1, 1), dist(1.2, 9.0), scale_of(0, 1);
  double worst[4] = {};
  const char* what[4] = {"energy", "gradient", "dE/dMi", "dE/dMk"};
  for (int trial = 0; trial < 4000; ++trial) {
    Vec3 dir{u(rng), u(rng), u(rng)};
    if (norm2(dir) < 1e-3) continue;
    const Vec3 s = dir * (dist(rng) / std::sqrt(norm2(dir)));
    const double r = std::sqrt(norm2(s));
    const double alpha = trial % 3 == 0 ? 0.0 : 0.25 + 0.4 * scale_of(rng);
    const int pick = trial % 4;
    const double scale = pick == 0 ? 0.0 : pick == 1 ? 1.0 : pick == 2 ? 0.4 : scale_of(rng);
    amoeba::Moments Mi = random_moments(rng), Mk = random_moments(rng);
    if (trial % 7 == 1) std::fill(Mi.begin() + 4, Mi.end(), 0.0);  // no quadrupole
    if (trial % 11 == 2) Mk[0] = 0;
    // The generic path, as multipole_energy's CPU loop takes it.
    const double sv[3] = {s.x, s.y, s.z};
    amoeba::PairTensors t;
    amoeba::pair_tensors(sv, alpha > 0 ? amoeba::ewald_real_radial(r, alpha, scale) : amoeba::coulomb_radial(r), {5, 3, 1}, t);
    amoeba::Potential3 at_i, at_i1, at_k, at_k1;
    amoeba::source_potential(Mk, t, 3, 0, false, at_i);
    amoeba::source_potential(Mk, t, 1, 1, false, at_i1);
    amoeba::source_potential(Mi, t, 2, 0, true, at_k);
    amoeba::source_potential(Mi, t, 0, 1, true, at_k1);
    double g_ref[3], dmi_ref[13], dmk_ref[13];
    const double u_ref = amoeba::receive(Mi, at_i, at_i1, g_ref, dmi_ref);
    amoeba::receive(Mk, at_k, at_k1, nullptr, dmk_ref);
    // The explicit forms, from both ends.
    const amoeba::MpoleRadial k = amoeba::mpole_radial(r, alpha, scale);
    double g[3], dmi[13], dmk[13], gk[3];
    const double u_i = amoeba::mpole_pair(Mi.data(), Mk.data(), s, k, g, dmi);
    const double u_k = amoeba::mpole_pair(Mk.data(), Mi.data(), -s, k, gk, dmk);
    const double gk_neg[3] = {-gk[0], -gk[1], -gk[2]};
    const double e[2] = {u_i, u_k}, e_ref[2] = {u_ref, u_ref};
    // The energy's scale: the sum of the magnitudes of its terms (it may cancel).
    double terms = 0;
    for (int c = 0; c < 13; ++c) terms += std::abs(Mi[static_cast<std::size_t>(c)] * dmi_ref[c]);
    const double de = std::max(std::abs(e[0] - e_ref[0]), std::abs(e[1] - e_ref[1])) / std::max(terms, 1e-300);
    worst[0] = std::max(worst[0], de);
    worst[1] = std::max({worst[1], relative(g_ref, g, 3), relative(g_ref, gk_neg, 3)});
    worst[2] = std::max(worst[2], relative(dmi_ref, dmi, 13));
    worst[3] = std::max(worst[3], relative(dmk_ref, dmk, 13));
    // U is linear in each site's moments: sum M dU/dM = U.
    double lin = 0;
    for (int c = 0; c < 13; ++c) lin += Mi[static_cast<std::size_t>(c)] * dmi[c];
    EXPECT_NEAR(lin, u_i, 1e-12 * terms) << trial;
  }
  for (int q = 0; q < 4; ++q) {
    test::print_measured(std::string("explicit pair forms against the generic tensors, ") + what[q], worst[q]);
    EXPECT_LE(worst[q], 1e-13) << what[q];
  }
}

// The gradient against central differences of the energy (the forms against themselves).
TEST(AmoebaMpoleForms, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(7);
  const amoeba::Moments Mi = random_moments(rng), Mk = random_moments(rng);
  const Vec3 s{1.3, -2.1, 0.8};
  for (double alpha : {0.0, 0.45}) {
    auto energy = [&](const Vec3& x) {
      return amoeba::mpole_pair(Mi.data(), Mk.data(), x, amoeba::mpole_radial(std::sqrt(norm2(x)), alpha, 0.4), nullptr,
                                nullptr);
    };
    double g[3];
    amoeba::mpole_pair(Mi.data(), Mk.data(), s, amoeba::mpole_radial(std::sqrt(norm2(s)), alpha, 0.4), g, nullptr);
    const double h = 1e-5;
    for (int a = 0; a < 3; ++a) {
      Vec3 p = s, m = s;
      p[a] += h;
      m[a] -= h;
      EXPECT_NEAR(g[a], (energy(p) - energy(m)) / (2 * h), 1e-8 * (std::abs(g[a]) + 1)) << alpha << " " << a;
    }
  }
}

// The kernel's gather on the host, its shares summed as the GPU path sums them, plus the self energy
// and the frames' chain rule, against multipole_energy on the CPU.
void expect_gather_matches(MultipoleSystem which) {
  Multipoles p;
  if (!load_multipoles(p, which)) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string name = multipole_system_name(which);
  const amoeba::ElectrostaticSystem& e = p.e();
  const double alpha = p.g.ewald_alpha;
  const amoeba::ElectrostaticResult cpu = amoeba::multipole_energy(e, p.g, p.r, true, alpha);
  const std::vector<amoeba::Moments> M = amoeba::lab_moments(e, p.g, p.r);
  std::vector<double> flat;
  for (const auto& m : M) flat.insert(flat.end(), m.begin(), m.end());
  const amoeba::MpoleTables t = amoeba::mpole_tables(e, p.g, p.r);
  const amoeba::MpoleShares shares = amoeba::mpole_shares_host(amoeba::mpole_args(t, e, p.g, alpha, flat.data()));
  const std::size_t n = p.r.size();
  amoeba::ElectrostaticResult got = amoeba::empty_result(n, true);
  std::vector<std::array<double, 13>> dM(n, std::array<double, 13>{});
  amoeba::add_mpole_shares(shares, true, got, dM);
  amoeba::add_multipole_self_energy(e, M, alpha, true, got);
  amoeba::add_frame_gradients(e, p.g, p.r, dM, got, true);
  EXPECT_EQ(got.pairs, cpu.pairs) << name;
  const double tol = 1e-12;
  EXPECT_NEAR(got.energy, cpu.energy, tol * std::abs(cpu.energy)) << name;
  test::print_measured(name + " gather on the host: energy, relative deviation", std::abs(got.energy / cpu.energy - 1));
  auto check = [&](const double* want, const double* have, std::size_t count, const std::string& what) {
    const double w = relative(want, have, static_cast<int>(count));
    test::print_measured(name + " gather on the host: " + what + ", worst relative deviation", w);
    EXPECT_LE(w, tol) << name << " " << what;
  };
  check(&cpu.grad[0].x, &got.grad[0].x, 3 * n, "gradient");
  check(cpu.virial, got.virial, 9, "virial");
  check(cpu.atom_energy.data(), got.atom_energy.data(), n, "per-atom energies");
  check(cpu.atom_virial.data(), got.atom_virial.data(), 9 * n, "per-atom virials");
}

TEST(AmoebaMpoleForms, HostGatherMatchesTheCpuOnLiquidWaterWithPme) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  expect_gather_matches(MultipoleSystem::WaterPme);
}
TEST(AmoebaMpoleForms, HostGatherMatchesTheCpuOnLiquidWaterWithCutoff) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  expect_gather_matches(MultipoleSystem::WaterCutoff);
}
TEST(AmoebaMpoleForms, HostGatherMatchesTheCpuOnVasopressin) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  expect_gather_matches(MultipoleSystem::Vasopressin);
}
TEST(AmoebaMpoleForms, HostGatherMatchesTheCpuOnTriclinicFrames) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  expect_gather_matches(MultipoleSystem::Triclinic);
}

}  // namespace
}  // namespace quasar
