// The interpolation's kernels (gpu_interpolant.hpp says how the work is arranged) and the host code
// that sequences them over a batch in pieces that fit the neighbour lists' memory.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/shepard/gpu_interpolant.hpp"

namespace quasar::shepard {

namespace {

constexpr int kWeightBlock = 128;               // threads of a weight block, one replica each
constexpr int kTile = 16;                       // configurations a weight block takes together
constexpr int kChunk = kWeightBlock * 16;       // replicas of a weight block
constexpr int kTaylorWarps = 4;                 // configurations of a Taylor block, one per warp

// What the kernels read of the data set (device pointers).
struct Tables {
  int atoms, pairs, internal, group, replicas;
  bool two_part;
  double p, q;
  const double* scale;   // [l * replicas + r]: 1 / d_l of replica r
  const double* offset;  // [l * replicas + r]: -Z_l(r) / d_l, so that (Z_l - Z_l(r)) / d_l = fma(Z_l, scale, offset)
  const double* z0;      // [r pairs + l], as on the CPU
  const double* inv_d;   // [r pairs + l]
  const int* pair_source;
  const double* u;
  const double* energy;
  const double* gradient;
  const double* hessian;
};

// s^e as the CPU computes it (interpolant.cpp): by multiplication for small whole e.
__device__ double power(double s, double e) {
  if (e == floor(e) && e >= 0 && e <= 64) {
    double out = 1, base = s;
    for (unsigned n = static_cast<unsigned>(e); n; n >>= 1, base *= base)
      if (n & 1u) out *= base;
    return out;
  }
  return pow(s, e);
}

// The weights passes' forms: one-part, two-part, and two-part with Collins's p = 2, q = 12 written
// out (the products the CPU's power() takes, in its order, so the same bits: s^12 = s^4 s^8).
enum WeightForm { kOnePart, kTwoPart, kTwoPart2And12 };

template <int kForm>
__device__ inline double two_part_denominator(double s, double p, double q) {
  if constexpr (kForm == kTwoPart2And12) {
    const double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    return s2 + s4 * s8;
  } else {
    return power(s, p) + power(s, q);
  }
}

// The smallest denominator seen and the sum of m / u over the replicas seen; merged so that the
// sum stays at the scale of the smallest (at a data point, m = 0, it counts the points there).
struct MinSum {
  double m, s;
};

__device__ inline double rescale(double m, double from) { return from == m ? 1.0 : m / from; }

struct MergeMinSum {
  __device__ MinSum operator()(const MinSum& a, const MinSum& b) const {
    const double m = fmin(a.m, b.m);
    return {m, a.s * rescale(m, a.m) + b.s * rescale(m, b.m)};
  }
};

// Z of configuration index[k] (or k) into z[k pairs + l].
__global__ void inverse_distances_kernel(const double* __restrict__ configs, const int* __restrict__ index, int count,
                                         int atoms, double* __restrict__ z) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const double* x = configs + static_cast<long>(index ? index[k] : k) * 3 * atoms;
  double* out = z + static_cast<long>(k) * (atoms * (atoms - 1) / 2);
  int l = 0;
  for (int a = 0; a < atoms; ++a)
    for (int c = a + 1; c < atoms; ++c, ++l) {
      const double dx = x[3 * a] - x[3 * c], dy = x[3 * a + 1] - x[3 * c + 1], dz = x[3 * a + 2] - x[3 * c + 2];
      out[l] = 1.0 / sqrt(dx * dx + dy * dy + dz * dz);
    }
}

// One pass over the replicas for a tile of configurations: with kSelect false, each
// configuration's MinSum over this block's replicas into partial[blockIdx.y * count + k]; with
// kSelect true, the replicas kept (u < cut, or u = 0 at a data point) appended to the lists.
template <int kForm, bool kSelect>
__global__ void __launch_bounds__(kWeightBlock) weights_kernel(Tables t, const double* __restrict__ z, int count,
                                                               MinSum* __restrict__ partial,
                                                               const double* __restrict__ u_min,
                                                               const double* __restrict__ cut, int* __restrict__ kept_count,
                                                               int* __restrict__ kept, int capacity) {
  constexpr bool kTwoPartForm = kForm != kOnePart;
  extern __shared__ double zs[];  // [l kTile + c]
  const int c0 = blockIdx.x * kTile, tile = min(kTile, count - c0), pairs = t.pairs;
  for (int i = threadIdx.x; i < pairs * kTile; i += kWeightBlock) {
    const int l = i / kTile, c = i % kTile;
    zs[i] = c < tile ? z[static_cast<long>(c0 + c) * pairs + l] : z[static_cast<long>(c0) * pairs + l];
  }
  __syncthreads();
  double m[kTile], s[kTile], keep_below[kTile];
  bool at_point[kTile];
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    m[c] = INFINITY;
    s[c] = 0;
    if constexpr (kSelect) {
      const int k = c0 + min(c, tile - 1);
      at_point[c] = u_min[k] == 0;
      keep_below[c] = cut[k];
    }
  }
  const int r_end = min(t.replicas, (blockIdx.y + 1) * kChunk);
  const double two_p = 2 * t.p;
  for (int r = blockIdx.y * kChunk + threadIdx.x; r < r_end; r += kWeightBlock) {
    double acc[kTile];
#pragma unroll
    for (int c = 0; c < kTile; ++c) acc[c] = 0;
    for (int l = 0; l < pairs; ++l) {
      const double scale = t.scale[static_cast<long>(l) * t.replicas + r],
                   offset = t.offset[static_cast<long>(l) * t.replicas + r];
#pragma unroll
      for (int c = 0; c < kTile; ++c) {
        const double d = fma(zs[l * kTile + c], scale, offset);
        if constexpr (kTwoPartForm) acc[c] = fma(d, d, acc[c]);
        else acc[c] += power(fabs(d), two_p);
      }
    }
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      const double u = kTwoPartForm ? two_part_denominator<kForm>(acc[c], t.p, t.q) : acc[c];
      if constexpr (!kSelect) {
        if (u < m[c]) {
          s[c] = s[c] * (u / m[c]) + 1;
          m[c] = u;
        } else {
          s[c] += rescale(m[c], u);
        }
      } else if (c < tile && (at_point[c] ? u == 0 : u < keep_below[c])) {
        const int at = atomicAdd(kept_count + c0 + c, 1);
        if (at < capacity) kept[static_cast<long>(c0 + c) * capacity + at] = r;
      }
    }
  }
  if constexpr (!kSelect) {
    using Reduce = cub::BlockReduce<MinSum, kWeightBlock>;
    __shared__ typename Reduce::TempStorage temp;
#pragma unroll
    for (int c = 0; c < kTile; ++c) {  // unrolled, so that m and s stay in registers
      if (c >= tile) break;            // the same in every thread
      const MinSum total = Reduce(temp).Reduce(MinSum{m[c], s[c]}, MergeMinSum{});
      if (threadIdx.x == 0) partial[static_cast<long>(blockIdx.y) * count + c0 + c] = total;
      __syncthreads();
    }
  }
}

