#pragma once
// Small systems shared by the tests.
#include <cmath>
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

// A bead-spring polymer melt in a periodic cube: `chains` linear chains of `beads` beads (Å, amu;
// sigma = 1 Å) at number density `density` per Å^3, grown as random walks with bonds of 0.97 Å and
// bond angles above 90 degrees, no bead closer than `closest` Å to any other but its bonded
// neighbours. Two atom types (A inside the chains, B at their ends), two bond types (1 inside, 2 at
// the ends), two angle types (1 inside, 2 at the ends), with harmonic coefficients and molecule ids.
inline Structure polymer_melt(int chains, int beads, double density, unsigned seed, double closest = 0.8) {
  Structure s;
  const double length = std::cbrt(chains * beads / density);
  s.box = Box::orthorhombic(length, length, length);
  s.type_names = {"A", "B"};
  s.type_masses = {1.0, 1.5};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto clashes = [&](Vec3 r, std::size_t skip) {  // any bead but the last `skip` ones closer than `closest`
    for (std::size_t j = 0; j + skip < s.positions.size(); ++j)
      if (norm2(s.box.minimum_image(r - s.positions[j])) < closest * closest) return true;
    return false;
  };
  const double bond = 0.97;
  for (int c = 0; c < chains; ++c) {
    const std::size_t first = s.positions.size();
    for (int attempt = 0;; ++attempt) {
      if (attempt == 1000) throw Error("polymer_melt: no room for chain " + std::to_string(c));
      s.positions.resize(first);
      Vec3 r{uniform(rng) * length, uniform(rng) * length, uniform(rng) * length};
      if (clashes(r, 0)) continue;
      s.positions.push_back(r);
      Vec3 previous{};
      bool grown = true;
      for (int b = 1; b < beads && grown; ++b) {
        grown = false;
        for (int tries = 0; tries < 500 && !grown; ++tries) {
          Vec3 u{normal(rng), normal(rng), normal(rng)};
          u = (1.0 / std::sqrt(norm2(u))) * u;
          if (b > 1 && dot(u, previous) < 0.0) continue;  // bond angle above 90 degrees
          const Vec3 next = s.positions.back() + bond * u;
          if (clashes(next, 1)) continue;
          s.positions.push_back(next);
          previous = u;
          grown = true;
        }
      }
      if (grown) break;
    }
    for (int b = 0; b < beads; ++b) {
      s.types.push_back(b == 0 || b == beads - 1 ? 1 : 0);
      s.topology.molecules.push_back(c + 1);
      const int i = static_cast<int>(first) + b;
      if (b > 0) s.topology.bonds.add({i - 1, i}, b == 1 || b == beads - 1 ? 1 : 0);
      if (b > 1) s.topology.angles.add({i - 2, i - 1, i}, b == 2 || b == beads - 1 ? 1 : 0);
    }
  }
  for (Vec3& r : s.positions) r = s.box.wrap(r);
  Topology& t = s.topology;
  t.bonds.num_types = t.angles.num_types = 2;
  t.bonds.style = t.angles.style = "harmonic";
  t.bonds.coeffs = {{100.0, 0.97}, {80.0, 1.02}};     // K (eV/Å^2), r0 (Å)
  t.angles.coeffs = {{5.0, 120.0}, {3.0, 109.5}};     // K (eV/rad^2), theta0 (degrees)
  return s;
}

// A cluster of n argon atoms without a cell (a box around it, Box::enclosing): the first n points of
// a cubic grid of `spacing` Å, each displaced by up to `jitter` Å.
inline Structure argon_cluster(int n, unsigned seed, double spacing = 3.8, double jitter = 0.2) {
  Structure s;
  const int t = s.type_index("Ar");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  const int side = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(n))));
  for (int i = 0; i < n; ++i) {
    const Vec3 grid{spacing * (i % side), spacing * ((i / side) % side), spacing * (i / (side * side))};
    s.positions.push_back(grid + Vec3{u(rng), u(rng), u(rng)});
    s.types.push_back(t);
  }
  s.box = Box::enclosing(s.positions);
  return s;
}

// Cu_u3.eam from lammps-data, or null (the caller skips).
inline std::unique_ptr<Eam> copper_eam() {
  const std::string f = lammps_potential("Cu_u3.eam");
  if (f.empty()) return nullptr;
  return std::make_unique<Eam>(Eam::from_funcfl({{"*", f}}));
}

}  // namespace quasar::test
