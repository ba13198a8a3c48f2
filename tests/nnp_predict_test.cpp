// Behler-Parrinello potentials against n2p2's own predictions: every predict/ example of
// ../shared/reference/n2p2 (expected.txt: n2p2's energy and force on every atom for input.data, in
// the units of that file), on every backend.
#include <cmath>
#include <fstream>
#include <sstream>

#include "quasar/core/units.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/nnp/nnp_potential.hpp"
#include "support.hpp"

namespace quasar {
namespace {

struct Expected {
  double energy = 0;
  std::vector<Vec3> forces;
};

Expected read_expected(const std::string& path) {
  std::ifstream in(path);
  Expected e;
  std::string line, key;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    if (!(s >> key) || key[0] == '#') continue;
    if (key == "energy") s >> e.energy;
    if (key == "force") {
      Vec3 f{};
      s >> f.x >> f.y >> f.z;
      e.forces.push_back(f);
    }
  }
  return e;
}

class NnpPredict : public testing::TestWithParam<Backend> {
 protected:
  // Energy and forces of the example in `folder`, its model and structure read in `units`
  // (their own numbers: the results are compared in the files' units).
  void check(const std::string& folder, units::FileUnits u, double energy_tol, double force_tol) {
    const std::string dir = test::shared_path("reference/n2p2/predict/" + folder);
    if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
    nnp::NnpPotential pot = nnp::NnpPotential::from_files(dir, u);
    const Structure s = io::read_n2p2_data(dir + "/input.data", u).at(0);
    const Expected want = read_expected(dir + "/expected.txt");
    ASSERT_EQ(want.forces.size(), s.size());
    const Evaluation got = evaluate(pot, s, GetParam());
    test::MaxError energy(folder + " energy, relative"), force(folder + " forces, relative to the largest");
    energy.add(got.energy / u.energy / want.energy, 1.0);
    double largest = 0;
    for (const Vec3& f : want.forces) largest = std::max(largest, std::sqrt(dot(f, f)));
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3 f = got.forces[i] * (u.length / u.energy);
      force.add(f.x / largest, want.forces[i].x / largest);
      force.add(f.y / largest, want.forces[i].y / largest);
      force.add(f.z / largest, want.forces[i].z / largest);
    }
    EXPECT_TRUE(energy.within(energy_tol));
    EXPECT_TRUE(force.within(force_tol));
  }
};

// Measured on the CPU (H100): energies 0 to 4.4e-16 relative on both; forces, relative to the
// largest force, water 6.7e-14 (6.5e-14), Cu2S 2e-13 (1.7e-13), anisole 7.4e-14, DMABN 2.1e-14.
TEST_P(NnpPredict, Water) { check("H2O_RPBE-D3", {}, 1e-14, 5e-12); }
// The same numbers with the files declared in bohr and hartree: everything converts to Å and eV and back.
TEST_P(NnpPredict, WaterInBohrAndHartree) { check("H2O_RPBE-D3", {units::bohr, units::hartree}, 1e-14, 5e-12); }
TEST_P(NnpPredict, Cu2sInItsNarrowMonoclinicCell) { check("Cu2S_PBE", {}, 1e-14, 1e-11); }
TEST_P(NnpPredict, Anisole) { check("Anisole_SCAN", {}, 1e-14, 5e-12); }
TEST_P(NnpPredict, DmabnWithoutABox) { check("DMABN_SCAN", {}, 1e-14, 2e-12); }

QUASAR_INSTANTIATE_BACKENDS(NnpPredict);

// mixed32 on the GPU (symmetry functions and networks in float, sums in double) against n2p2's own
// numbers for every example: the energy error per atom and the force error relative to the largest
// force, in the files' units.
TEST(NnpPredictGpu, Mixed32DeviationsOnEveryExample) {
  bool gpu = false;
  for (Backend b : test::backends()) gpu |= b == Backend::Cuda;
  if (!gpu) GTEST_SKIP() << "no GPU here";
  struct Case {
    std::string folder;
    units::FileUnits units;
    double energy_tol, force_tol;
  };
  // Measured on the H100 (energy per atom, forces): water 8.9e-10 Ha and 3.8e-6, Cu2S 6.9e-7 eV and
  // 4.5e-5, anisole 7.1e-9 eV and 4.5e-6, DMABN 2.9e-9 eV and 1.6e-6.
  const Case cases[] = {{"H2O_RPBE-D3", {units::bohr, units::hartree}, 1e-8, 4e-5},
                        {"Cu2S_PBE", {}, 7e-6, 4e-4},
                        {"Anisole_SCAN", {}, 7e-8, 4e-5},
                        {"DMABN_SCAN", {}, 3e-8, 2e-5}};
  for (const Case& c : cases) {
    const std::string dir = test::shared_path("reference/n2p2/predict/" + c.folder);
    if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
    nnp::NnpPotential pot = nnp::NnpPotential::from_files(dir, c.units);
    pot.set_precision(Precision::Mixed32);
    const Structure s = io::read_n2p2_data(dir + "/input.data", c.units).at(0);
    const Expected want = read_expected(dir + "/expected.txt");
    const Evaluation got = evaluate(pot, s, Backend::Cuda);
    test::MaxError energy(c.folder + " mixed32 energy per atom (file units)");
    test::MaxError force(c.folder + " mixed32 forces, relative to the largest");
    const double atoms = static_cast<double>(s.size());
    energy.add(got.energy / c.units.energy / atoms, want.energy / atoms);
    double largest = 0;
    for (const Vec3& f : want.forces) largest = std::max(largest, std::sqrt(dot(f, f)));
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3 f = got.forces[i] * (c.units.length / c.units.energy);
      force.add(f.x / largest, want.forces[i].x / largest);
      force.add(f.y / largest, want.forces[i].y / largest);
      force.add(f.z / largest, want.forces[i].z / largest);
    }
    EXPECT_TRUE(energy.within(c.energy_tol));
    EXPECT_TRUE(force.within(c.force_tol));
  }
}

}  // namespace
}  // namespace quasar
