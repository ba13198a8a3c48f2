#pragma once
// How a backend carries out FftPlan's transforms (fft.cpp: FFTW, fft.cu: cuFFT). No CUDA headers.
#include <complex>
#include <memory>
#include <vector>

#include "quasar/device/fft.hpp"

namespace quasar::device {

class FftPlan::Impl {
 public:
  virtual ~Impl() = default;
  // `batch` grids on the plan's backend, sizes already checked. sign: -1 forward, +1 backward.
  virtual void c2c(const std::complex<double>* in, std::complex<double>* out, int sign) = 0;
  virtual void r2c(const double* in, std::complex<double>* out) = 0;
  virtual void c2r(std::complex<double>* in, double* out) = 0;
};

// fft.cu, or fft_nocuda.cpp where it throws.
std::unique_ptr<FftPlan::Impl> make_cufft_plans(Context& ctx, const std::vector<int>& dims, int batch);

}  // namespace quasar::device
