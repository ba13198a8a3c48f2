#pragma once
// The electrostatic tests' systems (amoeba_mpole_*, and through amoeba_polarizable.hpp the induced-dipole
// and polarization tests): a multipole-only or polarization-only key bound on the CPU, with the pair
// geometry and candidates its evaluation uses.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "amoeba_support.hpp"

namespace quasar::amoeba_test {

struct Multipoles {
  ForceField ff;
  Structure s;
  const amoeba::AmoebaTerm* term = nullptr;
  std::vector<Vec3> r;  // input order
  amoeba::PairGeometry g;
  amoeba::PairCandidates candidates;
  const amoeba::ElectrostaticSystem& e() const { return term->electrostatics(); }
};

// Tinker's 648-water box (18.643 Å, water03) with Ewald sums (cutoff 7 Å) or a plain 7 Å cutoff,
// vasopressin (AMOEBA-bio-2018) in the gas phase, or the local-frame set (every frame type, amoeba09)
// in the triclinic cell of Tinker's localframe2_triclinic.key with Ewald sums; false where the
// reference data are missing (the caller reports them).
enum class MultipoleSystem { WaterPme, WaterCutoff, Vasopressin, Triclinic };
inline const char* multipole_system_name(MultipoleSystem which) {
  switch (which) {
    case MultipoleSystem::WaterPme: return "648 waters, PME";
    case MultipoleSystem::WaterCutoff: return "648 waters, cutoff";
    case MultipoleSystem::Vasopressin: return "vasopressin";
    default: return "triclinic local frames, PME";
  }
}
inline bool load_electrostatics(Multipoles& p, MultipoleSystem which, bool polarization) {
  std::string prm, xyz, settings;
  switch (which) {
    case MultipoleSystem::WaterPme:
    case MultipoleSystem::WaterCutoff:
      prm = reference("params/water03.prm");
      xyz = reference("liquid-water/liquid.amoeba");
      settings = which == MultipoleSystem::WaterPme ? "a-axis 18.643\newald\newald-cutoff 7.0\n" : "a-axis 18.643\ncutoff 7.0\n";
      break;
    case MultipoleSystem::Vasopressin:
      prm = reference("tinker-test-file/commit_6bd0b6fd/amoebabio18.prm");
      xyz = reference("tinker-test-file/vasopressin/vasopressin.xyz");
      break;
    case MultipoleSystem::Triclinic: {
      prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
      const std::string dir = reference("tinker-test-file/localframe");
      xyz = dir.empty() ? "" : dir + "/localframe2.xyz";
      settings = "ewald\newald-cutoff 7.0\na-axis 28.0\nb-axis 22.0\nc-axis 18.0\nalpha 105.0\nbeta 110.0\ngamma 80.0\n";
      break;
    }
  }
  if (prm.empty() || xyz.empty()) return false;
  const std::string term = polarization ? "polarize" : "mpole";
  const std::string key =
      (test::scratch_dir("amoeba-" + term + "-" + std::to_string(static_cast<int>(which))) / (term + ".key")).string();
  std::ofstream(key) << "parameters " << prm << "\n" << settings << (polarization ? "polarizeterm" : "multipoleterm") << " only\n";
  p.ff = amoeba::load_tinker_force_field(key);
  const bool frames = which == MultipoleSystem::WaterPme || which == MultipoleSystem::WaterCutoff;
  p.s = frames ? io::read_frames(xyz).front() : io::read_tinker_xyz(xyz);
  p.term = bound_term(p.ff, p.s);
  if (!p.term || p.term->name() != term) throw Error("the key's force field is not " + term + " alone");
  p.r = p.s.positions;
  const bool structure_cell = p.s.box.periodic[0] || p.s.box.periodic[1] || p.s.box.periodic[2];
  const auto& cell = p.term->parameters().cell;
  const Box box = structure_cell || !cell ? p.s.box : *cell;
  p.g = amoeba::electrostatic_geometry(p.term->parameters(), p.e(), box, structure_cell || cell.has_value(),
                                       polarization ? "polarization" : "multipoles");
  if (p.g.periodic) {
    // The solver's preconditioner reaches usolve-cutoff.
    p.candidates = amoeba::pair_candidates(p.r, p.g.box, polarization ? std::max(p.g.cutoff, p.e().usolve_cutoff) : p.g.cutoff);
    p.g.candidates = &p.candidates;
  }
  return true;
}

inline bool load_multipoles(Multipoles& p, MultipoleSystem which) { return load_electrostatics(p, which, false); }

}  // namespace quasar::amoeba_test
