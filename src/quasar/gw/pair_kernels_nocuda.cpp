// Builds without CUDA: the GPU pair kernels refuse (only CPU contexts exist there anyway).
#include "quasar/device/backend.hpp"
#include "quasar/gw/pair_kernels.hpp"

namespace quasar::gw::detail {

void scatter_coefficients_gpu(device::Context&, int, int, const Complex*, const int*, std::size_t, Complex*) {
  throw_no_cuda("gw scatter_coefficients");
}
void pair_products_gpu(device::Context&, int, int, int, int, std::size_t, const Complex*, Complex*) {
  throw_no_cuda("gw pair_products");
}
void gather_pairs_gpu(device::Context&, int, int, std::size_t, const Complex*, const int*, const double*, Complex*) {
  throw_no_cuda("gw gather_pairs");
}

}  // namespace quasar::gw::detail
