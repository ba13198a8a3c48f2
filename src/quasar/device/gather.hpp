#pragma once
// Reordering per-atom arrays on the device (gather.cu).
namespace quasar::device {
// dst[i] = src[perm[i]].
void gather(double* dst, const double* src, const int* perm, int n);
void gather(int* dst, const int* src, const int* perm, int n);
void gather(long* dst, const long* src, const int* perm, int n);
// inverse[perm[i]] = i, for a permutation of 0..n-1.
void invert_permutation(int* inverse, const long* perm, int n);
// Rows of three (x0 y0 z0 x1 ...), as codes such as LAMMPS keep positions and forces, to and from
// three columns, so that each crosses PCIe as one copy.
void split_rows(const double* rows, double* x, double* y, double* z, int n);
void join_rows(const double* x, const double* y, const double* z, double* rows, int n);
}  // namespace quasar::device
