#pragma once
// Local frames of AMOEBA multipoles (Tinker's rotmat): the rotation whose columns are the local x, y
// and z axes in the lab, from the positions of the site and its axis atoms; the lab-frame moments
// (dipole A d, quadrupole A Q A^T; at a chiral Z-then-X site, the y components' signs follow the
// side its y atom lies on, as Tinker's chkpole sets them at each evaluation); and the chain rule
// that turns the energy's derivative with respect to a site's lab moments into gradients on the
// atoms that define its frame (what Tinker calls converting torques to forces), exactly, through
// forward-mode derivatives of the rotation.
#include <array>
#include <vector>

#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"

namespace quasar::amoeba {

// The atoms whose positions define a site's frame: the site, then z, x, y where the frame uses them.
int frame_atoms(const MultipoleSite& site, int self, int atoms[4]);

// Lab-frame moments of every site; positions by input index.
std::vector<Moments> lab_moments(const ElectrostaticSystem& e, const PairGeometry& g,
                                 const std::vector<Vec3>& positions);

// Adds dE/dx of the frame atoms of `self` to grad, given dE/dM (13 coefficients of the lab moments),
// and the virial's rotation part, -sum_j (x_j - x_self) (x) g_j, to virial (if not null; row-major).
void add_frame_gradient(const ElectrostaticSystem& e, const PairGeometry& g, int self,
                        const std::vector<Vec3>& positions, const double dE_dM[13], std::vector<Vec3>& grad,
                        double* virial);

}  // namespace quasar::amoeba
