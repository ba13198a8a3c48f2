// The plasmon-pole sums on the GPU in double, queued on the context's stream; the CPU reference is
// gpp_kernels.cpp (BerkeleyGW's element formulas; here the same values by equivalent algebra, with
// reciprocals in place of divisions and the thresholds compared as magnitudes, and the sums in
// another order: they agree to rounding). The work is arranged so
// that each element of eps^-1 and of the mode frequencies is read once per tile of kTile
// band-energies instead of once per band-energy: a thread owns one G and loops over a range of G',
// holding kTile band-energy sums in registers,
//   S(n1 e, G) = sum_G' f(E - E_n1, I(G,G'), w(G,G')) conj(M_m(G')) v(G'),
// which the identity sum_G' [sum_G M_n(G) f] r(G') = sum_G M_n(G) [sum_G' f r(G')] turns into the
// element's sums after a product with M_n(G). The G' range is split so that small matrices still
// fill the GPU; a second kernel adds each band-energy's (G, G' range) partials in a fixed order, so
// the result does not depend on scheduling.
#include <cuComplex.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>

#include "quasar/device/array.hpp"
#include "quasar/device/context.cuh"
#include "quasar/device/cuda_check.cuh"
#include "quasar/gw/gpp_kernels.hpp"

namespace quasar::gw::detail {

namespace {

constexpr int kBlock = 128;   // threads (G-vectors) per block
constexpr int kTile = 8;      // band-energies per thread
constexpr int kStage = 32;    // G' whose factors r(G') a block stages in shared memory at a time

// 1/d without a branch: the FP64 unit's approximate reciprocal refined by two Newton steps (about
// one unit in the last place; IEEE division's slow-path branch would keep the compiler from
// interleaving the tile's independent elements). d = 0 gives NaN where division gives infinity,
// which only changes elements whose CPU value is already infinite or NaN.
__device__ __forceinline__ double reciprocal(double d) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(d));
  double e = fma(-d, r, 1.0);
  r = fma(r, e, r);
  e = fma(-d, r, 1.0);
  return fma(r, e, r);
}

struct Pair {
  double sx_re, sx_im, ch_re, ch_im;
};

struct PairSum {
  __device__ Pair operator()(const Pair& a, const Pair& b) const {
    return {a.sx_re + b.sx_re, a.sx_im + b.sx_im, a.ch_re + b.ch_re, a.ch_im + b.ch_im};
  }
};

// A thread's sums over G' for the tile's band-energies.
struct Sums {
  double sx_re[kTile] = {}, sx_im[kTile] = {}, ch_re[kTile] = {}, ch_im[kTile] = {};
};

// Adds n G' (a stage: column s of the matrices at ieps_at[s ng]) to the sums. Branch-free, so that
// the compiler interleaves the tile's independent elements; kExchange: some band of the tile is
// occupied (the same for every thread of a block), so the screened exchange is formed.
// |v| as the bits of a double: for numbers that are not NaN, |a| < |b| exactly when abs_bits(a) <
// abs_bits(b), an integer comparison that leaves the FP64 units to the arithmetic.
__device__ __forceinline__ unsigned long long abs_bits(double v) {
  return static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7fffffffffffffffull;
}

// The thresholds of BerkeleyGW's kernel as magnitudes: |E - w| > gamma (the broadening), |delw| < 500
// (delw^2 < 1/(4e-6)) and |delw| > 1e-6 (delw^2 > 1e-12).
struct Limits {
  unsigned long long gamma, delw_one, delw_zero;
};

