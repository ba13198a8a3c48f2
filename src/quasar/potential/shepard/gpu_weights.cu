// The weights of every replica on the GPU (gpu_tables.cuh lists the steps). A replica is never
// stored: a thread holds one data point's columns (1/d and -Z/d, in registers when the pairs are
// known at compile time) and meets a tile of configurations in shared memory once per group
// element, reading each configuration's Z through that element's pair map, so that the whole data
// set stays in the L2 cache and each configuration's Z is read from shared memory by every thread
// of the block at once. The screen over every replica runs in float (twice the double rate, half
// the registers): it only sorts replicas into candidates, whose u the filter recomputes in double,
// and far ones, each below wtol, whose 1/u (float-accurate) joins the weights' sum: wtol times the
// replicas bounds their share of it (3e-3 for 281,280 replicas at wtol = 1e-8), so float moves the
// cut by under 1e-6 of itself.
#include <cub/block/block_reduce.cuh>

#include <type_traits>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/shepard/gpu_tables.cuh"

namespace quasar::shepard::gpu {

namespace {

constexpr int kBlock = 128;  // threads of a weights block, one data point each

// Configurations of a tile: as many as the registers allow beside the point's columns (R: the
// arithmetic, double for the estimate, float for the screen).
template <int kPairs, class R>
constexpr int tile_of() {
  if constexpr (sizeof(R) == sizeof(float)) return 16;
  return kPairs > 0 && kPairs <= 10 ? 16 : 8;
}

// A candidate's u wtol may exceed the smallest u seen by this factor: the float screen's rounding
// (relative 1e-4 at most above the floor) stays well inside it.
constexpr float kMargin = 1.0625f;

// s += the term of one difference d = (Z_l - Z_l(i)) / d_l.
template <int kForm, class R>
__device__ inline R add_term(R s, R d, R two_p) {
  if constexpr (kForm == kOnePart) return s + power(fabs(d), two_p);
  else return fma(d, d, s);
}

template <int kForm, class R>
__device__ inline R denominator_of(R s, R p, R q) {
  if constexpr (kForm == kTwoPart2And12) {
    const R s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    return fma(s4, s8, s2);
  } else if constexpr (kForm == kTwoPart) {
    return power(s, p) + power(s, q);
  } else {
    return s;
  }
}

// acc[c] += the term of configuration c's difference at one pair, (Z - Z(i)) / d = fma(Z, scale, offset),
// Z read 16 bytes at a time.
template <int kForm, int kTile, class R>
__device__ __forceinline__ void accumulate(R* acc, const R* zl, R scale, R offset, R two_p) {
  using Vector = std::conditional_t<sizeof(R) == sizeof(float), float4, double2>;
  constexpr int kWidth = sizeof(Vector) / sizeof(R);
  static_assert(kTile % kWidth == 0);
  const Vector* zv = reinterpret_cast<const Vector*>(zl);
#pragma unroll
  for (int c = 0; c < kTile; c += kWidth) {
    const Vector v = zv[c / kWidth];
    const R* z = reinterpret_cast<const R*>(&v);
#pragma unroll
    for (int e = 0; e < kWidth; ++e) acc[c + e] = add_term<kForm>(acc[c + e], fma(z[e], scale, offset), two_p);
  }
}

__global__ void fill_kernel(double* __restrict out, int count, double value) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) out[k] = value;
}

// What the estimate and the screen share: a block's data points (a thread each, blockIdx.x) meet a
// tile of configurations (blockIdx.y) whose Z sit in shared memory as R; each data point's columns
// in registers when kPairs > 0. visit(g, u[kTile]) for each group element g in [g0, g1).
template <int kForm, int kPairs, class R>
struct PointPass {
  static constexpr int kTile = tile_of<kPairs, R>();
  const Tables& t;
  int pairs, c0, tile, i, column;
  R scale[kPairs > 0 ? kPairs : 1], offset[kPairs > 0 ? kPairs : 1];
  R* zs;

