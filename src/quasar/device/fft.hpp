#pragma once
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::device {

// Discrete Fourier transforms of 1-, 2- or 3-dimensional grids, `batch` grids at a time, in double
// precision: FFTW on the CPU, cuFFT on the GPU (queued on the context's stream).
//
// Layout: a grid n0 x n1 x n2 is stored in C order (the last index fastest: element (j0, j1, j2) at
// (j0 n1 + j1) n2 + j2), as FFTW and cuFFT store it; the grids of a batch follow one another.
// Conventions (FFTW's and cuFFT's), with N = n0 n1 n2 points and k.j/n = sum_d k_d j_d / n_d:
//   forward:  X[k] = sum_j x[j] exp(-2 pi i k.j/n)
//   backward: x[j] = sum_k X[k] exp(+2 pi i k.j/n)
// Neither is normalised: backward(forward(x)) = N x. A real grid's transform keeps the n2/2 + 1
// non-negative frequencies of the last dimension (the others follow from X[-k] = conj(X[k])), so it
// holds n0 n1 (n2/2 + 1) values (`half_points`).
//
// The library plans are made at the first transform of each kind (FFTW with FFTW_ESTIMATE, so a plan
// and its results do not depend on timings) and kept with the plan object. A plan uses its context,
// which must outlive it.
class FftPlan {
 public:
  // dims: the grid's 1 to 3 sizes, slowest first.
  FftPlan(Context& ctx, std::vector<int> dims, int batch = 1);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  const std::vector<int>& dims() const { return dims_; }
  int batch() const { return batch_; }
  std::size_t points() const;       // values of one grid: n0 n1 n2
  std::size_t half_points() const;  // values of one real grid's transform: n0 n1 (n2/2 + 1)

  // Complex to complex, batch * points() values each way; `in` may be `out` (in place).
  void forward(const Array<std::complex<double>>& in, Array<std::complex<double>>& out);
  void backward(const Array<std::complex<double>>& in, Array<std::complex<double>>& out);
  // Real to complex: batch * points() real values to batch * half_points() complex ones.
  void forward(const Array<double>& in, Array<std::complex<double>>& out);
  // Complex to real, the inverse of the above times N. Overwrites `in` (both libraries do).
  void backward(Array<std::complex<double>>& in, Array<double>& out);

  // The library plans of one backend (fft.cpp: FFTW; fft.cu: cuFFT).
  class Impl;

 private:
  Context& ctx_;
  std::vector<int> dims_;
  int batch_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::device
