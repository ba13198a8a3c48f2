// device/linalg.hpp (OpenBLAS and LAPACKE on the CPU, cuBLAS and cuSOLVER on the GPU) for float, double,
// complex<float> and complex<double>: gemm (every transpose, batched), herk/syrk, symm/hemm and symv/hemv against plain loops;
// the eigensolver by its residuals A v - lambda v, orthonormal eigenvectors, ascending order and the
// analytic spectrum 2 - 2 cos(k pi/(n+1)) of the second-difference matrix; LU solves by A X = B, the
// inverse by A A^-1 = I; Cholesky by L L^H = A and U^H U = A; singular, indefinite and mis-sized input.
// Deviations are relative to the sum of the magnitudes of the terms each entry adds up (rounding
// grows with that sum, not with the result), so that they read as multiples of the type's epsilon.
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/linalg.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using device::Context;
using device::Op;
using device::Real;
using device::Triangle;

template <class T>
constexpr bool kComplex = !std::is_same_v<T, Real<T>>;
template <class T>
constexpr bool kSingle = std::is_same_v<Real<T>, float>;
// The reference's type: double or complex<double>.
template <class T>
using Wide = std::conditional_t<kComplex<T>, std::complex<double>, double>;

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return "complex<float>";
  else return "complex<double>";
}

template <class T>
T conj_of(T x) {
  if constexpr (kComplex<T>) return std::conj(x);
  else return x;
}
template <class T>
T value(double re, double im) {
  if constexpr (kComplex<T>) return T(Real<T>(re), Real<T>(im));
  else return T(re);
}
template <class T>
Wide<T> wide(T x) {
  if constexpr (kComplex<T>) return {x.real(), x.imag()};
  else return x;
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) {
    const double re = u(rng), im = u(rng);
    x = value<T>(re, im);
  }
  return v;
}

template <class T>
Array<T> on_backend(Backend b, const std::vector<T>& v) {
  Array<T> a(b, v.size());
  a.upload(v.data(), v.size());
  return a;
}

// Element (i, j) of op(A), A column-major with `rows` rows from `offset` on.
template <class T>
Wide<T> op_element(const std::vector<T>& a, std::size_t offset, int rows, Op op, int i, int j) {
  if (op == Op::None) return wide(a[offset + i + std::size_t(j) * rows]);
  const T x = a[offset + j + std::size_t(i) * rows];
  return wide(op == Op::Adjoint ? conj_of(x) : x);
}

// A random n x n Hermitian (real: symmetric) matrix, full.
template <class T>
std::vector<T> random_hermitian(int n, unsigned seed) {
  auto a = random_values<T>(std::size_t(n) * n, seed);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i) a[i + std::size_t(j) * n] = conj_of(a[j + std::size_t(i) * n]);
    a[j + std::size_t(j) * n] = value<T>(std::real(a[j + std::size_t(j) * n]), 0);
  }
  return a;
}

bool in_part(Triangle part, int i, int j) { return part == Triangle::Lower ? i >= j : i <= j; }

// Expected deviations are a few epsilons of the type: the tolerances below are per type.
template <class T>
double tolerance(double double_tol, double float_tol) {
  return kSingle<T> ? float_tol : double_tol;
}

class DeviceLinalgTest : public testing::TestWithParam<Backend> {};

template <class T>
void check_gemm(Backend backend) {
  Context ctx(backend);
  const int m = 7, n = 5, k = 6, batch = 3;
  const T alpha = value<T>(0.7, -0.3), beta = value<T>(-0.4, 0.2);
  test::MaxError err("gemm " + type_name<T>() + ", every op pair, batch 3, against loops");
  for (Op oa : {Op::None, Op::Transpose, Op::Adjoint})
    for (Op ob : {Op::None, Op::Transpose, Op::Adjoint}) {
      const int rows_a = oa == Op::None ? m : k, rows_b = ob == Op::None ? k : n;
      const auto a = random_values<T>(std::size_t(m) * k * batch, 1);
      const auto b = random_values<T>(std::size_t(k) * n * batch, 2);
      const auto c0 = random_values<T>(std::size_t(m) * n * batch, 3);
      Array<T> da = on_backend(backend, a), db = on_backend(backend, b), dc = on_backend(backend, c0);
      device::gemm(ctx, oa, ob, m, n, k, alpha, da, db, beta, dc, batch);
      const auto c = dc.to_vector();
      for (int p = 0; p < batch; ++p)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < m; ++i) {
            const std::size_t at = std::size_t(p) * m * n + i + std::size_t(j) * m;
            Wide<T> sum = 0;
            double size = std::abs(wide(beta) * wide(c0[at]));
            for (int l = 0; l < k; ++l) {
              const Wide<T> term = op_element(a, std::size_t(p) * m * k, rows_a, oa, i, l) *
                                   op_element(b, std::size_t(p) * k * n, rows_b, ob, l, j);
              sum += term;
              size += std::abs(wide(alpha) * term);
            }
            err.add(std::abs(wide(c[at]) - (wide(alpha) * sum + wide(beta) * wide(c0[at]))) / size, 0);
          }
    }
  // CPU (OpenBLAS 0.3.21): float 1.4e-07, double 2.7e-16, complex<float> 1.7e-07, complex<double> 3.1e-16.
  EXPECT_TRUE(err.within(tolerance<T>(2e-14, 1e-5)));
}

