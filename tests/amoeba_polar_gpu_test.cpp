// The polarization gradient's pairs on the GPU (polar_gpu.hpp) against the CPU's loop
// (polarization_term.cpp, checked against Tinker in amoeba_electrostatics_test), for the dipoles of
// one GPU solve: the term's energy, gradient, virial and per-atom energy and virial on the 648-water
// box with PME and with a cutoff, and vasopressin in the gas phase, MUTUAL and DIRECT; the GPU's
// per-atom sums against the same formulas on the host (polar_pair_sums), and the same bits on a
// second run. The kernels fuse multiply-adds and the sums run in another order: agreement to 1e-12
// relative. Skipped without a GPU; polar_pair_sums_gpu throws where the GPU path cannot run. The
// tests carry `Gpu` in their names for bench/gpu-check.sh.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <gtest/gtest.h>

#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/polar_gpu.hpp"
#include "amoeba_polarizable.hpp"
#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar::amoeba {
namespace {

double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

double worst_relative(const std::vector<double>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  const double scale = std::max(largest(want), 1e-300);
  double w = 0;
  for (std::size_t j = 0; j < std::min(got.size(), want.size()); ++j) w = std::max(w, std::abs(got[j] - want[j]));
  return w / scale;
}

void expect_gpu_matches_cpu(amoeba_test::PolarSystem which, const std::string& name) {
  amoeba_test::Polarizable p;
  if (!amoeba_test::load_polarizable(p, which))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  for (const bool mutual : {true, false}) {
    ElectrostaticSystem e = p.e();
    e.mutual = mutual;
    const std::string what = name + (mutual ? ", mutual" : ", direct");
    const std::vector<Moments> M = lab_moments(e, p.g, p.r);
    PmeGpu pme;
    const ReciprocalFieldHook hook = p.g.ewald_alpha > 0 ? device_reciprocal_hook(pme, p.g, p.r) : nullptr;
    InduceGpu gpu(e, p.g, p.r);
    const InducedDipoles u = gpu.solve(M, hook);
    const double f = e.electric / 2;
    const PolarPairSums sums = polar_pair_sums_gpu(gpu, e.mutual, f);
    // The per-atom sums against the same formulas on the host, and the same bits again.
    const InduceTables tables = induce_tables(e, p.g, p.r);
    const PolarPairSums host = polar_pair_sums(induce_args(tables, e, p.g), M, u, e.mutual, f);
    EXPECT_EQ(sums.pairs, host.pairs) << what;
    const double sg = worst_relative(sums.grad, host.grad), sm = worst_relative(sums.dM, host.dM),
                 sv = worst_relative(sums.virial, host.virial);
    EXPECT_LE(std::max({sg, sm, sv}), 1e-12) << what << ": GPU sums against the host's";
    const PolarPairSums again = polar_pair_sums_gpu(gpu, e.mutual, f);
    EXPECT_EQ(again.grad, sums.grad) << what;
    EXPECT_EQ(again.dM, sums.dM) << what;
    // The term with the GPU's pairs against the CPU's loop, for the same dipoles.
    const ElectrostaticResult want = polarization_energy(e, p.g, p.r, u, true);
    const ElectrostaticResult got = polarization_energy(e, p.g, p.r, u, true, &sums);
    EXPECT_EQ(got.pairs, want.pairs) << what;
    EXPECT_NEAR(got.energy, want.energy, 1e-12 * std::abs(want.energy)) << what;
    const double dg = worst_relative(amoeba_test::flat(got.grad), amoeba_test::flat(want.grad));
    const std::vector<double> gv(got.virial, got.virial + 9), wv(want.virial, want.virial + 9);
    const double dv = worst_relative(gv, wv), de = worst_relative(got.atom_energy, want.atom_energy),
                 da = worst_relative(got.atom_virial, want.atom_virial);
    EXPECT_LE(dg, 1e-12) << what << ": gradient";
    EXPECT_LE(dv, 1e-12) << what << ": virial";
    EXPECT_LE(de, 1e-12) << what << ": per-atom energy";
    EXPECT_LE(da, 1e-12) << what << ": per-atom virial";
    std::cout << what << ": sums " << sg << ", " << sm << ", " << sv << "; term: gradient " << dg << ", virial " << dv
              << ", per-atom virial " << da << " relative\n";
  }
}

TEST(AmoebaPolarGpu, LiquidWaterWithPmeMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  expect_gpu_matches_cpu(amoeba_test::PolarSystem::WaterPme, "liquid water, PME");
}
TEST(AmoebaPolarGpu, LiquidWaterWithCutoffMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  expect_gpu_matches_cpu(amoeba_test::PolarSystem::WaterCutoff, "liquid water, cutoff");
}
TEST(AmoebaPolarGpu, VasopressinMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  expect_gpu_matches_cpu(amoeba_test::PolarSystem::Vasopressin, "vasopressin");
}

}  // namespace
}  // namespace quasar::amoeba