// The blocks' results of each configuration merged in block order: u_min and the bound below which
// a replica is kept, u_min / (wtol sum) (every replica when wtol = 0).
__global__ void merge_kernel(const MinSum* __restrict__ partial, int chunks, int count, double wtol,
                             double* __restrict__ u_min, double* __restrict__ cut) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  MinSum a{INFINITY, 0};
  for (int b = 0; b < chunks; ++b) a = MergeMinSum{}(a, partial[static_cast<long>(b) * count + k]);
  u_min[k] = a.m;
  cut[k] = wtol > 0 ? a.m / (wtol * a.s) : INFINITY;
}

__global__ void list_bounds_kernel(const int* __restrict__ kept_count, int count, int capacity, int* __restrict__ begin,
                                   int* __restrict__ end) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  begin[k] = k * capacity;
  end[k] = k * capacity + min(kept_count[k], capacity);
}

__device__ inline double warp_sum(double v) {
  // A butterfly: every lane ends with the same bits.
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ inline double warp_min(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmin(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// u of replica r at z, by one lane (the CPU's weight_denominator).
__device__ double denominator(const Tables& t, int r, const double* z) {
  const double* z0 = t.z0 + static_cast<long>(r) * t.pairs;
  const double* inv_d = t.inv_d + static_cast<long>(r) * t.pairs;
  double sum = 0;
  for (int l = 0; l < t.pairs; ++l) {
    const double d = (z[l] - z0[l]) * inv_d[l];
    sum += t.two_part ? d * d : power(fabs(d), 2 * t.p);
  }
  return t.two_part ? power(sum, t.p) + power(sum, t.q) : sum;
}

// Per warp: Z, Z - Z(i), dV/dZ (pairs each), zeta - zeta(i) and dT/dzeta (internal each).
struct WarpScratch {
  double *z, *dz, *dvdz, *dzeta, *hd;
};

// The Taylor term of replica r (data point i) at the warp's Z, by the whole warp: dz, dzeta and hd
// into the scratch; returns T, the same on every lane, and, in s_out, the weights' sum s (two-part).
__device__ double taylor_term(const Tables& t, int r, const WarpScratch& w, int lane, double* s_out) {
  const int i = r / t.group, ni = t.internal, nb = t.pairs;
  const int* source = t.pair_source + static_cast<long>(r % t.group) * nb;
  const double* z0 = t.z0 + static_cast<long>(r) * nb;
  const double* inv_d = t.inv_d + static_cast<long>(r) * nb;
  double part = 0;
  for (int l = lane; l < nb; l += 32) {
    w.dz[l] = w.z[l] - z0[l];
    const double d = w.dz[l] * inv_d[l];
    part += t.two_part ? d * d : power(fabs(d), 2 * t.p);
  }
  *s_out = warp_sum(part);
  __syncwarp();
  const double* u = t.u + static_cast<long>(i) * nb * ni;
  for (int k = lane; k < ni; k += 32) {
    double s = 0;
    for (int l = 0; l < nb; ++l) s += u[static_cast<long>(source[l]) * ni + k] * w.dz[l];
    w.dzeta[k] = s;
  }
  __syncwarp();
  double term = 0;
  for (int k = lane; k < ni; k += 32) {
    const double* h = t.hessian + (static_cast<long>(i) * ni + k) * ni;
    double s = 0;
    for (int m = 0; m < ni; ++m) s += h[m] * w.dzeta[m];
    const double g = t.gradient[static_cast<long>(i) * ni + k];
    w.hd[k] = g + s;
    term += w.dzeta[k] * (g + 0.5 * s);
  }
  __syncwarp();
  return t.energy[i] + warp_sum(term);
}

// dV/dZ = sum_j w_j [U dT_j/dzeta - (T_j - V) dlog u_j/dZ] over the sorted set, each lane its
// pairs, in the set's order; then dV/dx into grad (3N).
__device__ void add_gradient(const Tables& t, const double* x, const int* set, int ns, double u_min, double total,
                             double v, const WarpScratch& w, int lane, double* grad) {
  const int nb = t.pairs, ni = t.internal, n = t.atoms;
  const bool at_point = u_min == 0;
  auto numerator = [&](double u) { return at_point ? (u == 0 ? 1.0 : 0.0) : u_min / u; };
  for (int j = 0; j < ns; ++j) {
    const int r = set[j];
    double s;
    const double term = taylor_term(t, r, w, lane, &s);
    const double u = t.two_part ? power(s, t.p) + power(s, t.q) : s;
    const double weight = numerator(u) / total;
    if (weight == 0) continue;  // the same on every lane
    const double spread = at_point ? 0.0 : term - v;
    const int i = r / t.group;
    const int* source = t.pair_source + static_cast<long>(r % t.group) * nb;
    const double* inv_d = t.inv_d + static_cast<long>(r) * nb;
    const double* uu = t.u + static_cast<long>(i) * nb * ni;
    double dlog_ds = 0;
    if (t.two_part && !at_point) {
      const double ratio = power(s, t.q - t.p);
      dlog_ds = isinf(ratio) ? t.q / s : (t.p + t.q * ratio) / (s * (1 + ratio));
    }
    for (int l = lane; l < nb; l += 32) {
      const double* row = uu + static_cast<long>(source[l]) * ni;
      double tz = 0;
      for (int q = 0; q < ni; ++q) tz += row[q] * w.hd[q];
      double wz = 0;
      if (!at_point) {
        if (t.two_part) {
          wz = dlog_ds * 2 * w.dz[l] * inv_d[l] * inv_d[l];
        } else {
          const double d = w.dz[l] * inv_d[l];
          const double g = 2 * t.p * power(fabs(d), 2 * t.p - 1) * inv_d[l];
          wz = (d < 0 ? -g : g) / u;
        }
      }
      w.dvdz[l] += weight * (tz - spread * wz);
    }
    __syncwarp();
  }
  __syncwarp();
  // dV/dx_a = -sum_{c != a} (x_a - x_c) Z_ac^3 dV/dZ_ac, over c in increasing order as the CPU adds.
  for (int e = lane; e < 3 * n; e += 32) {
    const int a = e / 3, dim = e % 3;
    double g = 0;
    for (int c = 0; c < n; ++c) {
      if (c == a) continue;
      const int lo = min(a, c), hi = max(a, c);
      const int l = lo * (2 * n - lo - 1) / 2 + (hi - lo - 1);
      const double zl = w.z[l], scale = w.dvdz[l] * zl * zl * zl;
      const double term = -(x[3 * lo + dim] - x[3 * hi + dim]) * scale;  // the CPU's g of pair (lo, hi)
      g += a == lo ? term : -term;
    }
    grad[e] = g;
  }
}

// Step 3 (the CPU's `interpolate`) for configuration k over the sorted list of set_of[k] (or k).
template <bool kGradient>
__global__ void __launch_bounds__(kTaylorWarps * 32)
    taylor_kernel(Tables t, const double* __restrict__ configs, int count, const int* __restrict__ set_of,
                  const int* __restrict__ kept_count, const int* __restrict__ kept, int capacity,
                  double* __restrict__ energies, double* __restrict__ gradients) {
  extern __shared__ double shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k = blockIdx.x * kTaylorWarps + warp;
  if (k >= count) return;  // the whole warp; no block-wide barriers below
  const int nb = t.pairs, ni = t.internal, n = t.atoms;
  double* base = shared + static_cast<long>(warp) * (3 * nb + 2 * ni);
  const WarpScratch w{base, base + nb, base + 2 * nb, base + 3 * nb, base + 3 * nb + ni};
  const double* x = configs + static_cast<long>(k) * 3 * n;
  for (int l = lane; l < nb; l += 32) {
    int a = 0, rest = l;  // pair l = (a, c)
    while (rest >= n - 1 - a) rest -= n - 1 - a++;
    const int c = a + 1 + rest;
    const double dx = x[3 * a] - x[3 * c], dy = x[3 * a + 1] - x[3 * c + 1], dz = x[3 * a + 2] - x[3 * c + 2];
    // Unfused, as the CPU rounds: at a data point Z - Z(i) is then exactly 0, and so is u.
    w.z[l] = 1.0 / sqrt(__dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz)));
    w.dvdz[l] = 0;
  }
  __syncwarp();
  const int list = set_of ? set_of[k] : k;
  const int ns = min(kept_count[list], capacity);
  const int* set = kept + static_cast<long>(list) * capacity;
  // u_min over the set (a lane per point), then the sum of the relative weights' numerators.
  double least = INFINITY;
  for (int j = lane; j < ns; j += 32) least = fmin(least, denominator(t, set[j], w.z));
  const double u_min = warp_min(least);
  const bool at_point = u_min == 0;
  auto numerator = [&](double u) { return at_point ? (u == 0 ? 1.0 : 0.0) : u_min / u; };
  double part = 0;
  for (int j = lane; j < ns; j += 32) part += numerator(denominator(t, set[j], w.z));
  const double total = warp_sum(part);
  // V = sum_j w_j T_j, in the list's order.
  double v = 0;
  for (int j = 0; j < ns; ++j) {
    double s;
    const double term = taylor_term(t, set[j], w, lane, &s);
    const double u = t.two_part ? power(s, t.p) + power(s, t.q) : s;
    v += numerator(u) / total * term;
  }
  if (lane == 0) energies[k] = v;
  if constexpr (kGradient)
    add_gradient(t, x, set, ns, u_min, total, v, w, lane, gradients + static_cast<long>(k) * 3 * n);
}

template <class T>
T* grow(Array<T>& a, std::size_t n) {
  if (a.size() < n) a.resize(n);
  return a.data();
}

}  // namespace

