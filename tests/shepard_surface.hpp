#pragma once
// An analytic test surface for the Shepard tests, written here and independent of the code under
// test: Morse terms over all pairs (parameters by the pair's elements) plus a smooth three-body term
// over all triples, kappa R_ab R_ac R_bc exp(-(R_ab + R_ac + R_bc) / lambda). Energy, Cartesian
// gradient and Hessian (through the distances: dE/dR, d2E/dR2 and the curvature of R itself);
// shepard_test checks the derivatives by finite differences.
#include <cmath>
#include <string>
#include <vector>

namespace quasar::test {

struct TestSurface {
  std::vector<std::string> elements;
  double kappa = 0.4, lambda = 1.3;

  struct Morse {
    double d, a, r0;
  };
  Morse morse(int i, int j) const {
    const bool hh = elements[static_cast<std::size_t>(i)] == "H" && elements[static_cast<std::size_t>(j)] == "H";
    return hh ? Morse{4.7, 1.9, 0.74} : Morse{4.6, 2.2, 0.97};
  }

  // Energy; with g (3N) and h (3N x 3N, row-major) their derivatives.
  double operator()(const std::vector<double>& x, std::vector<double>* g = nullptr,
                    std::vector<double>* h = nullptr) const {
    const int n = static_cast<int>(elements.size()), nb = n * (n - 1) / 2, n3 = 3 * n;
    std::vector<int> pa, pb;
    std::vector<double> r(static_cast<std::size_t>(nb));
    std::vector<std::vector<int>> pair(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), -1));
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        pair[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
            pair[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = static_cast<int>(pa.size());
        double s = 0;
        for (int k = 0; k < 3; ++k) s += std::pow(x[static_cast<std::size_t>(3 * a + k)] - x[static_cast<std::size_t>(3 * b + k)], 2);
        r[pa.size()] = std::sqrt(s);
        pa.push_back(a);
        pb.push_back(b);
      }
    // E(R), dE/dR, d2E/dR2.
    double e = 0;
    std::vector<double> de(static_cast<std::size_t>(nb), 0.0), dde(static_cast<std::size_t>(nb * nb), 0.0);
    auto at = [nb](int l, int m) { return static_cast<std::size_t>(l * nb + m); };
    for (int l = 0; l < nb; ++l) {
      const Morse m = morse(pa[static_cast<std::size_t>(l)], pb[static_cast<std::size_t>(l)]);
      const double ex = std::exp(-m.a * (r[static_cast<std::size_t>(l)] - m.r0)), y = 1 - ex;
      e += m.d * y * y;
      de[static_cast<std::size_t>(l)] += 2 * m.d * y * m.a * ex;
      dde[at(l, l)] += 2 * m.d * m.a * m.a * ex * (2 * ex - 1);
    }
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        for (int c = b + 1; c < n; ++c) {
          const int ls[3] = {pair[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)],
                             pair[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)],
                             pair[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)]};
          double rr[3], prod = 1, sum = 0;
          for (int k = 0; k < 3; ++k) {
            rr[k] = r[static_cast<std::size_t>(ls[k])];
            prod *= rr[k];
            sum += rr[k];
          }
          const double ex = std::exp(-sum / lambda), psi = kappa * prod * ex;
          e += psi;
          // d psi / dR_k = psi (1/R_k - 1/lambda); d2 = psi [(1/R_k - 1/l)(1/R_m - 1/l) - delta_km / R_k^2].
          for (int k = 0; k < 3; ++k) {
            const double fk = 1 / rr[k] - 1 / lambda;
            de[static_cast<std::size_t>(ls[k])] += psi * fk;
            for (int m = 0; m < 3; ++m) {
              const double fm = 1 / rr[m] - 1 / lambda;
              dde[at(ls[k], ls[m])] += psi * (fk * fm - (k == m ? 1 / (rr[k] * rr[k]) : 0.0));
            }
          }
        }
    if (!g && !h) return e;
    // dR_l/dx: +u on atom a, -u on atom b (u = (x_a - x_b)/R); d2R_l/dx2 = (I - u u^T)/R blocks.
    std::vector<double> dr(static_cast<std::size_t>(nb * n3), 0.0);
    for (int l = 0; l < nb; ++l) {
      const int a = pa[static_cast<std::size_t>(l)], b = pb[static_cast<std::size_t>(l)];
      for (int k = 0; k < 3; ++k) {
        const double u = (x[static_cast<std::size_t>(3 * a + k)] - x[static_cast<std::size_t>(3 * b + k)]) / r[static_cast<std::size_t>(l)];
        dr[static_cast<std::size_t>(l * n3 + 3 * a + k)] = u;
        dr[static_cast<std::size_t>(l * n3 + 3 * b + k)] = -u;
      }
    }
    if (g) {
      g->assign(static_cast<std::size_t>(n3), 0.0);
      for (int l = 0; l < nb; ++l)
        for (int i = 0; i < n3; ++i) (*g)[static_cast<std::size_t>(i)] += de[static_cast<std::size_t>(l)] * dr[static_cast<std::size_t>(l * n3 + i)];
    }
    if (h) {
      h->assign(static_cast<std::size_t>(n3 * n3), 0.0);
      for (int l = 0; l < nb; ++l)
        for (int m = 0; m < nb; ++m) {
          const double k = dde[at(l, m)];
          if (k == 0) continue;
          for (int i = 0; i < n3; ++i)
            for (int j = 0; j < n3; ++j)
              (*h)[static_cast<std::size_t>(i * n3 + j)] += k * dr[static_cast<std::size_t>(l * n3 + i)] * dr[static_cast<std::size_t>(m * n3 + j)];
        }
      for (int l = 0; l < nb; ++l) {
        const int a = pa[static_cast<std::size_t>(l)], b = pb[static_cast<std::size_t>(l)];
        const double rl = r[static_cast<std::size_t>(l)], s = de[static_cast<std::size_t>(l)] / rl;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            const double ui = dr[static_cast<std::size_t>(l * n3 + 3 * a + i)], uj = dr[static_cast<std::size_t>(l * n3 + 3 * a + j)];
            const double k = s * ((i == j ? 1.0 : 0.0) - ui * uj);
            (*h)[static_cast<std::size_t>((3 * a + i) * n3 + 3 * a + j)] += k;
            (*h)[static_cast<std::size_t>((3 * b + i) * n3 + 3 * b + j)] += k;
            (*h)[static_cast<std::size_t>((3 * a + i) * n3 + 3 * b + j)] -= k;
            (*h)[static_cast<std::size_t>((3 * b + i) * n3 + 3 * a + j)] -= k;
          }
      }
    }
    return e;
  }
};

}  // namespace quasar::test
