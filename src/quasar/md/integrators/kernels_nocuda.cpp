// The integrators' launchers in a build without CUDA: a GPU state cannot be made there, so these
// are never reached; they say why if they are.
#include "quasar/md/integrators/launch.hpp"

namespace quasar::md::gpu {

namespace {
[[noreturn]] void no_cuda() { throw_no_cuda("GPU integrator"); }
}  // namespace

void kick_drift(AtomsRef, double, const FaultCheck&) { no_cuda(); }
void half_kick(AtomsRef, double, const FaultCheck&) { no_cuda(); }
void baoab_first_half(AtomsRef, const StepParams&, double*, const FaultCheck&, device::FixedPointSums*, double*) {
  no_cuda();
}
void kinetic(AtomsRef, double*, device::FixedPointSums*) { no_cuda(); }
void bussi(AtomsRef, double*, double, double, double, uint64_t, uint64_t, device::FixedPointSums*) { no_cuda(); }
void scale(AtomsRef, Vec3, Vec3) { no_cuda(); }
void systems_kick_drift(AtomsRef, SystemsRef, double, const FaultCheck&) { no_cuda(); }
void systems_half_kick(AtomsRef, SystemsRef, double, const FaultCheck&) { no_cuda(); }
void systems_baoab_first_half(AtomsRef, SystemsRef, double, double, uint64_t, double*, const FaultCheck&) { no_cuda(); }
void systems_kinetic(AtomsRef, SystemsRef, double*, int) { no_cuda(); }
void systems_bussi(AtomsRef, SystemsRef, double*, double, uint64_t, unsigned long long) { no_cuda(); }
void respa_inner_move(AtomsRef, LevelForces, bool, double, double, const FaultCheck&) { no_cuda(); }
void respa_inner_baoab(AtomsRef, LevelForces, bool, double, const StepParams&, double*, const FaultCheck&,
                       device::FixedPointSums*, double*) {
  no_cuda();
}
void respa_kick(AtomsRef, LevelForces, double, const FaultCheck*) { no_cuda(); }
void respa_store(AtomsRef, LevelForces, bool, double, const FaultCheck&) { no_cuda(); }
void fire_place(AtomsRef, FireArrays, bool, double, Vec3, Mat3, const FaultCheck&) { no_cuda(); }
void fire_forces(AtomsRef, FireArrays, Vec3, Mat3, Mat3, double*, double*, const FaultCheck&) { no_cuda(); }
void fire_kick(int, FireArrays, bool, double, double, double*, double*) { no_cuda(); }
void fire_mix(int, FireArrays, bool, double, double, double, double*, double*) { no_cuda(); }

}  // namespace quasar::md::gpu
