// The weights of every replica on the GPU (gpu_tables.cuh lists the steps). A replica is never
// stored: a thread holds one data point's columns (1/d and -Z/d, in registers when the pairs are
// known at compile time) and meets a tile of configurations in shared memory once per group
// element, reading each configuration's Z through that element's pair map, so that the whole data
// set stays in the L2 cache and each configuration's Z is read from shared memory by every thread
// of the block at once.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/shepard/gpu_tables.cuh"

namespace quasar::shepard::gpu {

namespace {

constexpr int kBlock = 128;  // threads of a weights block, one data point each

// Configurations of a tile: as many as the registers allow beside the point's columns.
template <int kPairs>
constexpr int tile_of() {
  return kPairs > 0 && kPairs <= 10 ? 16 : 8;
}

__device__ inline double rescale(double m, double from) { return from == m ? 1.0 : m / from; }

// m / u for the weights pass's sums (0 < m <= u, u finite): the hardware's reciprocal estimate and
// two Newton steps (each squares the error: 2^-22 to below 2^-53) instead of a division. The sums
// only place the cut between kept and dropped replicas; the Taylor pass recomputes the weights.
__device__ inline double ratio(double m, double u) {
  if (u == m) return 1.0;
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(u));
  r = fma(r, fma(-u, r, 1.0), r);
  r = fma(r, fma(-u, r, 1.0), r);
  return m * r;
}

struct MergeMinSum {
  __device__ MinSum operator()(const MinSum& a, const MinSum& b) const {
    const double m = fmin(a.m, b.m);
    return {m, a.s * rescale(m, a.m) + b.s * rescale(m, b.m)};
  }
};

// s += the term of one difference d = (Z_l - Z_l(i)) / d_l.
template <int kForm>
__device__ inline double add_term(double s, double d, double two_p) {
  if constexpr (kForm == kOnePart) return s + power(fabs(d), two_p);
  else return fma(d, d, s);
}

template <int kForm>
__device__ inline double denominator_of(double s, double p, double q) {
  if constexpr (kForm == kTwoPart2And12) {
    const double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    return fma(s4, s8, s2);
  } else if constexpr (kForm == kTwoPart) {
    return power(s, p) + power(s, q);
  } else {
    return s;
  }
}

// acc[c] += the term of configuration c's difference at one pair, (Z - Z(i)) / d = fma(Z, scale, offset),
// Z read two configurations at a time.
template <int kForm, int kTile>
__device__ __forceinline__ void accumulate(double* acc, const double* zl, double scale, double offset, double two_p) {
  const double2* z2 = reinterpret_cast<const double2*>(zl);
#pragma unroll
  for (int c = 0; c < kTile; c += 2) {
    const double2 zz = z2[c / 2];
    acc[c] = add_term<kForm>(acc[c], fma(zz.x, scale, offset), two_p);
    acc[c + 1] = add_term<kForm>(acc[c + 1], fma(zz.y, scale, offset), two_p);
  }
}

__global__ void fill_kernel(double* __restrict out, int count, double value) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) out[k] = value;
}

