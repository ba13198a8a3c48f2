// linalg.hpp: argument checks, and the CPU backend on OpenBLAS (CBLAS) and LAPACKE.
#include "quasar/device/linalg.hpp"

#include <algorithm>
#include <complex>
#include <initializer_list>
#include <string>
#include <vector>

// LAPACKE's complex types are std::complex (lapack.h's way; it comes before lapacke_config.h).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

#include "quasar/core/error.hpp"
#include "quasar/device/linalg_impl.hpp"

namespace quasar::device {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

// One overload per element type, so that the templates below name each routine once.
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha, const double* a, int lda,
               const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, cfloat alpha, const cfloat* a, int lda,
               const cfloat* b, int ldb, cfloat beta, cfloat* c, int ldc) {
  cblas_cgemm(CblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, cdouble alpha, const cdouble* a, int lda,
               const cdouble* b, int ldb, cdouble beta, cdouble* c, int ldc) {
  cblas_zgemm(CblasColMajor, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

void blas_herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, float alpha, const float* a, int lda, float beta,
               float* c, int ldc) {
  cblas_ssyrk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}
void blas_herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, double alpha, const double* a, int lda, double beta,
               double* c, int ldc) {
  cblas_dsyrk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}
void blas_herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, float alpha, const cfloat* a, int lda, float beta,
               cfloat* c, int ldc) {
  cblas_cherk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}
void blas_herk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, double alpha, const cdouble* a, int lda, double beta,
               cdouble* c, int ldc) {
  cblas_zherk(CblasColMajor, u, t, n, k, alpha, a, lda, beta, c, ldc);
}

void blas_symm(CBLAS_UPLO u, int m, int n, float alpha, const float* a, const float* b, float beta, float* c) {
  const int ld = std::max(1, m);
  cblas_ssymm(CblasColMajor, CblasLeft, u, m, n, alpha, a, ld, b, ld, beta, c, ld);
}
void blas_symm(CBLAS_UPLO u, int m, int n, double alpha, const double* a, const double* b, double beta, double* c) {
  const int ld = std::max(1, m);
  cblas_dsymm(CblasColMajor, CblasLeft, u, m, n, alpha, a, ld, b, ld, beta, c, ld);
}
void blas_symm(CBLAS_UPLO u, int m, int n, cfloat alpha, const cfloat* a, const cfloat* b, cfloat beta, cfloat* c) {
  const int ld = std::max(1, m);
  cblas_chemm(CblasColMajor, CblasLeft, u, m, n, &alpha, a, ld, b, ld, &beta, c, ld);
}
void blas_symm(CBLAS_UPLO u, int m, int n, cdouble alpha, const cdouble* a, const cdouble* b, cdouble beta,
               cdouble* c) {
  const int ld = std::max(1, m);
  cblas_zhemm(CblasColMajor, CblasLeft, u, m, n, &alpha, a, ld, b, ld, &beta, c, ld);
}

void blas_symv(CBLAS_UPLO u, int n, float alpha, const float* a, const float* x, float beta, float* y) {
  cblas_ssymv(CblasColMajor, u, n, alpha, a, std::max(1, n), x, 1, beta, y, 1);
}
void blas_symv(CBLAS_UPLO u, int n, double alpha, const double* a, const double* x, double beta, double* y) {
  cblas_dsymv(CblasColMajor, u, n, alpha, a, std::max(1, n), x, 1, beta, y, 1);
}
void blas_symv(CBLAS_UPLO u, int n, cfloat alpha, const cfloat* a, const cfloat* x, cfloat beta, cfloat* y) {
  cblas_chemv(CblasColMajor, u, n, &alpha, a, std::max(1, n), x, 1, &beta, y, 1);
}
void blas_symv(CBLAS_UPLO u, int n, cdouble alpha, const cdouble* a, const cdouble* x, cdouble beta, cdouble* y) {
  cblas_zhemv(CblasColMajor, u, n, &alpha, a, std::max(1, n), x, 1, &beta, y, 1);
}

constexpr int kCol = LAPACK_COL_MAJOR;
lapack_int lapack_eigh(char u, int n, float* a, float* w) { return LAPACKE_ssyevd(kCol, 'V', u, n, a, n, w); }
lapack_int lapack_eigh(char u, int n, double* a, double* w) { return LAPACKE_dsyevd(kCol, 'V', u, n, a, n, w); }
lapack_int lapack_eigh(char u, int n, cfloat* a, float* w) { return LAPACKE_cheevd(kCol, 'V', u, n, a, n, w); }
lapack_int lapack_eigh(char u, int n, cdouble* a, double* w) { return LAPACKE_zheevd(kCol, 'V', u, n, a, n, w); }

