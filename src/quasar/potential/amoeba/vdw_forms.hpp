#pragma once
// The buffered 14-7 pair and the geometry of the van der Waals sites, written once for the CPU
// reference (vdw_term.cpp) and the CUDA kernels (vdw_kernels.cu); the pair in double or, for the
// GPU's mixed mode, in float (the sites and displacements stay double).
#include <cmath>

#include "quasar/core/box.hpp"
#include "quasar/core/hd.hpp"
#include "quasar/core/vec3_of.hpp"

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

// x^7 and the square root: the C library's in double (the reference's own arithmetic), float's own
// in float (products for the power).
QUASAR_HD double vdw_sqrt(double x) { return ::sqrt(x); }
QUASAR_HD float vdw_sqrt(float x) { return ::sqrtf(x); }
QUASAR_HD double vdw_pow7(double x) { return pow(x, 7); }
QUASAR_HD float vdw_pow7(float x) {
  const float x2 = x * x, x3 = x2 * x;
  return x3 * x3 * x;
}

// Energy e and its derivative de = dE/dr (kcal/mol, Å) of a pair at distance r with the pair's R0
// and scaled epsilon; in a cell switched off over [taper, cutoff] by 1 - 10x^3 + 15x^4 - 6x^5. T is
// double (the reference), or float for the GPU's mixed mode (the constants rounded to float).
template <class T>
QUASAR_HD void buffered_14_7(T r, T rv, T eps, bool tapered, T taper, T cutoff, T& e, T& de) {
  const T gamma = static_cast<T>(kVdwGamma), delta = static_cast<T>(kVdwDelta);
  const T r2 = r * r, rv7 = vdw_pow7(rv), r6 = r2 * r2 * r2, r7 = r6 * r;
  const T rho = r7 + gamma * rv7, tau = (delta + 1) / (r + delta * rv), tau7 = vdw_pow7(tau);
  const T gtau = eps * tau7 * r6 * (gamma + 1) * (rv7 / rho) * (rv7 / rho);
  e = eps * rv7 * tau7 * ((gamma + 1) * rv7 / rho - 2);
  de = -7 * e * tau / (delta + 1) - 7 * gtau;
  if (tapered && r > taper) {
    const T span = cutoff - taper, x = (r - taper) / span, x2 = x * x;
    const T sw = 1 - x2 * x * (10 - 15 * x + 6 * x2), dsw = -30 * x2 * (1 - 2 * x + x2) / span;
    de = de * sw + e * dsw;
    e *= sw;
  }
}

// One pair of sites at displacement d = site k - site i (the nearest image, formed in double) with
// r2 = |d|^2: its energy e (kcal/mol) and the gradient with respect to site k, g = dE/dr d / r
// (that of site i is -g), in T's arithmetic from the displacement on.
template <class T>
QUASAR_HD void vdw_pair(const Vec3& d, double r2, double rv, double eps, bool tapered, double taper, double cutoff,
                        T& e, Vec3Of<T>& g) {
  const Vec3Of<T> dt{static_cast<T>(d.x), static_cast<T>(d.y), static_cast<T>(d.z)};
  const T r = vdw_sqrt(static_cast<T>(r2));
  T de;
  buffered_14_7<T>(r, static_cast<T>(rv), static_cast<T>(eps), tapered, static_cast<T>(taper),
                   static_cast<T>(cutoff), e, de);
  g = dt * (de / r);
}

}  // namespace quasar::amoeba
