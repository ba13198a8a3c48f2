#include "quasar/core/box.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar {

Box Box::from_matrix(const Mat3& h, Vec3 origin, std::array<bool, 3> pbc) {
  Box b;
  b.origin = origin;
  for (int k = 0; k < 3; ++k) b.periodic[k] = pbc[k] ? 1 : 0;
  b.set_matrix(h);
  return b;
}

Box Box::enclosing(const std::vector<Vec3>& points, double vacuum) {
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};
  if (!points.empty()) lo = hi = points[0];
  for (const Vec3& r : points)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], r[k]);
      hi[k] = std::max(hi[k], r[k]);
    }
  const Vec3 size = hi - lo + Vec3{vacuum, vacuum, vacuum};
  return from_matrix({{{size.x, 0, 0}, {0, size.y, 0}, {0, 0, size.z}}}, lo - 0.5 * Vec3{vacuum, vacuum, vacuum},
                     {false, false, false});
}

void Box::set_matrix(const Mat3& new_h) {
  const double v = det(new_h);
  if (!(std::abs(v) > 1e-12)) throw Error("cell matrix is singular (volume " + std::to_string(v) + " Å^3)");
  h = new_h;
  hinv = inverse(new_h);
}

Box box_from_lammps(const LammpsBounds& b, std::array<bool, 3> pbc) {
  const Mat3 h{{{b.xhi - b.xlo, 0, 0}, {b.xy, b.yhi - b.ylo, 0}, {b.xz, b.yz, b.zhi - b.zlo}}};
  return Box::from_matrix(h, {b.xlo, b.ylo, b.zlo}, pbc);
}

LammpsBounds lammps_bounds(const Box& box) {
  const Mat3& h = box.h;
  const double scale = std::abs(h(0, 0)) + std::abs(h(1, 1)) + std::abs(h(2, 2));
  if (std::abs(h(0, 1)) > 1e-12 * scale || std::abs(h(0, 2)) > 1e-12 * scale || std::abs(h(1, 2)) > 1e-12 * scale)
    throw Error("cell is not in LAMMPS's restricted triclinic form (a along x, b in the xy plane): " + describe(box));
  LammpsBounds b{};
  b.xlo = box.origin.x; b.xhi = box.origin.x + h(0, 0);
  b.ylo = box.origin.y; b.yhi = box.origin.y + h(1, 1);
  b.zlo = box.origin.z; b.zhi = box.origin.z + h(2, 2);
  b.xy = h(1, 0); b.xz = h(2, 0); b.yz = h(2, 1);
  return b;
}

std::string describe(const Box& box) {
  std::ostringstream os;
  os.precision(10);
  os << "a=(" << box.h(0, 0) << "," << box.h(0, 1) << "," << box.h(0, 2) << ") b=(" << box.h(1, 0) << ","
     << box.h(1, 1) << "," << box.h(1, 2) << ") c=(" << box.h(2, 0) << "," << box.h(2, 1) << "," << box.h(2, 2)
     << ") pbc=" << box.periodic[0] << box.periodic[1] << box.periodic[2];
  return os.str();
}

}  // namespace quasar
