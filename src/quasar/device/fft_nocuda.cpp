// FFTs of a build without CUDA: no cuFFT plans (a GPU context cannot be made either).
#include "quasar/device/fft_impl.hpp"

namespace quasar::device {

std::unique_ptr<FftPlan::Impl> make_cufft_plans(Context&, const std::vector<int>&, int) {
  throw_no_cuda("cuFFT");
}

}  // namespace quasar::device
