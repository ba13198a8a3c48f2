// Inverse distances, the Wilson B matrix and the data points built from Cartesian derivatives.
#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/device/linalg.hpp"
#include "quasar/potential/shepard/coordinates.hpp"

namespace quasar::shepard {

void inverse_distances(const double* x, int n, double* z, double* b) {
  const int cols = 3 * n;
  if (b) std::fill(b, b + static_cast<std::size_t>(n * (n - 1) / 2 * cols), 0.0);
  int l = 0;
  for (int a = 0; a < n; ++a)
    for (int c = a + 1; c < n; ++c, ++l) {
      const double r[3] = {x[3 * a] - x[3 * c], x[3 * a + 1] - x[3 * c + 1], x[3 * a + 2] - x[3 * c + 2]};
      const double inv = 1.0 / std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      z[l] = inv;
      if (!b) continue;
      // dZ/dx_a = -r / R^3, dZ/dx_c = +r / R^3 with r = x_a - x_c.
      const double inv3 = inv * inv * inv;
      for (int k = 0; k < 3; ++k) {
        b[l * cols + 3 * a + k] = -r[k] * inv3;
        b[l * cols + 3 * c + k] = r[k] * inv3;
      }
    }
}

namespace {

// Adds scale * d2Z_l/dx2 of the pair (a, c) into the 3n x 3n row-major h: the block
// K = 3 r r^T / R^5 - I / R^3 at (a,a) and (c,c), -K at (a,c) and (c,a).
void add_pair_curvature(const double* x, int n, int a, int c, double scale, double* h) {
  const int cols = 3 * n;
  const double r[3] = {x[3 * a] - x[3 * c], x[3 * a + 1] - x[3 * c + 1], x[3 * a + 2] - x[3 * c + 2]};
  const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  const double inv = 1.0 / std::sqrt(r2), inv3 = inv * inv * inv, inv5 = inv3 * inv * inv;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double k = scale * (3 * r[i] * r[j] * inv5 - (i == j ? inv3 : 0.0));
      h[(3 * a + i) * cols + 3 * a + j] += k;
      h[(3 * c + i) * cols + 3 * c + j] += k;
      h[(3 * a + i) * cols + 3 * c + j] -= k;
      h[(3 * c + i) * cols + 3 * a + j] -= k;
    }
}

// Rank below which a geometry counts as linear: the smallest kept eigenvalue of B B^T relative to
// the largest (squares of singular values; a bent triatomic at 1° keeps about 1e-4).
constexpr double kRankTolerance = 1e-10;

}  // namespace

