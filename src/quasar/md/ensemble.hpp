#pragma once
// An ensemble: many small independent systems (molecules, clusters, small cells) in one batched
// AtomState, advanced together: one set of launches per step on the GPU for all of them, no
// per-step host synchronisation. Each system has its own target temperature and random stream (so
// that system s follows the trajectory a run of it alone with that seed follows: bit for bit on the
// CPU), its own kinetic and potential energy per term, conserved quantity and faults, and can be
// finished (it stops moving while the others go on): by the caller, by a stop rule (its atoms flew
// apart), or by a fault when faults only stop their system.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "quasar/md/integrator.hpp"
#include "quasar/md/settings.hpp"

namespace quasar::md {

struct EnsembleSettings {
  // Per system (empty: every system takes [md] temperature_K, and system s the seed seed + s). A
  // system's seed draws its initial velocities and keys its thermostat's random numbers.
  std::vector<double> temperatures;  // K
  std::vector<uint64_t> seeds;
  // Stop rule: a moving system is finished once two of its atoms are farther apart than
  // stop_distance (Å; 0: no rule), tested every stop_every steps (systems without a periodic
  // direction only).
  double stop_distance = 0;
  long stop_every = 100;
  // false: a fault stops the run (as md::Simulation); true: it stops its system only, which is
  // finished with the fault recorded (faults()).
  bool finish_on_fault = false;
  // The systems whose frames output.trajectory receives (a "{system}" in its name: one file per
  // system), and the file for every system's last state (extended XYZ, "" for none), written by run().
  std::vector<int> trajectory_systems;
  std::string final_structures;
};

// One system's thermodynamic state.
struct SystemThermo {
  double temperature = 0;                    // K
  double degrees_of_freedom = 0;             // 3n - 3 of its n atoms (at least 1), as md::Simulation counts
  double kinetic = 0, potential = 0, total = 0;  // eV
  std::vector<double> term_potential;        // eV, per term of the force field
  double conserved = 0;                      // eV: total minus what the thermostat put in
  double pressure = 0;                       // bar (meaningful for periodic systems)
  double volume = 0;                         // Å^3 of the system's cell
  bool active = true;
};

struct EnsembleThermo {
  long step = 0;
  double time = 0;  // ps
  std::vector<SystemThermo> systems;
};

// A system that a fault finished (finish_on_fault).
struct SystemFault {
  int system = 0;
  long step = 0;
  std::string message;
};

class Ensemble {
 public:
  // At least two systems; the force field binds to their merged types. Velocities are drawn per
  // system (its temperature and seed) as md::Simulation draws them, unless restarting.
  Ensemble(std::vector<Structure> systems, ForceField force_field, const MdSettings& settings,
           const EnsembleSettings& ensemble, Backend backend);

  // MD up to step settings.steps (continuing from a restart), then the final structures.
  void run();
  // MD up to step `last`, writing the outputs; returns early once no system moves. May be called again.
  void run_to(long last);
  // Every system's thermodynamic state now (synchronises with the device).
  EnsembleThermo thermo();

  int num_systems() const { return atoms_.num_systems(); }
  long step() const { return step_; }
  // Which systems still move (host copy), how many, and finishing some (they keep their state).
  const std::vector<char>& active() const { return active_; }
  int num_active() const;
  void finish(const std::vector<int>& systems);
  const std::vector<SystemFault>& faults() const { return faults_; }
  // Every system's state in input order (positions wrapped into periodic cells, with forces).
  std::vector<Structure> structures() const { return atoms_.to_structures(); }
  void write_structures(const std::string& path);

  AtomState& atoms() { return atoms_; }
  ForceField& force_field() { return force_field_; }
  NeighborLists& neighbor_lists() { return lists_; }
  ForceOutput& forces() { return out_; }
  Integrator& integrator() { return *integrator_; }
  const MdSettings& settings() const { return settings_; }
  const EnsembleSettings& ensemble_settings() const { return ensemble_; }
  // One step without outputs or checks (tests, benchmarks).
  void advance(long step, const ComputeRequest& req) {
    integrator_->advance(step, atoms_, lists_, force_field_, out_, req);
    step_ = step;
  }

  // Checkpoints of the whole ensemble (atoms, per-system temperatures, streams, active flags,
  // thermostat state and faults): a restarted run continues bit for bit on the CPU (and on the GPU
  // with deterministic sums).
  void write_checkpoint(const std::string& path);
  void read_checkpoint(const std::string& path);

 private:
  // The systems as prepared (checked, with their velocities); the int only tells the forms apart.
  Ensemble(const std::vector<Structure>& systems, ForceField force_field, const MdSettings& settings,
           const EnsembleSettings& ensemble, Backend backend, int);
  void compute_forces(bool energy);
  // Faults (thrown, or finishing their systems), list overflow, with `energy` non-finite energies.
  void check_state(bool energy);
  void retire_faulted();
  void finish_system(int s, const std::string& why);
  void apply_stop_rule();
  void upload_active();
  void write_thermo(const EnsembleThermo& t);
  void write_frames();

  MdSettings settings_;
  EnsembleSettings ensemble_;
  Backend backend_;
  AtomState atoms_;
  ForceField force_field_;
  NeighborLists lists_;
  ForceOutput out_;
  std::unique_ptr<Integrator> integrator_;
  long step_ = 0;
  bool started_ = false, header_printed_ = false;
  std::vector<char> active_;
  std::vector<SystemFault> faults_;
  std::ofstream csv_;
  std::vector<std::unique_ptr<std::ofstream>> traj_;  // one per file
  Array<double> kinetic_;                              // 6 per system
};

}  // namespace quasar::md
