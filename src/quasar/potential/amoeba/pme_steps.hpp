#pragma once
// The steps of PmeGpu's kernels (pme_kernels.cu), one site or one grid point each, written once as
// QUASAR_HD functions so that a CPU test (amoeba_pme_gpu_test) runs the very same code in loops,
// with FFTW for cuFFT, against pme_multipole.cpp. The grid is complex (re, im) in C order; a site's
// weights are 3 x 4 x order values [d][p][i] (pme_splines.hpp's pme_spline_weights per dimension).
#include <cmath>

#include "quasar/core/box.hpp"
#include "quasar/core/hd.hpp"
#include "quasar/potential/amoeba/pme_splines.hpp"

namespace quasar::amoeba {

// The grid, the cell and the map from Cartesian to grid-coordinate derivatives, by value.
struct PmeMesh {
  int K[3];
  int order;
  double alpha;
  double volume;
  double T[3][3];  // T[b][d] = K_d hinv(b, d): d/dr_b = sum_d T[b][d] d/du_d
  Box box;
  QUASAR_HD long points() const { return static_cast<long>(K[0]) * K[1] * K[2]; }
};

inline PmeMesh pme_mesh(const int K[3], int order, double alpha, const Box& box) {
  PmeMesh m{};
  for (int d = 0; d < 3; ++d) m.K[d] = K[d];
  m.order = order;
  m.alpha = alpha;
  m.volume = box.volume();
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) m.T[b][d] = m.K[d] * box.hinv(b, d);
  m.box = box;
  return m;
}

// Component k of the multi-index of place a (pme_multi_index's inverse).
QUASAR_HD int pme_alpha(int a, int k) {
  const int t = a == 0 ? 0 : a < 4 ? 1 : a < 10 ? 2 : 3;
  int pos = a - (t == 0 ? 0 : t == 1 ? 1 : t == 2 ? 4 : 10), s = 0;  // s = t - alpha_0
  while ((s + 1) * (s + 2) / 2 <= pos) ++s;
  const int x = t - s, y = s - (pos - s * (s + 1) / 2);
  return k == 0 ? x : k == 1 ? y : t - x - y;
}

QUASAR_HD double pme_weight(const double* theta, int order, int d, int p, int i) { return theta[(4 * d + p) * order + i]; }

// A site's weights from its position r (3 values), as pme_multipole's splines; returns the flat
// index of its cell (its first grid points, modulo the grid).
QUASAR_HD int pme_site_splines(const PmeMesh& m, const double* r, double* theta) {
  const Vec3 s = m.box.to_frac(Vec3{r[0], r[1], r[2]});
  int first[3];
  for (int d = 0; d < 3; ++d) {
    const int f = pme_spline_weights(m.K[d] * (s[d] - floor(s[d])), m.order, theta + 4 * d * m.order) % m.K[d];
    first[d] = f < 0 ? f + m.K[d] : f;
  }
  return (first[0] * m.K[1] + first[1]) * m.K[2] + first[2];
}

// The coefficients of the splines' derivatives (order 0..2) of a site's density: its moments in grid
// coordinates. kMoments: v holds 13 moments; else 3 dipole components.
template <bool kMoments>
QUASAR_HD void pme_site_coefficients(const PmeMesh& m, const double* v, double* coef) {
  const double* dipole = kMoments ? v + 1 : v;
  double c[10] = {};
  if (kMoments) c[0] = v[0];
  for (int d = 0; d < 3; ++d) {
    double fd = 0;
    for (int b = 0; b < 3; ++b) fd += m.T[b][d] * dipole[b];
    c[1 + d] += fd;
    if (kMoments)
      for (int d2 = 0; d2 < 3; ++d2) {
        double fq = 0;
        for (int b = 0; b < 3; ++b)
          for (int b2 = 0; b2 < 3; ++b2) fq += m.T[b][d] * m.T[b2][d2] * v[4 + 3 * b + b2];
        int e[3] = {0, 0, 0};
        ++e[d];
        ++e[d2];
        c[pme_multi_index(e[0], e[1], e[2])] += fq;
      }
  }
  for (int a = 0; a < 10; ++a) coef[a] = c[a];
}

