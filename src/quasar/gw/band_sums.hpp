#pragma once
// The static sums of Sigma that are a quadratic form per band: for every band n1,
//   t(n1) = sum_{G,G'} a_n1(G) W(G,G') v(G') conj(b_n1(G')),
// with W real (I = delta - eps^-1, or its negative for COHSEX): COHSEX's screened exchange and
// Coulomb hole, and the band-summed static Coulomb hole of the plasmon-pole model's remainder.
// All bands at once as one real matrix product, W^T [Re a | Im a], on the context's backend
// (OpenBLAS or cuBLAS), then the sums over G' on the host: O(bands ng) after the product's
// O(bands ng^2).
#include <complex>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::gw {

// `w`: ng x ng column-major (G + G' ng) on the context's backend; `a`, `b`: row n1 of ng values
// (n1 ng + G); `v`: ng. Returns t(n1) for the `bands` rows.
std::vector<std::complex<double>> band_sums(device::Context& ctx, int ng, int bands, const Array<double>& w,
                                            const std::vector<std::complex<double>>& a,
                                            const std::vector<std::complex<double>>& b, const std::vector<double>& v);

}  // namespace quasar::gw
