// Step 3 on the GPU (the CPU's `interpolate`): a warp per configuration over its sorted list of kept
// replicas. For molecules of 3 to 7 atoms each lane takes whole replicas (every vector of a Taylor
// term in its registers) and one pass gives V and dV/dZ, whose weights' part is centred on the
// energy E0 of the nearest replica's point (sum_j w_j [dT_j/dZ - (T_j - V) dlog u_j/dZ] =
// sum_j w_j [dT_j/dZ - (T_j - E0) dlog u_j/dZ] + (V - E0) sum_j w_j dlog u_j/dZ, both sums of
// terms the size of the spread of the T_j); larger molecules take the whole warp per replica. The
// lanes' sums meet in butterflies, so the results are the same bits from run to run.
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/shepard/gpu_tables.cuh"

namespace quasar::shepard::gpu {

namespace {

constexpr int kWarps = 4;  // configurations of a Taylor block, one per warp

// d log u / dZ_l of one pair: difference dz, 1/d `id`, dlog_ds (two-part) or u (one-part).
__device__ inline double log_derivative(const Tables& t, double dz, double id, double dlog_ds, double u) {
  if (t.two_part) return dlog_ds * 2 * dz * id * id;
  const double d = dz * id, g = 2 * t.p * power(fabs(d), 2 * t.p - 1) * id;
  return (d < 0 ? -g : g) / u;
}

// (p s^(p-1) + q s^(q-1)) / (s^p + s^q) = (p + q t) / (s (1 + t)), t = s^(q-p); q / s when t overflows.
__device__ inline double two_part_log_slope(const Tables& t, double s) {
  const double ratio = power(s, t.q - t.p);
  return isinf(ratio) ? t.q / s : (t.p + t.q * ratio) / (s * (1 + ratio));
}

// dV/dx_a = -sum_{c != a} (x_a - x_c) Z_ac^3 dV/dZ_ac, over c in increasing order as the CPU adds.
__device__ void cartesian_gradient(const double* x, int n, const double* z, const double* dvdz, int lane,
                                   double* grad) {
  for (int e = lane; e < 3 * n; e += 32) {
    const int a = e / 3, dim = e % 3;
    double g = 0;
    for (int c = 0; c < n; ++c) {
      if (c == a) continue;
      const int lo = min(a, c), hi = max(a, c);
      const int l = lo * (2 * n - lo - 1) / 2 + (hi - lo - 1);
      const double zl = z[l], scale = dvdz[l] * zl * zl * zl;
      const double term = -(x[3 * lo + dim] - x[3 * hi + dim]) * scale;  // the CPU's g of pair (lo, hi)
      g += a == lo ? term : -term;
    }
    grad[e] = g;
  }
}

// The set's u_min, the first of its replicas with it (a lane per replica, ties to the earlier), and
// the sum of the relative weights' numerators.
struct SetWeights {
  double u_min, total;
  int nearest;
  __device__ double numerator(double u) const { return u_min == 0 ? (u == 0 ? 1.0 : 0.0) : u_min / u; }
};

// u of the set's replica j: from the filter's list (set_u) when the set was found at this
// configuration, else recomputed (a group's centre's set at another grid point).
__device__ inline double set_u(const Tables& t, const int* set, const double* set_u, int j, const double* z) {
  return set_u ? set_u[j] : denominator(t, set[j], z);
}

__device__ SetWeights set_weights(const Tables& t, const int* set, const double* u_of, int ns, const double* z,
                                  int lane) {
  double least = INFINITY;
  int first = ns;
  for (int j = lane; j < ns; j += 32) {
    const double u = set_u(t, set, u_of, j, z);
    if (u < least) least = u, first = j;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double u = __shfl_xor_sync(0xffffffffu, least, o);
    const int j = __shfl_xor_sync(0xffffffffu, first, o);
    if (u < least || (u == least && j < first)) least = u, first = j;
  }
  SetWeights w{least, 0, first};
  double part = 0;
  for (int j = lane; j < ns; j += 32) part += w.numerator(set_u(t, set, u_of, j, z));
  w.total = warp_sum(part);
  return w;
}

// A lane per replica: kAtoms known, so that the replica's Z - Z(i) and dT/dZ sit in registers;
// each lane's sums over pairs in shared memory (a column per lane).
template <int kAtoms, bool kGradient>
__global__ void __launch_bounds__(kWarps * 32)
    taylor_lanes_kernel(Tables t, const double* __restrict configs, int count, const int* __restrict set_of,
                        const int* __restrict kept, const int* __restrict lists, const double* __restrict lists_u,
                        int capacity, double* __restrict energies, double* __restrict gradients) {
  constexpr int kPairs = kAtoms * (kAtoms - 1) / 2;
  __shared__ double z_shared[kWarps][kPairs], dvdz_shared[kWarps][kPairs];
  // Per lane: sum_j w_j [dT_j/dZ - (T_j - E0) dlog u_j/dZ] and sum_j w_j dlog u_j/dZ.
  __shared__ double direct_shared[kWarps][kGradient ? kPairs : 1][32], spread_shared[kWarps][kGradient ? kPairs : 1][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, k = blockIdx.x * kWarps + warp;
  if (k >= count) return;  // the whole warp; no block-wide barriers below
  const double* x = configs + static_cast<long>(k) * 3 * kAtoms;
  double* z = z_shared[warp];
  for (int l = lane; l < kPairs; l += 32) z[l] = inverse_distance(x, kAtoms, l);
  if constexpr (kGradient)
    for (int l = 0; l < kPairs; ++l) direct_shared[warp][l][lane] = spread_shared[warp][l][lane] = 0;
  __syncwarp();
  const int list = set_of ? set_of[k] : k;
  const int ns = min(kept[list], capacity);
  const int* set = lists + static_cast<long>(list) * capacity;
  const double* u_of = lists_u && !set_of ? lists_u + static_cast<long>(list) * capacity : nullptr;
  const SetWeights sw = set_weights(t, set, u_of, ns, z, lane);
  const bool at_point = sw.u_min == 0;
  const double e0 = t.energy[set[min(sw.nearest, ns - 1)] / t.group];
  const long width = t.width;
  double v = 0;
  for (int j = lane; j < ns; j += 32) {
    const int r = set[j], i = r / t.group;
    const int* source = t.pair_source + static_cast<long>(r % t.group) * kPairs;
    const double* zi = t.point_z + i * width;
    const double* di = t.point_inv_d + i * width;
    // In Z, with dz = Z - Z(i) through the replica's pair map: T = E + dz.(gz + M dz / 2) and
    // dT/dZ = gz + M dz (M = U H U^T, gz = U g: the same as through zeta, with one matrix to read).
    // u as denominator() forms it.
    int m[kPairs];
    double dz[kPairs], tz[kPairs], e = 0, s = 0;
#pragma unroll
    for (int l = 0; l < kPairs; ++l) {
      m[l] = source[l];
      dz[l] = __dsub_rn(z[l], zi[m[l]]);
      s = add_pair_term(t, s, __dmul_rn(dz[l], di[m[l]]));
    }
    const double u = denominator_from_s(t, s);
    const double w = sw.numerator(u) / sw.total;
    if (w == 0) continue;
    const double* mi = t.z_hessian + static_cast<long>(i) * kPairs * kPairs;
    const double* gi = t.z_gradient + static_cast<long>(i) * kPairs;
#pragma unroll
    for (int l = 0; l < kPairs; ++l) {
      const double* row = mi + m[l] * kPairs;
      double a = 0;
#pragma unroll
      for (int n = 0; n < kPairs; ++n) a += row[m[n]] * dz[n];
      const double g = gi[m[l]];
      tz[l] = g + a;
      e += dz[l] * (g + 0.5 * a);
    }
    const double term = t.energy[i] + e;
    v += w * term;
    if constexpr (kGradient) {
      const double dlog_ds = t.two_part && !at_point ? two_part_log_slope(t, s) : 0.0;
#pragma unroll
      for (int l = 0; l < kPairs; ++l) {
        if (at_point) {
          direct_shared[warp][l][lane] += w * tz[l];
        } else {
          const double wz = log_derivative(t, dz[l], di[m[l]], dlog_ds, u);
          direct_shared[warp][l][lane] += w * (tz[l] - (term - e0) * wz);
          spread_shared[warp][l][lane] += w * wz;
        }
      }
    }
  }
  v = warp_sum(v);
  if (lane == 0) energies[k] = v;
  if constexpr (kGradient) {
    for (int l = 0; l < kPairs; ++l) {
      const double a = warp_sum(direct_shared[warp][l][lane]), b = warp_sum(spread_shared[warp][l][lane]);
      if (lane == 0) dvdz_shared[warp][l] = a + (v - e0) * b;
    }
    __syncwarp();
    cartesian_gradient(x, kAtoms, z, dvdz_shared[warp], lane, gradients + static_cast<long>(k) * 3 * kAtoms);
  }
}

// Per warp: Z, Z - Z(i), dV/dZ (pairs each), zeta - zeta(i) and dT/dzeta (internal each).
struct WarpScratch {
  double *z, *dz, *dvdz, *dzeta, *hd;
};

// The Taylor term of replica r (data point i) at the warp's Z, by the whole warp: dz, dzeta and hd
// into the scratch; returns T, the same on every lane, and, in s_out, the weights' sum s.
__device__ double taylor_term(const Tables& t, int r, const WarpScratch& w, int lane, double* s_out) {
  const int i = r / t.group, ni = t.internal, nb = t.pairs;
  const long width = t.width;
  const int* source = t.pair_source + static_cast<long>(r % t.group) * nb;
  const double* zi = t.point_z + i * width;
  const double* di = t.point_inv_d + i * width;
  double part = 0;
  for (int l = lane; l < nb; l += 32) {
    w.dz[l] = __dsub_rn(w.z[l], zi[source[l]]);
    part = add_pair_term(t, part, __dmul_rn(w.dz[l], di[source[l]]));
  }
  *s_out = warp_sum(part);
  __syncwarp();
  const double* u = t.u + static_cast<long>(i) * nb * width;
  for (int q = lane; q < ni; q += 32) {
    double s = 0;
    for (int l = 0; l < nb; ++l) s += u[source[l] * width + q] * w.dz[l];
    w.dzeta[q] = s;
  }
  __syncwarp();
  double term = 0;
  for (int q = lane; q < ni; q += 32) {
    const double* h = t.hessian + (static_cast<long>(i) * ni + q) * width;
    double s = 0;
    for (int m = 0; m < ni; ++m) s += h[m] * w.dzeta[m];
    const double g = t.gradient[i * width + q];
    w.hd[q] = g + s;
    term += w.dzeta[q] * (g + 0.5 * s);
  }
  __syncwarp();
  return t.energy[i] + warp_sum(term);
}

// The whole warp per replica (molecules the lanes' kernel does not take), in the set's order: V,
// then dV/dZ = sum_j w_j [U dT_j/dzeta - (T_j - V) dlog u_j/dZ], each lane its pairs.
template <bool kGradient>
__global__ void __launch_bounds__(kWarps * 32)
    taylor_warps_kernel(Tables t, const double* __restrict configs, int count, const int* __restrict set_of,
                        const int* __restrict kept, const int* __restrict lists, const double* __restrict lists_u,
                        int capacity, double* __restrict energies, double* __restrict gradients) {
  extern __shared__ double shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, k = blockIdx.x * kWarps + warp;
  if (k >= count) return;  // the whole warp; no block-wide barriers below
  const int nb = t.pairs, n = t.atoms;
  const long width = t.width;
  double* base = shared + static_cast<long>(warp) * (3 * nb + 2 * t.internal);
  const WarpScratch w{base, base + nb, base + 2 * nb, base + 3 * nb, base + 3 * nb + t.internal};
  const double* x = configs + static_cast<long>(k) * 3 * n;
  for (int l = lane; l < nb; l += 32) {
    w.z[l] = inverse_distance(x, n, l);
    w.dvdz[l] = 0;
  }
  __syncwarp();
  const int list = set_of ? set_of[k] : k;
  const int ns = min(kept[list], capacity);
  const int* set = lists + static_cast<long>(list) * capacity;
  const double* u_of = lists_u && !set_of ? lists_u + static_cast<long>(list) * capacity : nullptr;
  const SetWeights sw = set_weights(t, set, u_of, ns, w.z, lane);
  const bool at_point = sw.u_min == 0;
  double v = 0;
  for (int j = 0; j < ns; ++j) {
    double s;
    const double term = taylor_term(t, set[j], w, lane, &s);
    v += sw.numerator(denominator_from_s(t, s)) / sw.total * term;
  }
  if (lane == 0) energies[k] = v;
  if constexpr (kGradient) {
    for (int j = 0; j < ns; ++j) {
      const int r = set[j], i = r / t.group;
      double s;
      const double term = taylor_term(t, r, w, lane, &s);
      const double u = denominator_from_s(t, s);
      const double weight = sw.numerator(u) / sw.total;
      if (weight == 0) continue;  // the same on every lane
      const int* source = t.pair_source + static_cast<long>(r % t.group) * nb;
      const double* di = t.point_inv_d + i * width;
      const double* ui = t.u + static_cast<long>(i) * nb * width;
      const double dlog_ds = t.two_part && !at_point ? two_part_log_slope(t, s) : 0.0;
      for (int l = lane; l < nb; l += 32) {
        const double* row = ui + source[l] * width;
        double tz = 0;
        for (int q = 0; q < t.internal; ++q) tz += row[q] * w.hd[q];
        const double wz = at_point ? 0.0 : log_derivative(t, w.dz[l], di[source[l]], dlog_ds, u);
        w.dvdz[l] += weight * (tz - (at_point ? 0.0 : term - v) * wz);
      }
      __syncwarp();
    }
    __syncwarp();
    cartesian_gradient(x, n, w.z, w.dvdz, lane, gradients + static_cast<long>(k) * 3 * n);
  }
}

template <bool kGradient>
void launch_taylor(const Tables& t, const double* configs, int count, const int* set_of, const int* kept,
                   const int* lists, const double* lists_u, int capacity, double* energies, double* gradients) {
  const unsigned blocks = static_cast<unsigned>((count + kWarps - 1) / kWarps);
  auto lanes = [&](auto kernel) {
    kernel<<<blocks, kWarps * 32>>>(t, configs, count, set_of, kept, lists, lists_u, capacity, energies, gradients);
  };
  switch (t.atoms) {
    case 3: lanes(taylor_lanes_kernel<3, kGradient>); break;
    case 4: lanes(taylor_lanes_kernel<4, kGradient>); break;
    case 5: lanes(taylor_lanes_kernel<5, kGradient>); break;
    case 6: lanes(taylor_lanes_kernel<6, kGradient>); break;
    case 7: lanes(taylor_lanes_kernel<7, kGradient>); break;
    default: {
      const std::size_t bytes = sizeof(double) * kWarps * static_cast<std::size_t>(3 * t.pairs + 2 * t.internal);
      taylor_warps_kernel<kGradient><<<blocks, kWarps * 32, bytes>>>(t, configs, count, set_of, kept, lists,
                                                                     lists_u, capacity, energies, gradients);
    }
  }
  QUASAR_LAUNCH_CHECK("shepard taylor kernel");
}

}  // namespace

void taylor(const Tables& t, const double* configs, int count, const int* set_of, const int* kept, const int* lists,
            const double* lists_u, int capacity, double* energies, double* gradients) {
  if (gradients) launch_taylor<true>(t, configs, count, set_of, kept, lists, lists_u, capacity, energies, gradients);
  else launch_taylor<false>(t, configs, count, set_of, kept, lists, lists_u, capacity, energies, gradients);
}

}  // namespace quasar::shepard::gpu