// The density at grid point g: the sum over the sites whose splines reach it, cell by cell in a
// fixed order, within a cell in the order of order_of (start: where each cell's run begins). A site
// whose first point is k along a dimension reaches k - i for i < order, so g takes the cells g + i.
QUASAR_HD double pme_spread_point(const PmeMesh& m, long g, const double* theta, const double* coef, const int* start,
                                  const int* order_of) {
  const int g2 = static_cast<int>(g % m.K[2]), g1 = static_cast<int>((g / m.K[2]) % m.K[1]),
            g0 = static_cast<int>(g / (static_cast<long>(m.K[1]) * m.K[2]));
  const int p = m.order;
  double v = 0;
  for (int i0 = 0; i0 < p; ++i0) {
    const int c0 = g0 + i0 < m.K[0] ? g0 + i0 : g0 + i0 - m.K[0];
    for (int i1 = 0; i1 < p; ++i1) {
      const int c1 = g1 + i1 < m.K[1] ? g1 + i1 : g1 + i1 - m.K[1];
      for (int i2 = 0; i2 < p; ++i2) {
        const int c2 = g2 + i2 < m.K[2] ? g2 + i2 : g2 + i2 - m.K[2];
        const long cell = (static_cast<long>(c0) * m.K[1] + c1) * m.K[2] + c2;
        for (int q = start[cell]; q < start[cell + 1]; ++q) {
          const long j = order_of[q];
          const double* th = theta + j * 12 * p;
          const double* cf = coef + 10 * j;
          double w = 0;
          for (int a = 0; a < 10; ++a) {
            if (cf[a] == 0) continue;
            w += cf[a] * pme_weight(th, p, 0, pme_alpha(a, 0), i0) * pme_weight(th, p, 1, pme_alpha(a, 1), i1) *
                 pme_weight(th, p, 2, pme_alpha(a, 2), i2);
          }
          v += w;
        }
      }
    }
  }
  return v;
}

// Wave vector g (g > 0; f its transform, re and im): f times the influence function
//   C = exp(-pi^2 m^2 / alpha^2) / (pi V m^2) / (|b1(m1)|^2 |b2(m2)|^2 |b3(m3)|^2)
// and, if w, its part of the virial from the kernel's dependence on the cell,
//   (f/2) C |F|^2 [delta_ab - 2 (pi^2/alpha^2 + 1/m^2) m_a m_b].
QUASAR_HD void pme_convolve_point(const PmeMesh& m, long g, const double* moduli, double electric, double* f,
                                  double* w) {
  const int m2 = static_cast<int>(g % m.K[2]), m1 = static_cast<int>((g / m.K[2]) % m.K[1]),
            m0 = static_cast<int>(g / (static_cast<long>(m.K[1]) * m.K[2]));
  // Tinker's signed frequencies (K/2 taken as -K/2 for even K).
  const int mm[3] = {m0 >= (m.K[0] + 1) / 2 ? m0 - m.K[0] : m0, m1 >= (m.K[1] + 1) / 2 ? m1 - m.K[1] : m1,
                     m2 >= (m.K[2] + 1) / 2 ? m2 - m.K[2] : m2};
  double mv[3], m2sum = 0;
  for (int b = 0; b < 3; ++b) {
    mv[b] = 0;
    for (int d = 0; d < 3; ++d) mv[b] += mm[d] * m.box.hinv(b, d);
    m2sum += mv[b] * mv[b];
  }
  const double c = exp(-M_PI * M_PI * m2sum / (m.alpha * m.alpha)) / (M_PI * m.volume * m2sum) /
                   (moduli[m0] * moduli[m.K[0] + m1] * moduli[m.K[0] + m.K[1] + m2]);
  if (w) {
    const double e = 0.5 * electric * c * (f[0] * f[0] + f[1] * f[1]);
    const double s = 2 * (M_PI * M_PI / (m.alpha * m.alpha) + 1 / m2sum);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) w[3 * a + b] = e * ((a == b ? 1.0 : 0.0) - s * mv[a] * mv[b]);
  }
  f[0] *= c;
  f[1] *= c;
}

