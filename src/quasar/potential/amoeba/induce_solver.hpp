#pragma once
// The conjugate gradient of induce() (induced_dipoles.cpp) over an interface of vector operations, so
// that the GPU (induce_gpu.cpp, on device arrays) and the CPU tests (on host arrays, with the same
// per-atom sums) run the same loop. Per dipole set f (0: u_d, 1: u_p) the operations hold x_f (the
// dipoles, started at alpha E_f), the residual rs_f = E + T x - x/alpha, its preconditioned z_f, the
// direction p_f, and two shared work vectors: the product T v and the operator's (1/alpha - T) p.
//   Ops::product_of_x(f)    product = T x_f (real space, with Ewald's reciprocal and self parts)
//   Ops::product_of_p(f)    product = T p_f
//   Ops::start_residual(f)  rs_f = product where alpha > 0, else 0
//   Ops::precondition(f)    z_f = Tinker's preconditioner applied to rs_f
//   Ops::start_direction(f) p_f = z_f
//   Ops::apply_operator(f)  applied = p_f / alpha - product where alpha > 0, else 0
//   Ops::step(f, s)         x_f += s p_f, rs_f -= s applied
//   Ops::direction(f, b)    p_f = z_f + b p_f
//   Ops::dot_rs_z(f), dot_rs_rs(f), dot_p_applied(f)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"

namespace quasar::amoeba {

inline constexpr double kInduceDebye = 4.80321;  // e Å in Debye, Tinker's

// Runs the solver from the direct dipoles until Tinker's RMS residual (Debye, over the `polar`
// polarizable atoms) is below polar-eps, as induce() does step for step; returns the step count and
// the last residual. Throws Error after polar-iter steps.
template <class Ops>
void induce_conjugate_gradient(Ops& ops, const ElectrostaticSystem& e, std::size_t polar, int& iterations,
                               double& residual) {
  double rz[2];
  for (int f = 0; f < 2; ++f) {
    ops.product_of_x(f);
    ops.start_residual(f);
    ops.precondition(f);
    ops.start_direction(f);
    rz[f] = ops.dot_rs_z(f);
  }
  auto rms = [&] {
    const double worst = std::max(ops.dot_rs_rs(0), ops.dot_rs_rs(1));
    return kInduceDebye * std::sqrt(worst / static_cast<double>(polar));
  };
  iterations = 0;
  residual = rms();
  while (residual >= e.polar_eps) {
    if (iterations >= e.polar_iter)
      throw Error("amoeba polarization: the induced dipoles did not converge to polar-eps " +
                  std::to_string(e.polar_eps) + " in " + std::to_string(e.polar_iter) + " steps (RMS residual " +
                  std::to_string(residual) + " Debye); raise polar-iter or polar-eps");
    for (int f = 0; f < 2; ++f) {
      if (rz[f] == 0) continue;
      ops.product_of_p(f);
      ops.apply_operator(f);
      ops.step(f, rz[f] / ops.dot_p_applied(f));
      ops.precondition(f);
      const double next = ops.dot_rs_z(f);
      const double beta = next / rz[f];
      rz[f] = next;
      ops.direction(f, beta);
    }
    ++iterations;
    residual = rms();
  }
}

}  // namespace quasar::amoeba
