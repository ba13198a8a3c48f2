#pragma once
// QUASAR_HD marks functions that CPU code and CUDA kernels share (one source of truth for the
// physics); this header includes no CUDA header.
#ifdef __CUDACC__
#define QUASAR_HD __host__ __device__ __forceinline__
#else
#define QUASAR_HD inline
#endif