struct GpuInterpolant::Impl {
  Interpolant host_shape;  // sizes and parameters only (no arrays)
  Array<double> scale{Backend::Cuda}, offset{Backend::Cuda}, z0{Backend::Cuda}, inv_d{Backend::Cuda},
      u{Backend::Cuda}, energy{Backend::Cuda}, gradient{Backend::Cuda}, hessian{Backend::Cuda};
  Array<int> pair_source{Backend::Cuda};
  Tables tables{};
  // Work arrays, grown as batches need.
  Array<double> configs{Backend::Cuda}, energies{Backend::Cuda}, gradients{Backend::Cuda}, z{Backend::Cuda},
      partial{Backend::Cuda}, u_min{Backend::Cuda}, cut{Backend::Cuda};
  Array<int> kept_count{Backend::Cuda}, kept{Backend::Cuda}, sorted{Backend::Cuda}, begin{Backend::Cuda},
      end{Backend::Cuda}, index{Backend::Cuda}, set_of{Backend::Cuda};
  Array<unsigned char> sort_temp{Backend::Cuda};
  GpuLimits limits;
  int capacity = 0;  // list entries per configuration
  double neighbours = 0;
  long found = 0;

  Impl(const Interpolant& f, GpuLimits l) : limits(l) {
    host_shape.atoms = f.atoms;
    host_shape.pairs = f.pairs;
    host_shape.internal = f.internal;
    host_shape.points = f.points;
    host_shape.data_points = f.data_points;
    host_shape.group = f.group;
    host_shape.parameters = f.parameters;
    const std::size_t nb = static_cast<std::size_t>(f.pairs), np = static_cast<std::size_t>(f.points);
    std::vector<double> sc(nb * np), off(nb * np), rz(nb * np), rd(nb * np);
    for (std::size_t r = 0; r < np; ++r) {
      const std::size_t i = r / static_cast<std::size_t>(f.group), g = r % static_cast<std::size_t>(f.group);
      for (std::size_t l = 0; l < nb; ++l) {
        const std::size_t m = i * nb + static_cast<std::size_t>(f.pair_source[g * nb + l]);
        rz[r * nb + l] = f.point_z[m];
        rd[r * nb + l] = f.point_inv_d[m];
        sc[l * np + r] = rd[r * nb + l];
        off[l * np + r] = -rz[r * nb + l] * rd[r * nb + l];
      }
    }
    scale.assign(sc);
    offset.assign(off);
    z0.assign(rz);
    inv_d.assign(rd);
    u.assign(f.u);
    energy.assign(f.energy);
    gradient.assign(f.gradient);
    hessian.assign(f.hessian);
    pair_source.assign(f.pair_source);
    tables = Tables{f.atoms, f.pairs, f.internal, f.group, f.points, f.parameters.weight == WeightKind::TwoPart,
                    f.parameters.p, f.parameters.q, scale.data(), offset.data(), z0.data(), inv_d.data(),
                    pair_source.data(), u.data(), energy.data(), gradient.data(), hessian.data()};
    capacity = std::min(f.points, 512);
  }

