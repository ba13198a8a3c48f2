#pragma once
// Sums over contiguous segments of per-atom arrays (the systems of a batch), and element-wise
// additions, on either backend (segments.cpp: the CPU loops; segments.cu: the kernels). The sums
// are taken in a fixed order on both backends (one GPU block per segment and column), so they are
// the same bits from run to run.
#include <cstddef>

#include "quasar/device/backend.hpp"

namespace quasar::device {

// out[s * out_stride + c] = sum over i in [offsets[s], offsets[s + 1]) of values[c * n + i], for
// c < columns and s < segments. All pointers are memory of backend b.
void segment_sums(Backend b, const double* values, int n, int columns, const int* offsets, int segments, double* out,
                  int out_stride);
// dst[i] += src[i] for i < n.
void add_into(Backend b, double* dst, const double* src, std::size_t n);

// The kernels behind them (segments.cu).
void segment_sums_gpu(const double* values, int n, int columns, const int* offsets, int segments, double* out,
                      int out_stride);
void add_into_gpu(double* dst, const double* src, std::size_t n);

}  // namespace quasar::device
