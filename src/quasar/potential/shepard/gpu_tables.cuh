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
  double negligible;             // 2^54 x replicas: a ratio u_min / u below its inverse is left out of the sums
  const double* scale;           // [m stride + i]: 1 / d_m of point i (padding points: 1)
  const double* offset;          // [m stride + i]: -Z_m(i) / d_m, so that (Z - Z(i)) / d = fma(Z, scale, offset)
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
__device__ inline double power(double s, double e) {
  if (e == floor(e) && e >= 0 && e <= 64) {
    double out = 1, base = s;
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

// The smallest weight denominator seen and the sum of m / u over the replicas seen, at the scale of
// the smallest (at a data point, m = 0, it counts the replicas there).
struct MinSum {
  double m, s;
};

// Weights, per piece of `count` configurations whose Z (pairs each) are at z:
//   estimate: each configuration's smallest u over the identity's replicas, into estimate (count);
//   weights:  MinSum per block of data points into partial (chunks x count), and the candidates
//             (u wtol <= the smallest u known, a superset of the kept) appended to each
//             configuration's list: (replica, u) at [k capacity + n], their number in found[k];
//   merge:    u_min and the cut per configuration (u < cut is kept; at a data point u == 0);
//   filter:   each list cut down in place to the kept replicas, their number in kept[k].
int weight_chunks(const Tables& t);
void estimate(const Tables& t, const double* z, int count, double* estimate);
void weights(const Tables& t, const double* z, int count, const double* estimate, MinSum* partial, int* found,
             int* candidates, double* candidate_u, int capacity);
void merge(const Tables& t, const MinSum* partial, int count, double* u_min, double* cut);
void filter(const double* u_min, const double* cut, int count, const int* found, int* candidates,
            const double* candidate_u, int capacity, int* kept);

// Step 3 for `count` configurations of configs (3N each) over the sorted lists (set_of[k], or k,
// its list): energies and, when not null, gradients.
void taylor(const Tables& t, const double* configs, int count, const int* set_of, const int* kept, const int* lists,
            int capacity, double* energies, double* gradients);

}  // namespace quasar::shepard::gpu
