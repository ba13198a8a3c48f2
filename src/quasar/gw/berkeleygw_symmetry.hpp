#pragma once
// The crystal's space-group operations in the order BerkeleyGW's EPM program writes them to its
// wavefunction files. BerkeleyGW's Sigma picks the LAST operation of that list that maps a q-point onto
// its dielectric file's (sigma_q_map.hpp), so its numbers depend on the order, not only on the group.
//
// The order is a property of the algorithm BerkeleyGW calls (spglib 1.0.9, bundled in its source,
// symmetry precision 1e-5 in units of the first lattice vector's length), followed here from its
// description (docs/formats/gw-sigma.md, "BerkeleyGW's order of the symmetry operations"):
//   1. the lattice, scaled so that the first vector has length 1, is Delaunay-reduced and the shortest
//      basis of that reduced set chosen;
//   2. every integer matrix whose columns are three of 26 fixed small vectors (a fixed table order,
//      the first column's index varying slowest) with determinant +-1 that keeps the reduced basis's
//      metric (elementwise, 1e-5) is a lattice rotation, in that loop order, then carried back to the
//      input basis;
//   3. each lattice rotation that, with some translation, maps the atoms onto atoms of their species
//      (distance < 1e-5) is kept, in that order;
//   4. BerkeleyGW then drops the operations that do not fit the FFT grid and puts the identity first
//      (it is first already).
// Exact for primitive cells (no pure translation); a supercell is reported as not derived (`exact`
// false) and its operations come in crystal_operations' order instead.
#include <array>
#include <string>
#include <vector>

#include "quasar/gw/symmetry.hpp"

namespace quasar::gw {

struct BerkeleyGwSymmetries {
  // x -> rotation x + translation (fractional coordinates; translation in [0, 1)).
  std::vector<CrystalOperation> operations;
  bool exact = true;   // false: a supercell, whose order was not derived
  std::string reason;  // why not exact
};

// `lattice`: the lattice vectors (rows, any length unit); `types`: one label per atom (the atomic
// number: atoms of equal number are the same species); `fft_grid`: BerkeleyGW drops the operations
// whose rotation or translation does not fit it (0 0 0: none dropped).
BerkeleyGwSymmetries berkeleygw_symmetries(const std::array<Vec, 3>& lattice, const std::vector<Vec>& positions,
                                           const std::vector<int>& types, const std::array<int, 3>& fft_grid);

// The same from an EPM input (its atoms' atomic numbers; BerkeleyGW's EPM program treats the first
// atom as its own species when antisymmetric form factors are given, and so does this).
BerkeleyGwSymmetries berkeleygw_symmetries(const EpmInput& input);

// The matrices M = R^-T (reciprocal coordinates, q -> M q) of the operations, as sigma_hp.log's
// "mtrx" lines give them and SigmaSettings::operations takes them.
std::vector<IntMatrix3> reciprocal_matrices(const std::vector<CrystalOperation>& operations);

}  // namespace quasar::gw
