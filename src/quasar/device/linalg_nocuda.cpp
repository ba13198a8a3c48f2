// Linear algebra of a build without CUDA: no GPU routines (a GPU context cannot be made either).
#include "quasar/device/linalg_impl.hpp"

namespace quasar::device {

template <class T>
void gemm_gpu(Context&, Op, Op, int, int, int, T, const T*, const T*, T, T*, int) {
  throw_no_cuda("cuBLAS");
}
template <class T>
void herk_gpu(Context&, Triangle, Op, int, int, Real<T>, const T*, Real<T>, T*) {
  throw_no_cuda("cuBLAS");
}
template <class T>
void symm_gpu(Context&, Triangle, int, int, T, const T*, const T*, T, T*) {
  throw_no_cuda("cuBLAS");
}
template <class T>
void symv_gpu(Context&, Triangle, int, T, const T*, const T*, T, T*) {
  throw_no_cuda("cuBLAS");
}
template <class T>
void eigh_gpu(Context&, Triangle, int, T*, Real<T>*) {
  throw_no_cuda("cuSOLVER");
}
template <class T>
void lu_solve_gpu(Context&, int, int, T*, T*) {
  throw_no_cuda("cuSOLVER");
}
template <class T>
void invert_gpu(Context&, int, T*) {
  throw_no_cuda("cuSOLVER");
}
template <class T>
void cholesky_gpu(Context&, Triangle, int, T*) {
  throw_no_cuda("cuSOLVER");
}

#define QUASAR_INSTANTIATE(T)                                                                 \
  template void gemm_gpu(Context&, Op, Op, int, int, int, T, const T*, const T*, T, T*, int); \
  template void herk_gpu(Context&, Triangle, Op, int, int, Real<T>, const T*, Real<T>, T*);   \
  template void symm_gpu(Context&, Triangle, int, int, T, const T*, const T*, T, T*);          \
  template void symv_gpu(Context&, Triangle, int, T, const T*, const T*, T, T*);               \
  template void eigh_gpu(Context&, Triangle, int, T*, Real<T>*);                              \
  template void lu_solve_gpu(Context&, int, int, T*, T*);                                     \
  template void invert_gpu(Context&, int, T*);                                                \
  template void cholesky_gpu(Context&, Triangle, int, T*);
QUASAR_LINALG_TYPES(QUASAR_INSTANTIATE)
#undef QUASAR_INSTANTIATE

}  // namespace quasar::device
