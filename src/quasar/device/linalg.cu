// linalg.hpp's GPU backend: cuBLAS and cuSOLVER (64-bit generic API) on the context's stream.
#include <cuComplex.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "quasar/device/context.cuh"
#include "quasar/device/linalg_impl.hpp"

namespace quasar::device {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

template <class T>
constexpr cudaDataType data_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, cfloat>) return CUDA_C_32F;
  else return CUDA_C_64F;
}

cublasOperation_t cublas_op(Op op) {
  return op == Op::None ? CUBLAS_OP_N : op == Op::Transpose ? CUBLAS_OP_T : CUBLAS_OP_C;
}
cublasFillMode_t fill_mode(Triangle t) { return t == Triangle::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }

const cuComplex* cu(const cfloat* p) { return reinterpret_cast<const cuComplex*>(p); }
cuComplex* cu(cfloat* p) { return reinterpret_cast<cuComplex*>(p); }
const cuDoubleComplex* cu(const cdouble* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
cuDoubleComplex* cu(cdouble* p) { return reinterpret_cast<cuDoubleComplex*>(p); }

// One overload per element type, so that the templates below name each routine once.
struct GemmArgs {
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, batch;
  long long stride_a, stride_b, stride_c;
};
cublasStatus_t gemm_call(cublasHandle_t h, const GemmArgs& g, float alpha, const float* a, const float* b, float beta,
                         float* c) {
  return cublasSgemmStridedBatched(h, g.ta, g.tb, g.m, g.n, g.k, &alpha, a, g.lda, g.stride_a, b, g.ldb, g.stride_b,
                                   &beta, c, g.ldc, g.stride_c, g.batch);
}
cublasStatus_t gemm_call(cublasHandle_t h, const GemmArgs& g, double alpha, const double* a, const double* b,
                         double beta, double* c) {
  return cublasDgemmStridedBatched(h, g.ta, g.tb, g.m, g.n, g.k, &alpha, a, g.lda, g.stride_a, b, g.ldb, g.stride_b,
                                   &beta, c, g.ldc, g.stride_c, g.batch);
}
cublasStatus_t gemm_call(cublasHandle_t h, const GemmArgs& g, cfloat alpha, const cfloat* a, const cfloat* b,
                         cfloat beta, cfloat* c) {
  return cublasCgemmStridedBatched(h, g.ta, g.tb, g.m, g.n, g.k, cu(&alpha), cu(a), g.lda, g.stride_a, cu(b), g.ldb,
                                   g.stride_b, cu(&beta), cu(c), g.ldc, g.stride_c, g.batch);
}
cublasStatus_t gemm_call(cublasHandle_t h, const GemmArgs& g, cdouble alpha, const cdouble* a, const cdouble* b,
                         cdouble beta, cdouble* c) {
  return cublasZgemmStridedBatched(h, g.ta, g.tb, g.m, g.n, g.k, cu(&alpha), cu(a), g.lda, g.stride_a, cu(b), g.ldb,
                                   g.stride_b, cu(&beta), cu(c), g.ldc, g.stride_c, g.batch);
}

cublasStatus_t herk_call(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, float alpha,
                         const float* a, int lda, float beta, float* c) {
  return cublasSsyrk(h, u, t, n, k, &alpha, a, lda, &beta, c, std::max(1, n));
}
cublasStatus_t herk_call(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, double alpha,
                         const double* a, int lda, double beta, double* c) {
  return cublasDsyrk(h, u, t, n, k, &alpha, a, lda, &beta, c, std::max(1, n));
}
cublasStatus_t herk_call(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, float alpha,
                         const cfloat* a, int lda, float beta, cfloat* c) {
  return cublasCherk(h, u, t, n, k, &alpha, cu(a), lda, &beta, cu(c), std::max(1, n));
}
cublasStatus_t herk_call(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, int n, int k, double alpha,
                         const cdouble* a, int lda, double beta, cdouble* c) {
  return cublasZherk(h, u, t, n, k, &alpha, cu(a), lda, &beta, cu(c), std::max(1, n));
}

cublasStatus_t symm_call(cublasHandle_t h, cublasFillMode_t u, int m, int n, float alpha, const float* a,
                         const float* b, float beta, float* c) {
  return cublasSsymm(h, CUBLAS_SIDE_LEFT, u, m, n, &alpha, a, std::max(1, m), b, std::max(1, m), &beta, c,
                     std::max(1, m));
}
cublasStatus_t symm_call(cublasHandle_t h, cublasFillMode_t u, int m, int n, double alpha, const double* a,
                         const double* b, double beta, double* c) {
  return cublasDsymm(h, CUBLAS_SIDE_LEFT, u, m, n, &alpha, a, std::max(1, m), b, std::max(1, m), &beta, c,
                     std::max(1, m));
}
cublasStatus_t symm_call(cublasHandle_t h, cublasFillMode_t u, int m, int n, cfloat alpha, const cfloat* a,
                         const cfloat* b, cfloat beta, cfloat* c) {
  return cublasChemm(h, CUBLAS_SIDE_LEFT, u, m, n, cu(&alpha), cu(a), std::max(1, m), cu(b), std::max(1, m),
                     cu(&beta), cu(c), std::max(1, m));
}
cublasStatus_t symm_call(cublasHandle_t h, cublasFillMode_t u, int m, int n, cdouble alpha, const cdouble* a,
                         const cdouble* b, cdouble beta, cdouble* c) {
  return cublasZhemm(h, CUBLAS_SIDE_LEFT, u, m, n, cu(&alpha), cu(a), std::max(1, m), cu(b), std::max(1, m),
                     cu(&beta), cu(c), std::max(1, m));
}

cublasStatus_t symv_call(cublasHandle_t h, cublasFillMode_t u, int n, float alpha, const float* a, const float* x,
                         float beta, float* y) {
  return cublasSsymv(h, u, n, &alpha, a, std::max(1, n), x, 1, &beta, y, 1);
}
cublasStatus_t symv_call(cublasHandle_t h, cublasFillMode_t u, int n, double alpha, const double* a, const double* x,
                         double beta, double* y) {
  return cublasDsymv(h, u, n, &alpha, a, std::max(1, n), x, 1, &beta, y, 1);
}
cublasStatus_t symv_call(cublasHandle_t h, cublasFillMode_t u, int n, cfloat alpha, const cfloat* a, const cfloat* x,
                         cfloat beta, cfloat* y) {
  return cublasChemv(h, u, n, cu(&alpha), cu(a), std::max(1, n), cu(x), 1, cu(&beta), cu(y), 1);
}
cublasStatus_t symv_call(cublasHandle_t h, cublasFillMode_t u, int n, cdouble alpha, const cdouble* a,
                         const cdouble* x, cdouble beta, cdouble* y) {
  return cublasZhemv(h, u, n, cu(&alpha), cu(a), std::max(1, n), cu(x), 1, cu(&beta), cu(y), 1);
}

// cuBLAS's name of a routine for T: cublasZherk and so on.
template <class T>
std::string cublas_name(const char* routine) {
  return std::string("cublas") + char(type_letter<T>() - 'a' + 'A') + routine;
}

// The solvers' scratch: device workspace of `bytes` and host workspace of `host_bytes`.
struct Workspace {
  void* device;
  std::size_t bytes;
  void* host;
  std::size_t host_bytes;
};
Workspace workspace(CudaLibraries& lib, std::size_t bytes, std::size_t host_bytes) {
  lib.host_work.resize(std::max<std::size_t>(host_bytes, 1));
  return {lib.work.reserve(bytes, lib.stream), bytes, lib.host_work.data(), host_bytes};
}

// LU factors over a (n x n) and their pivots (in lib.pivots).
template <class T>
std::int64_t* lu_factor(CudaLibraries& lib, int n, T* a) {
  constexpr cudaDataType type = data_type<T>();
  std::size_t bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXgetrf_bufferSize(lib.solver(), lib.solver_params(), n, n, type, a, n, type, &bytes,
                                             &host_bytes),
                 "cusolverDnXgetrf_bufferSize");
  auto* pivots = static_cast<std::int64_t*>(lib.pivots.reserve(sizeof(std::int64_t) * n, lib.stream));
  const Workspace w = workspace(lib, bytes, host_bytes);
  check_cusolver(cusolverDnXgetrf(lib.solver(), lib.solver_params(), n, n, type, a, n, pivots, type, w.device, w.bytes,
                                  w.host, w.host_bytes, lib.info),
                 "cusolverDnXgetrf");
  check_solver_info(lib.read_info(), SolverKind::Lu, "cusolverDnXgetrf");
  return pivots;
}