TEST_P(DeviceLinalgTest, GemmMatchesLoops) {
  check_gemm<float>(GetParam());
  check_gemm<double>(GetParam());
  check_gemm<std::complex<float>>(GetParam());
  check_gemm<std::complex<double>>(GetParam());
}

// herk (syrk for real T) writes one triangle of C = alpha op(A) op(A)^H + beta C and leaves the other.
template <class T>
void check_herk(Backend backend) {
  Context ctx(backend);
  const int n = 6, k = 4;
  const Real<T> alpha = Real<T>(0.8), beta = Real<T>(-0.3);
  const T untouched = value<T>(9, 9);
  test::MaxError err("herk " + type_name<T>() + ", both triangles and ops, against loops"),
      other("herk " + type_name<T>() + ", the other triangle left as it was");
  for (Triangle part : {Triangle::Lower, Triangle::Upper})
    for (Op op : {Op::None, Op::Adjoint}) {
      const int rows_a = op == Op::None ? n : k;
      const auto a = random_values<T>(std::size_t(n) * k, 4);
      auto c0 = random_hermitian<T>(n, 5);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (!in_part(part, i, j)) c0[i + std::size_t(j) * n] = untouched;
      Array<T> da = on_backend(backend, a), dc = on_backend(backend, c0);
      device::herk(ctx, part, op, n, k, alpha, da, beta, dc);
      const auto c = dc.to_vector();
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const std::size_t at = i + std::size_t(j) * n;
          if (!in_part(part, i, j)) {
            other.add(std::abs(wide(c[at]) - wide(untouched)), 0);
            continue;
          }
          Wide<T> sum = 0;
          double size = std::abs(double(beta) * wide(c0[at]));
          for (int l = 0; l < k; ++l) {
            const Wide<T> term = op_element(a, 0, rows_a, op, i, l) * conj_of(op_element(a, 0, rows_a, op, j, l));
            sum += term;
            size += std::abs(double(alpha) * term);
          }
          err.add(std::abs(wide(c[at]) - (double(alpha) * sum + double(beta) * wide(c0[at]))) / size, 0);
        }
    }
  // CPU: float 1.4e-07, double 2.4e-16, complex<float> 1.3e-07, complex<double> 2.1e-16.
  EXPECT_TRUE(err.within(tolerance<T>(2e-14, 1e-5)));
  EXPECT_TRUE(other.within(0));
}

TEST_P(DeviceLinalgTest, HerkMatchesLoops) {
  check_herk<float>(GetParam());
  check_herk<double>(GetParam());
  check_herk<std::complex<float>>(GetParam());
  check_herk<std::complex<double>>(GetParam());
}

// symm (hemm for complex T) reads one triangle of A alone: the other holds garbage; symv (hemv) is the
// case of one column.
template <class T>
void check_symm(Backend backend) {
  Context ctx(backend);
  const T alpha = value<T>(0.6, 0.2), beta = value<T>(-0.5, 0.1);
  test::MaxError err("symm and symv " + type_name<T>() + ", both triangles, against loops");
  for (int n : {3, 1})
  for (Triangle part : {Triangle::Lower, Triangle::Upper}) {
    const int m = 7;
    const auto full = random_hermitian<T>(m, 6);
    auto a = full;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i)
        if (!in_part(part, i, j)) a[i + std::size_t(j) * m] = value<T>(1e3, -1e3);
    const auto b = random_values<T>(std::size_t(m) * n, 7);
    const auto c0 = random_values<T>(std::size_t(m) * n, 8);
    Array<T> da = on_backend(backend, a), db = on_backend(backend, b), dc = on_backend(backend, c0);
    if (n == 1) device::symv(ctx, part, m, alpha, da, db, beta, dc);
    else device::symm(ctx, part, m, n, alpha, da, db, beta, dc);
    const auto c = dc.to_vector();
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        const std::size_t at = i + std::size_t(j) * m;
        Wide<T> sum = 0;
        double size = std::abs(wide(beta) * wide(c0[at]));
        for (int l = 0; l < m; ++l) {
          const Wide<T> term = wide(full[i + std::size_t(l) * m]) * wide(b[l + std::size_t(j) * m]);
          sum += term;
          size += std::abs(wide(alpha) * term);
        }
        err.add(std::abs(wide(c[at]) - (wide(alpha) * sum + wide(beta) * wide(c0[at]))) / size, 0);
      }
  }
  // CPU: float 9.6e-08, double 1.8e-16, complex<float> 1.2e-07, complex<double> 2.2e-16.
  EXPECT_TRUE(err.within(tolerance<T>(2e-14, 1e-5)));
}

