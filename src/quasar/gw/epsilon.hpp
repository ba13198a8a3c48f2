#pragma once
// Epsilon: the static RPA dielectric matrix of an insulator and its inverse, with BerkeleyGW's
// conventions (energies in Rydberg, lengths in bohr):
//   M_vc(q+G) = <c,k| e^{-i(q+G).r} |v,k+q>, by FFT of the states' periodic parts on a grid that holds
//               every product without aliasing;
//   chi0_GG'(q) = 4 / (N_k Omega) sum_{k,v,c} M_vc(G) M_vc(G')^* / (E_v(k+q) - E_c(k)), as the matrix
//               product -B^H B (ZGEMM) of the pairs' scaled conjugate matrix elements B;
//   epsilon_GG' = delta_GG' - v(q+G) chi0_GG', v = 8 pi / |q+G|^2, inverted by LU.
// The k-sum runs over every point of the mean field's grid. For the q -> 0 point the valence states
// come from the shifted grid (WFNq: k + q), the G-vectors are those of |G|^2 < cutoff, and v uses q.
// The G-vectors of each q are sorted by |q+G|^2 (ties within 1e-12 by (G1, G2, G3)), as BerkeleyGW
// sorts them, so that element (0, 0) is its head and the last its "Gmax".
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

struct EpsilonOfQ {
  Vec3d q{};  // reciprocal-lattice coordinates
  bool q0 = false;
  std::vector<GVector> gvectors;  // sorted, |q+G|^2 < cutoff (|G|^2 for q -> 0)
  std::vector<double> coulomb;    // v(q+G) = 8 pi / |q+G|^2 (Ry bohr^3)
  std::array<int, 3> fft_grid{};
  // n x n, column-major (element (i, j) at i + j n): chi0 (1/(Ry bohr^3)) and epsilon^-1.
  std::vector<std::complex<double>> chi, epsilon, epsilon_inverse;
  // Re chi0(0, 0) and Re chi0(Gmax, Gmax) summed over the first 1, 2, ... conduction bands.
  std::vector<double> chi_head_by_bands, chi_gmax_by_bands;
  double hermiticity_error = 0;  // max |chi_ij - chi_ji^*|
  std::size_t size() const { return gvectors.size(); }
  std::complex<double> at(const std::vector<std::complex<double>>& m, std::size_t i, std::size_t j) const {
    return m[i + j * gvectors.size()];
  }
};

struct EpsilonResult {
  bool real = true;  // the mean field's flavour (the output prints real parts alone, as BerkeleyGW's real build)
  int valence = 0, conduction = 0;
  int kpoints = 0;  // the full grid summed over
  double volume = 0;  // bohr^3
  std::vector<EpsilonOfQ> q;
};

// Progress: a line per finished step ("q-pt 1 of 3: k-point 4 of 8").
using EpsilonProgress = std::function<void(const std::string&)>;

// The dielectric matrices of every q-point of the input. `wfn`: the states on every point of a
// k-grid (grid_kpoints order is not required); `wfnq`: the same grid shifted by the q -> 0 point
// (needed only when the input has one). Both need integer occupations, the same count at every k.
EpsilonResult compute_epsilon(const EpsilonInput& input, const Wavefunctions& wfn, const Wavefunctions* wfnq,
                              device::Context& ctx, const EpsilonProgress& progress = {});

// The sorted G-vectors of one q (exposed for tests): from the mean field's density sphere.
std::vector<GVector> epsilon_gvectors(const Wavefunctions& wfn, const Vec3d& q, bool q0, double cutoff_ry);

}  // namespace quasar::gw