// One pass of a block's data points (blockIdx.x) over every group element for a tile of
// configurations (blockIdx.y). kEstimate: the identity's replicas only, each configuration's
// smallest u into estimate_out (an atomic minimum: u >= 0, so its bits order as integers). Else:
// MinSum per configuration into partial[blockIdx.x count + k], and the candidates appended.
template <int kForm, int kPairs, bool kEstimate>
__global__ void __launch_bounds__(kBlock)
    weights_kernel(Tables t, const double* __restrict z, int count, const double* __restrict estimate_in,
                   double* __restrict estimate_out, MinSum* __restrict partial, int* __restrict found,
                   int* __restrict candidates, double* __restrict candidate_u, int capacity) {
  constexpr int kTile = tile_of<kPairs>();
  const int pairs = kPairs > 0 ? kPairs : t.pairs;
  extern __shared__ __align__(16) double zs[];  // [l kTile + c]
  const int c0 = blockIdx.y * kTile, tile = min(kTile, count - c0);
  for (int n = threadIdx.x; n < pairs * kTile; n += kBlock) {
    const int l = n / kTile, c = n % kTile;
    zs[n] = z[static_cast<long>(c0 + min(c, tile - 1)) * pairs + l];
  }
  __syncthreads();
  const int i = blockIdx.x * kBlock + threadIdx.x, lane = threadIdx.x % 32;
  const int column = min(i, t.stride - 1);  // threads past the columns compute, but count for nothing
  const bool real = i < t.data_points;
  double scale[kPairs > 0 ? kPairs : 1], offset[kPairs > 0 ? kPairs : 1];
  if constexpr (kPairs > 0) {
#pragma unroll
    for (int m = 0; m < kPairs; ++m) {
      scale[m] = t.scale[static_cast<long>(m) * t.stride + column];
      offset[m] = t.offset[static_cast<long>(m) * t.stride + column];
    }
  }
  double least[kTile], sum[kTile], bound[kTile];
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    least[c] = INFINITY;
    sum[c] = 0;
    bound[c] = kEstimate ? 0.0 : estimate_in[c0 + min(c, tile - 1)];
  }
  // A kept replica has u < u_min / (wtol x sum) <= u_min / wtol: loosened here by 2^-30.
  const double wtol = t.wtol * (1 - 0x1p-30), two_p = 2 * t.p;
  const int g_end = kEstimate ? t.identity + 1 : t.group;
  for (int g = kEstimate ? t.identity : 0; g < g_end; ++g) {
    const unsigned short* target = t.target + static_cast<long>(g) * pairs;
    double acc[kTile];
#pragma unroll
    for (int c = 0; c < kTile; ++c) acc[c] = 0;
    if constexpr (kPairs > 0) {
#pragma unroll
      for (int m = 0; m < kPairs; ++m) accumulate<kForm, kTile>(acc, zs + __ldg(target + m) * kTile, scale[m], offset[m], two_p);
    } else {
      for (int m = 0; m < pairs; ++m)
        accumulate<kForm, kTile>(acc, zs + __ldg(target + m) * kTile, t.scale[static_cast<long>(m) * t.stride + column],
                                 t.offset[static_cast<long>(m) * t.stride + column], two_p);
    }
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      const double u = i < t.stride ? denominator_of<kForm>(acc[c], t.p, t.q) : INFINITY;
      if constexpr (kEstimate) {
        least[c] = fmin(least[c], u);
      } else {
        if (u < least[c]) {
          sum[c] = sum[c] * (u / least[c]) + 1;
          least[c] = u;
        } else if (u <= least[c] * t.negligible) {  // else below 2^-54 / replicas of the sum: left out
          sum[c] += ratio(least[c], u);
        }
        const bool take = real && c < tile && u * wtol <= fmin(bound[c], least[c]);
        const unsigned mask = __ballot_sync(0xffffffffu, take);
        if (mask) {  // the warp's candidates of this configuration in one atomic
          const int leader = __ffs(mask) - 1;
          int base = 0;
          if (lane == leader) base = atomicAdd(found + c0 + c, __popc(mask));
          base = __shfl_sync(0xffffffffu, base, leader);
          const int slot = base + __popc(mask & ((1u << lane) - 1));
          if (take && slot < capacity) {
            candidates[static_cast<long>(c0 + c) * capacity + slot] = i * t.group + g;
            candidate_u[static_cast<long>(c0 + c) * capacity + slot] = u;
          }
        }
      }
    }
  }
  if constexpr (kEstimate) {
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      const double m = warp_min(least[c]);
      if (lane == 0 && c < tile)
        atomicMin(reinterpret_cast<unsigned long long*>(estimate_out + c0 + c),
                  static_cast<unsigned long long>(__double_as_longlong(m)));
    }
  } else {
    using Reduce = cub::BlockReduce<MinSum, kBlock>;
    __shared__ typename Reduce::TempStorage temp;
#pragma unroll
    for (int c = 0; c < kTile; ++c) {  // unrolled, so that least and sum stay in registers
      if (c >= tile) break;            // the same in every thread
      const MinSum total = Reduce(temp).Reduce(MinSum{least[c], sum[c]}, MergeMinSum{});
      if (threadIdx.x == 0) partial[static_cast<long>(blockIdx.x) * count + c0 + c] = total;
      __syncthreads();
    }
  }
}

// The blocks' results of each configuration merged in block order: u_min and the bound below which
// a replica is kept, u_min / (wtol sum) (every replica when wtol = 0).
__global__ void merge_kernel(const MinSum* __restrict partial, int chunks, int count, double wtol,
                             double* __restrict u_min, double* __restrict cut) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  MinSum a{INFINITY, 0};
  for (int b = 0; b < chunks; ++b) a = MergeMinSum{}(a, partial[static_cast<long>(b) * count + k]);
  u_min[k] = a.m;
  cut[k] = wtol > 0 ? a.m / (wtol * a.s) : INFINITY;
}

