// Forces and virials against finite differences of the energy; per-atom sums; on every backend.
#include <cmath>

#include "quasar/potential/bonded/bonded_term.hpp"
#include "quasar/potential/evaluate.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

class FiniteDifferences : public testing::TestWithParam<Backend> {
 protected:
  // Forces and virials against central differences, to `force_tol` and `virial_tol` x max(1,
  // |difference|) on the CPU (the error of the differences depends on the potential); on the GPU,
  // whose energies sum in another order, to 1e-6 for every potential (H100, the largest over the three:
  // 1.1e-8 for the forces, 3.7e-8 for the virial).
  void check(Potential& pot, const Structure& s0, double force_tol, double virial_tol) {
    const Backend b = GetParam();
    const std::string on = std::string(" on ") + backend_name(b);
    if (b != Backend::Cpu) force_tol = virial_tol = 1e-6;
    test::MaxError df("force - finite difference, relative" + on), dw("virial - finite difference, relative" + on);
    const Evaluation e = evaluate(pot, s0, b, true);
    // Forces: central differences on a few atoms and every direction.
    const double h = 1e-5;
    for (std::size_t i : {std::size_t{0}, s0.size() / 3, s0.size() - 1})
      for (int k = 0; k < 3; ++k) {
        Structure p = s0, m = s0;
        p.positions[i][k] += h;
        m.positions[i][k] -= h;
        const double fd = -(evaluate(pot, p, b).energy - evaluate(pot, m, b).energy) / (2 * h);
        df.add(e.forces[i][k] / std::max(1.0, std::abs(fd)), fd / std::max(1.0, std::abs(fd)));
      }
    EXPECT_TRUE(df.within(force_tol));
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
        dw.add(e.virial(a, c) / std::max(1.0, std::abs(fd)), fd / std::max(1.0, std::abs(fd)));
      }
    EXPECT_TRUE(dw.within(virial_tol));
    // Per-atom energies and virials add up to the totals.
    double esum = 0;
    Mat3 wsum{};
    for (std::size_t i = 0; i < s0.size(); ++i) {
      esum += e.atom_energy[i];
      wsum = wsum + e.atom_virial[i];
    }
    // Energies: measured 6e-15 relative on the CPU, 3.3e-16 on the H100 (its totals are reductions of
    // the per-atom terms). Virials: 1.4e-13 eV on the CPU, 5.7e-14 on the H100.
    const bool cpu = b == Backend::Cpu;
    test::MaxError de("sum of atomic energies, relative" + on), dws("sum of atomic virials (eV)" + on);
    de.add(esum / std::abs(e.energy), e.energy / std::abs(e.energy));
    for (int c = 0; c < 9; ++c) dws.add(wsum(c / 3, c % 3), e.virial(c / 3, c % 3));
    EXPECT_TRUE(de.within(cpu ? 1e-13 : 1e-14));
    EXPECT_TRUE(dws.within(5e-12));
  }
};

TEST_P(FiniteDifferences, LennardJones) {
  auto lj = test::argon_lj();
  // Measured 1.8e-10 (forces) and 3.8e-9 (virial) relative.
  check(*lj, test::distorted_fcc({3, 3, 3}, 5.26, 0.1, 0.1, 21, {"Ar"}), 1e-8, 1e-7);
}

TEST_P(FiniteDifferences, EamAlloy) {
  const std::string f = test::lammps_potential("CuNi.eam.alloy");
  if (f.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's CuNi.eam.alloy is not installed");
  Eam eam = Eam::from_setfl(f);
  // Measured 7.8e-8 (forces) and 3.9e-8 (virial) relative.
  check(eam, test::distorted_fcc({3, 3, 3}, 3.58, -0.1, 0.08, 22, {"Cu", "Ni"}), 1e-6, 1e-6);
}

TEST_P(FiniteDifferences, EamInACellNarrowerThanTwiceTheCutoff) {
  auto eam = test::copper_eam();
  if (!eam) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  // Measured 5.9e-9 (forces and virial) relative.
  check(*eam, test::distorted_fcc({2, 2, 2}, 3.615, 0.15, 0.08, 23), 1e-7, 1e-7);
}

// The bonded terms and Lennard-Jones with special weights on a small polymer melt (10 chains of 8
// beads, none closer than 1 Å; the differences move atoms 0, 26 and 79: a chain's end, an inner
// bead, a chain's end).
TEST_P(FiniteDifferences, HarmonicBonds) {
  auto bond = make_bonded_potential("bond/harmonic");
  // Measured 5.8e-9 (forces) and 2.3e-9 (virial) relative: the differences' own error (K = 100 eV/Å^2).
  check(*bond, test::polymer_melt(10, 8, 0.5, 41, 1.0), 1e-7, 1e-7);
}

TEST_P(FiniteDifferences, HarmonicAngles) {
  auto angle = make_bonded_potential("angle/harmonic");
  // Measured 3.8e-10 (forces) and 1e-9 (virial) relative.
  check(*angle, test::polymer_melt(10, 8, 0.5, 42, 1.0), 1e-8, 1e-7);
}

TEST_P(FiniteDifferences, LennardJonesWithSpecialWeights) {
  LennardJones lj({{"A", {1.0, 1.0}}, {"B", {0.8, 1.1}}}, 2.5, true, false);
  lj.set_special({0.0, 0.5, 0.8});
  // Measured 3.4e-9 (forces) and 1.7e-8 (virial) relative.
  check(lj, test::polymer_melt(10, 8, 0.5, 43, 1.0), 1e-7, 1e-6);
}

QUASAR_INSTANTIATE_BACKENDS(FiniteDifferences);

// The same structure on the CPU and on the GPU: energies, forces and virials agree.
TEST(BackendAgreement, CpuAndGpuGiveTheSameResults) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU here: the CPU-GPU comparison runs on the GPU machine";
  auto eam = test::copper_eam();
  if (!eam) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Structure s = test::distorted_fcc({6, 6, 6}, 3.615, 0.1, 0.1, 24);
  auto lj = test::argon_lj(6.0);
  for (Potential* p : {static_cast<Potential*>(eam.get()), static_cast<Potential*>(lj.get())}) {
    Structure si = s;
    if (p == lj.get()) si.type_names = {"Ar"};
    const Evaluation c = evaluate(*p, si, Backend::Cpu, true), g = evaluate(*p, si, Backend::Cuda, true);
    // H100, the largest of EAM and LJ: energy 1.2e-14 relative, forces 1.7e-13 eV/Å, virial 4.4e-14
    // relative to |E|, atomic energies 2.1e-14 eV.
    const std::string name = p->name() + ", GPU - CPU, ";
    test::MaxError de(name + "energy relative"), df(name + "forces (eV/Å)"), dw(name + "virial relative to |E|"),
        dae(name + "atomic energies (eV)");
    de.add(g.energy / std::abs(c.energy), c.energy / std::abs(c.energy));
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) df.add(g.forces[i][k], c.forces[i][k]);
    const double scale = std::abs(c.energy);
    for (int k = 0; k < 9; ++k) dw.add(g.virial(k / 3, k % 3) / scale, c.virial(k / 3, k % 3) / scale);
    for (std::size_t i = 0; i < s.size(); ++i) dae.add(g.atom_energy[i], c.atom_energy[i]);
    EXPECT_TRUE(de.within(1e-12));
    EXPECT_TRUE(df.within(1e-11));
    EXPECT_TRUE(dw.within(1e-12));
    EXPECT_TRUE(dae.within(1e-12));
  }
}

}  // namespace
}  // namespace quasar
