#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/md/integrator.hpp"

namespace quasar::md::gpu {
namespace {

constexpr int kBlock = 256;

// Keeps the first fault of the run (see FaultSlots): a fault an earlier launch recorded wins; within
// a launch, the smallest input index.
__device__ void record(const FaultCheck& c, const AtomsRef& a, int i, const AtomFault& f) {
  if (f.kind == kNoFault || *c.slots.when < c.when) return;
  atomicMin(c.slots.when, c.when);
  const unsigned long long index = static_cast<unsigned long long>(a.id[i]);
  const unsigned bits = __float_as_uint(static_cast<float>(f.value)) >> 3;
  atomicMin(c.slots.detail, index << 32 | static_cast<unsigned long long>(f.kind << 29 | bits));
}

__global__ void kick_drift_kernel(AtomsRef a, double dt, FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const Vec3 before{a.x[i], a.y[i], a.z[i]};
  md::half_kick(a, i, dt);
  md::drift(a, i, dt);
  record(check, a, i, check_moved(a, i, before, check.max_move));
}

__global__ void half_kick_kernel(AtomsRef a, double dt, FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  md::half_kick(a, i, dt);
  record(check, a, i, check_kicked(a, i));
}

template <class Sum>
__global__ void baoab_kernel(AtomsRef a, StepParams p, double* work, FaultCheck check, Sum add) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double de[1] = {0};
  if (i < a.n) {
    const Vec3 before{a.x[i], a.y[i], a.z[i]};
    de[0] = md::baoab_first_half(a, i, p);
    record(check, a, i, check_moved(a, i, before, check.max_move));
  }
  device::block_sum_into<kBlock, 1>(de, work, add);
}

template <class Sum>
__global__ void kinetic_kernel(AtomsRef a, double* dest, Sum add) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double k[6] = {0, 0, 0, 0, 0, 0};
  if (i < a.n) kinetic_tensor(a, i, k);
  device::block_sum_into<kBlock, 6>(k, dest, add);
}

// One thread: Bussi's factor from the reduced kinetic energy; stored for the rescaling kernel.
__global__ void bussi_alpha_kernel(double* state, double dof, double kt, double c, uint64_t seed, uint64_t step) {
  const double ke = 0.5 * (state[kKinetic] + state[kKinetic + 1] + state[kKinetic + 2]);
  const double alpha = bussi_alpha(ke, dof, kt, c, seed, step);
  state[kAlpha] = alpha;
  state[kThermostatWork] += (alpha * alpha - 1.0) * ke;
}

__global__ void rescale_kernel(AtomsRef a, const double* state) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const double alpha = state[kAlpha];
  a.vx[i] *= alpha;
  a.vy[i] *= alpha;
  a.vz[i] *= alpha;
}

__global__ void scale_kernel(AtomsRef a, Vec3 mu, Vec3 inv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const Vec3 o = a.box.origin;
  a.x[i] = o.x + mu.x * (a.x[i] - o.x);
  a.y[i] = o.y + mu.y * (a.y[i] - o.y);
  a.z[i] = o.z + mu.z * (a.z[i] - o.z);
  a.vx[i] *= inv.x;
  a.vy[i] *= inv.y;
  a.vz[i] *= inv.z;
}

}  // namespace

void kick_drift(AtomsRef a, double dt, const FaultCheck& check) {
  kick_drift_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, dt, check);
  QUASAR_LAUNCH_CHECK("kick_drift_kernel");
}

void half_kick(AtomsRef a, double dt, const FaultCheck& check) {
  half_kick_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, dt, check);
  QUASAR_LAUNCH_CHECK("half_kick_kernel");
}

void baoab_first_half(AtomsRef a, const StepParams& p, double* work, const FaultCheck& check,
                      device::FixedPointSums* fixed, double* scratch) {
  if (!fixed) {
    baoab_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, p, work, check, device::FloatSum{});
    QUASAR_LAUNCH_CHECK("baoab_kernel");
    return;
  }
  // The step's work as a fixed-point sum in scratch, then added to the running total.
  QUASAR_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof(double)));
  baoab_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, p, scratch, check, device::FixedSum{fixed->start()});
  QUASAR_LAUNCH_CHECK("baoab_kernel");
  fixed->finish(scratch, 1, device::fixed_scale::kTotal, work);
}

void kinetic(AtomsRef a, double* dest, device::FixedPointSums* fixed) {
  QUASAR_CUDA_CHECK(cudaMemsetAsync(dest, 0, 6 * sizeof(double)));
  if (fixed) kinetic_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, dest, device::FixedSum{fixed->start()});
  else kinetic_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, dest, device::FloatSum{});
  QUASAR_LAUNCH_CHECK("kinetic_kernel");
  if (fixed) fixed->finish(dest, 6, device::fixed_scale::kTotal);
}

void bussi(AtomsRef a, double* state, double dof, double kt, double c, uint64_t seed, uint64_t step,
           device::FixedPointSums* fixed) {
  kinetic(a, state + kKinetic, fixed);
  bussi_alpha_kernel<<<1, 1>>>(state, dof, kt, c, seed, step);
  QUASAR_LAUNCH_CHECK("bussi_alpha_kernel");
  rescale_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, state);
  QUASAR_LAUNCH_CHECK("rescale_kernel");
}

void scale(AtomsRef a, Vec3 mu, Vec3 inv) {
  scale_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, mu, inv);
  QUASAR_LAUNCH_CHECK("scale_kernel");
}

}  // namespace quasar::md::gpu
