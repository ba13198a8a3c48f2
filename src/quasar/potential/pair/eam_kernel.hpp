#pragma once
// EAM spline evaluation shared by the CPU loop and the kernels. Tables are cubic splines on uniform
// grids with 7 coefficients per knot (derivative in 0..2, value in 3..6), 1-based knots, built and
// evaluated the way LAMMPS's pair_style eam does, so that results agree with it to rounding.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar {

struct EamEval {
  const double* frho;  // [nfrho][nrho + 1][7]
  const double* rhor;  // [nrhor][nr + 1][7]
  const double* z2r;   // [nz2r][nr + 1][7]
  const int* type2frho;  // [ntypes]
  const int* type2rhor;  // [ntypes][ntypes]: density at j due to an atom of type i uses type2rhor[i][j]
  const int* type2z2r;   // [ntypes][ntypes]
  int ntypes, nrho, nr;
  double rdr, rdrho, rhomax, cutsq;

  // The knot of grid position p (1-based) in [1, last], clamped before the conversion to int so that
  // a position far beyond the table (a fine grid, a huge density) stays defined; nan goes to 1. For
  // positions inside the table this is LAMMPS's static_cast<int>(p) clamped afterwards.
  QUASAR_HD static int knot(double p, int last) { return p >= 1.0 ? static_cast<int>(p <= last ? p : last) : 1; }
  // Grid position of r: knot m and fraction p.
  QUASAR_HD void r_knot(double r, int& m, double& p) const {
    p = r * rdr + 1.0;
    m = knot(p, nr - 1);
    p -= m;
    p = p < 1.0 ? p : 1.0;
  }
  QUASAR_HD const double* rhor_coeff(int ti, int tj, int m) const {
    return rhor + (static_cast<long>(type2rhor[ti * ntypes + tj]) * (nr + 1) + m) * 7;
  }
  QUASAR_HD static double value(const double* c, double p) { return ((c[3] * p + c[4]) * p + c[5]) * p + c[6]; }
  QUASAR_HD static double slope(const double* c, double p) { return (c[0] * p + c[1]) * p + c[2]; }

  // Density contributed at an atom of type tj by a neighbour of type ti at distance r.
  QUASAR_HD double density(int ti, int tj, double r) const {
    int m;
    double p;
    r_knot(r, m, p);
    return value(rhor_coeff(ti, tj, m), p);
  }
  // Embedding energy and its derivative; linear beyond the table's last density.
  QUASAR_HD void embed(int t, double rho, double& f, double& fp) const {
    double p = rho * rdrho + 1.0;
    const int m = knot(p, nrho - 1);
    p -= m;
    p = p < 1.0 ? p : 1.0;
    const double* c = frho + (static_cast<long>(type2frho[t]) * (nrho + 1) + m) * 7;
    fp = slope(c, p);
    f = value(c, p);
    if (rho > rhomax) f += fp * (rho - rhomax);
  }
  // Pair term for atoms i (type ti, embedding slope fpi) and j: returns fpair (force on i =
  // fpair * (r_i - r_j)) and the pair energy phi.
  QUASAR_HD void pair(int ti, int tj, double r, double fpi, double fpj, double& fpair, double& phi) const {
    int m;
    double p;
    r_knot(r, m, p);
    const double rhoip = slope(rhor_coeff(ti, tj, m), p);  // d/dr of density at j due to i
    const double rhojp = slope(rhor_coeff(tj, ti, m), p);  // d/dr of density at i due to j
    const double* c = z2r + (static_cast<long>(type2z2r[ti * ntypes + tj]) * (nr + 1) + m) * 7;
    const double z2p = slope(c, p), z2 = value(c, p);
    const double recip = 1.0 / r;
    phi = z2 * recip;
    const double phip = z2p * recip - phi * recip;
    fpair = -(fpi * rhojp + fpj * rhoip + phip) * recip;
  }
  // The same when some atoms are ghosts: the embedding slopes of ghosts are zero (their densities
  // are incomplete; a centre's embedding energy is its own) and the pair term counts with weight w
  // (HalfListSums::add_shared_pair).
  QUASAR_HD void shared_pair(int ti, int tj, double r, double fpi, double fpj, double w, double& fpair,
                             double& phi) const {
    int m;
    double p;
    r_knot(r, m, p);
    const double rhoip = slope(rhor_coeff(ti, tj, m), p);
    const double rhojp = slope(rhor_coeff(tj, ti, m), p);
    const double* c = z2r + (static_cast<long>(type2z2r[ti * ntypes + tj]) * (nr + 1) + m) * 7;
    const double z2p = slope(c, p), z2 = value(c, p);
    const double recip = 1.0 / r;
    phi = z2 * recip;
    const double phip = z2p * recip - phi * recip;
    fpair = -(fpi * rhojp + fpj * rhoip + w * phip) * recip;
  }
};

}  // namespace quasar