lapack_int lapack_getrf(int n, float* a, lapack_int* p) { return LAPACKE_sgetrf(kCol, n, n, a, n, p); }
lapack_int lapack_getrf(int n, double* a, lapack_int* p) { return LAPACKE_dgetrf(kCol, n, n, a, n, p); }
lapack_int lapack_getrf(int n, cfloat* a, lapack_int* p) { return LAPACKE_cgetrf(kCol, n, n, a, n, p); }
lapack_int lapack_getrf(int n, cdouble* a, lapack_int* p) { return LAPACKE_zgetrf(kCol, n, n, a, n, p); }

lapack_int lapack_getrs(int n, int r, const float* a, const lapack_int* p, float* b) {
  return LAPACKE_sgetrs(kCol, 'N', n, r, a, n, p, b, n);
}
lapack_int lapack_getrs(int n, int r, const double* a, const lapack_int* p, double* b) {
  return LAPACKE_dgetrs(kCol, 'N', n, r, a, n, p, b, n);
}
lapack_int lapack_getrs(int n, int r, const cfloat* a, const lapack_int* p, cfloat* b) {
  return LAPACKE_cgetrs(kCol, 'N', n, r, a, n, p, b, n);
}
lapack_int lapack_getrs(int n, int r, const cdouble* a, const lapack_int* p, cdouble* b) {
  return LAPACKE_zgetrs(kCol, 'N', n, r, a, n, p, b, n);
}

lapack_int lapack_getri(int n, float* a, const lapack_int* p) { return LAPACKE_sgetri(kCol, n, a, n, p); }
lapack_int lapack_getri(int n, double* a, const lapack_int* p) { return LAPACKE_dgetri(kCol, n, a, n, p); }
lapack_int lapack_getri(int n, cfloat* a, const lapack_int* p) { return LAPACKE_cgetri(kCol, n, a, n, p); }
lapack_int lapack_getri(int n, cdouble* a, const lapack_int* p) { return LAPACKE_zgetri(kCol, n, a, n, p); }

lapack_int lapack_potrf(char u, int n, float* a) { return LAPACKE_spotrf(kCol, u, n, a, n); }
lapack_int lapack_potrf(char u, int n, double* a) { return LAPACKE_dpotrf(kCol, u, n, a, n); }
lapack_int lapack_potrf(char u, int n, cfloat* a) { return LAPACKE_cpotrf(kCol, u, n, a, n); }
lapack_int lapack_potrf(char u, int n, cdouble* a) { return LAPACKE_zpotrf(kCol, u, n, a, n); }

CBLAS_TRANSPOSE blas_op(Op op) {
  return op == Op::None ? CblasNoTrans : op == Op::Transpose ? CblasTrans : CblasConjTrans;
}
char lapack_part(Triangle t) { return t == Triangle::Lower ? 'L' : 'U'; }

template <class T>
std::string lapacke_name(const char* routine) {
  return std::string("LAPACKE_") + type_letter<T>() + routine;
}

// Sizes are not negative; at least one for the leading dimension of an empty matrix.
void check_sizes(const char* routine, std::initializer_list<int> sizes) {
  for (int s : sizes)
    if (s < 0) throw Error(std::string(routine) + ": negative matrix size " + std::to_string(s));
}

// `a` is on the context's backend and holds count matrices of rows x cols.
template <class T>
void check_matrix(const Context& ctx, const Array<T>& a, long rows, long cols, long count, const char* routine,
                  const char* name) {
  if (a.backend() != ctx.backend())
    throw Error(std::string(routine) + ": " + name + " is on the " + backend_name(a.backend()) +
                " backend, the context on " + backend_name(ctx.backend()));
  const long need = rows * cols * count;
  if (static_cast<long>(a.size()) < need)
    throw Error(std::string(routine) + ": " + name + " holds " + std::to_string(a.size()) + " values; " +
                std::to_string(count) + " matrices of " + std::to_string(rows) + " x " + std::to_string(cols) +
                " need " + std::to_string(need));
}

}  // namespace

void check_solver_info(long info, SolverKind kind, const std::string& routine) {
  if (info == 0) return;
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    throw Error(routine + ": LAPACKE could not allocate its workspace");
  if (info < 0)
    throw Error(routine + ": argument " + std::to_string(-info) + " had an illegal value" +
                (routine.starts_with("LAPACKE") ? " (or, LAPACKE's check, holds a NaN)" : ""));
  const std::string i = std::to_string(info);
  switch (kind) {
    case SolverKind::Lu: throw Error(routine + ": the matrix is singular (U(" + i + "," + i + ") is exactly zero)");
    case SolverKind::Cholesky:
      throw Error(routine + ": the matrix is not positive definite (its leading minor of order " + i + " is not)");
    case SolverKind::Eigen: throw Error(routine + ": the eigensolver did not converge (info " + i + ")");
  }
}

