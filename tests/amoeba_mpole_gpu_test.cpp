// AMOEBA's permanent multipoles with their real-space pairs on the GPU (mpole_gpu.hpp) against the
// CPU reference (multipole_term.hpp, checked against Tinker in amoeba_electrostatics_test): the
// multipole term evaluated on both backends (energy, forces, virial, per-atom energies and virials,
// Tinker's pair count) on the 648-water box with particle-mesh Ewald and with a plain cutoff, on
// vasopressin in the gas phase and on the local-frame set in a triclinic cell with PME; and the
// device object alone (multipole_energy with g.mpole_gpu set), twice for the same bits. The two sides
// sum in different orders with different formulas (explicit ones on the GPU, the generic tensors on
// the CPU; amoeba_mpole_forms_test measures those to 1e-13), so they agree to rounding: 3e-13 relative
// to the largest value compared (measured on an H100: 8.2e-15 at worst, the cutoff box's virial). Skipped without a GPU; once a GPU runs them, they fail if the GPU's
// real-space pairs did not run. The tests carry `Gpu` in their names for bench/gpu-check.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "quasar/potential/amoeba/mpole_gpu.hpp"
#include "quasar/potential/evaluate.hpp"
#include "amoeba_multipoles.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

constexpr double kTolerance = 3e-13;

// multipole_energy with the pairs on the device object against the CPU's, and again for the same bits.
void expect_device_object_agrees(const Multipoles& p, const std::string& name) {
  const amoeba::ElectrostaticSystem& e = p.e();
  const double alpha = p.g.ewald_alpha;
  const amoeba::ElectrostaticResult cpu = amoeba::multipole_energy(e, p.g, p.r, true, alpha);
  amoeba::MpoleGpu gpu;
  amoeba::PairGeometry g = p.g;
  g.mpole_gpu = &gpu;
  const amoeba::ElectrostaticResult got = amoeba::multipole_energy(e, g, p.r, true, alpha);
  ASSERT_EQ(gpu.evaluations(), 1) << name << ": the GPU's pairs did not run";
  EXPECT_EQ(got.pairs, cpu.pairs) << name;
  EXPECT_NEAR(got.energy, cpu.energy, kTolerance * std::abs(cpu.energy)) << name;
  std::cout << name << ": real space and self energy " << cpu.energy << " kcal/mol, GPU - CPU "
            << got.energy - cpu.energy << "\n";
  EXPECT_LE(relative_worst(flat(cpu.grad), flat(got.grad), name + " gradient"), kTolerance);
  EXPECT_LE(relative_worst({cpu.virial, cpu.virial + 9}, {got.virial, got.virial + 9}, name + " virial"), kTolerance);
  EXPECT_LE(relative_worst(cpu.atom_energy, got.atom_energy, name + " per-atom energies"), kTolerance);
  EXPECT_LE(relative_worst(cpu.atom_virial, got.atom_virial, name + " per-atom virials"), kTolerance);
  const amoeba::ElectrostaticResult again = amoeba::multipole_energy(e, g, p.r, true, alpha);
  EXPECT_EQ(again.energy, got.energy) << name << ": not deterministic";
  EXPECT_EQ(flat(again.grad), flat(got.grad)) << name << ": not deterministic";
}

// The term on both backends (with PME on the GPU too where Ewald sums are on).
void expect_term_agrees(Multipoles& p, const std::string& name) {
  Potential& term = *p.ff.terms().front().potential;
  const Evaluation c = evaluate(term, p.s, Backend::Cpu, true);
  const long cpu_pairs = p.term->entries();
  const Evaluation g = evaluate(term, p.s, Backend::Cuda, true);
  ASSERT_NE(p.term->mpole_gpu(), nullptr) << name << ": no real-space pairs on the GPU";
  EXPECT_GT(p.term->mpole_gpu()->evaluations(), 0) << name << ": the GPU's real-space pairs did not run";
  EXPECT_EQ(p.term->entries(), cpu_pairs) << name;
  EXPECT_NEAR(g.energy, c.energy, kTolerance * std::abs(c.energy)) << name;
  std::cout << name << " multipole term: energy " << c.energy << " eV, GPU - CPU " << g.energy - c.energy << " eV\n";
  expect_outputs_agree(c, g, name, kTolerance);
}

void run_system(MultipoleSystem which) {
  Multipoles p;
  if (!load_multipoles(p, which)) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string name = multipole_system_name(which);
  expect_device_object_agrees(p, name);
  expect_term_agrees(p, name);
}

TEST(AmoebaMpoleGpu, LiquidWaterWithPmeMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  run_system(MultipoleSystem::WaterPme);
}

TEST(AmoebaMpoleGpu, LiquidWaterWithCutoffMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  run_system(MultipoleSystem::WaterCutoff);
}

TEST(AmoebaMpoleGpu, VasopressinMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  run_system(MultipoleSystem::Vasopressin);
}

TEST(AmoebaMpoleGpu, TriclinicFramesWithPmeMatchTheCpu) {
  QUASAR_REQUIRE_GPU();
  run_system(MultipoleSystem::Triclinic);
}

}  // namespace
}  // namespace quasar
