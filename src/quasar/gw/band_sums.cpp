#include "quasar/gw/band_sums.hpp"

#include "quasar/core/error.hpp"
#include "quasar/device/linalg.hpp"

namespace quasar::gw {

std::vector<std::complex<double>> band_sums(device::Context& ctx, int ng, int bands, const Array<double>& w,
                                            const std::vector<std::complex<double>>& a,
                                            const std::vector<std::complex<double>>& b, const std::vector<double>& v) {
  const auto n = static_cast<std::size_t>(ng), nb = static_cast<std::size_t>(bands);
  if (w.size() < n * n || a.size() < n * nb || b.size() < n * nb || v.size() < n)
    throw Error("gw band_sums: an input is too short for the sizes given");
  std::vector<std::complex<double>> t(nb);
  if (ng == 0 || bands == 0) return t;
  // [Re a | Im a] as the ng x 2 bands column-major matrix whose column n1 is a_n1's real parts.
  std::vector<double> parts(2 * nb * n);
  for (std::size_t i = 0; i < nb * n; ++i) parts[i] = a[i].real(), parts[nb * n + i] = a[i].imag();
  Array<double> d_parts(ctx.backend()), d_product(ctx.backend(), 2 * nb * n);
  d_parts.assign(parts);
  // product(G', c) = sum_G W(G, G') parts(G, c)
  device::gemm<double>(ctx, device::Op::Transpose, device::Op::None, ng, 2 * bands, ng, 1.0, w, d_parts, 0.0, d_product);
  const std::vector<double> product = d_product.to_vector();
  for (std::size_t n1 = 0; n1 < nb; ++n1) {
    std::complex<double> sum{};
    for (std::size_t gp = 0; gp < n; ++gp) {
      const std::complex<double> col(product[n1 * n + gp], product[(nb + n1) * n + gp]);
      sum += col * v[gp] * std::conj(b[n1 * n + gp]);
    }
    t[n1] = sum;
  }
  return t;
}

}  // namespace quasar::gw
