// AMOEBA's electrostatics in the GPU's mixed32 mode (AmoebaTerm::set_precision; float pairs into 64-bit
// fixed-point sums, mixed_arith.hpp) against the CPU in double (checked against Tinker in
// amoeba_electrostatics_test): the multipole and polarization terms on the 648-water box with PME,
// the local-frame set in Tinker's triclinic cell with PME, and vasopressin in the gas phase: energy,
// forces, virial, per-atom energies and virials, Tinker's pair counts, and for polarization the
// induced dipoles and the solver's step count (equal, or one apart); a second mixed32 evaluation gives
// the same bits, and each GPU path must have run.
//
// The bounds are derived from the CPU's measurements of the same float forms and sums
// (amoeba_mixed_elec_forms_test, which prints them: energies at worst 5.7e-7 relative, gradients 8.0e-7,
// virials 6.9e-7 of the largest, dipoles 6.1e-7 Debye), about 100 times those, for the GPU has not
// been measured here: nvcc contracts the float products into fused multiply-adds, which round
// otherwise than the host's float, within the same order. The lead tightens them from a GPU run.
// Skipped without a GPU; `Gpu` in the names for bench/gpu-check.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "quasar/potential/evaluate.hpp"
#include "amoeba_polarizable.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

constexpr double kEnergyBound = 5e-5;  // relative
constexpr double kOutputBound = 1e-4;  // of the largest value: forces, virial, per-atom values
constexpr double kDipoleBound = 1e-5;  // Debye: what the solver leaves (polar-eps 1e-6) and float's rounding
constexpr double kDebye = 4.80321;

void expect_mixed_term_agrees(MultipoleSystem which, bool polarization) {
  Multipoles p;
  if (!load_electrostatics(p, which, polarization))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string name = std::string(multipole_system_name(which)) + (polarization ? " polarization" : " multipoles");
  Potential& term = *p.ff.terms().front().potential;
  term.set_precision(Precision::Double);
  const Evaluation c = evaluate(term, p.s, Backend::Cpu, true);
  const long cpu_pairs = p.term->entries();
  const amoeba::InducedDipoles cpu_dipoles = p.term->induced();
  term.set_precision(Precision::Mixed32);
  ASSERT_EQ(p.term->precision(), Precision::Mixed32) << name;
  const Evaluation g = evaluate(term, p.s, Backend::Cuda, true);
  const long gpu_pairs = p.term->entries();
  if (!polarization) {
    ASSERT_NE(p.term->mpole_gpu(), nullptr) << name << ": no real-space pairs on the GPU";
    EXPECT_GT(p.term->mpole_gpu()->evaluations(), 0) << name << ": the GPU's real-space pairs did not run";
  }
  const amoeba::InducedDipoles gpu_dipoles = p.term->induced();
  EXPECT_EQ(gpu_pairs, cpu_pairs) << name;
  EXPECT_NEAR(g.energy, c.energy, kEnergyBound * std::abs(c.energy)) << name;
  std::cout << name << ": mixed32 GPU less double CPU: energy " << g.energy - c.energy << " eV of " << c.energy
            << " (relative " << std::abs(g.energy - c.energy) / std::abs(c.energy) << ")\n";
  expect_outputs_agree(c, g, name + " mixed32", kOutputBound);
  if (polarization) {
    EXPECT_LE(std::abs(gpu_dipoles.iterations - cpu_dipoles.iterations), 1) << name;
    double du = 0;
    for (std::size_t i = 0; i < p.r.size(); ++i)
      for (int a = 0; a < 3; ++a)
        du = std::max({du, std::abs(gpu_dipoles.ud[i][a] - cpu_dipoles.ud[i][a]),
                       std::abs(gpu_dipoles.up[i][a] - cpu_dipoles.up[i][a])});
    EXPECT_LT(kDebye * du, kDipoleBound) << name;
    std::cout << name << ": dipoles " << kDebye * du << " Debye apart, steps " << gpu_dipoles.iterations
              << " (CPU " << cpu_dipoles.iterations << ")\n";
  }
  // Fixed-point sums and one thread per atom: the same bits on a second evaluation.
  const Evaluation again = evaluate(term, p.s, Backend::Cuda, true);
  EXPECT_EQ(again.energy, g.energy) << name << ": not deterministic";
  EXPECT_EQ(flat(again.forces), flat(g.forces)) << name << ": not deterministic";
  EXPECT_EQ(again.atom_energy, g.atom_energy) << name << ": not deterministic";
  if (polarization) {
    EXPECT_EQ(flat(p.term->induced().ud), flat(gpu_dipoles.ud)) << name << ": not deterministic";
  }
}

TEST(AmoebaMixedElecGpu, LiquidWaterWithPmeMultipoles) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::WaterPme, false);
}
TEST(AmoebaMixedElecGpu, LiquidWaterWithPmePolarization) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::WaterPme, true);
}
TEST(AmoebaMixedElecGpu, TriclinicFramesWithPmeMultipoles) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::Triclinic, false);
}
TEST(AmoebaMixedElecGpu, TriclinicFramesWithPmePolarization) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::Triclinic, true);
}
TEST(AmoebaMixedElecGpu, VasopressinMultipoles) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::Vasopressin, false);
}
TEST(AmoebaMixedElecGpu, VasopressinPolarization) {
  QUASAR_REQUIRE_GPU();
  expect_mixed_term_agrees(MultipoleSystem::Vasopressin, true);
}

}  // namespace
}  // namespace quasar
