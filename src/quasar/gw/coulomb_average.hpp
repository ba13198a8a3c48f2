#pragma once
// The averages of v(q+G) = 8 pi / |q+G|^2 (Ry bohr^3) over the mini Brillouin zone about q+G, as
// BerkeleyGW's Sigma evaluates every Coulomb element of an insulator without truncation
// (cell_average_cutoff's default there): 2,500,000 points of the Mersenne twister (MT19937, seed
// 5000, the first 7,500,000 numbers skipped, each number x / (2^32 - 1)) in the unit cell of the
// reciprocal lattice, each moved to its Wigner-Seitz image and scaled by 1/qgrid. For q+G = 0 the
// sphere inscribed in the mini zone is integrated analytically and the points inside it skipped;
// elsewhere the first round(250,000 * 4 q0sph2 / |q+G|^2) points (1 to 2,500,000) are used, q0sph2
// being that sphere's radius squared.
#include <array>
#include <vector>

namespace quasar::gw {

class MiniZoneCoulomb {
 public:
  // `metric`: b_i . b_j (1/bohr^2); `volume`: the cell's (bohr^3).
  MiniZoneCoulomb(const std::array<std::array<double, 3>, 3>& metric, double volume, const std::array<int, 3>& qgrid,
                  int points = 2500000);
  // <8 pi / |p + x|^2> over the mini zone, p = q + G in reciprocal-lattice coordinates.
  double average(const std::array<double, 3>& p) const;
  // 8 pi <1 / |p + x|> over all the points (BerkeleyGW's factor for the wings of eps^-1 at q != 0).
  double average_inverse_length(const std::array<double, 3>& p) const;
  double inscribed_radius2() const { return q0sph2_; }

 private:
  std::array<std::array<double, 3>, 3> metric_;
  double volume_ = 0, cells_ = 0, q0sph2_ = 0;
  std::vector<std::array<double, 3>> points_;
  double length2(const std::array<double, 3>& v) const;
};

}  // namespace quasar::gw
