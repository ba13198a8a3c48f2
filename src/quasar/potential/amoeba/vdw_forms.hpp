#pragma once
// The buffered 14-7 pair and the geometry of the van der Waals sites, written once for the CPU
// reference (vdw_term.cpp) and the CUDA kernels (vdw_kernels.cu).
#include <cmath>

#include "quasar/core/box.hpp"
#include "quasar/core/hd.hpp"

namespace quasar::amoeba {

inline constexpr double kVdwDelta = 0.07, kVdwGamma = 0.12;  // Halgren's buffering constants

// The nearest image of a displacement in the cell's periodic directions.
QUASAR_HD Vec3 vdw_nearest(const Box& cell, bool periodic, Vec3 d) {
  if (!periodic) return d;
  const Vec3 s = d * cell.hinv;
  int m[3] = {0, 0, 0};
  for (int c = 0; c < 3; ++c)
    if (cell.periodic[c]) m[c] = static_cast<int>(rint(s[c]));
  return d - cell.shift(m[0], m[1], m[2]);
}

// A site: the atom itself (reduction 0), or on the bond to its parent at the parent's nearest image.
QUASAR_HD Vec3 vdw_site(const Box& cell, bool periodic, Vec3 atom, Vec3 parent, double reduction) {
  return reduction == 0 ? atom : atom - vdw_nearest(cell, periodic, atom - parent) * (1 - reduction);
}

// Energy e and its derivative de = dE/dr (kcal/mol, Å) of a pair at distance r with the pair's R0
// and scaled epsilon; in a cell switched off over [taper, cutoff] by 1 - 10x^3 + 15x^4 - 6x^5.
QUASAR_HD void buffered_14_7(double r, double rv, double eps, bool tapered, double taper, double cutoff, double& e,
                             double& de) {
  const double r2 = r * r, rv7 = pow(rv, 7), r6 = r2 * r2 * r2, r7 = r6 * r;
  const double rho = r7 + kVdwGamma * rv7, tau = (kVdwDelta + 1) / (r + kVdwDelta * rv), tau7 = pow(tau, 7);
  const double gtau = eps * tau7 * r6 * (kVdwGamma + 1) * (rv7 / rho) * (rv7 / rho);
  e = eps * rv7 * tau7 * ((kVdwGamma + 1) * rv7 / rho - 2);
  de = -7 * e * tau / (kVdwDelta + 1) - 7 * gtau;
  if (tapered && r > taper) {
    const double span = cutoff - taper, x = (r - taper) / span, x2 = x * x;
    const double sw = 1 - x2 * x * (10 - 15 * x + 6 * x2), dsw = -30 * x2 * (1 - 2 * x + x2) / span;
    de = de * sw + e * dsw;
    e *= sw;
  }
}

}  // namespace quasar::amoeba