// Adds n G' (a stage: column s of the matrices at ieps_at[s ng]) to the sums. Branch-free, so that
// the compiler interleaves the tile's independent elements; kExchange: some band of the tile is
// occupied (the same for every thread of a block), so the screened exchange is formed.
template <bool kExchange>
__device__ __forceinline__ void add_stage(int n, int ng, const double* __restrict__ ieps_at,
                                          const double* __restrict__ wtilde_at, const cuDoubleComplex (*right)[kTile],
                                          const double* x, const bool* occupied, const Limits& limits, double sexcut,
                                          Sums& sums) {
  for (int s = 0; s < n; ++s) {
    const double I = ieps_at[static_cast<std::size_t>(s) * ng], wt = wtilde_at[static_cast<std::size_t>(s) * ng];
    const double wt2_I = wt * wt * I, half_wt_I = 0.5 * wt * I;
    const unsigned long long cut = abs_bits(sexcut * I);
#pragma unroll
    for (int j = 0; j < kTile; ++j) {
      const double wdiff = x[j] - wt, p = reciprocal(wdiff), delw = wt * p;
      const unsigned long long delw_bits = abs_bits(delw);
      const bool usual = abs_bits(wdiff) > limits.gamma && delw_bits < limits.delw_one;
      const double sch = usual ? delw * I : 0.0;
      const cuDoubleComplex r = right[s][j];
      sums.ch_re[j] += sch * r.x;
      sums.ch_im[j] += sch * r.y;
      if constexpr (kExchange) {
        // w^2 I / (x^2 - w^2) and, near the pole, -w^2 I delw / (4 w^2 (delw + 1/2)) = -w I / (2 (x + w))
        const double q = reciprocal(x[j] + wt);
        double ssx = usual ? wt2_I * p * q : (delw_bits > limits.delw_zero ? -half_wt_I * q : 0.0);
        if (!occupied[j] || (abs_bits(ssx) > cut && x[j] < 0)) ssx = 0;
        sums.sx_re[j] += ssx * r.x;
        sums.sx_im[j] += ssx * r.y;
      }
    }
  }
}

// blockIdx.x: G / kBlock; blockIdx.y: band-energies / kTile; blockIdx.z: G' range.
// partial[(band-energy splits + split) ng + G].
// At most 128 registers (4 blocks per multiprocessor): measured 5% faster than the 168 the compiler
// takes unbounded, without spills.
__global__ void __launch_bounds__(kBlock, 4)
    gpp_partials(int ng, int count, int energies, int filled, int gp_per_split, double gamma2, double sexcut,
                 const double* __restrict__ ieps, const double* __restrict__ wtilde,
                 const double* __restrict__ vcoul, const cuDoubleComplex* __restrict__ ma,
                 const cuDoubleComplex* __restrict__ mb, const double* __restrict__ wx, Pair* __restrict__ partial) {
  __shared__ cuDoubleComplex right[kStage][kTile];  // conj(M_m(G')) v(G') for the tile's bands
  const int g = blockIdx.x * kBlock + threadIdx.x;
  const int be0 = blockIdx.y * kTile, split = blockIdx.z, splits = gridDim.z;
  const int gp_begin = split * gp_per_split, gp_end = min(ng, gp_begin + gp_per_split);
  const Limits limits{abs_bits(sqrt(gamma2)), abs_bits(500.0), abs_bits(1e-6)};
  double x[kTile];
  bool occupied[kTile];
#pragma unroll
  for (int j = 0; j < kTile; ++j) {
    const int be = min(be0 + j, count - 1);  // past the end: a copy of the last, never written
    x[j] = wx[be];
    occupied[j] = be / energies < filled;
  }
  bool any_occupied = false;
#pragma unroll
  for (int j = 0; j < kTile; ++j) any_occupied = any_occupied || occupied[j];
  Sums sums;
  for (int stage = gp_begin; stage < gp_end; stage += kStage) {
    const int n = min(kStage, gp_end - stage);
    __syncthreads();
    for (int k = threadIdx.x; k < kStage * kTile; k += kBlock) {
      const int s = k / kTile, j = k % kTile;
      const int b = min(be0 + j, count - 1) / energies;
      cuDoubleComplex r = make_cuDoubleComplex(0, 0);
      if (s < n) {
        const cuDoubleComplex m = mb[static_cast<std::size_t>(b) * ng + stage + s];
        const double v = vcoul[stage + s];
        r = make_cuDoubleComplex(m.x * v, -m.y * v);
      }
      right[s][j] = r;
    }
    __syncthreads();
    if (g >= ng) continue;
    const double* ieps_at = ieps + static_cast<std::size_t>(stage) * ng + g;
    const double* wtilde_at = wtilde + static_cast<std::size_t>(stage) * ng + g;
    if (any_occupied)
      add_stage<true>(n, ng, ieps_at, wtilde_at, right, x, occupied, limits, sexcut, sums);
    else
      add_stage<false>(n, ng, ieps_at, wtilde_at, right, x, occupied, limits, sexcut, sums);
  }
  if (g >= ng) return;
#pragma unroll
  for (int j = 0; j < kTile; ++j) {
    const int be = be0 + j;
    if (be >= count) break;
    const cuDoubleComplex a = ma[static_cast<std::size_t>(be / energies) * ng + g];  // M_n(G)
    Pair out;
    out.sx_re = -(a.x * sums.sx_re[j] - a.y * sums.sx_im[j]);
    out.sx_im = -(a.x * sums.sx_im[j] + a.y * sums.sx_re[j]);
    out.ch_re = 0.5 * (a.x * sums.ch_re[j] - a.y * sums.ch_im[j]);
    out.ch_im = 0.5 * (a.x * sums.ch_im[j] + a.y * sums.ch_re[j]);
    partial[(static_cast<std::size_t>(be) * splits + split) * ng + g] = out;
  }
}