  int chunks() const { return (tables.replicas + kChunk - 1) / kChunk; }

  // Configurations per piece for the current list capacity.
  int piece_size() const {
    const std::size_t by_memory = limits.list_bytes / (2 * sizeof(int) * static_cast<std::size_t>(capacity));
    return static_cast<int>(
        std::clamp<std::size_t>(by_memory, 1, static_cast<std::size_t>(std::max(1, limits.configurations))));
  }

  template <bool kSelect>
  void weights_pass(int count) {
    const dim3 grid(static_cast<unsigned>((count + kTile - 1) / kTile), static_cast<unsigned>(chunks()));
    const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(tables.pairs) * kTile;
    MinSum* part = reinterpret_cast<MinSum*>(partial.data());
    auto launch = [&](auto kernel) {
      kernel<<<grid, kWeightBlock, bytes>>>(tables, z.data(), count, part, u_min.data(), cut.data(),
                                            kept_count.data(), kept.data(), capacity);
    };
    const Parameters& p = host_shape.parameters;
    if (!tables.two_part) launch(weights_kernel<kOnePart, kSelect>);
    else if (p.p == 2 && p.q == 12) launch(weights_kernel<kTwoPart2And12, kSelect>);
    else launch(weights_kernel<kTwoPart, kSelect>);
    QUASAR_LAUNCH_CHECK("shepard weights_kernel");
  }

