#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/device/segments.hpp"

namespace quasar::device {
namespace {

constexpr int kSegmentBlock = 128;

// Block (s, c): column c of segment s, each thread over a stride of the segment, then CUB's fixed
// reduction tree.
__global__ void segment_sums_kernel(const double* __restrict__ values, int n, const int* __restrict__ offsets,
                                    double* __restrict__ out, int out_stride) {
  using Reduce = cub::BlockReduce<double, kSegmentBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const int s = blockIdx.x, c = blockIdx.y;
  const double* v = values + static_cast<long>(c) * n;
  double sum = 0;
  for (int i = offsets[s] + threadIdx.x; i < offsets[s + 1]; i += kSegmentBlock) sum += v[i];
  const double total = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0) out[static_cast<long>(s) * out_stride + c] = total;
}

__global__ void add_into_kernel(double* __restrict__ dst, const double* __restrict__ src, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}

}  // namespace

void segment_sums_gpu(const double* values, int n, int columns, const int* offsets, int segments, double* out,
                      int out_stride) {
  if (segments <= 0 || columns <= 0) return;
  segment_sums_kernel<<<dim3(segments, columns), kSegmentBlock>>>(values, n, offsets, out, out_stride);
  QUASAR_LAUNCH_CHECK("segment_sums_kernel");
}

void add_into_gpu(double* dst, const double* src, std::size_t n) {
  if (n == 0) return;
  add_into_kernel<<<grid_for(static_cast<long>(n), 256), 256>>>(dst, src, n);
  QUASAR_LAUNCH_CHECK("add_into_kernel");
}

}  // namespace quasar::device
