// The integrators' kernels: one thread per atom, each calling the QUASAR_HD update its CPU loop calls.
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/md/integrator.hpp"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/record_fault.cuh"

namespace quasar::md::gpu {
namespace {

constexpr int kBlock = 256;

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

// r-RESPA: a level's forces are a per-atom property, in the atoms' order.
__device__ void kick_by_level(AtomsRef& a, int i, const LevelForces& f, double dt) {
  md::kick(a, i, f.x[i], f.y[i], f.z[i], dt);
}

__global__ void respa_move_kernel(AtomsRef a, LevelForces f, bool kick_first, double dt_kick, double dt,
                                  FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const Vec3 before{a.x[i], a.y[i], a.z[i]};
  if (kick_first) kick_by_level(a, i, f, dt_kick);
  md::drift(a, i, dt);
  record(check, a, i, check_moved(a, i, before, check.max_move));
}

template <class Sum>
__global__ void respa_baoab_kernel(AtomsRef a, LevelForces f, bool kick_first, double dt_kick, StepParams p,
                                   double* work, FaultCheck check, Sum add) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double de[1] = {0};
  if (i < a.n) {
    const Vec3 before{a.x[i], a.y[i], a.z[i]};
    if (kick_first) kick_by_level(a, i, f, dt_kick);
    de[0] = md::baoab_aoa(a, i, p);
    record(check, a, i, check_moved(a, i, before, check.max_move));
  }
  device::block_sum_into<kBlock, 1>(de, work, add);
}

__global__ void respa_kick_kernel(AtomsRef a, LevelForces f, double dt, FaultCheck check, bool checked) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  kick_by_level(a, i, f, dt);
  if (checked) record(check, a, i, check_kicked_by(a, i, f.x[i], f.y[i], f.z[i]));
}

__global__ void respa_store_kernel(AtomsRef a, LevelForces f, bool kick, double dt, FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  f.x[i] = a.fx[i];
  f.y[i] = a.fy[i];
  f.z[i] = a.fz[i];
  if (!kick) return;
  md::half_kick(a, i, dt);
  record(check, a, i, check_kicked(a, i));
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

void respa_inner_move(AtomsRef a, LevelForces level, bool kick_first, double dt_kick, double dt,
                      const FaultCheck& check) {
  respa_move_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, level, kick_first, dt_kick, dt, check);
  QUASAR_LAUNCH_CHECK("respa_move_kernel");
}

void respa_inner_baoab(AtomsRef a, LevelForces level, bool kick_first, double dt_kick, const StepParams& p,
                       double* work, const FaultCheck& check, device::FixedPointSums* fixed, double* scratch) {
  if (!fixed) {
    respa_baoab_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, level, kick_first, dt_kick, p, work, check,
                                                           device::FloatSum{});
    QUASAR_LAUNCH_CHECK("respa_baoab_kernel");
    return;
  }
  QUASAR_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof(double)));
  respa_baoab_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, level, kick_first, dt_kick, p, scratch, check,
                                                         device::FixedSum{fixed->start()});
  QUASAR_LAUNCH_CHECK("respa_baoab_kernel");
  fixed->finish(scratch, 1, device::fixed_scale::kTotal, work);
}

void respa_kick(AtomsRef a, LevelForces level, double dt, const FaultCheck* check) {
  respa_kick_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, level, dt, check ? *check : FaultCheck{}, check != nullptr);
  QUASAR_LAUNCH_CHECK("respa_kick_kernel");
}

void respa_store(AtomsRef a, LevelForces level, bool kick, double dt, const FaultCheck& check) {
  respa_store_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, level, kick, dt, check);
  QUASAR_LAUNCH_CHECK("respa_store_kernel");
}

}  // namespace quasar::md::gpu
