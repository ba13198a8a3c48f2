#pragma once
// The plasmon-pole sums of Sigma (the FLOP-heavy part: bands n1 x G x G'), for one k-point, q-point
// and element <n|Sigma|m>, as BerkeleyGW's CPU kernel forms them (energies in eV):
//   wdiff = wx - wtilde, delw = wtilde / wdiff;
//   |wdiff|^2 > gamma^2 and delw^2 < 1/(4e-6): sch = delw I, ssx = wtilde^2 I / (wx^2 - wtilde^2);
//   else, if delw^2 > 1e-12:                   sch = 0,      ssx = -wtilde^2 I delw / (4 wtilde^2 (delw + 1/2));
//   ssx dropped where |ssx| > sexcut |I| and wx < 0; ssx only for filled bands n1;
//   sx(n1, e) = -sum_G' [sum_G M_n(G) ssx(G, G')] M_m(G')^* v(G'),
//   ch(n1, e) = 1/2 sum_G' [sum_G M_n(G) sch(G, G')] M_m(G')^* v(G').
// On the CPU the loops of gpp_kernels.cpp (the reference), on the GPU gpp_kernels.cu: a thread per G
// sums over a range of G' for a tile of band-energies (each matrix element read once per tile), then
// the partial sums are added in a fixed order (deterministic).
#include <complex>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::gw {

struct GppSizes {
  int gvectors = 0;  // ng: eps^-1's G-vectors at this q
  int bands = 0;     // n1 summed over
  int energies = 0;  // energies per band (E and E + dE for diagonal elements, E for off-diagonal ones)
  int filled = 0;    // n1 < filled are occupied
  double gamma2 = 0.25;  // broadening squared, eV^2
  double sexcut = 4.0;
};

// `ieps`, `wtilde`: ng x ng, column-major (G + G' ng): I = delta - eps^-1 (0 where skipped) and the mode
// frequencies (eV); `vcoul`: v(q+G'), ng; `ma`, `mb`: M_n and M_m, row n1 of ng values; `wx`: E - E_n1
// (eV), [n1 energies + e]. `sx`, `ch`: [n1 energies + e], resized. Arrays on the context's backend.
void gpp_sums(device::Context& ctx, const GppSizes& n, const Array<double>& ieps, const Array<double>& wtilde,
              const Array<double>& vcoul, const Array<std::complex<double>>& ma, const Array<std::complex<double>>& mb,
              const Array<double>& wx, Array<std::complex<double>>& sx, Array<std::complex<double>>& ch);

namespace detail {
// The GPU version (gpp_kernels.cu; gpp_kernels_nocuda.cpp throws in builds without CUDA).
void gpp_sums_gpu(device::Context& ctx, const GppSizes& n, const double* ieps, const double* wtilde, const double* vcoul,
                  const std::complex<double>* ma, const std::complex<double>* mb, const double* wx,
                  std::complex<double>* sx, std::complex<double>* ch);
}  // namespace detail

}  // namespace quasar::gw
