#pragma once
// The Integrator interface: one class per method (md/integrators/), picked by name from a table
// (md/integrators/registry.hpp). Per-atom work runs where the atoms live, through the QUASAR_HD
// updates of md/integrate_kernels.hpp that CPU loops and kernels share; sums over atoms run there
// too (kinetic energy, thermostat work, FIRE's power and norms), so that no step copies the atoms
// to the host. Each step tests the atoms it moves and kicks (md/safety.hpp): on the CPU a fault
// throws at once, on the GPU it is recorded until throw_if_faulted() reads it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quasar/md/integrate_kernels.hpp"
#include "quasar/md/safety.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar::md {

struct IntegratorSettings {
  std::string kind = "nve";        // nve, langevin, bussi, npt (registry.hpp)
  double dt = 0.001;               // ps (the inner step with r-RESPA)
  double temperature = 300;        // K
  double tau_t = 0.1;              // ps: Bussi time constant; Langevin damping time (gamma = 1/tau_t)
  uint64_t seed = 12345;
  double pressure = 1.0;           // bar
  double tau_p = 1.0;              // ps
  double compressibility = 7e-7;   // 1/bar (copper ~7e-7, water ~4.5e-5)
  bool anisotropic = false;        // per-axis cell rescaling instead of isotropic
  int barostat_every = 10;
  // Multiple time stepping (r-RESPA): respa_every[g] is the period of force group g in inner steps
  // (each a multiple of the one before); empty: every group every step.
  std::vector<int> respa_every;
  std::string respa_file;          // where the input gave respa_every ("" when not from a file)
  long respa_line = 0;
};

// Indices of the integrator's small state array (on the atoms' backend).
enum StateIndex { kThermostatWork = 0, kKinetic = 1, kAlpha = 7, kBarostatWork = 8, kStateSize = 9 };

class Integrator {
 public:
  virtual ~Integrator() = default;
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  // The name a checkpoint records (and a restart must match), and a phrase for the start line.
  virtual std::string name() const = 0;
  virtual std::string describe() const = 0;

  // Adds the per-atom arrays the integrator keeps (a multiple-time-step level's forces) to the
  // state's registry of per-atom properties, so that they follow the atoms through sorting and go
  // into checkpoints; called once, before a checkpoint is read.
  virtual void attach(AtomState&) {}
  // Before the first step, with the forces, energy and virial of the current state computed: an
  // integrator that keeps forces of its own evaluates them here unless a checkpoint restored them;
  // a minimiser evaluates its starting point.
  virtual void start(long /*step*/, AtomState&, NeighborLists&, ForceField&, ForceOutput&) {}
  // Advances from step-1 to `step`: moves atoms, updates the lists, computes the force field's
  // forces (`lists` are those of its neighbor_requests) with what `req` asks for (energy, virial and
  // per-atom values of the new positions, for every term), and applies thermostat and barostat.
  // Stops (throws on the CPU, records on the GPU) at a non-finite position, velocity or force, or
  // at an atom that moved more than half the lists' skin in the step. With out.deterministic the
  // integrator's own sums over atoms are deterministic on the GPU too.
  virtual void advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field, ForceOutput& out,
                       ComputeRequest req) = 0;
  // Whether a step needs the virial (barostat steps).
  virtual bool needs_virial(long /*step*/) const { return false; }
  double degrees_of_freedom() const { return dof_; }
  // Energy the thermostat and barostat put into the system so far (eV; reads the device).
  double reservoir_energy() const;

  // Checkpoints: the small state (state_size() numbers); set_state restores it, and with it the
  // per-atom arrays of attach() count as restored (the checkpoint's properties hold them).
  std::vector<double> state() const { return state_.to_vector(); }
  void set_state(const std::vector<double>& v);
  std::size_t state_size() const { return kStateSize; }

  // Throws the first fault of the run, if any (reads the device on the GPU: call it where the host
  // synchronises anyway).
  void throw_if_faulted(const AtomState& atoms, double skin) const { faults_.throw_if_any(atoms, skin); }

  // Batches of independent systems (md::Ensemble): whether the method integrates them, and the set-up
  // of an integrator for the batch `atoms` (its systems' state, kStateSize numbers each, and their
  // first faults), before the first step and before a checkpoint is read. The batch's per-system
  // temperatures, streams and active flags (AtomState) then steer each system; advance() moves a batch
  // only after this.
  virtual bool integrates_systems() const { return false; }
  void bind_systems(const AtomState& atoms);
  bool bound_to_systems() const { return faults_.tracks_systems(); }
  // kStateSize numbers per system (host copy), and their restoration from a checkpoint.
  std::vector<double> system_state() const { return system_state_.to_vector(); }
  void set_system_state(const std::vector<double>& v);
  // Energy each system's thermostat put in so far (eV; reads the device).
  std::vector<double> system_reservoir_energy() const;
  FaultRecord& faults() { return faults_; }
  const FaultRecord& faults() const { return faults_; }

 protected:
  Integrator(const IntegratorSettings& s, Backend backend, int num_atoms);
  // The largest move a step may make: half the lists' skin (none without a skin).
  static double max_move(const NeighborLists& lists);
  device::FixedPointSums* fixed_sums(const ForceOutput& out) { return out.deterministic ? &fixed_ : nullptr; }

  IntegratorSettings s_;
  Backend backend_;
  int num_atoms_;
  double dof_;
  Array<double> state_;
  Array<double> step_work_;   // GPU scratch: one step's thermostat work in fixed point
  device::FixedPointSums fixed_;
  FaultRecord faults_;
  Array<double> system_state_;  // batches: kStateSize per system
  bool restored_ = false;  // set_state was called: a checkpoint restored the state and arrays
};

// Kinetic-energy tensor sum m v_a v_b (eV: xx yy zz xy xz yz) into dest[0..5] on the atoms' backend;
// on the GPU in fixed point (the same bits every run) when `fixed` is given.
void reduce_kinetic(AtomState& atoms, double* dest, device::FixedPointSums* fixed = nullptr);

}  // namespace quasar::md
