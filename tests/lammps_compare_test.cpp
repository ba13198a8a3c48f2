// LJ and EAM energies, forces and virials against Debian's LAMMPS on the same structures and
// potential files, relative to the largest value, on every backend.
#include <cmath>

#include "lammps_runner.hpp"
#include "test_systems.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"

namespace quasar {
namespace {

using test::distorted_fcc;

std::string lammps_types(const Structure& s) {
  std::string out;
  for (const auto& n : s.type_names) out += " " + n;
  return out;
}

class LammpsCompare : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (test::lammps_executable().empty())
      return test::missing(test::Dependency::Lammps, "Debian's LAMMPS (lmp) is not installed");
  }
  // Evaluates with Quasar and LAMMPS and compares energy, forces and the virial (from the pressure
  // tensor of a system at rest).
  void compare(Potential& pot, const Structure& s, const std::string& lammps_commands,
               const std::string& boundary = "p p p") {
    const Evaluation q = evaluate(pot, s, GetParam());
    const auto l = test::run_lammps(s, lammps_commands, "step pe pxx pyy pzz pxy pxz pyz vol", "fx fy fz", boundary);
    ASSERT_EQ(l.thermo.size(), 9u);
    ASSERT_EQ(l.dump.size(), s.size());
    // Measured at most, relative: energy 6e-15 on the CPU and 7.1e-15 on the H100; forces 2.2e-14 on
    // both; virial 5.8e-15 on the CPU and 4.9e-15 on the H100; the virial's asymmetry 0 on the CPU and
    // 1.1e-16 on the H100.
    const std::string on = std::string(" relative to LAMMPS on ") + backend_name(GetParam());
    test::MaxError de("energy" + on), df("forces" + on), dw("virial" + on), asym("virial asymmetry" + on);
    de.add(q.energy / std::abs(l.thermo[1]), l.thermo[1] / std::abs(l.thermo[1]));
    EXPECT_TRUE(de.within(5e-13));
    double fmax = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) fmax = std::max(fmax, std::abs(l.dump[i][k]));
    EXPECT_GT(fmax, 1e-3) << "forces should not vanish in a distorted crystal";
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) df.add(q.forces[i][k] / fmax, l.dump[i][k] / fmax);
    EXPECT_TRUE(df.within(1e-12));
    // LAMMPS prints the pressure in bar: W = P V / nktv2p for atoms at rest.
    const double to_virial = l.thermo[8] / units::nktv2p;
    const double lw[6] = {l.thermo[2] * to_virial, l.thermo[3] * to_virial, l.thermo[4] * to_virial,
                          l.thermo[5] * to_virial, l.thermo[6] * to_virial, l.thermo[7] * to_virial};
    const double qw[6] = {q.virial(0, 0), q.virial(1, 1), q.virial(2, 2), q.virial(0, 1), q.virial(0, 2), q.virial(1, 2)};
    double wmax = 0;
    for (double w : lw) wmax = std::max(wmax, std::abs(w));
    for (int c = 0; c < 6; ++c) dw.add(qw[c] / wmax, lw[c] / wmax);
    EXPECT_TRUE(dw.within(5e-13));
    asym.add(q.virial(1, 0) / wmax, q.virial(0, 1) / wmax);  // pair virials are symmetric
    EXPECT_TRUE(asym.within(1e-14));
  }
};

TEST_P(LammpsCompare, LennardJonesTwoTypesGeometricMixing) {
  const Structure s = distorted_fcc({4, 4, 4}, 5.3, 0.15, 0.15, 1, {"Ar", "Kr"});
  LennardJones lj({{"Ar", {0.0104, 3.40}}, {"Kr", {0.0140, 3.65}}}, 9.0, false, false);
  compare(lj, s, "pair_style lj/cut 9.0\npair_coeff 1 1 0.0104 3.40\npair_coeff 2 2 0.0140 3.65\npair_modify mix geometric");
}

TEST_P(LammpsCompare, LennardJonesShiftedArithmeticMixingWithPairOverride) {
  const Structure s3 = distorted_fcc({4, 4, 4}, 5.3, 0.1, 0.15, 8, {"Ar", "Kr", "Xe"});
  LennardJones lj({{"Ar", {0.0104, 3.40}}, {"Kr", {0.0140, 3.65, 9.5}}, {"Xe", {0.020, 3.95}}}, 8.0, true, true,
                  {{"Ar", "Xe", 0.011, 3.5, 8.2}});
  compare(lj, s3,
          "pair_style lj/cut 8.0\npair_coeff 1 1 0.0104 3.40\npair_coeff 2 2 0.0140 3.65 9.5\n"
          "pair_coeff 3 3 0.020 3.95\npair_coeff 1 3 0.011 3.5 8.2\npair_modify mix arithmetic shift yes");
}

TEST_P(LammpsCompare, LennardJonesCellNarrowerThanTheCutoff) {
  const Structure s = distorted_fcc({1, 1, 1}, 5.3, 0.1, 0.2, 3, {"Ar"});
  LennardJones lj({{"Ar", {0.0104, 3.40}}}, 8.5, false, false);
  compare(lj, s, "pair_style lj/cut 8.5\npair_coeff 1 1 0.0104 3.40");
}

TEST_P(LammpsCompare, EamFuncflTriclinic) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Structure s = distorted_fcc({4, 4, 4}, 3.615, 0.12, 0.08, 4);
  Eam eam = Eam::from_funcfl({{"*", file}});
  compare(eam, s, "pair_style eam\npair_coeff 1 1 " + file);
}

TEST_P(LammpsCompare, EamFuncflCellNarrowerThanTwiceTheCutoff) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Structure s = distorted_fcc({2, 2, 2}, 3.615, -0.1, 0.1, 5);
  Eam eam = Eam::from_funcfl({{"*", file}});
  compare(eam, s, "pair_style eam\npair_coeff 1 1 " + file);
}

TEST_P(LammpsCompare, EamSetflAlloy) {
  const std::string file = test::lammps_potential("CuNi.eam.alloy");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's CuNi.eam.alloy is not installed");
  const Structure s = distorted_fcc({4, 4, 4}, 3.58, 0.1, 0.08, 6, {"Cu", "Ni"});
  Eam eam = Eam::from_setfl(file);
  compare(eam, s, "pair_style eam/alloy\npair_coeff * * " + file + lammps_types(s));
}

TEST_P(LammpsCompare, EamSetflSlabWithANonPeriodicDirection) {
  const std::string file = test::lammps_potential("Cu_mishin1.eam.alloy");
  if (file.empty())
    return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_mishin1.eam.alloy is not installed");
  Structure s = distorted_fcc({4, 4, 3}, 3.615, 0.1, 0.08, 7);
  // Open in z: a slab with vacuum, all atoms inside the cell as LAMMPS's fixed boundary wants.
  Mat3 h = s.box.h;
  h.r[2] = 2.0 * h.r[2];
  s.box = Box::from_matrix(h, s.box.origin, {true, true, false});
  for (auto& r : s.positions) r += 0.25 * h.r[2];
  Eam eam = Eam::from_setfl(file);
  compare(eam, s, "pair_style eam/alloy\npair_coeff * * " + file + " Cu", "p p f");
}

QUASAR_INSTANTIATE_BACKENDS(LammpsCompare);

}  // namespace
}  // namespace quasar
