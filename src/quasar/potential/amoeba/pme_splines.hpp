#pragma once
// The B-spline weights of particle-mesh Ewald (pme_multipole.hpp), shared by the CPU reference and
// the GPU kernels (pme_kernels.cu) so that both evaluate the same arithmetic.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar::amoeba {

inline constexpr int kPmeMaxOrder = 8;

// The cardinal B-spline M_n(x), nonzero on (0, n) (M_1 on [0, 1)), by the recursion
//   M_n(x) = [x M_{n-1}(x) + (n - x) M_{n-1}(x - 1)] / (n - 1),
// evaluated bottom-up over the shifts x - j, n <= kPmeMaxOrder.
QUASAR_HD double cardinal_bspline(int n, double x) {
  double m[kPmeMaxOrder];
  for (int j = 0; j < n; ++j) {
    const double y = x - j;
    m[j] = y >= 0 && y < 1 ? 1.0 : 0.0;
  }
  for (int k = 2; k <= n; ++k)
    for (int j = 0; j + k <= n; ++j) {
      const double y = x - j;
      m[j] = y <= 0 || y >= k ? 0.0 : (y * m[j] + (k - y) * m[j + 1]) / (k - 1);
    }
  return m[0];
}

// Its p-th derivative (p <= 3): sum_q (-1)^q C(p, q) M_{n-p}(x - q).
QUASAR_HD double cardinal_bspline_derivative(int n, int p, double x) {
  const int binomial[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 2, 1, 0}, {1, 3, 3, 1}};
  double s = 0;
  for (int q = 0; q <= p; ++q) s += (q % 2 ? -1.0 : 1.0) * binomial[p][q] * cardinal_bspline(n - p, x - q);
  return s;
}

// A site's weights along one dimension at grid coordinate u: the grid points first - i (i < order,
// taken modulo the grid size) with theta[p * order + i], the spline's p-th derivative (p < 4) with
// respect to u. Returns first = floor(u).
QUASAR_HD int pme_spline_weights(double u, int order, double* theta) {
  const int first = static_cast<int>(floor(u));
  const double t = u - first;
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < order; ++i) theta[p * order + i] = cardinal_bspline_derivative(order, p, t + i);
  return first;
}

// The 20 multi-indices (a, b, c) of order up to 3, by order, then a descending, then b descending:
// (0,0,0), (1,0,0), (0,1,0), (0,0,1), (2,0,0), (1,1,0), ... (0,0,3); the index of one.
QUASAR_HD int pme_multi_index(int a, int b, int c) {
  const int t = a + b + c;
  const int offset = t == 0 ? 0 : t == 1 ? 1 : t == 2 ? 4 : 10;
  return offset + (t - a) * (t - a + 1) / 2 + (t - a - b);
}

}  // namespace quasar::amoeba