  // The sorted neighbour lists of `count` configurations of `x` (those named by `centre`, device
  // indices, when not null). False when the lists outgrew the piece's memory: the caller takes
  // smaller pieces (capacity has grown) and calls again.
  bool find_neighbours(const double* x, const int* centre, int count) {
    inverse_distances_kernel<<<grid_for(count, 128), 128>>>(x, centre, count, tables.atoms,
                                                            grow(z, static_cast<std::size_t>(count) * tables.pairs));
    QUASAR_LAUNCH_CHECK("shepard inverse_distances_kernel");
    grow(partial, 2 * static_cast<std::size_t>(chunks()) * count);
    grow(u_min, static_cast<std::size_t>(count));
    grow(cut, static_cast<std::size_t>(count));
    weights_pass<false>(count);
    merge_kernel<<<grid_for(count, 128), 128>>>(reinterpret_cast<const MinSum*>(partial.data()), chunks(), count,
                                                host_shape.parameters.wtol, u_min.data(), cut.data());
    QUASAR_LAUNCH_CHECK("shepard merge_kernel");
    std::vector<int> counts(static_cast<std::size_t>(count));
    for (;;) {
      grow(kept_count, static_cast<std::size_t>(count));
      kept_count.set_zero();
      grow(kept, static_cast<std::size_t>(count) * capacity);
      weights_pass<true>(count);
      kept_count.download(counts.data(), counts.size());
      const int most = *std::max_element(counts.begin(), counts.end());
      if (*std::min_element(counts.begin(), counts.end()) == 0)
        throw Error("shepard: no data point in the neighbour set");
      if (most <= capacity) break;
      capacity = std::min(tables.replicas, (most + 63) / 64 * 64);
      if (static_cast<std::size_t>(count) * capacity * 2 * sizeof(int) > limits.list_bytes && count > 1) return false;
    }
    for (int c : counts) neighbours += c;
    found += count;
    // Sort each list (replica order, as the CPU's loop finds them).
    list_bounds_kernel<<<grid_for(count, 128), 128>>>(kept_count.data(), count, capacity,
                                                      grow(begin, static_cast<std::size_t>(count)),
                                                      grow(end, static_cast<std::size_t>(count)));
    QUASAR_LAUNCH_CHECK("shepard list_bounds_kernel");
    const int items = count * capacity;
    grow(sorted, static_cast<std::size_t>(items));
    std::size_t temp_bytes = 0;
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, kept.data(), sorted.data(), items, count,
                                                         begin.data(), end.data()));
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(grow(sort_temp, std::max<std::size_t>(temp_bytes, 1)),
                                                         temp_bytes, kept.data(), sorted.data(), items, count,
                                                         begin.data(), end.data()));
    return true;
  }

  void taylor(const double* x, int count, const int* sets, double* e, double* g) {
    const std::size_t bytes =
        sizeof(double) * kTaylorWarps * static_cast<std::size_t>(3 * tables.pairs + 2 * tables.internal);
    const unsigned blocks = static_cast<unsigned>((count + kTaylorWarps - 1) / kTaylorWarps);
    if (g)
      taylor_kernel<true><<<blocks, kTaylorWarps * 32, bytes>>>(tables, x, count, sets, kept_count.data(),
                                                                 sorted.data(), capacity, e, g);
    else
      taylor_kernel<false><<<blocks, kTaylorWarps * 32, bytes>>>(tables, x, count, sets, kept_count.data(),
                                                                  sorted.data(), capacity, e, g);
    QUASAR_LAUNCH_CHECK("shepard taylor_kernel");
  }

  void exact(const double* x, int count, double* e, double* g) {
    neighbours = 0;
    found = 0;
    const long n3 = 3L * tables.atoms;
    for (int done = 0; done < count;) {
      const int piece = std::min(count - done, piece_size());
      if (!find_neighbours(x + done * n3, nullptr, piece)) continue;
      taylor(x + done * n3, piece, nullptr, e + done, g ? g + done * n3 : nullptr);
      done += piece;
    }
    QUASAR_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void groups(const double* x, std::span<const int> offsets, std::span<const int> centres, double* e, double* g) {
    neighbours = 0;
    found = 0;
    const long n3 = 3L * tables.atoms;
    const int total = static_cast<int>(centres.size());
    std::vector<int> local;
    for (int g0 = 0; g0 < total;) {
      const int g1 = std::min(total, g0 + piece_size());
      const int first = offsets[static_cast<std::size_t>(g0)], last = offsets[static_cast<std::size_t>(g1)];
      // Centres relative to the piece's first configuration; each configuration's group in the piece.
      local.assign(centres.begin() + g0, centres.begin() + g1);
      for (int& c : local) c -= first;
      grow(index, local.size());
      index.upload(local.data(), local.size());
      if (!find_neighbours(x + first * n3, index.data(), g1 - g0)) continue;
      local.resize(static_cast<std::size_t>(last - first));
      for (int grp = g0; grp < g1; ++grp)
        for (int c = offsets[static_cast<std::size_t>(grp)]; c < offsets[static_cast<std::size_t>(grp) + 1]; ++c)
          local[static_cast<std::size_t>(c - first)] = grp - g0;
      grow(set_of, local.size());
      set_of.upload(local.data(), local.size());
      if (last > first) taylor(x + first * n3, last - first, set_of.data(), e + first, g ? g + first * n3 : nullptr);
      g0 = g1;
    }
    QUASAR_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

GpuInterpolant::GpuInterpolant(const Interpolant& f, GpuLimits limits) {
  if (f.atoms > kMaxAtoms)
    throw Error("shepard: the GPU evaluation takes molecules of up to " + std::to_string(kMaxAtoms) + " atoms, not " +
                std::to_string(f.atoms));
  impl_ = std::make_unique<Impl>(f, limits);
}

GpuInterpolant::~GpuInterpolant() = default;

void GpuInterpolant::evaluate_device(const double* configs, int count, double* energies, double* gradients) {
  if (count > 0) impl_->exact(configs, count, energies, gradients);
}

void GpuInterpolant::evaluate_batch(std::span<const double> configs, std::span<double> energies,
                                    std::span<double> gradients) {
  Impl& m = *impl_;
  check_batch(m.host_shape, configs, energies, gradients);
  if (energies.empty()) return;
  grow(m.configs, configs.size());
  m.configs.upload(configs.data(), configs.size());
  grow(m.energies, energies.size());
  if (!gradients.empty()) grow(m.gradients, gradients.size());
  m.exact(m.configs.data(), static_cast<int>(energies.size()), m.energies.data(),
          gradients.empty() ? nullptr : m.gradients.data());
  m.energies.download(energies.data(), energies.size());
  if (!gradients.empty()) m.gradients.download(gradients.data(), gradients.size());
}

void GpuInterpolant::evaluate_groups(std::span<const double> configs, std::span<const int> offsets,
                                     std::span<const int> centres, std::span<double> energies,
                                     std::span<double> gradients) {
  Impl& m = *impl_;
  check_groups(m.host_shape, configs, offsets, centres, energies, gradients);
  if (energies.empty()) return;
  grow(m.configs, configs.size());
  m.configs.upload(configs.data(), configs.size());
  grow(m.energies, energies.size());
  if (!gradients.empty()) grow(m.gradients, gradients.size());
  m.groups(m.configs.data(), offsets, centres, m.energies.data(), gradients.empty() ? nullptr : m.gradients.data());
  m.energies.download(energies.data(), energies.size());
  if (!gradients.empty()) m.gradients.download(gradients.data(), gradients.size());
}

double GpuInterpolant::mean_neighbours() const {
  return impl_->found ? impl_->neighbours / static_cast<double>(impl_->found) : 0.0;
}

}  // namespace quasar::shepard
