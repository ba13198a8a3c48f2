#pragma once
// Small systems shared by the tests.
#include <random>

#include "quasar/io/lattice.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "support.hpp"

namespace quasar::test {

// fcc crystal in a sheared cell with random displacements.
inline Structure distorted_fcc(std::array<int, 3> rep, double a, double tilt, double jitter, unsigned seed,
                               std::vector<std::string> names = {"Cu"}) {
  Structure s = io::make_lattice("fcc", names[0], a, rep);
  for (std::size_t t = 1; t < names.size(); ++t) s.type_index(names[t]);
  Mat3 h = s.box.h;
  h.r[1].x = tilt * h.r[0].x;
  h.r[2].x = -0.5 * tilt * h.r[0].x;
  h.r[2].y = 0.7 * tilt * h.r[1].y;
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, jitter);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(names.size()) - 1);
  const Box old = s.box;
  s.box.set_matrix(h);
  for (std::size_t i = 0; i < s.size(); ++i) {
    s.positions[i] = s.box.from_frac(old.to_frac(s.positions[i])) + Vec3{g(rng), g(rng), g(rng)};
    s.types[i] = pick(rng);
  }
  for (auto& m : s.type_masses) m = m > 0 ? m : 50.0;
  return s;
}

inline std::unique_ptr<LennardJones> argon_lj(double cutoff = 8.5) {
  return std::make_unique<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.0104, 3.405}}}, cutoff, true, false);
}

// Cu_u3.eam from lammps-data, or null (the caller skips).
inline std::unique_ptr<Eam> copper_eam() {
  const std::string f = lammps_potential("Cu_u3.eam");
  if (f.empty()) return nullptr;
  return std::make_unique<Eam>(Eam::from_funcfl({{"*", f}}));
}

}  // namespace quasar::test
