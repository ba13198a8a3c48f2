#pragma once
// Time integration: velocity Verlet (NVE), Langevin (BAOAB), Bussi stochastic velocity rescaling,
// and NPT with the stochastic cell-rescaling barostat. Per-atom work runs where the atoms live;
// thermostat decisions (Bussi's factor) are taken on the device; the barostat reads the pressure
// on the host every `barostat_every` steps (its only synchronisation). Each step tests the atoms it
// moves and kicks (md/safety.hpp): on the CPU a fault throws at once, on the GPU it is recorded
// until throw_if_faulted() reads it.
#include <cstdint>
#include <string>
#include <vector>

#include "quasar/md/integrate_kernels.hpp"
#include "quasar/md/safety.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar::md {

struct IntegratorSettings {
  std::string kind = "nve";        // nve, langevin, bussi, npt
  double dt = 0.001;               // ps
  double temperature = 300;        // K
  double tau_t = 0.1;              // ps: Bussi time constant; Langevin damping time (gamma = 1/tau_t)
  uint64_t seed = 12345;
  double pressure = 1.0;           // bar
  double tau_p = 1.0;              // ps
  double compressibility = 7e-7;   // 1/bar (copper ~7e-7, water ~4.5e-5)
  bool anisotropic = false;        // per-axis cell rescaling instead of isotropic
  int barostat_every = 10;
  bool thermostatted() const { return kind != "nve"; }
};

// Indices of the integrator's small state array (on the atoms' backend).
enum StateIndex { kThermostatWork = 0, kKinetic = 1, kAlpha = 7, kBarostatWork = 8, kStateSize = 9 };

class Integrator {
 public:
  Integrator(const IntegratorSettings& s, Backend backend, int num_atoms);
  const IntegratorSettings& settings() const { return s_; }

  // Advances from step-1 to `step`: moves atoms, updates the lists, computes the force field's
  // forces (with `req`; `lists` are those of its neighbor_requests), and applies thermostat and
  // barostat. Stops (throws on the CPU, records on the GPU) at a non-finite position, velocity or
  // force, or at an atom that moved more than half the lists' skin in the step. With
  // out.deterministic the integrator's own sums over atoms (thermostat work, kinetic energy) are
  // deterministic on the GPU too.
  void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
               ComputeRequest req);
  // Whether a step needs the virial (barostat steps).
  bool needs_virial(long step) const;
  double degrees_of_freedom() const { return dof_; }
  // Energy the thermostat and barostat put into the system so far (eV; reads the device).
  double reservoir_energy() const;
  // Checkpoint support: the state array on the host.
  std::vector<double> state() const { return state_.to_vector(); }
  void set_state(const std::vector<double>& v) { state_.assign(v); }
  // Throws the first fault of the run, if any (reads the device on the GPU: call it where the host
  // synchronises anyway).
  void throw_if_faulted(const AtomState& atoms, double skin) const { faults_.throw_if_any(atoms, skin); }

 private:
  void barostat(long step, AtomState& atoms, const ForceOutput& out, double skin);

  IntegratorSettings s_;
  double dof_;
  Array<double> state_;
  Array<double> kinetic_;     // barostat scratch: kinetic-energy tensor
  Array<double> step_work_;   // GPU scratch: one step's thermostat work in fixed point
  device::FixedPointSums fixed_;
  FaultRecord faults_;
};

// Kinetic-energy tensor sum m v_a v_b (eV: xx yy zz xy xz yz) into dest[0..5] on the atoms' backend;
// on the GPU in fixed point (the same bits every run) when `fixed` is given.
void reduce_kinetic(AtomState& atoms, double* dest, device::FixedPointSums* fixed = nullptr);

// Kernel launchers (integrator.cu). `fixed` (or null): sums over atoms in 64-bit fixed point.
namespace gpu {
void kick_drift(AtomsRef a, double dt, const FaultCheck& check);
void half_kick(AtomsRef a, double dt, const FaultCheck& check);
// Adds the step's thermostat work to *work (scratch: one double of device memory for fixed point).
void baoab_first_half(AtomsRef a, const StepParams& p, double* work, const FaultCheck& check,
                      device::FixedPointSums* fixed, double* scratch);
void kinetic(AtomsRef a, double* dest, device::FixedPointSums* fixed);
void bussi(AtomsRef a, double* state, double dof, double kt, double c, uint64_t seed, uint64_t step,
           device::FixedPointSums* fixed);
void scale(AtomsRef a, Vec3 position_scale, Vec3 velocity_scale);
}  // namespace gpu

}  // namespace quasar::md
