#pragma once
// The mean fields Epsilon sums over, from either source: an EPM input (BerkeleyGW's WFN.in), its
// symmetry-reduced k-points unfolded (symmetry.hpp) and solved at every point, or a wavefunction
// file (docs/formats/gw-wavefunctions.md) that already holds the whole zone (equal weights).
#include <string>
#include <vector>

#include "quasar/device/context.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

// `shift`: for the shifted mean field WFNq, the q -> 0 vector (its list is unfolded by the rotations
// that keep it). A file is told from an input by HDF5's signature. Errors name the file.
Wavefunctions load_mean_field(const std::string& path, device::Context& ctx, const Vec3d* shift = nullptr);

// The valence density rho(G) (sigma.hpp's valence_density) that BerkeleyGW's Sigma reads for the
// plasmon-pole model of this mean field: for an EPM input the density of its listed k-points with
// their weights, not symmetrised (what that EPM program writes to RHO); for a wavefunction file,
// the file's states.
std::vector<double> mean_field_density(const std::string& path, device::Context& ctx);

// The k-points an EPM input lists (its reduced set); none for a wavefunction file.
std::vector<Vec3d> listed_kpoints(const std::string& path);

// "" when every k-point has the same weight (the whole zone); else what is wrong, for messages.
std::string unequal_weights(const Wavefunctions& w);

}  // namespace quasar::gw