template <class T>
void gemm(Context& ctx, Op op_a, Op op_b, int m, int n, int k, std::type_identity_t<T> alpha, const Array<T>& a,
          const Array<T>& b, std::type_identity_t<T> beta, Array<T>& c, int batch) {
  constexpr const char* routine = "gemm";
  check_sizes(routine, {m, n, k, batch});
  const int rows_a = op_a == Op::None ? m : k, rows_b = op_b == Op::None ? k : n;
  check_matrix(ctx, a, rows_a, op_a == Op::None ? k : m, batch, routine, "A");
  check_matrix(ctx, b, rows_b, op_b == Op::None ? n : k, batch, routine, "B");
  check_matrix(ctx, c, m, n, batch, routine, "C");
  if (batch == 0) return;
  if (ctx.backend() == Backend::Cuda)
    return gemm_gpu(ctx, op_a, op_b, m, n, k, alpha, a.data(), b.data(), beta, c.data(), batch);
  const long stride_a = long(m) * k, stride_b = long(k) * n, stride_c = long(m) * n;
  for (int i = 0; i < batch; ++i)
    blas_gemm(blas_op(op_a), blas_op(op_b), m, n, k, alpha, a.data() + i * stride_a, std::max(1, rows_a),
              b.data() + i * stride_b, std::max(1, rows_b), beta, c.data() + i * stride_c, std::max(1, m));
}

template <class T>
void herk(Context& ctx, Triangle part, Op op, int n, int k, Real<T> alpha, const Array<T>& a, Real<T> beta,
          Array<T>& c) {
  constexpr const char* routine = is_complex_v<T> ? "herk" : "syrk";
  check_sizes(routine, {n, k});
  if (op == Op::Transpose && is_complex_v<T>)
    throw Error("herk: op(A) is A or A^H (Op::None or Op::Adjoint), not A^T");
  if (op == Op::Transpose) op = Op::Adjoint;
  const int rows_a = op == Op::None ? n : k;
  check_matrix(ctx, a, rows_a, op == Op::None ? k : n, 1, routine, "A");
  check_matrix(ctx, c, n, n, 1, routine, "C");
  if (ctx.backend() == Backend::Cuda) return herk_gpu(ctx, part, op, n, k, alpha, a.data(), beta, c.data());
  // For real T, CBLAS takes CblasTrans where complex herk takes CblasConjTrans.
  const CBLAS_TRANSPOSE t = op == Op::None ? CblasNoTrans : is_complex_v<T> ? CblasConjTrans : CblasTrans;
  blas_herk(part == Triangle::Lower ? CblasLower : CblasUpper, t, n, k, alpha, a.data(), std::max(1, rows_a), beta,
            c.data(), std::max(1, n));
}

template <class T>
void symm(Context& ctx, Triangle part, int m, int n, std::type_identity_t<T> alpha, const Array<T>& a,
          const Array<T>& b, std::type_identity_t<T> beta, Array<T>& c) {
  constexpr const char* routine = is_complex_v<T> ? "hemm" : "symm";
  check_sizes(routine, {m, n});
  check_matrix(ctx, a, m, m, 1, routine, "A");
  check_matrix(ctx, b, m, n, 1, routine, "B");
  check_matrix(ctx, c, m, n, 1, routine, "C");
  if (m == 0 || n == 0) return;
  if (ctx.backend() == Backend::Cuda) return symm_gpu(ctx, part, m, n, alpha, a.data(), b.data(), beta, c.data());
  blas_symm(part == Triangle::Lower ? CblasLower : CblasUpper, m, n, alpha, a.data(), b.data(), beta, c.data());
}

template <class T>
void symv(Context& ctx, Triangle part, int n, std::type_identity_t<T> alpha, const Array<T>& a, const Array<T>& x,
          std::type_identity_t<T> beta, Array<T>& y) {
  constexpr const char* routine = is_complex_v<T> ? "hemv" : "symv";
  check_sizes(routine, {n});
  check_matrix(ctx, a, n, n, 1, routine, "A");
  check_matrix(ctx, x, n, 1, 1, routine, "x");
  check_matrix(ctx, y, n, 1, 1, routine, "y");
  if (n == 0) return;
  if (ctx.backend() == Backend::Cuda) return symv_gpu(ctx, part, n, alpha, a.data(), x.data(), beta, y.data());
  blas_symv(part == Triangle::Lower ? CblasLower : CblasUpper, n, alpha, a.data(), x.data(), beta, y.data());
}