TEST_P(DeviceLinalgTest, SymmMatchesLoops) {
  check_symm<float>(GetParam());
  check_symm<double>(GetParam());
  check_symm<std::complex<float>>(GetParam());
  check_symm<std::complex<double>>(GetParam());
}

// Random Hermitian matrices (n = 40, past LAPACK's divide-and-conquer threshold of 25), each triangle
// read alone (the other holds garbage): residuals relative to the largest |lambda|, orthonormality.
template <class T>
void check_eigh(Backend backend) {
  Context ctx(backend);
  const int n = 40;
  test::MaxError residual("eigh " + type_name<T>() + ": |A v - lambda v| / max |lambda|"),
      orthonormal("eigh " + type_name<T>() + ": |V^H V - I|");
  for (Triangle part : {Triangle::Lower, Triangle::Upper}) {
    const auto a = random_hermitian<T>(n, 6);
    auto garbled = a;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (!in_part(part, i, j)) garbled[i + std::size_t(j) * n] = value<T>(1e3, -1e3);
    Array<T> da = on_backend(backend, garbled);
    Array<Real<T>> dw(backend, n);
    device::eigh(ctx, part, n, da, dw);
    const auto v = da.to_vector();
    const auto w = dw.to_vector();
    for (int j = 1; j < n; ++j) EXPECT_LE(w[j - 1], w[j]) << "eigenvalues ascending";
    const double scale = std::max(std::abs(double(w[0])), std::abs(double(w[n - 1])));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        Wide<T> av = 0, vv = 0;
        for (int l = 0; l < n; ++l) {
          av += wide(a[i + std::size_t(l) * n]) * wide(v[l + std::size_t(j) * n]);
          vv += conj_of(wide(v[l + std::size_t(i) * n])) * wide(v[l + std::size_t(j) * n]);
        }
        residual.add(std::abs(av - double(w[j]) * wide(v[i + std::size_t(j) * n])) / scale, 0);
        orthonormal.add(std::abs(vv - Wide<T>(i == j ? 1.0 : 0.0)), 0);
      }
  }
  // CPU (OpenBLAS's LAPACK): float 2.6e-07 and 6.9e-07, double 6.8e-16 and 1.8e-15, complex<float>
  // 1.8e-07 and 1.1e-06, complex<double> 4.7e-16 and 2.0e-15.
  EXPECT_TRUE(residual.within(tolerance<T>(5e-14, 2e-5)));
  EXPECT_TRUE(orthonormal.within(tolerance<T>(1e-13, 5e-5)));
}

// The second-difference matrix (2 on the diagonal, -1 beside it) of order n has the eigenvalues
// 2 - 2 cos(k pi / (n + 1)), k = 1..n.
template <class T>
void check_eigh_spectrum(Backend backend) {
  Context ctx(backend);
  const int n = 50;
  std::vector<T> a(std::size_t(n) * n);
  for (int i = 0; i < n; ++i) {
    a[i + std::size_t(i) * n] = T(2);
    if (i + 1 < n) a[i + 1 + std::size_t(i) * n] = a[i + std::size_t(i + 1) * n] = T(-1);
  }
  Array<T> da = on_backend(backend, a);
  Array<Real<T>> dw(backend, n);
  device::eigh(ctx, Triangle::Lower, n, da, dw);
  const auto w = dw.to_vector();
  test::MaxError err("eigh " + type_name<T>() + ": second-difference spectrum against 2 - 2 cos(k pi/(n+1))");
  for (int k = 1; k <= n; ++k) err.add(w[k - 1], 2 - 2 * std::cos(k * std::numbers::pi / (n + 1)));
  // CPU: float 9.7e-07, double 1.8e-15, complex<float> 9.7e-07, complex<double> 1.8e-15.
  EXPECT_TRUE(err.within(tolerance<T>(1e-13, 5e-5)));
}

