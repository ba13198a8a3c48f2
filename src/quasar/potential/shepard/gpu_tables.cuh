#pragma once
// What the interpolation's kernels share (gpu_weights.cu, gpu_taylor.cu) and the host code that
// launches them (gpu_interpolant.cu): the data set's tables on the device, the weight's forms, and
// the launchers.
#include <cuda_runtime.h>

namespace quasar::shepard::gpu {

// The data set on the device (pointers into GpuInterpolant::Impl's arrays), in the layouts of the
// CPU's Interpolant (interpolant.hpp): per data point, never per replica.
struct Tables {
  int atoms, pairs, internal, group, data_points, stride, width, replicas;
  int identity;  // the group element that renames nothing
  bool two_part;
  double p, q, wtol;
  double u_floor;                // s = 1e-4 as u: the screen's floor (below it float's s is too coarse to rank)
  const double* scale;           // [m stride + i]: 1 / d_m of point i (padding points: 1)
  const double* offset;          // [m stride + i]: -Z_m(i) / d_m, so that (Z - Z(i)) / d = fma(Z, scale, offset)
  const float* scale32;          // the same in float, for the screen
  const float* offset32;
  const unsigned short* target;  // [g pairs + m]: the configuration's pair l that the point's pair m meets under g
  const int* pair_source;        // [g pairs + l]: the point's pair m that the configuration's pair l meets
  const double* point_z;         // [i width + m]
  const double* point_inv_d;     // [i width + m]
  const double* u;               // [(i pairs + m) width + k]
  const double* hessian;         // [(i internal + k) width + m]
  const double* gradient;        // [i width + k]
  const double* energy;          // [i]
  // The Taylor term in Z: T = E + dz.(gz + M dz / 2) with dz = Z - Z(i), M = U H U^T, gz = U g.
  const double* z_hessian;       // [(i pairs + m) pairs + n]: M_mn
  const double* z_gradient;      // [i pairs + m]: gz_m
};

// The weight's forms: one-part, two-part, and two-part with Collins's p = 2, q = 12 written out.
enum WeightForm { kOnePart, kTwoPart, kTwoPart2And12 };

// s^e as the CPU computes it (interpolant_parts.hpp): by multiplication for small whole e.
template <class R>
__device__ inline R power(R s, R e) {
  if (e == floor(e) && e >= 0 && e <= 64) {
    R out = 1, base = s;
    for (unsigned n = static_cast<unsigned>(e); n; n >>= 1, base *= base)
      if (n & 1u) out *= base;
    return out;
  }
  return pow(s, e);
}

// Butterflies: every lane ends with the same bits.
__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ inline double warp_min(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmin(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Z_l of pair l = (a, c) at x (n atoms), unfused as the CPU rounds: at a data point Z - Z(i) is then
// exactly 0, and so is u.
__device__ inline double inverse_distance(const double* x, int n, int l) {
  int a = 0, rest = l;
  while (rest >= n - 1 - a) rest -= n - 1 - a++;
  const int c = a + 1 + rest;
  const double dx = x[3 * a] - x[3 * c], dy = x[3 * a + 1] - x[3 * c + 1], dz = x[3 * a + 2] - x[3 * c + 2];
  return 1.0 / sqrt(__dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz)));
}

// s += one pair's term, d = (Z - Z(i)) / d_l, and u from s, every rounding written out: the filter
// and the Taylor kernels then form the same bits (left to the compiler, fusions may differ between
// kernels).
__device__ inline double add_pair_term(const Tables& t, double sum, double d) {
  return t.two_part ? __fma_rn(d, d, sum) : __dadd_rn(sum, power(fabs(d), 2 * t.p));
}
__device__ inline double denominator_from_s(const Tables& t, double s) {
  return t.two_part ? __dadd_rn(power(s, t.p), power(s, t.q)) : s;
}

// u of replica r at z, by one lane, in the replica's pair order (the CPU's weight_denominator).
__device__ inline double denominator(const Tables& t, int r, const double* z) {
  const int* source = t.pair_source + static_cast<long>(r % t.group) * t.pairs;
  const double* zi = t.point_z + static_cast<long>(r / t.group) * t.width;
  const double* di = t.point_inv_d + static_cast<long>(r / t.group) * t.width;
  double sum = 0;
  for (int l = 0; l < t.pairs; ++l) sum = add_pair_term(t, sum, __dmul_rn(__dsub_rn(z[l], zi[source[l]]), di[source[l]]));
  return denominator_from_s(t, sum);
}

// Weights, per piece of `count` configurations whose Z (pairs each) are at z:
//   estimate: each configuration's smallest u over the identity's replicas (double), into estimate;
//   screen:   u of every replica in float: the candidates (u wtol within a margin of the smallest u
//             known, a superset of the kept) appended to each configuration's list, [k capacity + n],
//             their number in found[k]; the sum of 1 / u over the others per block of data points
//             into far_partial (chunks x count);
//   merge:    far[k], the blocks' sums in block order;
//   filter:   each (sorted) list cut down in place to the kept replicas, from their u in double: the
//             CPU's w > wtol with sum_r 1/u_r = the candidates' + far; their number in kept[k], their
//             u in lists_u (beside lists).
int weight_chunks(const Tables& t);
void estimate(const Tables& t, const double* z, int count, double* estimate);
void screen(const Tables& t, const double* z, int count, const double* estimate, double* far_partial, int* found,
            int* candidates, int capacity);
void merge(const Tables& t, const double* far_partial, int count, double* far);
void filter(const Tables& t, const double* z, int count, const double* far, const int* found, int* lists,
            double* lists_u, int capacity, int* kept);

// Step 3 for `count` configurations of configs (3N each) over the sorted lists (set_of[k], or k,
// its list, whose u lists_u holds when not null and set_of is): energies and, when not null,
// gradients.
void taylor(const Tables& t, const double* configs, int count, const int* set_of, const int* kept, const int* lists,
            const double* lists_u, int capacity, double* energies, double* gradients);

}  // namespace quasar::shepard::gpu
