// Forces and virials against finite differences of the energy; per-atom sums; on every backend.
#include <cmath>

#include "quasar/potential/evaluate.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

class FiniteDifferences : public testing::TestWithParam<Backend> {
 protected:
  void check(Potential& pot, const Structure& s0) {
    const Backend b = GetParam();
    const Evaluation e = evaluate(pot, s0, b, true);
    // Forces: central differences on a few atoms and every direction.
    const double h = 1e-5;
    for (std::size_t i : {std::size_t{0}, s0.size() / 3, s0.size() - 1})
      for (int k = 0; k < 3; ++k) {
        Structure p = s0, m = s0;
        p.positions[i][k] += h;
        m.positions[i][k] -= h;
        const double fd = -(evaluate(pot, p, b).energy - evaluate(pot, m, b).energy) / (2 * h);
        EXPECT_NEAR(e.forces[i][k], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "atom " << i << " dir " << k;
      }
    // Virial: W_ab = -dE/d(delta_ab) for r -> r (I + delta), cell likewise.
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) {
        auto strained = [&](double d) {
          Structure s = s0;
          Mat3 def = identity3();
          def(a, c) += d;
          s.box.set_matrix(s0.box.h * def);
          for (auto& r : s.positions) r = s0.box.origin + (r - s0.box.origin) * def;
          return evaluate(pot, s, b).energy;
        };
        const double fd = -(strained(h) - strained(-h)) / (2 * h);
        EXPECT_NEAR(e.virial(a, c), fd, 1e-6 * std::max(1.0, std::abs(fd))) << "virial " << a << c;
      }
    // Per-atom energies and virials add up to the totals.
    double esum = 0;
    Mat3 wsum{};
    for (std::size_t i = 0; i < s0.size(); ++i) {
      esum += e.atom_energy[i];
      wsum = wsum + e.atom_virial[i];
    }
    EXPECT_NEAR(esum, e.energy, 1e-10 * std::abs(e.energy));
    for (int c = 0; c < 9; ++c) EXPECT_NEAR(wsum(c / 3, c % 3), e.virial(c / 3, c % 3), 1e-9);
  }
};

TEST_P(FiniteDifferences, LennardJones) {
  auto lj = test::argon_lj();
  check(*lj, test::distorted_fcc({3, 3, 3}, 5.26, 0.1, 0.1, 21, {"Ar"}));
}

TEST_P(FiniteDifferences, EamAlloy) {
  const std::string f = test::lammps_potential("CuNi.eam.alloy");
  if (f.empty()) GTEST_SKIP() << "lammps-data's CuNi.eam.alloy is not installed";
  Eam eam = Eam::from_setfl(f);
  check(eam, test::distorted_fcc({3, 3, 3}, 3.58, -0.1, 0.08, 22, {"Cu", "Ni"}));
}

TEST_P(FiniteDifferences, EamInACellNarrowerThanTwiceTheCutoff) {
  auto eam = test::copper_eam();
  if (!eam) GTEST_SKIP() << "lammps-data's Cu_u3.eam is not installed";
  check(*eam, test::distorted_fcc({2, 2, 2}, 3.615, 0.15, 0.08, 23));
}

QUASAR_INSTANTIATE_BACKENDS(FiniteDifferences);

// The same structure on the CPU and on the GPU: energies, forces and virials agree.
TEST(BackendAgreement, CpuAndGpuGiveTheSameResults) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU here: the CPU-GPU comparison runs on the GPU machine";
  auto eam = test::copper_eam();
  if (!eam) GTEST_SKIP() << "lammps-data's Cu_u3.eam is not installed";
  const Structure s = test::distorted_fcc({6, 6, 6}, 3.615, 0.1, 0.1, 24);
  auto lj = test::argon_lj(6.0);
  for (Potential* p : {static_cast<Potential*>(eam.get()), static_cast<Potential*>(lj.get())}) {
    Structure si = s;
    if (p == lj.get()) si.type_names = {"Ar"};
    const Evaluation c = evaluate(*p, si, Backend::Cpu, true), g = evaluate(*p, si, Backend::Cuda, true);
    EXPECT_NEAR(g.energy, c.energy, 1e-12 * std::abs(c.energy)) << p->name();
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(g.forces[i][k], c.forces[i][k], 1e-11) << p->name();
    for (int k = 0; k < 9; ++k)
      EXPECT_NEAR(g.virial(k / 3, k % 3), c.virial(k / 3, k % 3), 1e-12 * std::abs(c.energy)) << p->name();
    for (std::size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(g.atom_energy[i], c.atom_energy[i], 1e-11);
  }
}

}  // namespace
}  // namespace quasar