TEST_P(DeviceLinalgTest, EigensolverResidualsAndAnalyticSpectrum) {
  check_eigh<float>(GetParam());
  check_eigh<double>(GetParam());
  check_eigh<std::complex<float>>(GetParam());
  check_eigh<std::complex<double>>(GetParam());
  check_eigh_spectrum<float>(GetParam());
  check_eigh_spectrum<double>(GetParam());
  check_eigh_spectrum<std::complex<float>>(GetParam());
  check_eigh_spectrum<std::complex<double>>(GetParam());
}

// |sum_l A_il X_lj - B_ij| relative to sum_l |A_il X_lj| + |B_ij|, over n x cols products.
template <class T>
void add_product_deviation(test::MaxError& err, const std::vector<T>& a, const std::vector<T>& x,
                           const std::vector<T>& b, int n, int cols) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < n; ++i) {
      Wide<T> sum = 0;
      double size = std::abs(wide(b[i + std::size_t(j) * n]));
      for (int l = 0; l < n; ++l) {
        const Wide<T> term = wide(a[i + std::size_t(l) * n]) * wide(x[l + std::size_t(j) * n]);
        sum += term;
        size += std::abs(term);
      }
      err.add(std::abs(sum - wide(b[i + std::size_t(j) * n])) / size, 0);
    }
}

// Random matrices with 3 added to the diagonal (condition numbers of tens, so that the residuals
// measure the solver rather than the matrix).
template <class T>
std::vector<T> random_square(int n, unsigned seed) {
  auto a = random_values<T>(std::size_t(n) * n, seed);
  for (int i = 0; i < n; ++i) a[i + std::size_t(i) * n] += T(3);
  return a;
}

template <class T>
void check_lu(Backend backend) {
  Context ctx(backend);
  const int n = 30, nrhs = 4;
  const auto a = random_square<T>(n, 7);
  const auto b = random_values<T>(std::size_t(n) * nrhs, 8);
  Array<T> da = on_backend(backend, a), db = on_backend(backend, b);
  device::lu_solve(ctx, n, nrhs, da, db);
  test::MaxError solve("lu_solve " + type_name<T>() + ": A X = B"), inverse("invert " + type_name<T>() + ": A A^-1 = I");
  add_product_deviation(solve, a, db.to_vector(), b, n, nrhs);
  Array<T> dinv = on_backend(backend, a);
  device::invert(ctx, n, dinv);
  std::vector<T> identity(std::size_t(n) * n);
  for (int i = 0; i < n; ++i) identity[i + std::size_t(i) * n] = T(1);
  add_product_deviation(inverse, a, dinv.to_vector(), identity, n, n);
  // CPU: float 9.0e-08 and 1.4e-07, double 2.1e-16 and 3.6e-16, complex<float> 1.0e-07 and 3.6e-07,
  // complex<double> 2.3e-16 and 5.4e-16.
  EXPECT_TRUE(solve.within(tolerance<T>(2e-14, 1e-5)));
  EXPECT_TRUE(inverse.within(tolerance<T>(3e-14, 2e-5)));
}

TEST_P(DeviceLinalgTest, LuSolveAndInverse) {
  check_lu<float>(GetParam());
  check_lu<double>(GetParam());
  check_lu<std::complex<float>>(GetParam());
  check_lu<std::complex<double>>(GetParam());
}

