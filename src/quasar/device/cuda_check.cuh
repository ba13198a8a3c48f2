#pragma once
// Included by .cu files only.
#include <cuda_runtime.h>

#include <string>

#include "quasar/core/error.hpp"

namespace quasar::device {

inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                "): " + cudaGetErrorString(e));
}

}  // namespace quasar::device

#define QUASAR_CUDA_CHECK(call) ::quasar::device::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports launch-configuration errors without synchronising.
#define QUASAR_LAUNCH_CHECK(name) ::quasar::device::check(cudaGetLastError(), name, __FILE__, __LINE__)

inline unsigned grid_for(long n, int block) { return static_cast<unsigned>((n + block - 1) / block); }
