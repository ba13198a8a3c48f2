#pragma once
// The GPU side of linalg.hpp (linalg.cu, or linalg_nocuda.cpp where it throws), called by linalg.cpp
// after the argument checks with the Arrays' data. No CUDA headers.
#include <complex>
#include <string>

#include "quasar/device/linalg.hpp"

// Applies X to every element type linalg.hpp takes (explicit instantiations).
#define QUASAR_LINALG_TYPES(X) X(float) X(double) X(std::complex<float>) X(std::complex<double>)

namespace quasar::device {

template <class T>
void gemm_gpu(Context& ctx, Op op_a, Op op_b, int m, int n, int k, T alpha, const T* a, const T* b, T beta, T* c,
              int batch);
template <class T>
void herk_gpu(Context& ctx, Triangle part, Op op, int n, int k, Real<T> alpha, const T* a, Real<T> beta, T* c);
template <class T>
void symm_gpu(Context& ctx, Triangle part, int m, int n, T alpha, const T* a, const T* b, T beta, T* c);
template <class T>
void symv_gpu(Context& ctx, Triangle part, int n, T alpha, const T* a, const T* x, T beta, T* y);
template <class T>
void eigh_gpu(Context& ctx, Triangle part, int n, T* a, Real<T>* w);
template <class T>
void lu_solve_gpu(Context& ctx, int n, int nrhs, T* a, T* b);
template <class T>
void invert_gpu(Context& ctx, int n, T* a);
template <class T>
void cholesky_gpu(Context& ctx, Triangle part, int n, T* a);

// What a solver's info value says, as LAPACK and cuSOLVER define it.
enum class SolverKind { Lu, Cholesky, Eigen };
// Throws quasar::Error for a non-zero info of `routine`.
void check_solver_info(long info, SolverKind kind, const std::string& routine);

// BLAS's type letter of T: s, d, c or z (for routine names in messages).
template <class T>
constexpr char type_letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  else if constexpr (std::is_same_v<T, double>) return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 'c';
  else return 'z';
}
template <class T>
constexpr bool is_complex_v = !std::is_same_v<T, Real<T>>;

}  // namespace quasar::device