// A = B B^H + n I (Hermitian positive definite): L L^H = A from the lower factor, U^H U = A from the
// upper one, the other triangle left as it was.
template <class T>
void check_cholesky(Backend backend) {
  Context ctx(backend);
  const int n = 20;
  const auto b = random_values<T>(std::size_t(n) * n, 9);
  std::vector<T> a(std::size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      Wide<T> s = i == j ? n : 0;
      for (int l = 0; l < n; ++l) s += wide(b[i + std::size_t(l) * n]) * conj_of(wide(b[j + std::size_t(l) * n]));
      a[i + std::size_t(j) * n] = value<T>(std::real(s), i == j ? 0 : std::imag(s));
    }
  const T untouched = value<T>(7, -7);
  test::MaxError err("cholesky " + type_name<T>() + ": L L^H = A and U^H U = A"),
      other("cholesky " + type_name<T>() + ": the other triangle left as it was");
  for (Triangle part : {Triangle::Lower, Triangle::Upper}) {
    auto garbled = a;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (!in_part(part, i, j)) garbled[i + std::size_t(j) * n] = untouched;
    Array<T> da = on_backend(backend, garbled);
    device::cholesky(ctx, part, n, da);
    const auto f = da.to_vector();
    // Lower: A = L L^H, (i, j) = sum_l L_il conj(L_jl); Upper: A = U^H U, (i, j) = sum_l conj(U_li) U_lj.
    auto factor = [&](int i, int j) -> Wide<T> {
      if (!in_part(part, i, j)) return 0;
      return wide(f[i + std::size_t(j) * n]);
    };
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        if (!in_part(part, i, j)) other.add(std::abs(wide(f[i + std::size_t(j) * n]) - wide(untouched)), 0);
        Wide<T> sum = 0;
        double size = 0;
        for (int l = 0; l < n; ++l) {
          const Wide<T> term =
              part == Triangle::Lower ? factor(i, l) * conj_of(factor(j, l)) : conj_of(factor(l, i)) * factor(l, j);
          sum += term;
          size += std::abs(term);
        }
        err.add(std::abs(sum - wide(a[i + std::size_t(j) * n])) / size, 0);
      }
  }
  // CPU: float 1.0e-07, double 3.1e-16, complex<float> 9.4e-08, complex<double> 2.3e-16.
  EXPECT_TRUE(err.within(tolerance<T>(3e-14, 1e-5)));
  EXPECT_TRUE(other.within(0));
}

TEST_P(DeviceLinalgTest, CholeskyFactorsReproduceTheMatrix) {
  check_cholesky<float>(GetParam());
  check_cholesky<double>(GetParam());
  check_cholesky<std::complex<float>>(GetParam());
  check_cholesky<std::complex<double>>(GetParam());
}

template <class T>
void check_errors(Backend backend) {
  Context ctx(backend);
  const int n = 4;
  // A zero third column: U(3,3) = 0 exactly.
  auto singular = random_square<T>(n, 10);
  for (int i = 0; i < n; ++i) singular[i + 2 * n] = T(0);
  Array<T> a = on_backend(backend, singular), b(backend, n);
  try {
    device::invert(ctx, n, a);
    ADD_FAILURE() << "a singular matrix was inverted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("singular (U(3,3)"), std::string::npos) << e.what();
  }
  a.upload(singular.data(), singular.size());
  EXPECT_THROW(device::lu_solve(ctx, n, 1, a, b), Error);
  // diag(1, 1, -1, 1) is not positive definite at order 3.
  std::vector<T> indefinite(std::size_t(n) * n);
  for (int i = 0; i < n; ++i) indefinite[i + std::size_t(i) * n] = T(i == 2 ? -1 : 1);
  Array<T> c = on_backend(backend, indefinite);
  try {
    device::cholesky(ctx, Triangle::Lower, n, c);
    ADD_FAILURE() << "an indefinite matrix was factorised";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite (its leading minor of order 3"), std::string::npos)
        << e.what();
  }
  // Arrays too short, negative sizes, Op::Transpose for complex herk, an array of another backend.
  Array<T> small(backend, n * n - 1), square(backend, n * n);
  Array<Real<T>> w(backend, n);
  EXPECT_THROW(device::gemm(ctx, Op::None, Op::None, n, n, n, T(1), small, square, T(0), square), Error);
  EXPECT_THROW(device::gemm(ctx, Op::None, Op::None, n, n, n, T(1), square, square, T(0), square, 2), Error);
  EXPECT_THROW(device::gemm(ctx, Op::None, Op::None, -1, n, n, T(1), square, square, T(0), square), Error);
  EXPECT_THROW(device::eigh(ctx, Triangle::Lower, n, small, w), Error);
  EXPECT_THROW(device::cholesky(ctx, Triangle::Upper, n, small), Error);
  if constexpr (kComplex<T>) {
    EXPECT_THROW(device::herk(ctx, Triangle::Lower, Op::Transpose, n, n, Real<T>(1), square, Real<T>(0), square),
                 Error);
  }
  if (backend == Backend::Cuda) {
    Array<T> host(Backend::Cpu, n * n);
    EXPECT_THROW(device::invert(ctx, n, host), Error);
  }
  // The context stays usable after a failure.
  Array<T> fine = on_backend(backend, random_square<T>(n, 11));
  EXPECT_NO_THROW(device::invert(ctx, n, fine));
}

TEST_P(DeviceLinalgTest, SingularIndefiniteAndMissizedInputAreErrors) {
  check_errors<float>(GetParam());
  check_errors<double>(GetParam());
  check_errors<std::complex<float>>(GetParam());
  check_errors<std::complex<double>>(GetParam());
}

QUASAR_INSTANTIATE_BACKENDS(DeviceLinalgTest);

}  // namespace
}  // namespace quasar
