#pragma once
// dst[i] = src[perm[i]] on the device (gather.cu); used to reorder per-atom arrays.
namespace quasar::device {
void gather(double* dst, const double* src, const int* perm, int n);
void gather(int* dst, const int* src, const int* perm, int n);
void gather(long* dst, const long* src, const int* perm, int n);
}  // namespace quasar::device
