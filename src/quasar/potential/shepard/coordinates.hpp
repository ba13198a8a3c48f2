#pragma once
// Collins' coordinates: Z = {1/R_l} over all atom pairs (pair_index order), the Wilson B matrix
// dZ/dx, and the construction of a data point's Taylor expansion in local internal coordinates
// zeta = U^T Z from Cartesian energy, gradient and Hessian.
#include <vector>

#include "quasar/potential/shepard/dataset.hpp"

namespace quasar::shepard {

// Z (pairs values) of n atoms at x (3n, atom by atom); with b, also B = dZ/dx (pairs x 3n,
// row-major).
void inverse_distances(const double* x, int n, double* z, double* b = nullptr);

// An ab initio point: Cartesian energy (eV), gradient dE/dx (3N, eV/Å) and Hessian (3N x 3N,
// eV/Å², row-major).
struct CartesianPoint {
  std::vector<double> positions;
  double energy = 0;
  std::vector<double> gradient;
  std::vector<double> hessian;
};

// The data point of a Cartesian point: U from the eigenvectors of B B^T with the 3N-6 largest
// eigenvalues (the left singular vectors of B), the gradient and Hessian in zeta through the
// pseudo-inverse M = (C C^T)^-1 C of C = U^T B:
//   dV/dzeta = M g,  d2V/dzeta2 = M (H - sum_l (U dV/dzeta)_l d2Z_l/dx2) M^T,
// the second term being the curvature of the coordinates themselves. `confidence` holds the
// confidence lengths (one per pair). An Error for fewer than 3 atoms, and for a linear or nearly
// linear geometry (B of rank below 3N-6), which this interpolation does not handle.
DataPoint make_data_point(const CartesianPoint& point, std::vector<double> confidence);

}  // namespace quasar::shepard