template <class T>
void eigh(Context& ctx, Triangle part, int n, Array<T>& a, Array<Real<T>>& w) {
  constexpr const char* routine = is_complex_v<T> ? "heevd" : "syevd";
  check_sizes(routine, {n});
  check_matrix(ctx, a, n, n, 1, routine, "A");
  check_matrix(ctx, w, n, 1, 1, routine, "w");
  if (n == 0) return;
  if (ctx.backend() == Backend::Cuda) return eigh_gpu(ctx, part, n, a.data(), w.data());
  if constexpr (is_complex_v<T>) {
    // OpenBLAS 0.3.21's zgemv_n_HASWELL (inside ?HETRD) reads past the end of the matrix on some CPUs
    // (OpenBLAS issue 4013; it crashed 5 of 30 Si-EPM solves here): the solver works on a copy with
    // room after it.
    constexpr std::size_t kSlack = 512;
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::vector<T> padded(nn + kSlack);
    std::copy_n(a.data(), nn, padded.begin());
    check_solver_info(lapack_eigh(lapack_part(part), n, padded.data(), w.data()), SolverKind::Eigen,
                      lapacke_name<T>(routine));
    std::copy_n(padded.begin(), nn, a.data());
    return;
  }
  check_solver_info(lapack_eigh(lapack_part(part), n, a.data(), w.data()), SolverKind::Eigen,
                    lapacke_name<T>(routine));
}

template <class T>
void lu_solve(Context& ctx, int n, int nrhs, Array<T>& a, Array<T>& b) {
  constexpr const char* routine = "getrs";
  check_sizes(routine, {n, nrhs});
  check_matrix(ctx, a, n, n, 1, routine, "A");
  check_matrix(ctx, b, n, nrhs, 1, routine, "B");
  if (n == 0) return;
  if (ctx.backend() == Backend::Cuda) return lu_solve_gpu(ctx, n, nrhs, a.data(), b.data());
  std::vector<lapack_int> pivots(n);
  check_solver_info(lapack_getrf(n, a.data(), pivots.data()), SolverKind::Lu, lapacke_name<T>("getrf"));
  if (nrhs == 0) return;
  check_solver_info(lapack_getrs(n, nrhs, a.data(), pivots.data(), b.data()), SolverKind::Lu,
                    lapacke_name<T>("getrs"));
}

template <class T>
void invert(Context& ctx, int n, Array<T>& a) {
  constexpr const char* routine = "invert";
  check_sizes(routine, {n});
  check_matrix(ctx, a, n, n, 1, routine, "A");
  if (n == 0) return;
  if (ctx.backend() == Backend::Cuda) return invert_gpu(ctx, n, a.data());
  std::vector<lapack_int> pivots(n);
  check_solver_info(lapack_getrf(n, a.data(), pivots.data()), SolverKind::Lu, lapacke_name<T>("getrf"));
  check_solver_info(lapack_getri(n, a.data(), pivots.data()), SolverKind::Lu, lapacke_name<T>("getri"));
}

template <class T>
void cholesky(Context& ctx, Triangle part, int n, Array<T>& a) {
  constexpr const char* routine = "potrf";
  check_sizes(routine, {n});
  check_matrix(ctx, a, n, n, 1, routine, "A");
  if (n == 0) return;
  if (ctx.backend() == Backend::Cuda) return cholesky_gpu(ctx, part, n, a.data());
  check_solver_info(lapack_potrf(lapack_part(part), n, a.data()), SolverKind::Cholesky, lapacke_name<T>("potrf"));
}

#define QUASAR_INSTANTIATE(T)                                                                                     \
  template void gemm<T>(Context&, Op, Op, int, int, int, T, const Array<T>&, const Array<T>&, T, Array<T>&, int); \
  template void herk(Context&, Triangle, Op, int, int, Real<T>, const Array<T>&, Real<T>, Array<T>&);             \
  template void symm<T>(Context&, Triangle, int, int, T, const Array<T>&, const Array<T>&, T, Array<T>&);         \
  template void symv<T>(Context&, Triangle, int, T, const Array<T>&, const Array<T>&, T, Array<T>&);              \
  template void eigh(Context&, Triangle, int, Array<T>&, Array<Real<T>>&);                                        \
  template void lu_solve(Context&, int, int, Array<T>&, Array<T>&);                                               \
  template void invert(Context&, int, Array<T>&);                                                                 \
  template void cholesky(Context&, Triangle, int, Array<T>&);
QUASAR_LINALG_TYPES(QUASAR_INSTANTIATE)
#undef QUASAR_INSTANTIATE

}  // namespace quasar::device
