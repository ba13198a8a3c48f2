#pragma once
// The interaction of two point multipoles (charge, dipole, quadrupole) through a radial kernel, as
// Cartesian derivative tensors. For a radial function f(r) with B_0 = f and B_{n+1} = -(1/r) dB_n/dr,
// the n-th derivative of f at the displacement s is
//   T_{a1..an} = sum over sets of k disjoint index pairs of (-1)^(n-k) B_{n-k} prod(delta) prod(s),
// so that one routine serves Coulomb (B_n = (2n-1)!!/r^(2n+1)), Thole-damped kernels (B_n scaled by
// lambda_3, lambda_5, ...) and later Ewald's erfc kernels.
//
// Moments are Tinker's: charge, dipole, and the quadrupole as a full 3x3 matrix already divided by 3,
// laid out as [q, dx, dy, dz, Qxx, Qxy, Qxz, Qyx, Qyy, Qyz, Qzx, Qzy, Qzz]. Tinker's pair formulas
// assume traceless quadrupoles and carry no term of a quadrupole's own trace; parameter files give
// traces of up to 1e-5, so that to equal Tinker the trace enters as the formulas imply: every
// contraction of a quadrupole's two indices with each other is left out. That is the full
// contraction plus trace(Q) times the tensor of one order less built from B shifted by one
// (B_m -> B_{m+1}); `shifted` tensors serve it.
#include <array>

namespace quasar::amoeba {

using Moments = std::array<double, 13>;

constexpr int kMaxTensorOrder = 5;

// B_0 .. B_7 of one kernel at one distance (NaN where the kernel does not define one).
struct Radial {
  std::array<double, 8> b{};
};
Radial coulomb_radial(double r);
// Ewald's real-space kernel erfc(alpha r)/r, with (1 - scale) of the Coulomb kernel taken out for a
// pair whose interaction the exclusion rules scale (the reciprocal sum includes it whole):
// B_n = (1/r^2) [(2n-1) B_{n-1} + (2 alpha^2)^n exp(-alpha^2 r^2) / (alpha sqrt(pi))] for erfc.
Radial ewald_real_radial(double r, double alpha, double scale);
// Thole's damping with a = min(thole_i, thole_k) and u = r / (alpha_i alpha_k)^(1/6) (damp =
// (alpha_i alpha_k)^(1/6), 0 for no damping): B_1..B_4 scaled by lambda_3, lambda_5, lambda_7, lambda_9.
Radial thole_radial(double r, double a, double damp);

// The derivative tensors of orders 0..order[shift] at s for the kernel shifted by 0, 1 and 2 (flat
// index of a1..an: sum a_j 3^(n-1-j), so that appending an index c gives 3 I + c).
struct PairTensors {
  std::array<std::array<double, 243>, kMaxTensorOrder + 1> t[3];
  int order[3] = {-1, -1, -1};
};
void pair_tensors(const double s[3], const Radial& radial, const std::array<int, 3>& orders, PairTensors& out);

// Derivatives of the potential of `source` (orders 0..order; 1 + 3 + 9 + 27 values) at a point
// displaced s from it, s the displacement the tensors were built for (reversed = the tensors of -s);
// quad_trace: whether the source's own trace enters as Tinker's formulas imply. shift picks the
// kernel shifted by that much (the trace of a receiving quadrupole needs the potential for shift 1).
struct Potential3 {
  double v[40] = {};  // [0]: value, [1..3]: gradient, [4..12]: second, [13..39]: third derivatives
};
void source_potential(const Moments& source, const PairTensors& t, int order, int shift, bool reversed,
                      Potential3& out);

// A receiver's energy U = q phi + d . grad phi + Q : grad grad phi + trace(Q) phi', with phi' the
// potential of the shifted kernel at the receiver (order 0; order 1 for the gradient): U, dU/dx of
// the receiver (if grad), and dU/dM (if d_moments: the 13 moments' coefficients).
double receive(const Moments& receiver, const Potential3& phi, const Potential3& shifted, double* grad,
               double* d_moments);

inline double trace(const Moments& m) { return m[4] + m[8] + m[12]; }

}  // namespace quasar::amoeba
