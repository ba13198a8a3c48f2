#pragma once
// The electrostatics of an AMOEBA system as Tinker assigns it: each atom's multipole record (the
// first record of its type whose axis types match its neighbours: through bonded atoms first, then
// 1-3 atoms, then a z-axis alone, then none; records of the key before those of the parameter file),
// its local frame, its polarizability and Thole damping, the polarization groups (bonded atoms whose
// types the `polarize` record lists), and the scale factors of each pair that is near in bonds
// (multipoles, m; the polarization energy, p, intra-group where both share a group) or in groups
// (direct field, d; mutual field, u). Moments are stored in Å: dipoles times bohr, quadrupoles times
// bohr^2 and divided by 3.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "quasar/potential/amoeba/multipole_pair.hpp"
#include "quasar/potential/amoeba/parameters.hpp"

namespace quasar::amoeba {

enum class Frame { None, ZOnly, ZThenX, Bisector, ZBisect, ThreeFold };
const char* frame_name(Frame f);

struct MultipoleSite {
  Frame frame = Frame::None;
  int z = -1, x = -1, y = -1;  // axis atoms (input indices); y of a Z-then-X frame checks chirality
  Moments local{};             // in the local frame
};

// Scale factors of one pair; pairs absent from the lists take 1 for each.
struct PairScale {
  int partner;
  double m = 1, p = 1, d = 1, u = 1;
};

struct ElectrostaticSystem {
  std::vector<MultipoleSite> sites;  // by input index
  std::vector<double> alpha, thole;  // Å^3; Thole's a
  std::vector<double> damp;          // alpha^(1/6), 0 where Thole damping is off
  std::vector<int> group;            // polarization group of each atom
  std::vector<int> scale_offset;     // per atom, its partners' range in `scales`
  std::vector<PairScale> scales;
  bool mutual = true;       // polarization MUTUAL (else DIRECT)
  double polar_eps = 1e-6;  // RMS residual of the induced dipoles' equations, Debye
  int polar_iter = 100;
  double usolve_cutoff = 4.5;     // Å, the solver preconditioner's pairs
  double electric = 332.0637133;  // kcal Å / (mol e^2)
  double cutoff = 0;              // the key's mpole-cutoff or cutoff (Å), 0 where it gives none
  bool ewald = false;             // the key asks for Ewald sums
  double ewald_cutoff = 7.0;      // Å, the real-space part's (ewald-cutoff, else cutoff)
  double ewald_alpha = 0;         // 1/Å; 0: Tinker's from the cutoff
  std::array<int, 3> pme_grid{};  // 0: Tinker's from the cell
  int pme_order = 5;
  // Pair-specific Thole damping (polpair records, by the two atoms' types, lower first).
  std::vector<int> type;
  std::map<std::array<int, 2>, double> pair_thole;

  // Thole's a of a pair: a polpair record's, else the smaller of the two (the larger where that
  // is 0), as Tinker combines them.
  double thole_of(std::size_t i, std::size_t k) const {
    if (!pair_thole.empty()) {
      const auto it = pair_thole.find({std::min(type[i], type[k]), std::max(type[i], type[k])});
      if (it != pair_thole.end()) return it->second;
    }
    const double a = std::min(thole[i], thole[k]);
    return a != 0 ? a : std::max(thole[i], thole[k]);
  }
};

// Throws InputError naming the file and line or the key for what is missing or unsupported: an atom
// without a multipole record, axis atoms that match no record's frame, settings other than those
// Tinker's AMOEBA uses (dielectric other than 1, unknown polarization solvers).
ElectrostaticSystem electrostatic_system(const Parameters& p, const std::vector<int>& types,
                                         const std::vector<std::vector<int>>& neighbours);

}  // namespace quasar::amoeba
