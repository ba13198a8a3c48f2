#pragma once
// What the fast path (interpolant.cpp) and the reference (interpolant_reference.cpp) share.
#include <cmath>
#include <cstddef>

#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

// s^e as every weight of the interpolation takes it (the GPU's twin is in gpu_tables.cuh): by
// multiplication when e is a small whole number (p = 2, q = 12: the usual case).
inline double power(double s, double e) {
  if (e == std::floor(e) && e >= 0 && e <= 64) {
    double out = 1, base = s;
    for (unsigned n = static_cast<unsigned>(e); n; n >>= 1, base *= base)
      if (n & 1u) out *= base;
    return out;
  }
  return std::pow(s, e);
}

// The relative weights renormalised over the set's ns replicas, from their u in ws.scaled (replaced
// by the weights), and V = sum_j w_j T_j over ws.taylor; at_point: some u is 0.
double weigh_terms(std::size_t ns, Workspace& ws, bool& at_point);

// dV/dx = B^T dV/dZ into grad (3N) at x, Z and dV/dZ (pairs values each).
void add_cartesian_gradient(const Interpolant& f, const double* x, const double* z, const double* dvdz, double* grad);

}  // namespace quasar::shepard
