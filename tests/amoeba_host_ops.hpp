#pragma once
// induce_solver.hpp's operations on host arrays, for the CPU tests of the solver that the GPU runs:
// the per-atom sums of InduceArgs (double or mixed) and, under Ewald sums, the CPU's reciprocal and
// self fields (as host_reciprocal_hook adds them, in double).
#include <vector>

#include "quasar/potential/amoeba/induce_forms.hpp"
#include "quasar/potential/amoeba/induced_dipoles.hpp"

namespace quasar::amoeba {

struct HostOps {
  const InduceArgs& args;
  const PairGeometry& g;
  const std::vector<Vec3>& r;
  std::vector<double> x[2], rs[2], z[2], p[2], product, applied;
  int n() const { return args.n; }
  void product_of(const std::vector<double>& v) {
    product.assign(v.size(), 0.0);
    for (int i = 0; i < n(); ++i) store3(product.data(), i, mutual_field_at(args, i, v.data()));
    if (g.ewald_alpha <= 0) return;
    std::vector<Moments> dm(r.size());
    for (int i = 0; i < n(); ++i) dm[static_cast<std::size_t>(i)] = dipole_moments(load3(v.data(), i));
    std::vector<Vec3> add(r.size());
    add_reciprocal_field(g, r, dm, add);
    for (int i = 0; i < n(); ++i)
      for (int a = 0; a < 3; ++a) {
        product[static_cast<std::size_t>(3 * i + a)] += add[static_cast<std::size_t>(i)][a];
        product[static_cast<std::size_t>(3 * i + a)] += ewald_self_field(g.ewald_alpha) * v[static_cast<std::size_t>(3 * i + a)];
      }
  }
  void product_of_x(int f) { product_of(x[f]); }
  void product_of_p(int f) { product_of(p[f]); }
  void start_residual(int f) {
    rs[f].resize(product.size());
    for (std::size_t j = 0; j < product.size(); ++j) rs[f][j] = args.alpha[j / 3] > 0 ? product[j] : 0.0;
  }
  void precondition(int f) {
    z[f].resize(rs[f].size());
    for (int i = 0; i < n(); ++i) store3(z[f].data(), i, precondition_at(args, i, rs[f].data()));
  }
  void start_direction(int f) { p[f] = z[f]; }
  void apply_operator(int f) {
    applied.resize(p[f].size());
    for (std::size_t j = 0; j < applied.size(); ++j) {
      const double al = args.alpha[j / 3];
      applied[j] = al > 0 ? (1 / al) * p[f][j] - product[j] : 0.0;
    }
  }
  void step(int f, double s) {
    for (std::size_t j = 0; j < x[f].size(); ++j) {
      x[f][j] += s * p[f][j];
      rs[f][j] -= s * applied[j];
    }
  }
  void direction(int f, double beta) {
    for (std::size_t j = 0; j < p[f].size(); ++j) p[f][j] = z[f][j] + beta * p[f][j];
  }
  static double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (std::size_t j = 0; j < a.size(); ++j) sum += a[j] * b[j];
    return sum;
  }
  double dot_rs_z(int f) { return dot(rs[f], z[f]); }
  double dot_rs_rs(int f) { return dot(rs[f], rs[f]); }
  double dot_p_applied(int f) { return dot(p[f], applied); }
};

}  // namespace quasar::amoeba
