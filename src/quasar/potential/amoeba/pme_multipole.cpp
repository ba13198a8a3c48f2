#include "quasar/potential/amoeba/pme_multipole.hpp"

#include <cmath>
#include <complex>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/device/fft.hpp"
#include "quasar/potential/amoeba/pme_splines.hpp"

namespace quasar::amoeba {

std::vector<double> pme_bspline_moduli(int K, int order) {
  std::vector<double> mod(static_cast<std::size_t>(K));
  for (int m = 0; m < K; ++m) {
    double re = 0, im = 0;
    for (int k = 1; k < order; ++k) {
      const double arg = 2 * M_PI * m * k / K;
      re += cardinal_bspline(order, k) * std::cos(arg);
      im += cardinal_bspline(order, k) * std::sin(arg);
    }
    mod[static_cast<std::size_t>(m)] = re * re + im * im;
  }
  const double eps = 1e-7;
  auto at = [&](int m) -> double& { return mod[static_cast<std::size_t>(m)]; };
  if (at(0) < eps) at(0) = 0.5 * at(1);
  for (int m = 1; m < K - 1; ++m)
    if (at(m) < eps) at(m) = 0.5 * (at(m - 1) + at(m + 1));
  if (at(K - 1) < eps) at(K - 1) = 0.5 * at(K - 2);
  for (int i = 1; i <= K; ++i) {
    int k = i - 1;
    if (i > K / 2) k -= K;
    double zeta = 1;
    if (k != 0) {
      double s1 = 1, s2 = 1;
      const double factor = M_PI * k / K;
      for (int j = 1; j <= 50; ++j)
        for (const double arg : {factor / (factor + M_PI * j), factor / (factor - M_PI * j)}) {
          s1 += std::pow(arg, order);
          s2 += std::pow(arg, 2 * order);
        }
      zeta = s2 / s1;
    }
    at(i - 1) *= zeta * zeta;
  }
  return mod;
}

namespace {

// A site's spline weights along one dimension: for the grid points k0 - i (i < order), the
// spline and its first three derivatives with respect to the site's grid coordinate u.
struct Splines {
  int first = 0;                                 // k0
  std::array<std::array<double, 8>, 4> theta{};  // [derivative][i]
};
Splines splines(double u, int order) {
  Splines s;
  double theta[4 * kPmeMaxOrder];
  s.first = pme_spline_weights(u, order, theta);
  for (int i = 0; i < order; ++i)
    for (int p = 0; p < 4; ++p)
      s.theta[static_cast<std::size_t>(p)][static_cast<std::size_t>(i)] = theta[p * order + i];
  return s;
}

// The 20 multi-indices of order up to 3 in three dimensions, and the index of alpha + e_d.
struct MultiIndices {
  std::vector<std::array<int, 3>> alpha;
  std::array<int, 125> index;  // by (a, b, c), each 0..4 (a table: the lookups sit in per-atom loops)
  int of(int a, int b, int c) const { return a <= 4 && b <= 4 && c <= 4 ? index[static_cast<std::size_t>(25 * a + 5 * b + c)] : -1; }
  MultiIndices() {
    index.fill(-1);
    for (int total = 0; total <= 3; ++total)
      for (int a = total; a >= 0; --a)
        for (int b = total - a; b >= 0; --b) {
          index[static_cast<std::size_t>(25 * a + 5 * b + (total - a - b))] = static_cast<int>(alpha.size());
          alpha.push_back({a, b, total - a - b});
        }
  }
};

}  // namespace

double ewald_alpha(double cutoff) {
  const double eps = 1e-8;
  double x = 0.5;
  while (std::erfc(x * cutoff) / cutoff >= eps) x *= 2;
  double low = 0, high = x;
  for (int k = 0; k < 50; ++k) {
    x = 0.5 * (low + high);
    if (std::erfc(x * cutoff) / cutoff >= eps)
      low = x;
    else
      high = x;
  }
  return x;
}

int pme_grid_size(double length) {
  const double want = 1.2 * length;
  for (int n = 1;; ++n) {
    if (n < want - 1e-9) continue;
    int m = n;
    for (int p : {2, 3, 5})
      while (m % p == 0) m /= p;
    if (m == 1) return n;
  }
}

PmeResult pme_multipole(const std::vector<Vec3>& r, const std::vector<Moments>& M, const Box& box, const PmeGrid& grid,
                        double electric) {
  const std::size_t n = r.size();
  const int order = grid.order;
  if (order < 4 || order > 8)
    throw Error("amoeba PME: a B-spline order from 4 to 8 is needed (the quadrupoles' third derivatives)");
  const int K[3] = {grid.size[0], grid.size[1], grid.size[2]};
  for (int d = 0; d < 3; ++d)
    if (K[d] < order) throw Error("amoeba PME: each grid size must be at least the B-spline order");
  static const MultiIndices mi;
  // Fractional-coordinate moments: u_d = K_d s_d, s = r hinv; a derivative along r_b is
  // sum_d K_d hinv(b, d) along u_d.
  double T[3][3];  // T[b][d] = K_d hinv(b, d)
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) T[b][d] = K[d] * box.hinv(b, d);
  const std::size_t points = static_cast<std::size_t>(K[0]) * K[1] * K[2];
  auto index = [&](int a, int b, int c) {
    a %= K[0];
    b %= K[1];
    c %= K[2];
    if (a < 0) a += K[0];
    if (b < 0) b += K[1];
    if (c < 0) c += K[2];
    return (static_cast<std::size_t>(a) * K[1] + b) * K[2] + c;
  };
  std::vector<std::array<Splines, 3>> sp(n);
  std::vector<std::array<double, 20>> coef(n);  // the density's coefficient of each derivative of the splines
  for (std::size_t j = 0; j < n; ++j) {
    const Vec3 s = box.to_frac(r[j]);
    for (int d = 0; d < 3; ++d) sp[j][static_cast<std::size_t>(d)] = splines(K[d] * (s[d] - std::floor(s[d])), order);
    auto& c = coef[j];
    c.fill(0);
    const Moments& m = M[j];
    c[0] = m[0];
    for (int d = 0; d < 3; ++d) {
      double fd = 0;
      for (int b = 0; b < 3; ++b) fd += T[b][d] * m[static_cast<std::size_t>(1 + b)];
      std::array<int, 3> e{};
      e[static_cast<std::size_t>(d)] = 1;
      c[static_cast<std::size_t>(mi.of(e[0], e[1], e[2]))] += fd;
      for (int d2 = 0; d2 < 3; ++d2) {
        double fq = 0;
        for (int b = 0; b < 3; ++b)
          for (int b2 = 0; b2 < 3; ++b2) fq += T[b][d] * T[b2][d2] * m[static_cast<std::size_t>(4 + 3 * b + b2)];
        std::array<int, 3> e2 = e;
        ++e2[static_cast<std::size_t>(d2)];
        c[static_cast<std::size_t>(mi.of(e2[0], e2[1], e2[2]))] += fq;
      }
    }
  }
  // Spread.
  device::Context ctx(Backend::Cpu);
  device::FftPlan plan(ctx, {K[0], K[1], K[2]});
  Array<std::complex<double>> q(Backend::Cpu, points), f(Backend::Cpu, points);
  std::complex<double>* Q = q.data();
  for (std::size_t g = 0; g < points; ++g) Q[g] = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const auto& s = sp[j];
    for (int i0 = 0; i0 < order; ++i0)
      for (int i1 = 0; i1 < order; ++i1)
        for (int i2 = 0; i2 < order; ++i2) {
          double v = 0;
          for (std::size_t a = 0; a < 10; ++a) {  // orders 0..2 carry the moments
            if (coef[j][a] == 0) continue;
            const auto& al = mi.alpha[a];
            v += coef[j][a] * s[0].theta[static_cast<std::size_t>(al[0])][static_cast<std::size_t>(i0)] *
                 s[1].theta[static_cast<std::size_t>(al[1])][static_cast<std::size_t>(i1)] *
                 s[2].theta[static_cast<std::size_t>(al[2])][static_cast<std::size_t>(i2)];
          }
          Q[index(s[0].first - i0, s[1].first - i1, s[2].first - i2)] += v;
        }
  }
  // Convolve.
  plan.forward(q, f);
  std::array<std::vector<double>, 3> mod;
  for (int d = 0; d < 3; ++d) mod[static_cast<std::size_t>(d)] = pme_bspline_moduli(K[d], order);
  const double volume = box.volume();
  std::complex<double>* F = f.data();
  PmeResult out;
  for (int m0 = 0; m0 < K[0]; ++m0)
    for (int m1 = 0; m1 < K[1]; ++m1)
      for (int m2 = 0; m2 < K[2]; ++m2) {
        const std::size_t g = (static_cast<std::size_t>(m0) * K[1] + m1) * K[2] + m2;
        if (g == 0) {
          F[g] = 0;
          continue;
        }
        // Tinker's signed frequencies (K/2 taken as -K/2 for even K).
        const int mm[3] = {m0 >= (K[0] + 1) / 2 ? m0 - K[0] : m0, m1 >= (K[1] + 1) / 2 ? m1 - K[1] : m1,
                           m2 >= (K[2] + 1) / 2 ? m2 - K[2] : m2};
        double mv[3], m2sum = 0;  // the reciprocal vector
        for (int b = 0; b < 3; ++b) {
          mv[b] = 0;
          for (int d = 0; d < 3; ++d) mv[b] += mm[d] * box.hinv(b, d);
          m2sum += mv[b] * mv[b];
        }
        const double c = std::exp(-M_PI * M_PI * m2sum / (grid.alpha * grid.alpha)) / (M_PI * volume * m2sum) /
                         (mod[0][static_cast<std::size_t>(m0)] * mod[1][static_cast<std::size_t>(m1)] *
                          mod[2][static_cast<std::size_t>(m2)]);
        const double e = 0.5 * electric * c * std::norm(F[g]);  // this wave vector's share of the energy
        const double w = 2 * (M_PI * M_PI / (grid.alpha * grid.alpha) + 1 / m2sum);
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) out.virial[3 * a + b] += e * ((a == b ? 1.0 : 0.0) - w * mv[a] * mv[b]);
        F[g] *= c;
      }
  plan.backward(f, q);  // q now holds phi (unnormalised backward: the 1/N is in the kernel above)
  // Gather.
  out.grad.assign(n, Vec3{});
  out.dM.assign(n, std::array<double, 13>{});
  out.site_energy.assign(n, 0);
  out.site_virial.assign(n, std::array<double, 9>{});
  for (std::size_t j = 0; j < n; ++j) {
    const auto& s = sp[j];
    std::array<double, 20> P{};
    for (int i0 = 0; i0 < order; ++i0)
      for (int i1 = 0; i1 < order; ++i1)
        for (int i2 = 0; i2 < order; ++i2) {
          const double phi = Q[index(s[0].first - i0, s[1].first - i1, s[2].first - i2)].real();
          for (std::size_t a = 0; a < 20; ++a) {
            const auto& al = mi.alpha[a];
            P[a] += phi * s[0].theta[static_cast<std::size_t>(al[0])][static_cast<std::size_t>(i0)] *
                    s[1].theta[static_cast<std::size_t>(al[1])][static_cast<std::size_t>(i1)] *
                    s[2].theta[static_cast<std::size_t>(al[2])][static_cast<std::size_t>(i2)];
          }
        }
    double du[3] = {0, 0, 0};
    for (std::size_t a = 0; a < 10; ++a) {
      if (coef[j][a] == 0) continue;
      out.site_energy[j] += 0.5 * electric * coef[j][a] * P[a];
      const auto& al = mi.alpha[a];
      for (int d = 0; d < 3; ++d) {
        std::array<int, 3> up = al;
        ++up[static_cast<std::size_t>(d)];
        du[d] += electric * coef[j][a] * P[static_cast<std::size_t>(mi.of(up[0], up[1], up[2]))];
      }
    }
    for (int b = 0; b < 3; ++b) {
      double g = 0;
      for (int d = 0; d < 3; ++d) g += du[d] * T[b][d];
      out.grad[j][b] = g;
    }
    auto& dm = out.dM[j];
    dm[0] = electric * P[0];
    for (int b = 0; b < 3; ++b) {
      for (int d = 0; d < 3; ++d) {
        std::array<int, 3> e{};
        e[static_cast<std::size_t>(d)] = 1;
        dm[static_cast<std::size_t>(1 + b)] +=
            electric * T[b][d] * P[static_cast<std::size_t>(mi.of(e[0], e[1], e[2]))];
        for (int b2 = 0; b2 < 3; ++b2)
          for (int d2 = 0; d2 < 3; ++d2) {
            std::array<int, 3> e2 = e;
            ++e2[static_cast<std::size_t>(d2)];
            dm[static_cast<std::size_t>(4 + 3 * b + b2)] +=
                electric * T[b][d] * T[b2][d2] * P[static_cast<std::size_t>(mi.of(e2[0], e2[1], e2[2]))];
          }
      }
    }
    const Moments& m = M[j];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double w = m[static_cast<std::size_t>(1 + a)] * dm[static_cast<std::size_t>(1 + b)];
        for (int c = 0; c < 3; ++c)
          w += 2 * m[static_cast<std::size_t>(4 + 3 * a + c)] * dm[static_cast<std::size_t>(4 + 3 * c + b)];
        out.site_virial[j][static_cast<std::size_t>(3 * a + b)] = w;
      }
    out.energy += out.site_energy[j];
    for (std::size_t c = 0; c < 9; ++c) out.virial[c] += out.site_virial[j][c];
  }
  return out;
}

}  // namespace quasar::amoeba
