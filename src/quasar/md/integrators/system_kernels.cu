// The integrators' kernels for batches of systems (systems.hpp): one thread per atom for kicks and
// drifts, one warp per system where a system's atoms are summed (its lanes take every 32nd atom and
// add in a fixed tree, so the sums are the same bits every run). Each calls the QUASAR_HD update its
// CPU loop calls; atoms of a system that does not move (SystemsRef::moves) are left as they are.
#include "quasar/device/cuda_check.cuh"
#include "quasar/md/integrator.hpp"
#include "quasar/md/integrators/launch.hpp"
#include "quasar/md/integrators/record_fault.cuh"

namespace quasar::md::gpu {
namespace {

constexpr int kBlock = 256;
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

__device__ double warp_sum(double v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;  // the sum in lane 0
}

// The kinetic-energy tensor of system s, summed in lane 0.
__device__ void warp_kinetic(const AtomsRef& a, const SystemsRef& sys, int s, int lane, double k[6]) {
  for (int c = 0; c < 6; ++c) k[c] = 0;
  for (int i = sys.first[s] + lane; i < sys.first[s + 1]; i += kWarp) {
    double t[6];
    kinetic_tensor(a, i, t);
    for (int c = 0; c < 6; ++c) k[c] += t[c];
  }
  for (int c = 0; c < 6; ++c) k[c] = warp_sum(k[c]);
}

__global__ void kick_drift_kernel(AtomsRef a, SystemsRef sys, double dt, FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const int s = a.system[i];
  if (!sys.moves(s, check.when)) return;
  const Vec3 before{a.x[i], a.y[i], a.z[i]};
  md::half_kick(a, i, dt);
  md::drift(a, i, dt);
  record_in(check, a, i, s, check_moved(a, i, before, check.max_move));
  keep_finite_position(a, i, before);
}

__global__ void half_kick_kernel(AtomsRef a, SystemsRef sys, double dt, FaultCheck check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const int s = a.system[i];
  if (!sys.moves(s, check.when)) return;
  md::half_kick(a, i, dt);
  record_in(check, a, i, s, check_kicked(a, i));
}

// One warp per system: every lane reads the same flags (a fault this launch records keeps its
// system moving until the launch ends), so the warp stays whole for its shuffles.
__global__ void baoab_kernel(AtomsRef a, SystemsRef sys, double dt, double c1, uint64_t step, double* state,
                             FaultCheck check) {
  const int s = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp, lane = threadIdx.x % kWarp;
  if (s >= sys.count || !sys.moves(s, check.when)) return;
  const double kt = units::boltzmann * sys.temperature[s];
  double work = 0;
  for (int i = sys.first[s] + lane; i < sys.first[s + 1]; i += kWarp) {
    const Vec3 before{a.x[i], a.y[i], a.z[i]};
    md::half_kick(a, i, dt);
    md::drift(a, i, 0.5 * dt);
    work += langevin_o(a, i, c1, kt, sys.stream[s], step, sys.index_in(a, i, s));
    md::drift(a, i, 0.5 * dt);
    record_in(check, a, i, s, check_moved(a, i, before, check.max_move));
    keep_finite_position(a, i, before);
  }
  work = warp_sum(work);
  if (lane == 0) state[static_cast<long>(s) * kStateSize + kThermostatWork] += work;
}

__global__ void kinetic_kernel(AtomsRef a, SystemsRef sys, double* dest, int stride) {
  const int s = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp, lane = threadIdx.x % kWarp;
  if (s >= sys.count) return;
  double k[6];
  warp_kinetic(a, sys, s, lane, k);
  if (lane == 0)
    for (int c = 0; c < 6; ++c) dest[static_cast<long>(s) * stride + c] = k[c];
}

// Kinetic energy, factor (lane 0) and rescaling in one launch per step.
__global__ void bussi_kernel(AtomsRef a, SystemsRef sys, double* state, double c, uint64_t step,
                             unsigned long long when) {
  const int s = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp, lane = threadIdx.x % kWarp;
  if (s >= sys.count) return;
  double k[6];
  warp_kinetic(a, sys, s, lane, k);
  double* st = state + static_cast<long>(s) * kStateSize;
  const bool moves = sys.moves(s, when);
  double alpha = 1.0;
  if (lane == 0) {
    for (int q = 0; q < 6; ++q) st[kKinetic + q] = k[q];
    if (moves) {
      const double ke = 0.5 * (k[0] + k[1] + k[2]);
      alpha = bussi_alpha(ke, system_dof(sys.atoms_of(s)), units::boltzmann * sys.temperature[s], c, sys.stream[s],
                          step);
      st[kAlpha] = alpha;
      st[kThermostatWork] += (alpha * alpha - 1.0) * ke;
    }
  }
  alpha = __shfl_sync(kFullMask, alpha, 0);
  if (!moves) return;
  for (int i = sys.first[s] + lane; i < sys.first[s + 1]; i += kWarp) {
    a.vx[i] *= alpha;
    a.vy[i] *= alpha;
    a.vz[i] *= alpha;
  }
}

int warp_grid(int systems) { return grid_for(static_cast<long>(systems) * kWarp, kBlock); }

}  // namespace

void systems_kick_drift(AtomsRef a, SystemsRef sys, double dt, const FaultCheck& check) {
  kick_drift_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, sys, dt, check);
  QUASAR_LAUNCH_CHECK("systems kick_drift_kernel");
}

void systems_half_kick(AtomsRef a, SystemsRef sys, double dt, const FaultCheck& check) {
  half_kick_kernel<<<grid_for(a.n, kBlock), kBlock>>>(a, sys, dt, check);
  QUASAR_LAUNCH_CHECK("systems half_kick_kernel");
}

void systems_baoab_first_half(AtomsRef a, SystemsRef sys, double dt, double c1, uint64_t step, double* state,
                              const FaultCheck& check) {
  baoab_kernel<<<warp_grid(sys.count), kBlock>>>(a, sys, dt, c1, step, state, check);
  QUASAR_LAUNCH_CHECK("systems baoab_kernel");
}

void systems_kinetic(AtomsRef a, SystemsRef sys, double* dest, int stride) {
  kinetic_kernel<<<warp_grid(sys.count), kBlock>>>(a, sys, dest, stride);
  QUASAR_LAUNCH_CHECK("systems kinetic_kernel");
}

void systems_bussi(AtomsRef a, SystemsRef sys, double* state, double c, uint64_t step, unsigned long long when) {
  bussi_kernel<<<warp_grid(sys.count), kBlock>>>(a, sys, state, c, step, when);
  QUASAR_LAUNCH_CHECK("systems bussi_kernel");
}

}  // namespace quasar::md::gpu