  __device__ PointPass(const Tables& tables, const double* z, int count, R* shared) : t(tables), zs(shared) {
    pairs = kPairs > 0 ? kPairs : t.pairs;
    c0 = blockIdx.y * kTile;
    tile = min(kTile, count - c0);
    for (int n = threadIdx.x; n < pairs * kTile; n += kBlock) {
      const int l = n / kTile, c = n % kTile;
      zs[n] = static_cast<R>(z[static_cast<long>(c0 + min(c, tile - 1)) * pairs + l]);
    }
    __syncthreads();
    i = blockIdx.x * kBlock + threadIdx.x;
    column = min(i, t.stride - 1);  // threads past the columns compute, but count for nothing
    if constexpr (kPairs > 0) {
#pragma unroll
      for (int m = 0; m < kPairs; ++m) {
        scale[m] = static_cast<R>(column_of(t.scale, t.scale32, m));
        offset[m] = static_cast<R>(column_of(t.offset, t.offset32, m));
      }
    }
  }

  __device__ R column_of(const double* d, const float* f, int m) const {
    const long at = static_cast<long>(m) * t.stride + column;
    if constexpr (sizeof(R) == sizeof(float)) return f[at];
    else return d[at];
  }

  template <class Visit>
  __device__ void run(int g0, int g1, Visit&& visit) {
    const R two_p = static_cast<R>(2 * t.p), p = static_cast<R>(t.p), q = static_cast<R>(t.q);
    for (int g = g0; g < g1; ++g) {
      const unsigned short* target = t.target + static_cast<long>(g) * pairs;
      R acc[kTile];
#pragma unroll
      for (int c = 0; c < kTile; ++c) acc[c] = 0;
      if constexpr (kPairs > 0) {
#pragma unroll
        for (int m = 0; m < kPairs; ++m) accumulate<kForm, kTile>(acc, zs + __ldg(target + m) * kTile, scale[m], offset[m], two_p);
      } else {
        for (int m = 0; m < pairs; ++m)
          accumulate<kForm, kTile>(acc, zs + __ldg(target + m) * kTile, column_of(t.scale, t.scale32, m),
                                   column_of(t.offset, t.offset32, m), two_p);
      }
#pragma unroll
      for (int c = 0; c < kTile; ++c)
        acc[c] = i < t.stride ? denominator_of<kForm>(acc[c], p, q) : static_cast<R>(INFINITY);
      visit(g, acc);
    }
  }
};

// Each configuration's smallest u over the identity's replicas, in double, into estimate_out (an
// atomic minimum: u >= 0, so its bits order as integers).
template <int kForm, int kPairs>
__global__ void __launch_bounds__(kBlock)
    estimate_kernel(Tables t, const double* __restrict z, int count, double* __restrict estimate_out) {
  extern __shared__ __align__(16) double zd[];  // [l kTile + c]
  PointPass<kForm, kPairs, double> pass(t, z, count, zd);
  constexpr int kTile = PointPass<kForm, kPairs, double>::kTile;
  double least[kTile];
#pragma unroll
  for (int c = 0; c < kTile; ++c) least[c] = INFINITY;
  pass.run(t.identity, t.identity + 1, [&](int, const double* u) {
#pragma unroll
    for (int c = 0; c < kTile; ++c) least[c] = fmin(least[c], u[c]);
  });
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    const double m = warp_min(least[c]);
    if (lane == 0 && c < pass.tile)
      atomicMin(reinterpret_cast<unsigned long long*>(estimate_out + pass.c0 + c),
                static_cast<unsigned long long>(__double_as_longlong(m)));
  }
}

