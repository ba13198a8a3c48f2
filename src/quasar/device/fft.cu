// FftPlan's GPU backend: cuFFT plans on the context's stream.
#include <cufft.h>

#include <string>

#include "quasar/device/context.cuh"
#include "quasar/device/fft_impl.hpp"

namespace quasar::device {

namespace {

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cufftResult";
  }
}

void check_cufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string(call) + " failed: " + cufft_result_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")");
}

// One cuFFT plan per kind (Z2Z serves both directions), made at first use. cuFFT plans take any
// device arrays, in place or not.
class CufftPlans final : public FftPlan::Impl {
 public:
  CufftPlans(Context& ctx, const std::vector<int>& dims, int batch)
      : stream_(ctx.cuda().stream), dims_(dims), batch_(batch) {}
  ~CufftPlans() override {
    for (const Plan& p : plans_)
      if (p.made) cufftDestroy(p.handle);
  }

  void c2c(const std::complex<double>* in, std::complex<double>* out, int sign) override {
    check_cufft(cufftExecZ2Z(plan(0, CUFFT_Z2Z), complex_ptr(const_cast<std::complex<double>*>(in)), complex_ptr(out),
                             sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE),
                "cufftExecZ2Z");
  }
  void r2c(const double* in, std::complex<double>* out) override {
    check_cufft(cufftExecD2Z(plan(1, CUFFT_D2Z), const_cast<double*>(in), complex_ptr(out)), "cufftExecD2Z");
  }
  void c2r(std::complex<double>* in, double* out) override {
    check_cufft(cufftExecZ2D(plan(2, CUFFT_Z2D), complex_ptr(in), out), "cufftExecZ2D");
  }

 private:
  struct Plan {
    cufftHandle handle = 0;
    bool made = false;
  };

  static cufftDoubleComplex* complex_ptr(std::complex<double>* p) { return reinterpret_cast<cufftDoubleComplex*>(p); }

  cufftHandle plan(int index, cufftType type) {
    Plan& p = plans_[index];
    if (!p.made) {
      // No embedding: the grids are contiguous and follow one another (cuFFT's basic layout).
      check_cufft(cufftPlanMany(&p.handle, static_cast<int>(dims_.size()), dims_.data(), nullptr, 1, 0, nullptr, 1, 0,
                                type, batch_),
                  "cufftPlanMany");
      p.made = true;
      check_cufft(cufftSetStream(p.handle, stream_), "cufftSetStream");
    }
    return p.handle;
  }

  cudaStream_t stream_;
  std::vector<int> dims_;
  int batch_;
  Plan plans_[3];  // Z2Z, D2Z, Z2D
};

}  // namespace

std::unique_ptr<FftPlan::Impl> make_cufft_plans(Context& ctx, const std::vector<int>& dims, int batch) {
  return std::make_unique<CufftPlans>(ctx, dims, batch);
}

}  // namespace quasar::device
