#pragma once
// Sigma: the GW self energy of an insulator with BerkeleyGW's conventions (Rydberg inside, eV out):
//   bare exchange X_nm = -1/(N_q Omega) sum_{q, v occ, G} M_nv(q+G) M_mv(q+G)^* v(q+G),
//   M_nn1(q+G) = <n k| e^{i(q+G).r} |n1 k-q> (a direct plane-wave sum);
//   Hybertsen-Louie generalized plasmon pole (GPP) screened exchange SX-X and Coulomb hole CH with
//   BerkeleyGW's broadening, sexcut and invalid-mode rules; the static remainder; static COHSEX and
//   Hartree-Fock as special cases. q -> 0: v(G=0) is the Monte Carlo average of 8 pi/q^2 over the
//   mini Brillouin zone (coulomb_average.hpp), the head of W is eps^-1_00(q0) times it, the wings of
//   eps^-1 at q0 are zero; eps^-1 is taken at each q as BerkeleyGW's Sigma maps q onto its dielectric
//   file (sigma_q_map.hpp). Z = 1/(1 - dSigma/dE) by a forward difference of 1 eV; Eqp0 = Eo + Sigma -
//   Vxc, Eqp1 = Eo + Z (Sigma - Vxc); diagonal values averaged over degenerate bands.
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/symmetry.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

inline constexpr double kRydbergEv = 13.60569253;  // BerkeleyGW's Rydberg in eV

enum class SigmaModel { HartreeFock = -1, Cohsex = 0, Gpp = 1 };

struct SigmaOffDiagonal {
  int n = 0, m = 0, l = 0;  // <n|Sigma(E_l)|m>, 1-based band indices
};

struct SigmaSettings {
  SigmaModel model = SigmaModel::Gpp;
  int bands = 0;                    // number_bands: n1 summed over in SX and CH
  int band_min = 1, band_max = 1;   // the diagonal elements computed (1-based)
  std::vector<Vec3d> kpoints;       // where Sigma is computed (points of the inner grid)
  std::vector<SigmaOffDiagonal> offdiagonal;
  bool exact_static_ch = false;     // the static remainder (GPP), the exact static CH (COHSEX)
  std::array<int, 3> qgrid{};       // 0 0 0: the inner mean field's k-grid
  double bare_cutoff_ry = 0;        // exchange G-vectors |q+G|^2 < this; 0: the wavefunction cutoff
  int invalid_gpp_mode = 3;         // 0 skip, 1 imaginary frequency, 2 2 Ry, 3 static COHSEX
  double broadening_ev = 0.5;       // BerkeleyGW's gamma: |E - E_n1 - wtilde| below it drops CH (GPP)
  double sexcut = 4.0;              // |SX| > sexcut |I_eps| with E - E_n1 < 0 dropped (GPP)
  double finite_difference_ev = 1.0;
  // <n|Sigma|m> = 0 where n and m lie in degenerate sets of different sizes (different irreducible
  // representations), set exactly as BerkeleyGW does unless no_symmetries_offdiagonals.
  bool offdiagonal_symmetry = true;
  // BerkeleyGW's default q-grid reduction (use_symmetries_q_grid): each q of the grid takes the Coulomb
  // averages of the first point of its star under the little group of k (in the inner grid's order), as
  // the reduced sum over representatives does; false (no_symmetries_q_grid): every q its own.
  bool symmetric_q_grid = false;
  // The inner mean field's listed (irreducible) k-points, when it came from a reduced list: each heads
  // its star in the q order, as in BerkeleyGW's unfolded grid (the listed point, then its images).
  std::vector<Vec3d> listed_kpoints;
  // BerkeleyGW's Sigma maps each q of the grid onto a point of the dielectric file by the last of the
  // mean field's symmetry operations (in the order of its wavefunction file) that does so, and so does
  // this: eps^-1 at q -> 0 is used rotated by the last operation, at q != 0 the head and wings lie at
  // the image M q_irr of the point of `dielectric_qpoints` (the file's q-points in its order, the
  // q -> 0 one as 0; empty: those of the dielectric matrices given), and q-points the file lacks are
  // unfolded by that same operation. `operations`: reciprocal-coordinate matrices M (q -> M q, as
  // sigma_hp.log prints them); empty: the crystal's, derived from the inner mean field in BerkeleyGW's
  // EPM order (berkeleygw_symmetry.hpp; Quasar's order for a supercell, said through the progress).
  // The identity alone turns the map off (eps^-1(q0) as computed, the wings at G = 0 of each q listed).
  std::vector<IntMatrix3> operations;
  std::vector<Vec3d> dielectric_qpoints;
};

// Per band (diagonal) or element (off-diagonal), eV.
struct SigmaElement {
  int n = 0, m = 0, l = 0;
  double emf = 0, x = 0, sx = 0, ch = 0, ch_partial = 0, sig = 0, vxc = 0;  // sx: SX - X; ch: with remainder
  double eqp0 = 0, eqp1 = 0, znk = 1, sig_partial = 0, eqp0_partial = 0, eqp1_partial = 0;
};

struct SigmaOfK {
  Vec3d k{};
  std::vector<SigmaElement> diagonal, offdiagonal;
};

struct SigmaResult {
  SigmaModel model = SigmaModel::Gpp;
  double coulomb_head = 0;  // v(q=0, G=0): the mini-zone average, Ry bohr^3
  double plasma_frequency2 = 0;  // Ry^2
  int qpoints = 0;
  std::vector<SigmaOfK> k;
};

using SigmaProgress = std::function<void(const std::string&)>;

// `inner`: the states on every point of the unshifted grid (equal weights); `screening`: eps^-1 at the
// q -> 0 point (flagged) and at q-points of the grid modulo G, not used for Hartree-Fock: each q of the
// grid the file lacks takes eps^-1 unfolded from a file point by a crystal operation (epsilon_unfold.hpp:
// BerkeleyGW's last-operation rule), an error naming q when none maps a file point onto it; `density`: the
// valence density for the plasmon-pole model (default: the inner mean field's); `ctx`: where the
// plasmon-pole sums run (gpp_kernels.hpp; default the CPU).
SigmaResult compute_sigma(const SigmaSettings& s, const Wavefunctions& inner, const EpsilonResult* screening,
                          const SigmaProgress& progress = {}, const std::vector<double>* density = nullptr,
                          device::Context* ctx = nullptr);

// The valence density rho(G) of the density sphere (normalised to the electron count at G = 0).
std::vector<double> valence_density(const Wavefunctions& w);

// The f-sum rule of the plasmon-pole parameters for q, G, G' (exposed for tests): Omega^2_GG'(q).
double plasmon_omega2(const Wavefunctions& w, const std::vector<double>& rho, const Vec3d& q, const GVector& g,
                      const GVector& gp);

}  // namespace quasar::gw
