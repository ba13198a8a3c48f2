// AMOEBA's particle-mesh Ewald multipoles of a system with a net charge: the neutralizing background's
// energy -pi f Q^2 / (2 V alpha^2) that Tinker adds (empole*.f). Checked against the Wigner (Madelung)
// energy of one point charge in a cubic cell, against the sum's independence of alpha (which only holds
// with the background), and the virial (the term goes as 1/V) against strains of the cell.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>

#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

// Ions of amoeba09.prm (point charges: type 7 Na+, type 15 Cl-), multipoles only, with particle-mesh
// Ewald on `grid` points per side and Ewald coefficient `alpha`; the structure gets the cell `box`.
struct Ions {
  ForceField ff;
  Structure s;
};
Ions ions(const std::filesystem::path& scratch, const std::string& prm, const std::vector<int>& types,
          const std::vector<Vec3>& positions, const Box& box, double alpha, int grid) {
  const std::string key = (scratch / "ions.key").string(), xyz = (scratch / "ions.xyz").string();
  std::ofstream(key) << "parameters " << prm << "\nmultipoleterm only\newald\newald-cutoff 8.0\newald-alpha " << alpha
                     << "\npme-grid " << grid << " " << grid << " " << grid << "\n";
  {
    std::ofstream out(xyz);
    out << types.size() << " ions\n";
    for (std::size_t i = 0; i < types.size(); ++i)
      out << i + 1 << " X " << positions[i].x << " " << positions[i].y << " " << positions[i].z << " " << types[i] << "\n";
  }
  Ions r{amoeba::load_tinker_force_field(key), io::read_tinker_xyz(xyz)};
  r.s.box = box;
  return r;
}

double energy_kcal(Ions& sys) { return evaluate(sys.ff, sys.s, Backend::Cpu).energy / kKcal; }

std::string amoeba09() { return reference("tinker-test-file/commit_6fe8e913/amoeba09.prm"); }

// One unit charge in a cubic cell of side L: the Ewald sum with a neutralizing background is the
// Wigner lattice energy f q^2 xi / (2 L), xi = -2.837297479 (the simple cubic lattice's constant),
// whatever alpha; without the background it would be higher by pi f / (2 L^3 alpha^2): 0.26 kcal/mol
// at alpha 0.5 in a 20 Å cell, 0.64 at alpha 0.32.
TEST(AmoebaNetCharge, OneIonHasTheWignerEnergy) {
  const std::string prm = amoeba09();
  if (prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-net-charge-one");
  const double L = 20, f = 332.063713, xi = -2.837297479480620;
  const double want = f * xi / (2 * L);
  for (double alpha : {0.32, 0.45, 0.5446}) {
    Ions sys = ions(scratch, prm, {7}, {{1.3, -0.7, 2.1}}, Box::orthorhombic(L, L, L), alpha, 96);
    const Evaluation e = evaluate(sys.ff, sys.s, Backend::Cpu, true);
    const double got = e.energy / kKcal;
    std::cout << "one Na+ in a 20 Å cube, alpha " << alpha << ": " << got << " against " << want << " ("
              << got - want << ")\n";
    EXPECT_NEAR(got, want, 1e-5);  // 4e-7 at alpha 0.5446 (PME's error grows with alpha)
    // A lone ion feels no force but PME's small self-force of the grid.
    const double force = std::sqrt(dot(e.forces[0], e.forces[0])) / kKcal;
    EXPECT_LT(force, 5e-4);  // 5e-5 at alpha 0.5446 on this 96^3 grid
    expect_atom_sums(e, e.energy, e.virial);
    // The sum goes as 1/L: the trace of the virial (-dE/d strain) is E.
    const double trace = (e.virial(0, 0) + e.virial(1, 1) + e.virial(2, 2)) / kKcal;
    EXPECT_NEAR(trace, got, 3e-5);  // 2.6e-6 at alpha 0.5446
    std::cout << "  PME's self-force " << force << " kcal/mol/Å, virial trace - E " << trace - got << "\n";
  }
  // A chloride carries -1: the energy goes as Q^2.
  Ions cl = ions(scratch, prm, {15}, {{0, 0, 0}}, Box::orthorhombic(L, L, L), 0.45, 96);
  EXPECT_NEAR(energy_kcal(cl), want, 1e-5);
}

// Two Na+ and a Cl- (Q = +1) in an orthorhombic and a triclinic cell: the same energy for three alphas,
// (without the background the sum would change by 0.14 kcal/mol from 0.55 to 0.75), and forces and virial
// against central differences (check_derivatives strains the cell with the atoms).
TEST(AmoebaNetCharge, ChargedCellsAreIndependentOfAlphaAndTheVirialIsTheStrainDerivative) {
  const std::string prm = amoeba09();
  if (prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-net-charge-three");
  Mat3 h{};
  h.r[0] = {17, 0, 0};
  h.r[1] = {2.5, 18, 0};
  h.r[2] = {-1.5, 2, 19};
  const std::vector<int> types = {7, 7, 15};
  const std::vector<Vec3> r = {{1, 2, 3}, {6.5, -1.2, 4.4}, {3.3, 3.1, -2.9}};
  for (const Box& box : {Box::orthorhombic(17, 18, 19), Box::from_matrix(h)}) {
    double first = 0;
    for (double alpha : {0.55, 0.65, 0.75}) {
      Ions sys = ions(scratch, prm, types, r, box, alpha, 96);
      const double e = energy_kcal(sys);
      if (alpha == 0.55) first = e;
      EXPECT_NEAR(e, first, 1e-4) << "alpha " << alpha;  // 1.8e-5 seen at 0.75, PME's error
      std::cout << "Na+ Na+ Cl-, alpha " << alpha << ": " << e << " (" << e - first << ")\n";
    }
    Ions sys = ions(scratch, prm, types, r, box, 0.5446, 40);
    const Evaluation pa = evaluate(sys.ff, sys.s, Backend::Cpu, true);
    expect_atom_sums(pa, pa.energy, pa.virial);
    std::cout << "  worst relative deviation from finite differences " << check_derivatives(sys.ff, sys.s, 1, 1e-7)
              << "\n";
  }
}

}  // namespace
}  // namespace quasar
