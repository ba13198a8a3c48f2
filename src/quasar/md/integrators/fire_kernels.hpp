#pragma once
// FIRE's per-atom updates, shared by its CPU loops and kernels. Generalised coordinates: the atoms'
// reference positions x (and, with the cell, the deformation gradient d, kept on the host): an
// atom sits at origin + (x - origin) d.
#include <cmath>

#include "quasar/core/vec.hpp"

namespace quasar::md {

QUASAR_HD Vec3 fire_position(Vec3 x, Vec3 origin, const Mat3& d) { return origin + (x - origin) * d; }
QUASAR_HD Vec3 fire_reference(Vec3 p, Vec3 origin, const Mat3& dinv) { return origin + (p - origin) * dinv; }
QUASAR_HD double abs_max(double a, double b) { return fabs(a) > b ? fabs(a) : b; }

}  // namespace quasar::md
