#pragma once
// How BerkeleyGW's Sigma takes eps^-1 at a q of its grid from the dielectric file (facts of its
// source, followed so that Quasar's Sigma reproduces its numbers; see docs/formats/gw-sigma.md):
// - its q-points lie in [0, 1) (the box of its full zone), and the wing factors of an untruncated
//   semiconductor use that image: <1/|q|> averaged about it and v_1 = v at its first sorted q + G;
// - each q is mapped onto a dielectric point q_irr by the last operation M of the mean field's list
//   (in its file's order) with M q_irr = q modulo G, and eps^-1's head and wings lie at that image;
// - q = 0 matches every operation, so eps^-1(q0), computed at a finite q0 along one direction, is
//   used rotated by the list's last operation.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "quasar/gw/symmetry.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

// The list M (reciprocal coordinates, q -> M q) whose last matching operation maps q onto the file:
// `given` (sigma.inp's berkeleygw_symmetries) when not empty, else the crystal's operations in
// BerkeleyGW's EPM order derived from the mean field (berkeleygw_symmetry.hpp; Quasar's order for a
// supercell). `say` (may be empty) receives a line naming the list used.
std::vector<IntMatrix3> q_map_operations(const std::vector<IntMatrix3>& given, const Wavefunctions& w,
                                         const std::function<void(const std::string&)>& say);
// The rotations R (fractional coordinates) of that list in its order, M = R^-T: BerkeleyGW's Sigma
// takes the little group of k from the list in its order.
std::vector<IntMatrix3> q_map_rotations(const Wavefunctions& w, const std::vector<IntMatrix3>& given);
// The crystal's operations (crystal_operations) from the mean field's lattice and atoms.
std::vector<CrystalOperation> crystal_operations_of(const Wavefunctions& w);

// x - floor(x) per component (1e-9 slack): BerkeleyGW's image of a q-point in [0, 1).
Vec3d reduced_qpoint(Vec3d x);

// The q + G of smallest |q + G|^2 (ties: the smallest G in (G1, G2, G3) order, as BerkeleyGW's sort).
Vec3d first_sorted(const Matrix3& metric, const Vec3d& q);

// The vector M q_irr for the last dielectric point and operation (loops in that order) with M q_irr = q
// modulo G; `fallback` when none (no list given). The q -> 0 point (|q_irr| = 0) is skipped.
Vec3d head_image(const std::vector<IntMatrix3>& operations, const std::vector<Vec3d>& dielectric_qpoints,
                 const Matrix3& metric, const Vec3d& q, const Vec3d& fallback);

// eps^-1 at q -> 0 rotated by M (`last`, reciprocal coordinates): eps^-1(G, G') = phase(G) phase(G')
// eps^-1_0(from(G), from(G')), from(G) = M^-1 G, phase(G) = cos(2 pi G.t) for the crystal's operation
// x -> R x + t with R^T = M^-1 (t is 0 or half a lattice vector where eps^-1 is real). Errors if M is
// not one of `crystal` or the G-vectors are not closed under it.
struct RotatedIndex {
  std::vector<std::size_t> from;
  std::vector<double> phase;
};
RotatedIndex rotated_index(const IntMatrix3& last, const std::vector<CrystalOperation>& crystal,
                           const std::vector<GVector>& gvectors);

}  // namespace quasar::gw
