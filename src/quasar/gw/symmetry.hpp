#pragma once
// The point group of a crystal and the k-point sets it unfolds: what BerkeleyGW's Epsilon sums over
// when it unfolds a mean field's symmetry-reduced k-points to the full Brillouin zone.
#include <array>
#include <vector>

#include "quasar/gw/epm_input.hpp"

namespace quasar::gw {

using IntMatrix3 = std::array<std::array<int, 3>, 3>;

// The rotations R (fractional coordinates, x -> R x) of the lattice that map the atoms onto atoms
// of the same species after some translation: the crystal's point group. Candidates are the
// integer matrices with entries in {-1, 0, 1} that keep the lattice's metric (enough for the
// primitive cells of the cubic and hexagonal lattices).
std::vector<IntMatrix3> crystal_rotations(const EpmInput& input);

// A space-group operation x -> R x + t (fractional coordinates) that maps the crystal onto itself.
// Under it eps^-1 at P q (P = R^-T, reciprocal coordinates) is eps^-1 at q with G -> P G and the
// phase exp(-2 pi i (P G - P G').t) (Si's diamond lattice: t = 0 or half a lattice vector for
// 36 of its 48 operations, so that phase is +-1).
struct CrystalOperation {
  IntMatrix3 rotation{};
  Vec translation{};  // each component in [0, 1)
};
// The rotations of crystal_rotations, in its order, each with a translation that makes it a symmetry.
std::vector<CrystalOperation> crystal_operations(const EpmInput& input);

// The images R^T k (reciprocal-lattice coordinates) of the input's k-points under the rotations
// (and -k: time reversal), without duplicates modulo reciprocal-lattice vectors (1e-6), the images
// of each input point in a row. With `fixed`, only the rotations that keep that vector are used and
// no time reversal (the little group of q, for the shifted points k + q of WFNq).
// `stars`, when given, receives how many new points each input point added.
std::vector<Vec> unfold_kpoints(const std::vector<Vec>& kpoints, const std::vector<IntMatrix3>& rotations,
                                const Vec* fixed = nullptr, std::vector<int>* stars = nullptr);

// The input with its k-point list replaced by the unfolded one, each point of weight 1/N. The list
// must be either whole already or reduced by this group: each point's weight its star's share of the
// unfolded set (within 1e-6), else an InputError (a list reduced by another group would be summed
// over the wrong set).
EpmInput unfolded_input(const EpmInput& input, const Vec* fixed = nullptr);

}  // namespace quasar::gw
