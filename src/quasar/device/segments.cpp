#include "quasar/device/segments.hpp"

namespace quasar::device {

void segment_sums(Backend b, const double* values, int n, int columns, const int* offsets, int segments, double* out,
                  int out_stride) {
  if (b == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    segment_sums_gpu(values, n, columns, offsets, segments, out, out_stride);
#else
    throw_no_cuda("segment sums");
#endif
    return;
  }
  for (int s = 0; s < segments; ++s)
    for (int c = 0; c < columns; ++c) {
      double sum = 0;
      const double* v = values + static_cast<std::size_t>(c) * n;
      for (int i = offsets[s]; i < offsets[s + 1]; ++i) sum += v[i];
      out[static_cast<std::size_t>(s) * out_stride + c] = sum;
    }
}

void add_into(Backend b, double* dst, const double* src, std::size_t n) {
  if (b == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    add_into_gpu(dst, src, n);
#else
    throw_no_cuda("add_into");
#endif
    return;
  }
  for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
}

}  // namespace quasar::device