// One block per band-energy: its splits x ng partials, each thread a strided share in order, then
// one block reduction (a fixed tree).
__global__ void __launch_bounds__(kBlock)
    gpp_totals(long per_band_energy, const Pair* __restrict__ partial, cuDoubleComplex* __restrict__ sx,
               cuDoubleComplex* __restrict__ ch) {
  using Reduce = cub::BlockReduce<Pair, kBlock>;
  __shared__ typename Reduce::TempStorage storage;
  const int be = blockIdx.x;
  const Pair* p = partial + static_cast<std::size_t>(be) * per_band_energy;
  Pair s{0, 0, 0, 0};
  for (long k = threadIdx.x; k < per_band_energy; k += kBlock) {
    const Pair q = p[k];
    s.sx_re += q.sx_re, s.sx_im += q.sx_im, s.ch_re += q.ch_re, s.ch_im += q.ch_im;
  }
  const Pair total = Reduce(storage).Reduce(s, PairSum());
  if (threadIdx.x == 0) {
    sx[be] = make_cuDoubleComplex(total.sx_re, total.sx_im);
    ch[be] = make_cuDoubleComplex(total.ch_re, total.ch_im);
  }
}

}  // namespace

void gpp_sums_gpu(device::Context& ctx, const GppSizes& n, const double* ieps, const double* wtilde, const double* vcoul,
                  const std::complex<double>* ma, const std::complex<double>* mb, const double* wx,
                  std::complex<double>* sx, std::complex<double>* ch) {
  const int count = n.bands * n.energies;
  if (count == 0 || n.gvectors == 0) return;
  const int g_blocks = (n.gvectors + kBlock - 1) / kBlock, tiles = (count + kTile - 1) / kTile;
  if (tiles > 65535) throw Error("gw gpp_sums: at most " + std::to_string(65535 * kTile) + " band-energy pairs per call");
  // Split G' until the grid has a few blocks per multiprocessor (about 2,000 blocks), keeping at
  // least kStage G' per split.
  int sm = 0, device = 0;
  QUASAR_CUDA_CHECK(cudaGetDevice(&device));
  QUASAR_CUDA_CHECK(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, device));
  const long want = 16L * sm;
  int splits = static_cast<int>(std::clamp<long>((want + static_cast<long>(g_blocks) * tiles - 1) / (static_cast<long>(g_blocks) * tiles), 1L,
                                                 std::max(1, n.gvectors / kStage)));
  const int gp_per_split = (n.gvectors + splits - 1) / splits;
  splits = (n.gvectors + gp_per_split - 1) / gp_per_split;
  const long per_band_energy = static_cast<long>(splits) * n.gvectors;
  Array<double> partial(Backend::Cuda, static_cast<std::size_t>(count) * per_band_energy * 4);
  const dim3 grid(static_cast<unsigned>(g_blocks), static_cast<unsigned>(tiles), static_cast<unsigned>(splits));
  gpp_partials<<<grid, kBlock, 0, ctx.cuda().stream>>>(
      n.gvectors, count, n.energies, n.filled, gp_per_split, n.gamma2, n.sexcut, ieps, wtilde, vcoul,
      reinterpret_cast<const cuDoubleComplex*>(ma), reinterpret_cast<const cuDoubleComplex*>(mb), wx,
      reinterpret_cast<Pair*>(partial.data()));
  QUASAR_LAUNCH_CHECK("gw gpp_partials");
  gpp_totals<<<count, kBlock, 0, ctx.cuda().stream>>>(per_band_energy, reinterpret_cast<const Pair*>(partial.data()),
                                                      reinterpret_cast<cuDoubleComplex*>(sx),
                                                      reinterpret_cast<cuDoubleComplex*>(ch));
  QUASAR_LAUNCH_CHECK("gw gpp_totals");
  ctx.synchronize();  // `partial` is freed on return
}

}  // namespace quasar::gw::detail
