#include <string>

#include "quasar/device/context.cuh"

namespace quasar::device {

namespace {
const char* cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "cusolverStatus_t";
  }
}
}  // namespace

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error(std::string(call) + " failed: " + cublasGetStatusName(status));
}

void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw Error(std::string(call) + " failed: " + cusolver_status_name(status) + " (" +
                std::to_string(static_cast<int>(status)) + ")");
}

void* DeviceScratch::reserve(std::size_t bytes, cudaStream_t stream) {
  if (bytes <= bytes_ && ptr_) return ptr_;
  QUASAR_CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  QUASAR_CUDA_CHECK(cudaMalloc(&ptr_, bytes ? bytes : 1));
  bytes_ = bytes;
  return ptr_;
}

CudaLibraries::CudaLibraries() {
  // A blocking stream: ordered with the default stream, which Array's copies use.
  QUASAR_CUDA_CHECK(cudaStreamCreate(&stream));
  QUASAR_CUDA_CHECK(cudaMalloc(&info, sizeof(int)));
}

CudaLibraries::~CudaLibraries() {
  // Nothing here may throw; the statuses of a tear-down are of no use.
  if (solver_params_) cusolverDnDestroyParams(solver_params_);
  if (solver_) cusolverDnDestroy(solver_);
  if (blas_) cublasDestroy(blas_);
  if (stream) cudaStreamSynchronize(stream);
  cudaFree(info);
  if (stream) cudaStreamDestroy(stream);
}

cublasHandle_t CudaLibraries::blas() {
  if (!blas_) {
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    check_cublas(cublasSetStream(blas_, stream), "cublasSetStream");
  }
  return blas_;
}

cusolverDnHandle_t CudaLibraries::solver() {
  if (!solver_) {
    check_cusolver(cusolverDnCreate(&solver_), "cusolverDnCreate");
    check_cusolver(cusolverDnSetStream(solver_, stream), "cusolverDnSetStream");
    check_cusolver(cusolverDnCreateParams(&solver_params_), "cusolverDnCreateParams");
  }
  return solver_;
}

cusolverDnParams_t CudaLibraries::solver_params() {
  solver();
  return solver_params_;
}

int CudaLibraries::read_info() {
  int value = 0;
  QUASAR_CUDA_CHECK(cudaMemcpyAsync(&value, info, sizeof(int), cudaMemcpyDeviceToHost, stream));
  QUASAR_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

void Context::synchronize() {
  if (cuda_) QUASAR_CUDA_CHECK(cudaStreamSynchronize(cuda_->stream));
}

CudaLibraries& Context::cuda() {
  if (backend_ != Backend::Cuda) throw Error("the GPU libraries of a CPU context were asked for");
  if (!cuda_) cuda_ = {new CudaLibraries(), [](CudaLibraries* p) { delete p; }};
  return *cuda_;
}

}  // namespace quasar::device
