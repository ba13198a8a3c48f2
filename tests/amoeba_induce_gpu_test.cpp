// AMOEBA's induced dipoles on the GPU (induce_gpu.hpp) against the CPU reference (induced_dipoles.hpp,
// checked against Tinker in amoeba_electrostatics_test): the direct fields field_d and field_p, one
// mutual-field product T u, the converged dipoles, the solver's step count and its last residual,
// on the 648-water box with particle-mesh Ewald (the reciprocal part through the CPU's PME, and through
// the GPU's) and on vasopressin in the gas phase; and the polarization term evaluated on both backends.
// The two sides sum in different orders (and the GPU fuses multiply-adds), so fields agree to 1e-13
// of the largest and the dipoles to 1e-13 Debye (measured on an H100: 1.9e-15 and 2.1e-15). Skipped without a GPU; the tests carry `Gpu`
// in their names for bench/gpu-check.sh.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include <gtest/gtest.h>

#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/evaluate.hpp"
#include "amoeba_polarizable.hpp"
#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

constexpr double kDebye = 4.80321;

double largest(const std::vector<Vec3>& v) {
  double m = 0;
  for (const Vec3& x : v) m = std::max({m, std::abs(x.x), std::abs(x.y), std::abs(x.z)});
  return m;
}

double worst_difference(const std::vector<Vec3>& got, const std::vector<Vec3>& want) {
  EXPECT_EQ(got.size(), want.size());
  double w = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    for (int a = 0; a < 3; ++a) w = std::max(w, std::abs(got[i][a] - want[i][a]));
  return w;
}

// Fields to 1e-13 of the largest; returns the worst relative difference.
double expect_fields_agree(const std::vector<Vec3>& got, const std::vector<Vec3>& want, const std::string& what) {
  const double scale = std::max(largest(want), 1e-12), worst = worst_difference(got, want) / scale;
  EXPECT_LE(worst, 1e-13) << what;
  return worst;
}

// With Ewald sums the reciprocal and self fields come through the CPU's PME (host_reciprocal_hook) or,
// with device_pme, through the GPU's (device_reciprocal_hook).
void expect_gpu_matches_cpu(const Polarizable& p, const std::string& name, bool device_pme = false) {
  const amoeba::ElectrostaticSystem& e = p.e();
  const std::vector<amoeba::Moments> M = amoeba::lab_moments(e, p.g, p.r);
  amoeba::ReciprocalFieldHook hook = nullptr;
  amoeba::PmeGpu pme;
  if (p.g.ewald_alpha > 0)
    hook = device_pme ? amoeba::device_reciprocal_hook(pme, p.g, p.r) : amoeba::host_reciprocal_hook(p.g, p.r);
  amoeba::InduceGpu gpu(e, p.g, p.r);
  // The direct fields.
  std::vector<Vec3> cd, cp, gd, gp;
  amoeba::direct_fields(e, p.g, p.r, M, cd, cp);
  gpu.direct_fields(M, gd, gp, hook);
  const double fd = expect_fields_agree(gd, cd, name + " field_d"), fp = expect_fields_agree(gp, cp, name + " field_p");
  // The solve.
  const amoeba::InducedDipoles c = amoeba::induce(e, p.g, p.r);
  const amoeba::InducedDipoles g = gpu.solve(M, hook);
  EXPECT_EQ(g.iterations, c.iterations) << name;
  EXPECT_GT(c.iterations, 2) << name << ": the solver took too few steps to test it";
  EXPECT_NEAR(g.residual, c.residual, 1e-6 * c.residual) << name;
  const double du = std::max(worst_difference(g.ud, c.ud), worst_difference(g.up, c.up));
  EXPECT_LT(kDebye * du, 1e-13) << name << ": dipoles (Debye)";
  expect_fields_agree(g.field_d, c.field_d, name + " solve's field_d");
  // One mutual-field product, of the converged dipoles.
  const std::vector<Vec3> tc = amoeba::mutual_field(e, p.g, p.r, c.ud);
  const std::vector<Vec3> tg = gpu.mutual_field(c.ud, hook);
  const double tu = expect_fields_agree(tg, tc, name + " T u");
  // The same bits every run.
  const amoeba::InducedDipoles again = gpu.solve(M, hook);
  EXPECT_EQ(worst_difference(again.ud, g.ud), 0.0) << name;
  EXPECT_EQ(worst_difference(again.up, g.up), 0.0) << name;
  std::cout << name << ": worst relative field_d " << fd << ", field_p " << fp << ", T u " << tu << "; "
            << g.iterations << " steps on both, dipoles " << kDebye * du << " Debye apart (polar-eps " << e.polar_eps
            << "), residual " << g.residual << " vs " << c.residual << "\n";
}

// The polarization term on both backends: energy to 1e-13 relative, forces to 1e-13 of the largest
// (measured on an H100: 1.7e-16 and 1.1e-15).
void expect_term_agrees(Polarizable& p, const std::string& name) {
  Potential& term = *p.ff.terms().front().potential;
  const Evaluation c = evaluate(term, p.s, Backend::Cpu);
  const Evaluation g = evaluate(term, p.s, Backend::Cuda);
  EXPECT_NEAR(g.energy, c.energy, 1e-13 * std::abs(c.energy)) << name;
  const double scale = largest(c.forces);
  EXPECT_LE(worst_difference(g.forces, c.forces), 1e-13 * scale) << name;
  std::cout << name << " polarization: GPU - CPU " << g.energy - c.energy << " eV of " << c.energy
            << ", forces " << worst_difference(g.forces, c.forces) / scale << " of the largest\n";
}

// The 648-water box of Tinker's liquid-water example (18.643 Å, Ewald cutoff 7 Å, 24^3 grid).
TEST(AmoebaInduceGpu, LiquidWaterWithPmeMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  Polarizable p;
  if (!load_polarizable(p, PolarSystem::WaterPme))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ASSERT_GT(p.g.ewald_alpha, 0);
  expect_gpu_matches_cpu(p, "liquid water");
  expect_gpu_matches_cpu(p, "liquid water, GPU PME", true);
  expect_term_agrees(p, "liquid water");
}

// The same box without Ewald sums: each pair's nearest image within a 7 Å cutoff.
TEST(AmoebaInduceGpu, LiquidWaterWithCutoffMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  Polarizable p;
  if (!load_polarizable(p, PolarSystem::WaterCutoff))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ASSERT_EQ(p.g.ewald_alpha, 0);
  ASSERT_TRUE(p.g.periodic);
  expect_gpu_matches_cpu(p, "liquid water, cutoff");
  expect_term_agrees(p, "liquid water, cutoff");
}

// Vasopressin (AMOEBA-bio-2018) in the gas phase: every pair, polarization groups and their scales.
TEST(AmoebaInduceGpu, VasopressinMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  Polarizable p;
  if (!load_polarizable(p, PolarSystem::Vasopressin))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ASSERT_FALSE(p.g.periodic);
  expect_gpu_matches_cpu(p, "vasopressin");
  expect_term_agrees(p, "vasopressin");
}

}  // namespace
}  // namespace quasar