// The potential's derivatives P[q] of multi-indices kFirst + q at a site (its weights th, its cell)
// from the real part of the back-transformed grid.
template <int kFirst, int kCount>
QUASAR_HD void pme_gather_site(const PmeMesh& m, const double* th, int cell, const double* mesh, double (&P)[kCount]) {
  const int p = m.order;
  const int f2 = cell % m.K[2], f1 = (cell / m.K[2]) % m.K[1], f0 = cell / (m.K[1] * m.K[2]);
  for (int q = 0; q < kCount; ++q) P[q] = 0;
  for (int i0 = 0; i0 < p; ++i0) {
    const int k0 = f0 - i0 >= 0 ? f0 - i0 : f0 - i0 + m.K[0];
    for (int i1 = 0; i1 < p; ++i1) {
      const int k1 = f1 - i1 >= 0 ? f1 - i1 : f1 - i1 + m.K[1];
      for (int i2 = 0; i2 < p; ++i2) {
        const int k2 = f2 - i2 >= 0 ? f2 - i2 : f2 - i2 + m.K[2];
        const double phi = mesh[2 * ((static_cast<long>(k0) * m.K[1] + k1) * m.K[2] + k2)];
        for (int q = 0; q < kCount; ++q) {
          const int a = kFirst + q;
          P[q] += phi * pme_weight(th, p, 0, pme_alpha(a, 0), i0) * pme_weight(th, p, 1, pme_alpha(a, 1), i1) *
                  pme_weight(th, p, 2, pme_alpha(a, 2), i2);
        }
      }
    }
  }
}

// A site's energy share, gradient (3), dE/dM (13) and moment part of the virial (site: energy, then
// the 9), from its derivatives P (20), coefficients and moments M (13), as pme_multipole's gather.
QUASAR_HD void pme_site_multipoles(const PmeMesh& m, const double (&P)[20], const double* cf, const double* M,
                                   double electric, double* grad, double* dm, double* site) {
  double energy = 0, du[3] = {0, 0, 0};
  for (int a = 0; a < 10; ++a) {
    if (cf[a] == 0) continue;
    energy += 0.5 * electric * cf[a] * P[a];
    for (int d = 0; d < 3; ++d) {
      int up[3] = {pme_alpha(a, 0), pme_alpha(a, 1), pme_alpha(a, 2)};
      ++up[d];
      du[d] += electric * cf[a] * P[pme_multi_index(up[0], up[1], up[2])];
    }
  }
  for (int b = 0; b < 3; ++b) {
    double g = 0;
    for (int d = 0; d < 3; ++d) g += du[d] * m.T[b][d];
    grad[b] = g;
  }
  for (int c = 0; c < 13; ++c) dm[c] = 0;
  dm[0] = electric * P[0];
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) {
      dm[1 + b] += electric * m.T[b][d] * P[1 + d];
      for (int b2 = 0; b2 < 3; ++b2)
        for (int d2 = 0; d2 < 3; ++d2) {
          int e[3] = {0, 0, 0};
          ++e[d];
          ++e[d2];
          dm[4 + 3 * b + b2] += electric * m.T[b][d] * m.T[b2][d2] * P[pme_multi_index(e[0], e[1], e[2])];
        }
    }
  site[0] = energy;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double w = M[1 + a] * dm[1 + b];
      for (int c = 0; c < 3; ++c) w += 2 * M[4 + 3 * a + c] * dm[4 + 3 * c + b];
      site[1 + 3 * a + b] = w;
    }
}

// field -= the potential's gradient at a site from its first derivatives P (multi-indices 1..3).
QUASAR_HD void pme_site_field(const PmeMesh& m, const double (&P)[3], double* field) {
  for (int b = 0; b < 3; ++b) {
    double g = 0;
    for (int d = 0; d < 3; ++d) g += 1.0 * m.T[b][d] * P[d];
    field[b] -= g;
  }
}

}  // namespace quasar::amoeba
