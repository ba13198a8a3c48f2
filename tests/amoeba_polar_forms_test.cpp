// The explicit pair formulas of the polarization gradient (polar_forms.hpp) against the generic
// Cartesian tensors of the CPU's loop (polarization_term.cpp, multipole_pair.hpp; checked against
// Tinker in amoeba_electrostatics_test): over random geometries, moments (quadrupoles with a trace),
// dipoles, Thole damping on and off, Ewald's real-space kernel and every kind of scale factor, one
// pair's dP/dr and dP/dM at both of its ends (the gather takes each end's own). The two sides sum in
// different orders: agreement to 1e-12 of each vector's largest component (Ewald's part: of the
// Coulomb kernel's; measured 4e-13 at worst, from cancellations within a vector). Then
// the per-atom sums (polar_pair_sums, what the GPU runs) on the host over the tables the GPU receives
// against the CPU's loop: the polarization term's gradient, virial and per-atom virial on the 648
// waters (PME and a cutoff) and vasopressin, MUTUAL and DIRECT.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/multipole_pair.hpp"
#include "quasar/potential/amoeba/polar_gpu.hpp"
#include "amoeba_polarizable.hpp"

namespace quasar::amoeba {
namespace {

double norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

// One kernel's share of the pair through the generic tensors, as polarization_term.cpp's loop takes
// it: dP/ds (s = r_i - r_k), dP/dM_i, dP/dM_k, and P.
struct Generic {
  double g[3] = {0, 0, 0}, dmi[13] = {}, dmk[13] = {}, pair = 0;
};
Generic generic_part(const Moments& Mi, const Moments& Mk, const Vec3& udi, const Vec3& upi, const Vec3& udk,
                     const Vec3& upk, const double s[3], const Radial& radial, double sp, double sd, double su,
                     bool mutual) {
  Generic out;
  PairTensors t;
  pair_tensors(s, radial, {4, 2, 0}, t);
  const Moments D_k = dipole_moments(sp * udk + sd * upk), A_i = dipole_moments(sp * udi + sd * upi);
  double gp[3];
  Potential3 phi, phi1, none;
  source_potential(D_k, t, 3, 0, false, phi);
  source_potential(D_k, t, 1, 1, false, phi1);
  out.pair += receive(Mi, phi, phi1, gp, out.dmi);
  for (int c = 0; c < 3; ++c) out.g[c] += gp[c];
  source_potential(Mk, t, 2, 0, false, phi);
  out.pair += receive(A_i, phi, none, gp, nullptr);
  for (int c = 0; c < 3; ++c) out.g[c] += gp[c];
  source_potential(A_i, t, 2, 0, true, phi);
  source_potential(A_i, t, 0, 1, true, phi1);
  receive(Mk, phi, phi1, nullptr, out.dmk);
  if (mutual && su != 0) {
    source_potential(dipole_moments(su * udk), t, 2, 0, false, phi);
    out.pair += receive(dipole_moments(upi), phi, none, gp, nullptr);
    for (int c = 0; c < 3; ++c) out.g[c] += gp[c];
    source_potential(dipole_moments(su * upk), t, 2, 0, false, phi);
    out.pair += receive(dipole_moments(udi), phi, none, gp, nullptr);
    for (int c = 0; c < 3; ++c) out.g[c] += gp[c];
  }
  return out;
}

// Worst difference of n values relative to the largest of want and size.
double relative(const double* got, const double* want, const double* size, int n) {
  double scale = 0, worst = 0;
  for (int c = 0; c < n; ++c) scale = std::max({scale, std::abs(want[c]), std::abs(size[c])});
  for (int c = 0; c < n; ++c) worst = std::max(worst, std::abs(got[c] - want[c]));
  return scale > 0 ? worst / scale : worst;
}

TEST(AmoebaPolarForms, PairGradientsMatchTheGenericTensors) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> unit(-1, 1), pos(0, 1);
  double worst = 0;
  for (int index = 0; index < 3000; ++index) {
    const Vec3 dir{unit(rng), unit(rng), unit(rng)};
    const Vec3 sv = dir * ((0.6 + 8.4 * pos(rng)) / norm(dir));
    const double r = norm(sv), a = 0.2 + 0.5 * pos(rng), damp = index % 4 == 0 ? 0.0 : 0.8 + 0.6 * pos(rng);
    const double alpha = 0.3 + 0.4 * pos(rng);
    Moments Mi, Mk;
    for (Moments* m : {&Mi, &Mk}) {
      for (double& x : *m) x = 0.3 * unit(rng);
      (*m)[7] = (*m)[5], (*m)[10] = (*m)[6], (*m)[11] = (*m)[9];  // lab quadrupoles are symmetric
      if (index % 5 == 1) (*m)[0] = 0;
      if (index % 6 == 3)
        for (std::size_t c = 4; c < 13; ++c) (*m)[c] = 0;
    }
    auto vec = [&] { return Vec3{unit(rng), unit(rng), unit(rng)}; };
    const Vec3 udi = vec(), upi = vec(), udk = vec(), upk = vec();
    const double scales[] = {0.0, 0.2, 0.4, 0.5, 0.8, 1.0};
    const double sp = scales[rng() % 6], sd = scales[rng() % 6], su = scales[rng() % 6];
    const bool mutual = index % 3 != 0;
    for (int kernel = 0; kernel < 2; ++kernel) {
      const Radial radial = kernel == 0 ? thole_radial(r, a, damp) : ewald_real_radial(r, alpha, 0);
      const PolarRadial k = kernel == 0 ? thole_polar_radial(r, a, damp) : ewald_polar_radial(r, alpha);
      const double s[3] = {sv.x, sv.y, sv.z};
      const Generic want = generic_part(Mi, Mk, udi, upi, udk, upk, s, radial, sp, sd, su, mutual);
      // Ewald's kernel less Coulomb's cancels at short range: its size is the Coulomb kernel's.
      const Generic size =
          kernel == 0 ? want : generic_part(Mi, Mk, udi, upi, udk, upk, s, coulomb_radial(r), sp, sd, su, mutual);
      // Atom i's end, and atom k's (its s reversed, the dipoles' roles swapped).
      double gi[3] = {0, 0, 0}, dmi[13] = {}, gk[3] = {0, 0, 0}, dmk[13] = {};
      const double pi = polar_pair_part(Mi.data(), Mk.data(), udi, upi, udk, upk, sv, k, sp, sd, su, mutual, gi, dmi);
      const double pk =
          polar_pair_part(Mk.data(), Mi.data(), udk, upk, udi, upi, -sv, k, sp, sd, su, mutual, gk, dmk);
      const double minus_g[3] = {-want.g[0], -want.g[1], -want.g[2]};
      const double w = std::max({relative(gi, want.g, size.g, 3), relative(dmi, want.dmi, size.dmi, 13),
                                 relative(gk, minus_g, size.g, 3), relative(dmk, want.dmk, size.dmk, 13),
                                 relative(&pi, &want.pair, &size.pair, 1), relative(&pk, &want.pair, &size.pair, 1)});
      EXPECT_LE(w, 1e-12) << "case " << index << ", kernel " << kernel << ", r " << r;
      worst = std::max(worst, w);
    }
  }
  std::cout << "worst relative difference of the pair formulas: " << worst << "\n";
}

double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// The term's result with the pair sums against the CPU's loop's, for the same dipoles; the worst
// relative difference.
double expect_results_agree(const ElectrostaticResult& got, const ElectrostaticResult& want, const std::string& name,
                            double tolerance) {
  EXPECT_EQ(got.energy, want.energy) << name;  // the energy is the fields', the same on both
  EXPECT_EQ(got.pairs, want.pairs) << name;
  std::vector<double> gg, wg;
  for (std::size_t i = 0; i < want.grad.size(); ++i)
    for (int a = 0; a < 3; ++a) gg.push_back(got.grad[i][a]), wg.push_back(want.grad[i][a]);
  double worst = 0, vscale = 0;
  const double gscale = largest(wg), ascale = largest(want.atom_virial);
  for (std::size_t j = 0; j < wg.size(); ++j) worst = std::max(worst, std::abs(gg[j] - wg[j]) / gscale);
  for (double v : want.virial) vscale = std::max(vscale, std::abs(v));
  for (int c = 0; c < 9; ++c) worst = std::max(worst, std::abs(got.virial[c] - want.virial[c]) / vscale);
  EXPECT_EQ(got.atom_virial.size(), want.atom_virial.size()) << name;
  for (std::size_t j = 0; j < std::min(got.atom_virial.size(), want.atom_virial.size()); ++j)
    worst = std::max(worst, std::abs(got.atom_virial[j] - want.atom_virial[j]) / ascale);
  EXPECT_LE(worst, tolerance) << name;
  return worst;
}

void expect_sums_match(amoeba_test::PolarSystem which, const std::string& name) {
  amoeba_test::Polarizable p;
  if (!amoeba_test::load_polarizable(p, which))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  for (const bool mutual : {true, false}) {
    ElectrostaticSystem e = p.e();
    e.mutual = mutual;
    const InduceTables tables = induce_tables(e, p.g, p.r);
    const InduceArgs args = induce_args(tables, e, p.g);
    const InducedDipoles u = induce(e, p.g, p.r);
    const std::vector<Moments> M = lab_moments(e, p.g, p.r);
    const PolarPairSums sums = polar_pair_sums(args, M, u, e.mutual, e.electric / 2);
    const ElectrostaticResult want = polarization_energy(e, p.g, p.r, u, true);
    const ElectrostaticResult got = polarization_energy(e, p.g, p.r, u, true, &sums);
    const std::string what = name + (mutual ? ", mutual" : ", direct");
    std::cout << what << ": worst relative difference " << expect_results_agree(got, want, what, 1e-12) << "\n";
  }
}

TEST(AmoebaPolarForms, AtomSumsMatchTheCpuOnLiquidWaterWithPme) {
  expect_sums_match(amoeba_test::PolarSystem::WaterPme, "liquid water, PME");
}
TEST(AmoebaPolarForms, AtomSumsMatchTheCpuOnLiquidWaterWithCutoff) {
  expect_sums_match(amoeba_test::PolarSystem::WaterCutoff, "liquid water, cutoff");
}
TEST(AmoebaPolarForms, AtomSumsMatchTheCpuOnVasopressin) {
  expect_sums_match(amoeba_test::PolarSystem::Vasopressin, "vasopressin");
}

}  // namespace
}  // namespace quasar::amoeba
