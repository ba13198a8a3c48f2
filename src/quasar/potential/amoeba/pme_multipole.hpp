#pragma once
// The reciprocal part of Ewald's sum of AMOEBA's permanent multipoles by particle-mesh Ewald, on the
// CPU in double (Sagui, Pedersen and Darden's multipole PME, with Tinker's choices): each site's
// moments, as derivatives of its point density, spread onto a K1 x K2 x K3 grid through order-p
// cardinal B-splines of its fractional coordinates (a dipole through the splines' first
// derivatives, a quadrupole through their second); the grid convolved by FFT with
//   exp(-pi^2 m^2 / alpha^2) / (pi V m^2) / (|b1(m1)|^2 |b2(m2)|^2 |b3(m3)|^2),
// the B-spline moduli with Tinker's fixes (near-zero moduli averaged with their neighbours, and the
// optimal zeta factor of the exponential Euler splines); the potential and its derivatives to third
// order gathered back at the sites. E = (f/2) sum_g Q(g) phi(g); the gradient and the moments'
// coefficients (for the frames' chain rule) follow from the gathered derivatives.
// The virial at fixed lab moments: the kernel's dependence on the cell,
//   (f/2) sum_m C(m) |F(m)|^2 [delta_ab - 2 (pi^2/alpha^2 + 1/m^2) m_a m_b],
// and the fractional moments' (d (x) dE/dd + 2 Q dE/dQ per site); the frames' rotation part comes
// with the chain rule (multipole_frame.hpp).
#include <array>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/multipole_pair.hpp"

namespace quasar::amoeba {

struct PmeGrid {
  std::array<int, 3> size{};
  int order = 5;
  double alpha = 0;  // 1/Å
};

// Tinker's defaults: alpha with erfc(alpha rc) / rc = 1e-8 (bisection), and per cell vector the
// smallest size of factors 2, 3 and 5 of at least 1.2 times its length.
double ewald_alpha(double cutoff);
int pme_grid_size(double length);

// |b(m)|^-2 of one dimension of K points for order-p splines, as Tinker computes it (dftmod): near-zero
// moduli averaged with their neighbours, times the optimal zeta^2 of the exponential Euler splines.
std::vector<double> pme_bspline_moduli(int K, int order);

struct PmeResult {
  double energy = 0;                               // kcal/mol (times the electric constant given)
  std::vector<Vec3> grad;                          // dE/dx of the sites (positions fixed moments)
  std::vector<std::array<double, 13>> dM;          // dE/dM, the lab moments' coefficients
  double virial[9] = {};                           // -dE/d(strain) at fixed lab moments, row-major
  std::vector<double> site_energy;                 // (f/2) of each site's density times the potential
  std::vector<std::array<double, 9>> site_virial;  // each site's moment part of the virial
};

PmeResult pme_multipole(const std::vector<Vec3>& positions, const std::vector<Moments>& moments, const Box& box,
                        const PmeGrid& grid, double electric);

}  // namespace quasar::amoeba