// Every replica's u in float: the candidates, u wtol <= margin x the smallest u known (the estimate
// or the least seen), appended to each configuration's list; the sum of 1/u over the rest into
// far_partial[blockIdx.x count + k].
template <int kForm, int kPairs>
__global__ void __launch_bounds__(kBlock)
    screen_kernel(Tables t, const double* __restrict z, int count, const double* __restrict estimate,
                  double* __restrict far_partial, int* __restrict found, int* __restrict candidates, int capacity) {
  extern __shared__ __align__(16) float zf[];  // [l kTile + c]
  PointPass<kForm, kPairs, float> pass(t, z, count, zf);
  constexpr int kTile = PointPass<kForm, kPairs, float>::kTile;
  const int lane = threadIdx.x % 32, i = pass.i;
  const bool real = i < t.data_points;
  // least[c]: the smaller of the estimate and the least u seen; the candidates' limit is that, or
  // u_floor when smaller (near a data point, where float cannot rank replicas, every replica with
  // u wtol <= u_floor is a candidate). far[c]: this thread's sum of 1/u over at most `group`
  // replicas, in float (rounding 1e-6 at most).
  float least[kTile], far[kTile];
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    least[c] = static_cast<float>(estimate[pass.c0 + min(c, pass.tile - 1)]);
    far[c] = 0;
  }
  const float wtol = static_cast<float>(t.wtol), floor_u = static_cast<float>(t.u_floor);
  pass.run(0, t.group, [&](int g, const float* u) {
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      least[c] = fminf(least[c], u[c]);
      const bool take = real && c < pass.tile && u[c] * wtol <= fmaxf(least[c], floor_u) * kMargin;
      if (real && !take) far[c] += __frcp_rn(u[c]);
      const unsigned mask = __ballot_sync(0xffffffffu, take);
      if (mask) {  // the warp's candidates of this configuration in one atomic
        const int leader = __ffs(mask) - 1;
        int base = 0;
        if (lane == leader) base = atomicAdd(found + pass.c0 + c, __popc(mask));
        base = __shfl_sync(0xffffffffu, base, leader);
        const int slot = base + __popc(mask & ((1u << lane) - 1));
        if (take && slot < capacity) candidates[static_cast<long>(pass.c0 + c) * capacity + slot] = i * t.group + g;
      }
    }
  });
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
#pragma unroll
  for (int c = 0; c < kTile; ++c) {  // unrolled, so that far stays in registers
    if (c >= pass.tile) break;       // the same in every thread
    const double total = Reduce(temp).Sum(static_cast<double>(far[c]));
    if (threadIdx.x == 0) far_partial[static_cast<long>(blockIdx.x) * count + pass.c0 + c] = total;
    __syncthreads();
  }
}

// The blocks' far sums of each configuration added in block order.
__global__ void merge_kernel(const double* __restrict far_partial, int chunks, int count, double* __restrict far) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  double s = 0;
  for (int b = 0; b < chunks; ++b) s += far_partial[static_cast<long>(b) * count + k];
  far[k] = s;
}

// u of every candidate in double (the CPU's expression), a thread each, into lists_u.
__global__ void candidate_u_kernel(Tables t, const double* __restrict z, int count, const int* __restrict found,
                                   const int* __restrict lists, double* __restrict lists_u, int capacity) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const int k = static_cast<int>(e / capacity), j = static_cast<int>(e % capacity);
  if (k >= count || j >= min(found[k], capacity)) return;
  lists_u[e] = denominator(t, lists[e], z + static_cast<long>(k) * t.pairs);
}

// A warp per configuration: u_min of its candidates, the sum of u_min / u over every replica (the
// candidates', then u_min x the far sum), and the list (with lists_u) cut in place, in its order, to
// u < u_min / (wtol sum) (at a data point, u_min = 0: the replicas there).
__global__ void filter_kernel(Tables t, int count, const double* __restrict far, const int* __restrict found,
                              int* __restrict lists, double* __restrict lists_u, int capacity, int* __restrict kept) {
  const int k = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (k >= count) return;  // the whole warp
  const int n = min(found[k], capacity);
  int* list = lists + static_cast<long>(k) * capacity;
  double* u = lists_u + static_cast<long>(k) * capacity;
  double least = INFINITY;
  for (int j = lane; j < n; j += 32) least = fmin(least, u[j]);
  const double u_min = warp_min(least);
  const bool at_point = u_min == 0;
  double part = 0;
  if (!at_point)
    for (int j = lane; j < n; j += 32) part += u_min / u[j];
  const double sum = warp_sum(part) + (at_point ? 0.0 : u_min * far[k]);
  const double below = t.wtol > 0 && !at_point ? u_min / (t.wtol * sum) : INFINITY;
  int written = 0;
  for (int base = 0; base < n; base += 32) {
    const int j = base + lane;
    const int r = j < n ? list[j] : 0;
    const double uj = j < n ? u[j] : INFINITY;
    const bool keep = j < n && (at_point ? uj == 0 : uj < below);
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    __syncwarp();  // every read of this round before any write (writes land at or below base)
    if (keep) {
      const int to = written + __popc(mask & ((1u << lane) - 1));
      list[to] = r;
      u[to] = uj;
    }
    written += __popc(mask);
    __syncwarp();
  }
  if (lane == 0) kept[k] = written;
}