DataPoint make_data_point(const CartesianPoint& p, std::vector<double> confidence) {
  const std::size_t n3 = p.positions.size();
  if (n3 % 3 != 0) throw Error("shepard data point: positions must hold 3 numbers per atom");
  const int n = static_cast<int>(n3 / 3);
  if (n < 3)
    throw Error("shepard data point: " + std::to_string(n) +
                " atoms: a diatomic is linear (3N-5 internal coordinates), which this interpolation does not handle");
  const int nb = n * (n - 1) / 2, ni = 3 * n - 6, cols = 3 * n;
  if (p.gradient.size() != n3 || p.hessian.size() != n3 * n3)
    throw Error("shepard data point: the gradient needs 3N numbers and the Hessian 3N x 3N");
  if (confidence.size() != static_cast<std::size_t>(nb))
    throw Error("shepard data point: expected " + std::to_string(nb) + " confidence lengths (one per atom pair)");
  std::vector<double> z(static_cast<std::size_t>(nb)), b(static_cast<std::size_t>(nb * cols));
  inverse_distances(p.positions.data(), n, z.data(), b.data());

  // B B^T (nb x nb, symmetric, so row- and column-major agree) and its eigenvectors.
  device::Context cpu(Backend::Cpu);
  Array<double> a(Backend::Cpu, static_cast<std::size_t>(nb * nb)), w(Backend::Cpu, static_cast<std::size_t>(nb));
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      double s = 0;
      for (int k = 0; k < cols; ++k) s += b[i * cols + k] * b[j * cols + k];
      a[static_cast<std::size_t>(i * nb + j)] = s;
    }
  device::eigh(cpu, device::Triangle::Upper, nb, a, w);
  const double largest = w[static_cast<std::size_t>(nb - 1)], kept = w[static_cast<std::size_t>(nb - ni)];
  if (!(kept > kRankTolerance * largest))
    throw Error("shepard data point: the geometry is linear or nearly so (the Wilson B matrix has rank below 3N-6 = " +
                std::to_string(ni) + "); linear molecules are not handled");

  DataPoint d;
  d.positions = p.positions;
  d.energy = p.energy;
  d.confidence = std::move(confidence);
  // U: the eigenvectors of the ni largest eigenvalues, largest first (column-major from LAPACK).
  d.u.resize(static_cast<std::size_t>(nb * ni));
  for (int k = 0; k < ni; ++k)
    for (int l = 0; l < nb; ++l)
      d.u[static_cast<std::size_t>(l * ni + k)] = a[static_cast<std::size_t>((nb - 1 - k) * nb + l)];

  // C = U^T B (ni x 3N), G = C C^T; M = G^-1 C by an LU solve (column-major arrays).
  std::vector<double> c(static_cast<std::size_t>(ni * cols), 0.0);
  for (int k = 0; k < ni; ++k)
    for (int l = 0; l < nb; ++l)
      for (int j = 0; j < cols; ++j) c[static_cast<std::size_t>(k * cols + j)] += d.u[static_cast<std::size_t>(l * ni + k)] * b[l * cols + j];
  Array<double> g(Backend::Cpu, static_cast<std::size_t>(ni * ni)), m(Backend::Cpu, static_cast<std::size_t>(ni * cols));
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < ni; ++j) {
      double s = 0;
      for (int k = 0; k < cols; ++k) s += c[static_cast<std::size_t>(i * cols + k)] * c[static_cast<std::size_t>(j * cols + k)];
      g[static_cast<std::size_t>(j * ni + i)] = s;
    }
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < cols; ++j) m[static_cast<std::size_t>(j * ni + i)] = c[static_cast<std::size_t>(i * cols + j)];
  device::lu_solve(cpu, ni, cols, g, m);
  auto mat = [&](int k, int j) { return m[static_cast<std::size_t>(j * ni + k)]; };  // M(k, j)

  d.gradient.assign(static_cast<std::size_t>(ni), 0.0);
  for (int k = 0; k < ni; ++k)
    for (int j = 0; j < cols; ++j) d.gradient[static_cast<std::size_t>(k)] += mat(k, j) * p.gradient[static_cast<std::size_t>(j)];
  // H - sum_l (U dV/dzeta)_l d2Z_l/dx2, then M (...) M^T.
  std::vector<double> h = p.hessian;
  int l = 0;
  for (int a0 = 0; a0 < n; ++a0)
    for (int c0 = a0 + 1; c0 < n; ++c0, ++l) {
      double dvdz = 0;
      for (int k = 0; k < ni; ++k) dvdz += d.u[static_cast<std::size_t>(l * ni + k)] * d.gradient[static_cast<std::size_t>(k)];
      add_pair_curvature(p.positions.data(), n, a0, c0, -dvdz, h.data());
    }
  std::vector<double> hm(static_cast<std::size_t>(cols * ni), 0.0);  // (H') M^T: 3N x ni
  for (int i = 0; i < cols; ++i)
    for (int k = 0; k < ni; ++k) {
      double s = 0;
      for (int j = 0; j < cols; ++j) s += h[static_cast<std::size_t>(i * cols + j)] * mat(k, j);
      hm[static_cast<std::size_t>(i * ni + k)] = s;
    }
  d.hessian.assign(static_cast<std::size_t>(ni * ni), 0.0);
  for (int k = 0; k < ni; ++k)
    for (int q = 0; q < ni; ++q) {
      double s = 0;
      for (int i = 0; i < cols; ++i) s += mat(k, i) * hm[static_cast<std::size_t>(i * ni + q)];
      d.hessian[static_cast<std::size_t>(k * ni + q)] = s;
    }
  for (int k = 0; k < ni; ++k)  // symmetric to the last bit, as the file stores one triangle
    for (int q = k + 1; q < ni; ++q) {
      const double s = 0.5 * (d.hessian[static_cast<std::size_t>(k * ni + q)] + d.hessian[static_cast<std::size_t>(q * ni + k)]);
      d.hessian[static_cast<std::size_t>(k * ni + q)] = d.hessian[static_cast<std::size_t>(q * ni + k)] = s;
    }
  return d;
}

}  // namespace quasar::shepard