// A warp per configuration keeps the candidates with u < cut (u == 0 at a data point), in place.
__global__ void filter_kernel(const double* __restrict u_min, const double* __restrict cut, int count,
                              const int* __restrict found, int* __restrict candidates,
                              const double* __restrict candidate_u, int capacity, int* __restrict kept) {
  const int k = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (k >= count) return;  // the whole warp
  const int n = min(found[k], capacity);
  const bool at_point = u_min[k] == 0;
  const double below = cut[k];
  int* list = candidates + static_cast<long>(k) * capacity;
  const double* u = candidate_u + static_cast<long>(k) * capacity;
  int written = 0;
  for (int base = 0; base < n; base += 32) {
    const int j = base + lane;
    const bool keep = j < n && (at_point ? u[j] == 0 : u[j] < below);
    const int r = keep ? list[j] : 0;
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    __syncwarp();  // every read of this round before any write (writes land at or below base)
    if (keep) list[written + __popc(mask & ((1u << lane) - 1))] = r;
    written += __popc(mask);
    __syncwarp();
  }
  if (lane == 0) kept[k] = written;
}

WeightForm form_of(const Tables& t) {
  if (!t.two_part) return kOnePart;
  return t.p == 2 && t.q == 12 ? kTwoPart2And12 : kTwoPart;
}

// The kernel for the tables' form and pairs: the paper's molecules (6, 10 and 15 pairs) with
// Collins's weight in registers, the rest by the general one.
template <bool kEstimate, class Launch>
void dispatch(const Tables& t, Launch&& launch) {
  switch (form_of(t)) {
    case kOnePart: return launch(weights_kernel<kOnePart, 0, kEstimate>, tile_of<0>());
    case kTwoPart: return launch(weights_kernel<kTwoPart, 0, kEstimate>, tile_of<0>());
    case kTwoPart2And12:
      switch (t.pairs) {
        case 6: return launch(weights_kernel<kTwoPart2And12, 6, kEstimate>, tile_of<6>());
        case 10: return launch(weights_kernel<kTwoPart2And12, 10, kEstimate>, tile_of<10>());
        case 15: return launch(weights_kernel<kTwoPart2And12, 15, kEstimate>, tile_of<15>());
        default: return launch(weights_kernel<kTwoPart2And12, 0, kEstimate>, tile_of<0>());
      }
  }
}

template <bool kEstimate>
void weights_pass(const Tables& t, const double* z, int count, const double* estimate_in, double* estimate_out,
                  MinSum* partial, int* found, int* candidates, double* candidate_u, int capacity) {
  dispatch<kEstimate>(t, [&](auto kernel, int tile) {
    const dim3 grid(static_cast<unsigned>(weight_chunks(t)), static_cast<unsigned>((count + tile - 1) / tile));
    const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(t.pairs) * static_cast<std::size_t>(tile);
    kernel<<<grid, kBlock, bytes>>>(t, z, count, estimate_in, estimate_out, partial, found, candidates, candidate_u,
                                    capacity);
  });
  QUASAR_LAUNCH_CHECK("shepard weights_kernel");
}

}  // namespace

int weight_chunks(const Tables& t) { return (t.stride + kBlock - 1) / kBlock; }

void estimate(const Tables& t, const double* z, int count, double* estimate) {
  fill_kernel<<<grid_for(count, 128), 128>>>(estimate, count, INFINITY);
  QUASAR_LAUNCH_CHECK("shepard fill_kernel");
  weights_pass<true>(t, z, count, nullptr, estimate, nullptr, nullptr, nullptr, nullptr, 0);
}

void weights(const Tables& t, const double* z, int count, const double* estimate, MinSum* partial, int* found,
             int* candidates, double* candidate_u, int capacity) {
  QUASAR_CUDA_CHECK(cudaMemsetAsync(found, 0, sizeof(int) * static_cast<std::size_t>(count)));
  weights_pass<false>(t, z, count, estimate, nullptr, partial, found, candidates, candidate_u, capacity);
}

void merge(const Tables& t, const MinSum* partial, int count, double* u_min, double* cut) {
  merge_kernel<<<grid_for(count, 128), 128>>>(partial, weight_chunks(t), count, t.wtol, u_min, cut);
  QUASAR_LAUNCH_CHECK("shepard merge_kernel");
}

void filter(const double* u_min, const double* cut, int count, const int* found, int* candidates,
            const double* candidate_u, int capacity, int* kept) {
  filter_kernel<<<grid_for(32L * count, 128), 128>>>(u_min, cut, count, found, candidates, candidate_u, capacity,
                                                     kept);
  QUASAR_LAUNCH_CHECK("shepard filter_kernel");
}

}  // namespace quasar::shepard::gpu
