#include "quasar/device/backend.hpp"
#include "quasar/device/cuda_check.cuh"

namespace quasar {

bool built_with_cuda() { return true; }

bool cuda_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::vector<std::string> gpu_descriptions() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return {std::string("none (") + cudaGetErrorString(e) + ")"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, i);
    out.push_back(std::to_string(i) + ": " + p.name + ", sm_" + std::to_string(p.major) + std::to_string(p.minor) +
                  ", " + std::to_string(p.totalGlobalMem >> 20) + " MiB, " + std::to_string(p.multiProcessorCount) +
                  " SMs");
  }
  if (out.empty()) out.push_back("none");
  return out;
}

namespace device {
void select_gpu(int local_rank) {
  int n = 0;
  QUASAR_CUDA_CHECK(cudaGetDeviceCount(&n));
  if (n > 0) QUASAR_CUDA_CHECK(cudaSetDevice(local_rank % n));
}
void* allocate(std::size_t bytes) {
  void* p = nullptr;
  QUASAR_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}
void release(void* p) noexcept { cudaFree(p); }
void* allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  QUASAR_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}
void release_pinned(void* p) noexcept { cudaFreeHost(p); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  QUASAR_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  QUASAR_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  QUASAR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
}
void fill_zero(void* dst, std::size_t bytes) { QUASAR_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes)); }
void synchronize() { QUASAR_CUDA_CHECK(cudaDeviceSynchronize()); }
std::size_t memory_in_use() {
  std::size_t free = 0, total = 0;
  QUASAR_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return total - free;
}
}  // namespace device

}  // namespace quasar
