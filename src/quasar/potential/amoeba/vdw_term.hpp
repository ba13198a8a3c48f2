#pragma once
// AMOEBA's buffered 14-7 van der Waals term (Halgren): per pair of reduced sites,
//   E = eps ((1 + d) / (rho + d))^7 ((1 + g) / (rho^7 + g) - 2),  rho = r / R0, d = 0.07, g = 0.12,
// R0 the cubic mean of the two radii (given as diameters, or a vdwpr pair record's), eps their HHG
// mean; a hydrogen's site lies on its bond, moved toward its one neighbour by the reduction factor,
// and its force goes back to the two atoms in the same proportion. Pairs bonded 1-2 and 1-3 take the
// vdw-1N-scale factors (0 in AMOEBA). Without a cell every pair counts, as in Tinker; in a periodic
// cell pairs take their nearest image within vdw-cutoff
// (9 Å by default) and the energy is switched off by a fifth-order taper from vdw-taper (0.9 of
// the cutoff), with Tinker's long-range correction when the key asks for it. The CPU reference, in
// double, over all pairs.
#include <array>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/core/box.hpp"
#include "quasar/core/system_setup.hpp"
#include "quasar/potential/amoeba/parameters.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar::amoeba {

struct VdwSystem {
  std::vector<int> parent;        // the atom whose bond carries each atom's site (itself: none)
  std::vector<double> reduction;  // site = parent + reduction (atom - parent); 0: the atom itself
  std::vector<int> cls;           // per atom, its vdW class's index among the classes the system uses
  std::vector<int> special_offset, special_partner;  // 1-2 and 1-3 partners with their scale
  std::vector<double> special_scale;
  int classes = 0;                // the classes the system uses
  std::vector<double> r0, eps;    // per pair of them (classes x classes)
  double cutoff = 9.0, taper = 0.9 * 9.0;  // Å, used in a periodic cell
  bool long_range = false;        // vdw-correction: the tail beyond the taper, in a periodic cell
  std::vector<long> class_atoms;  // atoms per class (the correction's counts)
};

// Tinker's long-range correction (vdw-correction) for a cell of this volume (Å^3): the energy
// sum_{class pairs} 4 pi N_i N_k / V integral r^2 E(r) (1 - S(r)) dr from the taper's start to 100 Å
// by Tinker's midpoint rule (2 points per Å), and the virial Tinker adds to each diagonal element,
// (4 pi N_i N_k / 3V) integral r^3 d[E (1 - S)]/dr dr, both in kcal/mol (Tinker's sign: positive
// for a repulsive tail).
struct VdwTail {
  double energy = 0, virial = 0;
};
VdwTail vdw_long_range(const VdwSystem& v, double volume);

// Reads the vdW settings (refusing what this term does not do: other vdW types or rules, soft-core
// lambda) and the per-atom data. Throws InputError naming the key.
VdwSystem vdw_system(const Parameters& p, const std::vector<int>& types, const std::vector<std::vector<int>>& neighbours);

// Adds forces, energy and virial (and per-atom halves of each pair's) as add_valence_term does;
// `a` is the atoms' view, whose cell may be the key's (amoeba_term.cpp). Returns the number of
// pairs that interacted (Tinker's count).
long add_vdw(const VdwSystem& v, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out);

}  // namespace quasar::amoeba
