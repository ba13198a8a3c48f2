#pragma once
#include <complex>
#include <type_traits>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::device {

// Dense linear algebra on Arrays of a context's backend: OpenBLAS (through CBLAS) and LAPACKE on the
// CPU, cuBLAS and cuSOLVER on the GPU (queued on the context's stream). T is float, double,
// std::complex<float> or std::complex<double>. Matrices are column-major, as BLAS and LAPACK store them
// (element (i, j) of an m x n matrix at i + j m), and dense (leading dimension = rows); a batch of
// matrices lies one after another. Arrays may be longer than the matrices they hold. Errors (wrong
// sizes, a singular or indefinite matrix, a library's failure) throw quasar::Error naming the routine
// and the library's status; the calls that can fail on the matrix's values (the factorisations and
// the eigensolver) read the solver's info word, which on the GPU waits for the stream.

enum class Op { None, Transpose, Adjoint };  // op(A) = A, A^T, A^H (A^H = A^T for real T)
enum class Triangle { Lower, Upper };

template <class T>
struct RealOf {
  using type = T;
};
template <class R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <class T>
using Real = typename RealOf<T>::type;

// C = alpha op(A) op(B) + beta C, with op(A) m x k, op(B) k x n and C m x n (A is m x k, or k x m
// when transposed; B likewise), for `batch` triples of matrices (xGEMM, strided batched on the GPU).
template <class T>
void gemm(Context& ctx, Op op_a, Op op_b, int m, int n, int k, std::type_identity_t<T> alpha, const Array<T>& a,
          const Array<T>& b, std::type_identity_t<T> beta, Array<T>& c, int batch = 1);

// C = alpha op(A) op(A)^H + beta C for the n x n Hermitian (real: symmetric) C: op None takes A n x k
// (A A^H), op Adjoint takes A k x n (A^H A). Only C's `part` triangle is read and written (xHERK;
// xSYRK for real T).
template <class T>
void herk(Context& ctx, Triangle part, Op op, int n, int k, Real<T> alpha, const Array<T>& a, Real<T> beta,
          Array<T>& c);

// C = alpha A B + beta C for the m x m symmetric (complex T: Hermitian) A, of which only the `part`
// triangle is read, and the m x n B and C (xSYMM; xHEMM for complex T; A on the left).
template <class T>
void symm(Context& ctx, Triangle part, int m, int n, std::type_identity_t<T> alpha, const Array<T>& a,
          const Array<T>& b, std::type_identity_t<T> beta, Array<T>& c);

// y = alpha A x + beta y for the n x n symmetric (complex T: Hermitian) A, of which only the `part`
// triangle is read, and the vectors x and y of n values (xSYMV; xHEMV for complex T).
template <class T>
void symv(Context& ctx, Triangle part, int n, std::type_identity_t<T> alpha, const Array<T>& a, const Array<T>& x,
          std::type_identity_t<T> beta, Array<T>& y);

// The eigenvalues of the n x n Hermitian (real: symmetric) A in ascending order into w, and the
// orthonormal eigenvectors over A (column j belongs to w[j]). A's `part` triangle is what is read.
// Divide and conquer (xHEEVD / xSYEVD; cuSOLVER's Xsyevd).
template <class T>
void eigh(Context& ctx, Triangle part, int n, Array<T>& a, Array<Real<T>>& w);

// Solves A X = B for the n x n A and n x nrhs B by LU with partial pivoting (xGETRF + xGETRS):
// X overwrites B, the LU factors overwrite A.
template <class T>
void lu_solve(Context& ctx, int n, int nrhs, Array<T>& a, Array<T>& b);

// Replaces the n x n A by its inverse: LU with partial pivoting, then xGETRI on the CPU and xGETRS
// with the identity on the GPU (cuSOLVER has no GETRI).
template <class T>
void invert(Context& ctx, int n, Array<T>& a);

// Cholesky factor of the n x n Hermitian positive definite A (xPOTRF): A = L L^H with `part` Lower,
// A = U^H U with Upper. The factor overwrites A's `part` triangle, which is also all that is read; the
// other triangle is left as it was.
template <class T>
void cholesky(Context& ctx, Triangle part, int n, Array<T>& a);

}  // namespace quasar::device
