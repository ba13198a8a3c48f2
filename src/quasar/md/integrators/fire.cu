// FIRE's kernels: one thread per atom calling the updates its CPU loop calls (md/integrate_kernels.hpp).
// Sums over atoms go through per-block partial sums and one ordered pass over them, so that they
// are the same bits every run (the minimiser branches on the sign of the power).
#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/record_fault.cuh"

namespace quasar::md::gpu {
namespace {

constexpr int kBlock = 256;

enum class Combine { Sum, Max };

struct Larger {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

// Block kBlock's values v[k] combined (sum or max) into partial[block * K + k].
template <int K>
__device__ void block_partials(const double (&v)[K], const Combine (&how)[K], double* partial) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  for (int k = 0; k < K; ++k) {
    const double r = how[k] == Combine::Sum ? Reduce(temp).Sum(v[k]) : Reduce(temp).Reduce(v[k], Larger{});
    if (threadIdx.x == 0) partial[blockIdx.x * K + k] = r;
    __syncthreads();
  }
}

// One thread: the blocks' partials in block order.
template <int K>
__global__ void finish_kernel(const double* partial, int blocks, Combine c0, Combine c1, Combine c2, double* sums) {
  const Combine how[3] = {c0, c1, c2};
  for (int k = 0; k < K; ++k) {
    double r = 0;
    for (int b = 0; b < blocks; ++b) {
      const double v = partial[b * K + k];
      r = how[k] == Combine::Sum ? r + v : (v > r ? v : r);
    }
    sums[k] = r;
  }
}
__global__ void place_kernel(AtomsRef a, FireArrays f, bool move, double move_by, Vec3 origin, Mat3 d,
                             FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  if (move) {
    f.x[i] += move_by * f.vx[i];
    f.y[i] += move_by * f.vy[i];
    f.z[i] += move_by * f.vz[i];
  }
  const Vec3 p = fire_position({f.x[i], f.y[i], f.z[i]}, origin, d);
  a.x[i] = p.x;
  a.y[i] = p.y;
  a.z[i] = p.z;
  AtomFault fault;
  find_nonfinite(p.x, p.y, p.z, kBadPosition, fault);
  record(check, a, i, fault);
}

__global__ void forces_kernel(AtomsRef a, FireArrays f, Vec3 origin, Mat3 dinv, Mat3 dt, double* partial,
                              FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v[3] = {0, 0, 0};  // max |F|, v.g, g.g
  if (i < a.n) {
    const Vec3 fi{a.fx[i], a.fy[i], a.fz[i]};
    AtomFault fault;
    find_nonfinite(fi.x, fi.y, fi.z, kBadForce, fault);
    record(check, a, i, fault);
    const Vec3 xr = fire_reference({a.x[i], a.y[i], a.z[i]}, origin, dinv);
    f.x[i] = xr.x;
    f.y[i] = xr.y;
    f.z[i] = xr.z;
    const Vec3 g = fi * dt;
    f.gx[i] = g.x;
    f.gy[i] = g.y;
    f.gz[i] = g.z;
    v[0] = abs_max(fi.x, abs_max(fi.y, abs_max(fi.z, 0.0)));
    v[1] = f.vx[i] * g.x + f.vy[i] * g.y + f.vz[i] * g.z;
    v[2] = g.x * g.x + g.y * g.y + g.z * g.z;
  }
  block_partials<3>(v, {Combine::Max, Combine::Sum, Combine::Sum}, partial);
}

__global__ void kick_kernel(int n, FireArrays f, bool reset, double half_dt, double dt, double* partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v[1] = {0};
  if (i < n) {
    if (reset) {
      f.x[i] -= half_dt * f.vx[i];
      f.y[i] -= half_dt * f.vy[i];
      f.z[i] -= half_dt * f.vz[i];
      f.vx[i] = f.vy[i] = f.vz[i] = 0;
    }
    f.vx[i] += dt * f.gx[i];
    f.vy[i] += dt * f.gy[i];
    f.vz[i] += dt * f.gz[i];
    v[0] = f.vx[i] * f.vx[i] + f.vy[i] * f.vy[i] + f.vz[i] * f.vz[i];
  }
  block_partials<1>(v, {Combine::Sum}, partial);
}

__global__ void mix_kernel(int n, FireArrays f, bool mix, double c1, double c2, double dt, double* partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v[1] = {0};
  if (i < n) {
    if (mix) {
      f.vx[i] = c1 * f.vx[i] + c2 * f.gx[i];
      f.vy[i] = c1 * f.vy[i] + c2 * f.gy[i];
      f.vz[i] = c1 * f.vz[i] + c2 * f.gz[i];
    }
    v[0] = abs_max(dt * f.vx[i], abs_max(dt * f.vy[i], abs_max(dt * f.vz[i], 0.0)));
  }
  block_partials<1>(v, {Combine::Max}, partial);
}

// Room for K partials per block in `partial` (grown by the caller's Array beforehand).
template <int K>
void finish(const double* partial, int blocks, Combine c0, Combine c1, Combine c2, double* sums) {
  finish_kernel<K><<<1, 1>>>(partial, blocks, c0, c1, c2, sums);
  QUASAR_LAUNCH_CHECK("fire finish_kernel");
}

}  // namespace

void fire_place(AtomsRef a, FireArrays f, bool move, double move_by, Vec3 origin, Mat3 d, const FaultCheck& check) {
  place_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, f, move, move_by, origin, d, check);
  QUASAR_LAUNCH_CHECK("fire place_kernel");
}

void fire_forces(AtomsRef a, FireArrays f, Vec3 origin, Mat3 dinv, Mat3 dt, double* sums, double* partial,
                 const FaultCheck& check) {
  const int blocks = static_cast<int>(grid_for(a.n, kBlock));
  forces_kernel<<<blocks, kBlock>>>(a, f, origin, dinv, dt, partial, check);
  QUASAR_LAUNCH_CHECK("fire forces_kernel");
  finish<3>(partial, blocks, Combine::Max, Combine::Sum, Combine::Sum, sums);
}

void fire_kick(int n, FireArrays f, bool reset, double half_dt, double dt, double* sums, double* partial) {
  const int blocks = static_cast<int>(grid_for(n, kBlock));
  kick_kernel<<<blocks, kBlock>>>(n, f, reset, half_dt, dt, partial);
  QUASAR_LAUNCH_CHECK("fire kick_kernel");
  finish<1>(partial, blocks, Combine::Sum, Combine::Sum, Combine::Sum, sums);
}

void fire_mix(int n, FireArrays f, bool mix, double c1, double c2, double dt, double* sums, double* partial) {
  const int blocks = static_cast<int>(grid_for(n, kBlock));
  mix_kernel<<<blocks, kBlock>>>(n, f, mix, c1, c2, dt, partial);
  QUASAR_LAUNCH_CHECK("fire mix_kernel");
  finish<1>(partial, blocks, Combine::Max, Combine::Sum, Combine::Sum, sums);
}

}  // namespace quasar::md::gpu
