#pragma once
#include <array>
#include <string>
#include <vector>

#include "quasar/core/vec.hpp"

namespace quasar {

// A triclinic cell with any lattice vectors (rows of h), an origin (LAMMPS boxlo) and periodicity
// per lattice direction. Plain data, copied by value into kernels.
struct Box {
  Mat3 h = identity3();     // rows: lattice vectors a, b, c (Å)
  Mat3 hinv = identity3();  // inverse of h: s = (r - origin) * hinv
  Vec3 origin{};
  int periodic[3] = {1, 1, 1};

  static Box from_matrix(const Mat3& h, Vec3 origin = {}, std::array<bool, 3> pbc = {true, true, true});
  static Box orthorhombic(double lx, double ly, double lz) {
    return from_matrix({{{lx, 0, 0}, {0, ly, 0}, {0, 0, lz}}});
  }
  // A non-periodic orthorhombic box around the points with `vacuum` Å to spare in each direction
  // (structures given without a cell: molecules, clusters).
  static Box enclosing(const std::vector<Vec3>& points, double vacuum = 10.0);
  void set_matrix(const Mat3& new_h);  // keeps origin and periodicity, updates hinv

  QUASAR_HD double volume() const { return det(h) < 0 ? -det(h) : det(h); }
  QUASAR_HD Vec3 to_frac(Vec3 r) const { return (r - origin) * hinv; }
  QUASAR_HD Vec3 from_frac(Vec3 s) const { return s * h + origin; }
  // Distance between the lattice planes spanned by the two other vectors: how far apart
  // periodic images lie along direction k.
  QUASAR_HD double plane_spacing(int k) const {
    return volume() / sqrt(norm2(cross(h.r[(k + 1) % 3], h.r[(k + 2) % 3])));
  }
  // Displacement reduced to the nearest image in fractional space. It is the true minimum image
  // when the cell is at least twice the distance of interest in every periodic direction.
  QUASAR_HD Vec3 minimum_image(Vec3 d) const {
    Vec3 s = d * hinv;
    for (int k = 0; k < 3; ++k)
      if (periodic[k]) s[k] -= rint(s[k]);
    return s * h;
  }
  // Maps r into the cell in periodic directions by subtracting whole lattice vectors; an atom
  // already inside is returned unchanged (bit for bit), so wrapping twice changes nothing.
  // `image` (optional) counts the cell crossings.
  QUASAR_HD Vec3 wrap(Vec3 r, int* image = nullptr) const {
    const Vec3 s = to_frac(r);
    int n[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k)
      if (periodic[k]) n[k] = static_cast<int>(floor(s[k]));
    if (!n[0] && !n[1] && !n[2]) return r;
    if (image)
      for (int k = 0; k < 3; ++k) image[k] += n[k];
    return r - shift(n[0], n[1], n[2]);
  }
  // Translation by an integer lattice vector.
  QUASAR_HD Vec3 shift(int i, int j, int k) const {
    return static_cast<double>(i) * h.r[0] + static_cast<double>(j) * h.r[1] + static_cast<double>(k) * h.r[2];
  }
};

// LAMMPS keeps a restricted triclinic cell (a along x, b in the xy plane). These convert.
struct LammpsBounds {
  double xlo, xhi, ylo, yhi, zlo, zhi, xy, xz, yz;
};
Box box_from_lammps(const LammpsBounds& b, std::array<bool, 3> pbc = {true, true, true});
// Throws unless h is already lower triangular (a along x, b in the xy plane).
LammpsBounds lammps_bounds(const Box& box);
std::string describe(const Box& box);

}  // namespace quasar
