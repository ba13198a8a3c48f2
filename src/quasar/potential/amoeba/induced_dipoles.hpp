#pragma once
// AMOEBA's induced dipoles (the pairs of pair_geometry.hpp, and Ewald's parts below): the permanent
// multipoles' Thole-damped fields at each polarizable atom (the direct field scaled by d factors, by
// polarization group; the one of the energy by p factors, by bonds and groups), and the dipoles
// u_d, u_p that solve
//   u = alpha (E_direct + T u),
// T the Thole-damped dipole field tensor scaled by u factors, for each of the two fields (MUTUAL),
// or u = alpha E_direct (DIRECT). The solver is a conjugate gradient on (1/alpha - T) u = E, which
// is symmetric (T's pair tensors stored up to 4e6 pairs, else formed at each product), preconditioned as
// Tinker does (2 alpha on the diagonal, alpha T alpha for the pairs within usolve-cutoff, 4.5 Å), started
// from the direct dipoles and run until the RMS residual field over the polarizable atoms, in Tinker's Debye measure
// (4.80321 times e/Å^2), falls below polar-eps for both fields, as Tinker's induce does.
#include <vector>

#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"

namespace quasar::amoeba {

struct InducedDipoles {
  std::vector<Vec3> field_d, field_p;  // direct fields, e/Å^2
  std::vector<Vec3> ud, up;            // induced dipoles, e Å
  int iterations = 0;                  // conjugate-gradient steps (0 for DIRECT)
  double residual = 0;                 // the last RMS residual (Debye)
};

// The moments of a point dipole u (e Å).
inline Moments dipole_moments(const Vec3& u) {
  Moments m{};
  m[1] = u.x;
  m[2] = u.y;
  m[3] = u.z;
  return m;
}

// The direct fields of the lab-frame moments M at r.
void direct_fields(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                   const std::vector<Moments>& M, std::vector<Vec3>& field_d, std::vector<Vec3>& field_p);

// The u-scaled, Thole-damped fields at every atom of dipoles u at r (Tinker's ufield); store_tensors
// false forms the pair tensors as they are used, as the solver does for large systems.
std::vector<Vec3> mutual_field(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                               const std::vector<Vec3>& u, bool store_tensors = true);

// With Ewald sums (g.ewald_alpha > 0): the field's reciprocal part by particle-mesh Ewald (minus the
// potential's gradient at each site, every site's own density included) and the self field
// (4 alpha^3 / (3 sqrt(pi))) times the site's dipole, which Tinker adds.
double ewald_self_field(double alpha);
void add_reciprocal_field(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                          std::vector<Vec3>& field);

// The induced dipoles at r. Throws Error when the solver does not reach polar-eps in polar-iter steps.
InducedDipoles induce(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r);

}  // namespace quasar::amoeba
