#pragma once
// The MD loop: atoms, neighbour lists, force field, integrator and outputs on one backend.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "quasar/core/config.hpp"
#include "quasar/md/integrator.hpp"
#include "quasar/md/settings.hpp"

namespace quasar::md {

struct Thermo {
  long step = 0;
  double time = 0;         // ps
  double temperature = 0;  // K
  double kinetic = 0, potential = 0, total = 0;  // eV
  std::vector<double> term_potential;  // eV, per term of the force field (its order); they sum to potential
  double pressure = 0;     // bar
  Mat3 pressure_tensor{};  // bar
  double volume = 0;       // Å^3
  double conserved = 0;    // eV: total minus what thermostat and barostat put in
};

class Simulation {
 public:
  // The force field's potentials may be shared with other users (the Python bindings); they are not
  // used concurrently. The second form runs a force field of one potential.
  Simulation(const Structure& s, ForceField force_field, const MdSettings& settings, Backend backend);
  Simulation(const Structure& s, std::shared_ptr<Potential> potential, const MdSettings& settings, Backend backend);

  // Runs MD up to step `settings.steps` (continuing from a restart), or minimises, writing the outputs.
  void run();
  // MD up to step `last` (from the current step), writing the outputs; may be called again to go on.
  void run_to(long last);
  // Thermodynamic state now (synchronises with the device).
  Thermo thermo();
  long step() const { return step_; }
  AtomState& atoms() { return atoms_; }
  ForceField& force_field() { return force_field_; }
  NeighborLists& neighbor_lists() { return lists_; }
  ForceOutput& forces() { return out_; }
  Integrator& integrator() { return *integrator_; }
  // One integrator step to `step` without outputs or checks (tests, benchmarks).
  void advance(long step, const ComputeRequest& req) {
    integrator_->advance(step, atoms_, lists_, force_field_, out_, req);
  }
  const MdSettings& settings() const { return settings_; }

  // Atomic checkpoint of everything a continuation needs; the list is rebuilt first so that a
  // restarted run and this one continue from identical state (bit for bit on the CPU). A faulty
  // state (see md/safety.hpp) throws instead and leaves the file as it was.
  void write_checkpoint(const std::string& path);
  void read_checkpoint(const std::string& path);

 private:
  void compute_forces(bool energy);
  void start_integrator();
  void minimize();
  // Throws at the first fault of the run (md/safety.hpp) and at a GPU list overflow; with
  // `energy`, also at a non-finite energy of this step. Called where the host synchronises anyway.
  void check_state(bool energy);
  void check_energy();
  void print_thermo(const Thermo& t);
  void write_thermo(const Thermo& t);
  void write_frame();

  MdSettings settings_;
  Backend backend_;
  AtomState atoms_;
  ForceField force_field_;
  NeighborLists lists_;  // one per distinct request of the force field's terms
  ForceOutput out_;
  std::unique_ptr<Integrator> integrator_;  // from the settings' name (md/integrators/registry.hpp)
  long step_ = 0;
  bool header_printed_ = false, started_ = false;
  std::ofstream csv_, traj_;
  Array<double> kinetic_;  // scratch for the kinetic-energy tensor
  device::FixedPointSums fixed_;  // its status in deterministic GPU runs
};

// `quasar run`: builds the structure, potential and settings of an input file and runs it
// (deterministic: as if the file said deterministic = true).
void run_from_config(const ConfigTable& root, const std::filesystem::path& base_dir, Backend backend,
                     bool deterministic = false);

}  // namespace quasar::md