WeightForm form_of(const Tables& t) {
  if (!t.two_part) return kOnePart;
  return t.p == 2 && t.q == 12 ? kTwoPart2And12 : kTwoPart;
}

// The kernel (estimate or screen, by kScreen) for the tables' form and pairs: the paper's molecules
// (6, 10 and 15 pairs) with Collins's weight in registers, the rest by the general one.
template <bool kScreen, class Launch>
void dispatch(const Tables& t, Launch&& launch) {
  auto pick = [&](auto form, auto pairs) {
    constexpr int kForm = decltype(form)::value, kPairs = decltype(pairs)::value;
    if constexpr (kScreen) launch(screen_kernel<kForm, kPairs>, tile_of<kPairs, float>(), sizeof(float));
    else launch(estimate_kernel<kForm, kPairs>, tile_of<kPairs, double>(), sizeof(double));
  };
  using std::integral_constant;
  switch (form_of(t)) {
    case kOnePart: return pick(integral_constant<int, kOnePart>{}, integral_constant<int, 0>{});
    case kTwoPart: return pick(integral_constant<int, kTwoPart>{}, integral_constant<int, 0>{});
    case kTwoPart2And12:
      switch (t.pairs) {
        case 6: return pick(integral_constant<int, kTwoPart2And12>{}, integral_constant<int, 6>{});
        case 10: return pick(integral_constant<int, kTwoPart2And12>{}, integral_constant<int, 10>{});
        case 15: return pick(integral_constant<int, kTwoPart2And12>{}, integral_constant<int, 15>{});
        default: return pick(integral_constant<int, kTwoPart2And12>{}, integral_constant<int, 0>{});
      }
  }
}

template <bool kScreen, class... Args>
void point_pass(const Tables& t, int count, Args... args) {
  dispatch<kScreen>(t, [&](auto kernel, int tile, std::size_t bytes_per_z) {
    const dim3 grid(static_cast<unsigned>(weight_chunks(t)), static_cast<unsigned>((count + tile - 1) / tile));
    const std::size_t bytes = bytes_per_z * static_cast<std::size_t>(t.pairs) * static_cast<std::size_t>(tile);
    kernel<<<grid, kBlock, bytes>>>(t, args...);
  });
  QUASAR_LAUNCH_CHECK(kScreen ? "shepard screen_kernel" : "shepard estimate_kernel");
}

}  // namespace

int weight_chunks(const Tables& t) { return (t.stride + kBlock - 1) / kBlock; }

void estimate(const Tables& t, const double* z, int count, double* estimate) {
  fill_kernel<<<grid_for(count, 128), 128>>>(estimate, count, INFINITY);
  QUASAR_LAUNCH_CHECK("shepard fill_kernel");
  point_pass<false>(t, count, z, count, estimate);
}

void screen(const Tables& t, const double* z, int count, const double* estimate, double* far_partial, int* found,
            int* candidates, int capacity) {
  QUASAR_CUDA_CHECK(cudaMemsetAsync(found, 0, sizeof(int) * static_cast<std::size_t>(count)));
  point_pass<true>(t, count, z, count, estimate, far_partial, found, candidates, capacity);
}

void merge(const Tables& t, const double* far_partial, int count, double* far) {
  merge_kernel<<<grid_for(count, 128), 128>>>(far_partial, weight_chunks(t), count, far);
  QUASAR_LAUNCH_CHECK("shepard merge_kernel");
}

void filter(const Tables& t, const double* z, int count, const double* far, const int* found, int* lists,
            double* lists_u, int capacity, int* kept) {
  candidate_u_kernel<<<grid_for(static_cast<long>(count) * capacity, 128), 128>>>(t, z, count, found, lists, lists_u,
                                                                                   capacity);
  QUASAR_LAUNCH_CHECK("shepard candidate_u_kernel");
  filter_kernel<<<grid_for(32L * count, 128), 128>>>(t, count, far, found, lists, lists_u, capacity, kept);
  QUASAR_LAUNCH_CHECK("shepard filter_kernel");
}

}  // namespace quasar::shepard::gpu
