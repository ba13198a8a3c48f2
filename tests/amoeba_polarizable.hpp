#pragma once
// The induced-dipole tests' systems (amoeba_field_forms_test, amoeba_induce_gpu_test): a
// polarization-only key bound on the CPU, with the pair geometry and candidates its evaluation uses.
#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "amoeba_support.hpp"

namespace quasar::amoeba_test {

struct Polarizable {
  ForceField ff;
  Structure s;
  const amoeba::AmoebaTerm* term = nullptr;
  std::vector<Vec3> r;  // input order
  amoeba::PairGeometry g;
  amoeba::PairCandidates candidates;
  const amoeba::ElectrostaticSystem& e() const { return term->electrostatics(); }
};

// The 648-water box of Tinker's liquid-water example (18.643 Å, water03) with `settings` (Ewald sums
// or a cutoff), or vasopressin (AMOEBA-bio-2018) in the gas phase; false where the reference data
// are missing (the caller reports them).
enum class PolarSystem { WaterPme, WaterCutoff, Vasopressin };
inline bool load_polarizable(Polarizable& p, PolarSystem which) {
  const bool water = which != PolarSystem::Vasopressin;
  const std::string prm = water ? reference("params/water03.prm")
                                : reference("tinker-test-file/commit_6bd0b6fd/amoebabio18.prm");
  const std::string xyz = water ? reference("liquid-water/liquid.amoeba")
                                : reference("tinker-test-file/vasopressin/vasopressin.xyz");
  if (prm.empty() || xyz.empty()) return false;
  const char* name = which == PolarSystem::WaterPme ? "water-pme" : water ? "water-cutoff" : "vasopressin";
  const std::string key = (test::scratch_dir(std::string("amoeba-polarizable-") + name) / "polar.key").string();
  std::ofstream(key) << "parameters " << prm << "\n"
                     << (which == PolarSystem::WaterPme ? "a-axis 18.643\newald\newald-cutoff 7.0\n"
                         : water                       ? "a-axis 18.643\ncutoff 7.0\n"
                                                       : "")
                     << "polarizeterm only\n";
  p.ff = amoeba::load_tinker_force_field(key);
  p.s = water ? io::read_frames(xyz).front() : io::read_tinker_xyz(xyz);
  p.term = bound_term(p.ff, p.s);
  if (!p.term || p.term->name() != "polarize") throw Error("the key's force field is not polarization alone");
  p.r = p.s.positions;
  const bool structure_cell = p.s.box.periodic[0] || p.s.box.periodic[1] || p.s.box.periodic[2];
  const auto& cell = p.term->parameters().cell;
  const Box box = structure_cell || !cell ? p.s.box : *cell;
  p.g = amoeba::electrostatic_geometry(p.term->parameters(), p.e(), box, structure_cell || cell.has_value(),
                                       "polarization");
  if (p.g.periodic) {
    p.candidates = amoeba::pair_candidates(p.r, p.g.box, std::max(p.g.cutoff, p.e().usolve_cutoff));
    p.g.candidates = &p.candidates;
  }
  return true;
}

}  // namespace quasar::amoeba_test