template <class T>
void lu_apply(CudaLibraries& lib, int n, int nrhs, const T* a, const std::int64_t* pivots, T* b) {
  constexpr cudaDataType type = data_type<T>();
  check_cusolver(cusolverDnXgetrs(lib.solver(), lib.solver_params(), CUBLAS_OP_N, n, nrhs, type, a, n, pivots, type, b,
                                  n, lib.info),
                 "cusolverDnXgetrs");
  check_solver_info(lib.read_info(), SolverKind::Lu, "cusolverDnXgetrs");
}

// Ones on the diagonal of a zeroed n x n matrix of R (stride: the diagonal's step in R values).
template <class R>
__global__ void set_diagonal_one(R* m, int n, long stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i * stride] = R(1);
}

}  // namespace

template <class T>
void gemm_gpu(Context& ctx, Op op_a, Op op_b, int m, int n, int k, T alpha, const T* a, const T* b, T beta, T* c,
              int batch) {
  const GemmArgs g{cublas_op(op_a), cublas_op(op_b), m, n, k,
                   std::max(1, op_a == Op::None ? m : k), std::max(1, op_b == Op::None ? k : n), std::max(1, m),
                   batch, (long long)m * k, (long long)k * n, (long long)m * n};
  const cublasStatus_t status = gemm_call(ctx.cuda().blas(), g, alpha, a, b, beta, c);
  if (status != CUBLAS_STATUS_SUCCESS) check_cublas(status, cublas_name<T>("gemmStridedBatched").c_str());
}

