// The CPU reference of the pair kernels, and the choice of backend.
#include "quasar/gw/pair_kernels.hpp"

#include <algorithm>
#include <string>

#include "quasar/core/error.hpp"

namespace quasar::gw {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw Error(std::string("gw pair kernels: ") + what + " is too short for the sizes given");
}

}  // namespace

void scatter_coefficients(device::Context& ctx, int vectors, int count, const Array<Complex>& coefficients,
                          const Array<int>& index, std::size_t points, int first, Array<Complex>& grids) {
  const auto nv = static_cast<std::size_t>(vectors), nc = static_cast<std::size_t>(count);
  require(coefficients.size() >= nv * nc, "the coefficients");
  require(index.size() >= nc, "the index");
  require(first >= 0 && grids.size() >= (static_cast<std::size_t>(first) + nv) * points, "the grids");
  Complex* out = grids.data() + static_cast<std::size_t>(first) * points;
  if (ctx.backend() == Backend::Cuda)
    return detail::scatter_coefficients_gpu(ctx, vectors, count, coefficients.data(), index.data(), points, out);
  for (std::size_t b = 0; b < nv; ++b)
    for (std::size_t g = 0; g < nc; ++g) out[b * points + static_cast<std::size_t>(index[g])] = coefficients[b * nc + g];
}

void pair_products(device::Context& ctx, int valence, int v_first, int conduction, int c_first, std::size_t points,
                   const Array<Complex>& states, Array<Complex>& products) {
  const auto nv = static_cast<std::size_t>(valence), nc = static_cast<std::size_t>(conduction);
  require(states.size() >= static_cast<std::size_t>(std::max(v_first + valence, c_first + conduction)) * points, "the states");
  require(products.size() >= nv * nc * points, "the products");
  if (ctx.backend() == Backend::Cuda)
    return detail::pair_products_gpu(ctx, valence, v_first, conduction, c_first, points, states.data(), products.data());
  for (std::size_t v = 0; v < nv; ++v)
    for (std::size_t c = 0; c < nc; ++c) {
      const Complex* uv = states.data() + (static_cast<std::size_t>(v_first) + v) * points;
      const Complex* uc = states.data() + (static_cast<std::size_t>(c_first) + c) * points;
      Complex* out = products.data() + (v * nc + c) * points;
      for (std::size_t j = 0; j < points; ++j) out[j] = std::conj(uc[j]) * uv[j];
    }
}

void gather_pairs(device::Context& ctx, int pairs, int gvectors, std::size_t points, const Array<Complex>& products,
                  const Array<int>& index, const Array<double>& scale, Array<Complex>& out) {
  const auto np = static_cast<std::size_t>(pairs), ng = static_cast<std::size_t>(gvectors);
  require(products.size() >= np * points, "the products");
  require(index.size() >= ng, "the index");
  require(scale.size() >= np, "the scale");
  require(out.size() >= np * ng, "the output");
  if (ctx.backend() == Backend::Cuda)
    return detail::gather_pairs_gpu(ctx, pairs, gvectors, points, products.data(), index.data(), scale.data(), out.data());
  for (std::size_t i = 0; i < ng; ++i)
    for (std::size_t p = 0; p < np; ++p)
      out[p + i * np] = std::conj(products[p * points + static_cast<std::size_t>(index[i])]) * scale[p];
}

}  // namespace quasar::gw
