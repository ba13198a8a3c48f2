#pragma once
// eps^-1 at the q-points of Sigma's grid that the dielectric file lacks, unfolded from the file's
// points by the crystal's space-group operations, as BerkeleyGW's Sigma does with the irreducible
// q-points of its epsilon.inp. For an operation x -> R x + t (fractional coordinates) and P = R^-T
// (reciprocal coordinates) with P q_irr = q + G0:
//   eps^-1_q(G, G') = exp(-2 pi i (G - G').t) eps^-1_irr(R^T (G - G0), R^T (G' - G0)),
// and |q + G| = |q_irr + R^T (G - G0)|, so the sphere |q+G|^2 < cutoff at q is the image of the one at
// q_irr (sorted again by |q+G|^2, ties by (G1, G2, G3), as Epsilon sorts).
#include <cstddef>
#include <vector>

#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/symmetry.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

// a - b as an integer vector when it is one (1e-6): matching k- and q-points modulo G.
bool integer_difference(const Vec3d& a, const Vec3d& b, GVector& out);

// P = R^-T of a crystal operation: q -> P q in reciprocal coordinates (integer: det R = +-1).
IntMatrix3 reciprocal_rotation(const CrystalOperation& op);

// eps^-1 (and chi, epsilon where present) at q from `source` by `op`. Errors if P q_irr - q is not a
// reciprocal-lattice vector, or (when `sphere` is not empty) a rotated G-vector lies outside `sphere`
// (the mean field's G-vectors, which Sigma's matrix elements cover).
EpsilonOfQ rotate_epsilon(const EpsilonOfQ& source, const CrystalOperation& op, const Vec3d& q, const Matrix3& metric,
                          const std::vector<GVector>& sphere = {});

// Which file point and operation give q (indices into `file.q` and `crystal`); found = false if none.
// With `berkeleygw` (BerkeleyGW's list, reciprocal-coordinate matrices M: q -> M q) its rule: the last
// file point and listed operation, in that loop order, with M q_irr = q modulo G (M must be P of one
// of `crystal`, else an error). Without it: the first file point (file order) and the first of
// `crystal` (crystal_operations' order) that maps it onto q. The q -> 0 point is never a source.
struct UnfoldSource {
  bool found = false;
  std::size_t point = 0, operation = 0;
};
UnfoldSource unfold_source(const EpsilonResult& file, const Vec3d& q, const std::vector<CrystalOperation>& crystal,
                           const std::vector<IntMatrix3>& berkeleygw);

// eps^-1 at each q of `qpoints` (q != 0 modulo G) that `file` lacks (modulo G), unfolded from its
// points; the file's own matrices are not repeated. Errors naming the q-point when no operation maps
// a file point onto it.
std::vector<EpsilonOfQ> unfold_epsilon(const EpsilonResult& file, const std::vector<Vec3d>& qpoints,
                                       const std::vector<CrystalOperation>& crystal,
                                       const std::vector<IntMatrix3>& berkeleygw, const Matrix3& metric,
                                       const std::vector<GVector>& sphere);

}  // namespace quasar::gw
