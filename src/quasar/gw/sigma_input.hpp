#pragma once
// The input of Sigma in the keyword format of BerkeleyGW's `sigma.inp`: one keyword per line with its
// values, and the blocks `begin kpoints ... end` (k in reciprocal-lattice coordinates and a divisor),
// `begin offdiag ... end` (n m l) and, for Hartree-Fock, `begin qpoints ... end` (q, divisor, q -> 0
// flag). Quasar's own optional block `begin berkeleygw_symmetries ... end` gives the mean field's
// symmetry operations in BerkeleyGW's order, each as the nine integers of a sigma_hp.log "mtrx" line
// (column by column), for Sigma's map of q onto the dielectric matrices (SigmaSettings::operations;
// without it the crystal's operations in BerkeleyGW's EPM order are derived). '#' and '!' start comments; keywords are case-insensitive. BerkeleyGW's keywords for what is
// not provided are refused with the reason, any other as unknown, each naming the file and line.
#include <string>

#include "quasar/gw/sigma.hpp"

namespace quasar::gw {

struct SigmaInput {
  std::string path;
  SigmaSettings settings;
  bool symmetric_q_grid = true;        // BerkeleyGW's default; no_symmetries_q_grid turns it off
  std::vector<Vec3d> qpoints;          // Hartree-Fock's q-points (checked against the grid)
  std::vector<long> kpoint_lines;
};

SigmaInput read_sigma_input(const std::string& path);

}  // namespace quasar::gw
