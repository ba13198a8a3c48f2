#include "quasar/core/box.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar {

namespace {
// A box holding h as it is, only for describing it in a message.
Box from_rows(const Mat3& h) {
  Box b;
  b.h = h;
  return b;
}
}  // namespace

Box Box::from_matrix(const Mat3& h, Vec3 origin, std::array<bool, 3> pbc) {
  Box b;
  if (!std::isfinite(origin.x) || !std::isfinite(origin.y) || !std::isfinite(origin.z))
    throw Error("the cell origin is not finite");
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
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!std::isfinite(new_h(r, c))) throw Error("cell matrix has a non-finite entry: " + describe(from_rows(new_h)));
  // Singular or so flat that its inverse means nothing: the volume against the edge lengths' product.
  const double v = det(new_h);
  const double edges = std::sqrt(norm2(new_h.r[0]) * norm2(new_h.r[1]) * norm2(new_h.r[2]));
  if (!(std::abs(v) > 1e-12) || !(std::abs(v) > 1e-10 * edges) || !std::isfinite(v))
    throw Error("cell matrix is singular or degenerate (volume " + std::to_string(v) + " Å^3): " + describe(from_rows(new_h)));
  h = new_h;
  hinv = inverse(new_h);
}

Box box_from_lammps(const LammpsBounds& b, std::array<bool, 3> pbc) {
  if (!(b.xhi > b.xlo) || !(b.yhi > b.ylo) || !(b.zhi > b.zlo))
    throw Error("box bounds must have lo < hi in every direction (x " + std::to_string(b.xlo) + " " + std::to_string(b.xhi) +
                ", y " + std::to_string(b.ylo) + " " + std::to_string(b.yhi) + ", z " + std::to_string(b.zlo) + " " +
                std::to_string(b.zhi) + ")");
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
