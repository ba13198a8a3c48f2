// Builds without CUDA: the GPU plasmon-pole sums refuse (only CPU contexts exist there anyway).
#include "quasar/device/backend.hpp"
#include "quasar/gw/gpp_kernels.hpp"

namespace quasar::gw::detail {

void gpp_sums_gpu(device::Context&, const GppSizes&, const double*, const double*, const double*,
                  const std::complex<double>*, const std::complex<double>*, const double*, std::complex<double>*,
                  std::complex<double>*) {
  throw_no_cuda("gw gpp_sums");
}

}  // namespace quasar::gw::detail
