#pragma once
// Included by .cu files only: the GPU side of a Context.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <cstddef>
#include <vector>

#include "quasar/device/context.hpp"
#include "quasar/device/cuda_check.cuh"

namespace quasar::device {

// Device memory that grows on demand and never shrinks (solver workspaces, pivots); freed with
// cudaFree, so its owner makes sure no queued work still uses it.
class DeviceScratch {
 public:
  DeviceScratch() = default;
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  ~DeviceScratch() { cudaFree(ptr_); }
  // At least `bytes`; a smaller buffer is freed once `stream` has finished with it.
  void* reserve(std::size_t bytes, cudaStream_t stream);

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct CudaLibraries {
  CudaLibraries();  // creates the stream on the current GPU
  ~CudaLibraries();
  CudaLibraries(const CudaLibraries&) = delete;
  CudaLibraries& operator=(const CudaLibraries&) = delete;

  // Bound to `stream`, created at the first call.
  cublasHandle_t blas();
  cusolverDnHandle_t solver();
  cusolverDnParams_t solver_params();
  // The solvers' info word, copied to the host (waits for the stream).
  int read_info();

  cudaStream_t stream = nullptr;
  DeviceScratch work, pivots;        // solver workspace, LU pivots
  std::vector<std::byte> host_work;  // the solvers' host workspace
  int* info = nullptr;               // device word the solvers report into

 private:
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  cusolverDnParams_t solver_params_ = nullptr;
};

// Throw quasar::Error naming the call and the library's status.
void check_cublas(cublasStatus_t status, const char* call);
void check_cusolver(cusolverStatus_t status, const char* call);

}  // namespace quasar::device
