#pragma once
// Kernel launchers of the integrators (kernels.cu, fire.cu): plain functions, so that the CPU
// sources that dispatch to them include no CUDA header. `fixed` (or null): sums over atoms in
// 64-bit fixed point, the same bits every run.
#include <cstdint>

#include "quasar/device/fixed_point.hpp"
#include "quasar/md/integrate_kernels.hpp"
#include "quasar/md/safety.hpp"

namespace quasar::md::gpu {

void kick_drift(AtomsRef a, double dt, const FaultCheck& check);
void half_kick(AtomsRef a, double dt, const FaultCheck& check);
// Adds the step's thermostat work to *work (scratch: one double of device memory for fixed point).
void baoab_first_half(AtomsRef a, const StepParams& p, double* work, const FaultCheck& check,
                      device::FixedPointSums* fixed, double* scratch);
void kinetic(AtomsRef a, double* dest, device::FixedPointSums* fixed);
void bussi(AtomsRef a, double* state, double dof, double kt, double c, uint64_t seed, uint64_t step,
           device::FixedPointSums* fixed);
void scale(AtomsRef a, Vec3 position_scale, Vec3 velocity_scale);

// Batches of systems (systems.hpp): per-atom kernels for the kicks and drifts, one warp per system
// where a system's atoms are summed (thermostat work, kinetic energy, Bussi's factor).
void systems_kick_drift(AtomsRef a, SystemsRef sys, double dt, const FaultCheck& check);
void systems_half_kick(AtomsRef a, SystemsRef sys, double dt, const FaultCheck& check);
void systems_baoab_first_half(AtomsRef a, SystemsRef sys, double dt, double c1, uint64_t step, double* state,
                              const FaultCheck& check);
void systems_kinetic(AtomsRef a, SystemsRef sys, double* dest, int stride);
void systems_bussi(AtomsRef a, SystemsRef sys, double* state, double c, uint64_t step, unsigned long long when);

// r-RESPA. A level's forces are a per-atom property of the atoms (atom i's at [i]).
struct LevelForces {
  double *x, *y, *z;
};
// The innermost move: the kick by `level` over dt_kick (when kick_first) and a drift over dt
// (NVE), or BAOAB's A O A with its thermostat work added to *work (langevin: p given).
void respa_inner_move(AtomsRef a, LevelForces level, bool kick_first, double dt_kick, double dt,
                      const FaultCheck& check);
void respa_inner_baoab(AtomsRef a, LevelForces level, bool kick_first, double dt_kick, const StepParams& p,
                       double* work, const FaultCheck& check, device::FixedPointSums* fixed, double* scratch);
// v += dt/2 level force / m; `check`: tests the force and velocity after the kick (closing kicks).
void respa_kick(AtomsRef a, LevelForces level, double dt, const FaultCheck* check);
// Keeps the atoms' forces as the level's; with kick, then kicks by them over dt.
void respa_store(AtomsRef a, LevelForces level, bool kick, double dt, const FaultCheck& check);

}  // namespace quasar::md::gpu

namespace quasar::md::gpu {

// FIRE's per-atom arrays (fire.hpp): reference coordinates, velocities, generalised forces.
struct FireArrays {
  double *x, *y, *z, *vx, *vy, *vz, *gx, *gy, *gz;
};
// With move, x += move v first; then the atoms' positions from x through the deformation d,
// tested (check).
void fire_place(AtomsRef a, FireArrays f, bool move, double move_by, Vec3 origin, Mat3 d, const FaultCheck& check);
// x from the atoms' (wrapped) positions through dinv, g = F d^T, tested forces (check); sums[0..2]
// = max |F component|, sum v.g, sum g.g. `partial`: 3 doubles per block of 256 atoms.
void fire_forces(AtomsRef a, FireArrays f, Vec3 origin, Mat3 dinv, Mat3 dt, double* sums, double* partial,
                 const FaultCheck& check);
// With reset, x -= half_dt v and v = 0 first; then v += dt g; sums[0] = sum v.v.
void fire_kick(int n, FireArrays f, bool reset, double half_dt, double dt, double* sums, double* partial);
// With mix, v = c1 v + c2 g; sums[0] = max |dt v component|.
void fire_mix(int n, FireArrays f, bool mix, double c1, double c2, double dt, double* sums, double* partial);

}  // namespace quasar::md::gpu