template <class T>
void herk_gpu(Context& ctx, Triangle part, Op op, int n, int k, Real<T> alpha, const T* a, Real<T> beta, T* c) {
  // Complex herk takes CUBLAS_OP_C, real syrk CUBLAS_OP_T.
  const cublasOperation_t t = op == Op::None ? CUBLAS_OP_N : is_complex_v<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
  const cublasStatus_t status =
      herk_call(ctx.cuda().blas(), fill_mode(part), t, n, k, alpha, a, std::max(1, op == Op::None ? n : k), beta, c);
  if (status != CUBLAS_STATUS_SUCCESS) check_cublas(status, cublas_name<T>(is_complex_v<T> ? "herk" : "syrk").c_str());
}

template <class T>
void symm_gpu(Context& ctx, Triangle part, int m, int n, T alpha, const T* a, const T* b, T beta, T* c) {
  const cublasStatus_t status = symm_call(ctx.cuda().blas(), fill_mode(part), m, n, alpha, a, b, beta, c);
  if (status != CUBLAS_STATUS_SUCCESS) check_cublas(status, cublas_name<T>(is_complex_v<T> ? "hemm" : "symm").c_str());
}

template <class T>
void symv_gpu(Context& ctx, Triangle part, int n, T alpha, const T* a, const T* x, T beta, T* y) {
  const cublasStatus_t status = symv_call(ctx.cuda().blas(), fill_mode(part), n, alpha, a, x, beta, y);
  if (status != CUBLAS_STATUS_SUCCESS) check_cublas(status, cublas_name<T>(is_complex_v<T> ? "hemv" : "symv").c_str());
}

template <class T>
void eigh_gpu(Context& ctx, Triangle part, int n, T* a, Real<T>* w) {
  CudaLibraries& lib = ctx.cuda();
  constexpr cudaDataType type = data_type<T>(), real_type = data_type<Real<T>>();
  std::size_t bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXsyevd_bufferSize(lib.solver(), lib.solver_params(), CUSOLVER_EIG_MODE_VECTOR,
                                             fill_mode(part), n, type, a, n, real_type, w, type, &bytes, &host_bytes),
                 "cusolverDnXsyevd_bufferSize");
  const Workspace ws = workspace(lib, bytes, host_bytes);
  check_cusolver(cusolverDnXsyevd(lib.solver(), lib.solver_params(), CUSOLVER_EIG_MODE_VECTOR, fill_mode(part), n, type,
                                  a, n, real_type, w, type, ws.device, ws.bytes, ws.host, ws.host_bytes, lib.info),
                 "cusolverDnXsyevd");
  check_solver_info(lib.read_info(), SolverKind::Eigen, "cusolverDnXsyevd");
}

template <class T>
void lu_solve_gpu(Context& ctx, int n, int nrhs, T* a, T* b) {
  CudaLibraries& lib = ctx.cuda();
  const std::int64_t* pivots = lu_factor(lib, n, a);
  if (nrhs > 0) lu_apply(lib, n, nrhs, a, pivots, b);
}

template <class T>
void invert_gpu(Context& ctx, int n, T* a) {
  CudaLibraries& lib = ctx.cuda();
  const std::int64_t* pivots = lu_factor(lib, n, a);
  // The right-hand side lives for this call only: GW's matrices are large enough that keeping it matters.
  const std::size_t bytes = sizeof(T) * n * n;
  DeviceScratch scratch;
  T* identity = static_cast<T*>(scratch.reserve(bytes, lib.stream));
  QUASAR_CUDA_CHECK(cudaMemsetAsync(identity, 0, bytes, lib.stream));
  constexpr int parts = is_complex_v<T> ? 2 : 1;  // real values per element
  set_diagonal_one<<<grid_for(n, 256), 256, 0, lib.stream>>>(reinterpret_cast<Real<T>*>(identity), n,
                                                               long(n + 1) * parts);
  QUASAR_LAUNCH_CHECK("set_diagonal_one");
  lu_apply(lib, n, n, a, pivots, identity);  // waits for the stream
  QUASAR_CUDA_CHECK(cudaMemcpyAsync(a, identity, bytes, cudaMemcpyDeviceToDevice, lib.stream));
  QUASAR_CUDA_CHECK(cudaStreamSynchronize(lib.stream));  // before the scratch is freed
}

template <class T>
void cholesky_gpu(Context& ctx, Triangle part, int n, T* a) {
  CudaLibraries& lib = ctx.cuda();
  constexpr cudaDataType type = data_type<T>();
  std::size_t bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXpotrf_bufferSize(lib.solver(), lib.solver_params(), fill_mode(part), n, type, a, n, type,
                                             &bytes, &host_bytes),
                 "cusolverDnXpotrf_bufferSize");
  const Workspace ws = workspace(lib, bytes, host_bytes);
  check_cusolver(cusolverDnXpotrf(lib.solver(), lib.solver_params(), fill_mode(part), n, type, a, n, type, ws.device,
                                  ws.bytes, ws.host, ws.host_bytes, lib.info),
                 "cusolverDnXpotrf");
  check_solver_info(lib.read_info(), SolverKind::Cholesky, "cusolverDnXpotrf");
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
