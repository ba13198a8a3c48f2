#pragma once
#include <memory>

#include "quasar/device/backend.hpp"

namespace quasar::device {

// The GPU libraries' state of a context (stream, cuBLAS and cuSOLVER handles, solver scratch memory):
// defined in context.cuh, for .cu files only.
struct CudaLibraries;

// Where the FFT and linear-algebra wrappers (fft.hpp, linalg.hpp) run. On the CPU it holds nothing:
// FFTW, OpenBLAS and LAPACKE are called directly. On the GPU it owns a CUDA stream and the cuBLAS and
// cuSOLVER handles bound to it, each created at first use. Work queued on one context runs in order;
// its stream is a blocking stream, so that work is also ordered with Array's copies and fills (which
// use the default stream). One thread uses a context at a time.
class Context {
 public:
  explicit Context(Backend backend);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Backend backend() const { return backend_; }
  // Waits until the work queued so far has finished (returns at once on the CPU).
  void synchronize();
  // The GPU libraries (GPU contexts only), created at the first call.
  CudaLibraries& cuda();

 private:
  Backend backend_;
  std::unique_ptr<CudaLibraries, void (*)(CudaLibraries*)> cuda_{nullptr, nullptr};
};

}  // namespace quasar::device
