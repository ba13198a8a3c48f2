#pragma once
// Quasi-classical trajectories of an atom + molecule collision on any force field of the engine:
// the molecule's normal modes at its minimum, initial conditions with zero-point energy, all
// trajectories integrated together as md::Ensemble batches (velocity Verlet, NVE), each stopped
// once its fragments fly apart (or at a step limit), the products named by interatomic distances,
// and the reaction probability, cross sections and P(b) with their statistical errors.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/potential/force_field.hpp"
#include "quasar/qct/initial_conditions.hpp"
#include "quasar/qct/normal_modes.hpp"
#include "quasar/qct/products.hpp"

namespace quasar::qct {

struct QctSettings {
  std::vector<std::string> molecule;   // type (element) names of the molecule's atoms
  std::vector<Vec3> positions;         // Å: the molecule's geometry where the minimum search starts
  std::string projectile;              // type name of the colliding atom
  std::map<std::string, double> masses;  // amu by type name; the element's mass for names not given
  CollisionSettings collision;         // collision energy (eV), b_max, initial separation, seed
  long trajectories = 100;
  double timestep = 1e-4;              // ps
  long max_steps = 100000;             // per trajectory
  long check_every = 10;               // steps between the stop tests (and energy checks)
  double stop_distance = 0;            // Å between fragments' centres of mass; 0: the initial separation
  double bond_distance = 2.0;          // Å: atoms closer than this belong to one fragment
  int b_bins = 10;                     // bins of P(b)
  int batch = 1024;                    // trajectories per ensemble
  double isolation = 100;              // Å: where the atom sits while the molecule's modes are found
  NormalModeSettings modes;
};

// The [qct] table of an input (every key checked; errors name the file, line and key).
QctSettings qct_settings_from_config(const ConfigTable& qct);

struct TrajectoryRecord {
  double b = 0;                  // Å
  std::string outcome;           // classify()'s name, kUnfinished or kFault
  long steps = 0;                // when it stopped
  double initial_energy = 0;     // eV: total energy at the start
  double energy_drift = 0;       // eV: largest |E - E(0)| seen at the checks and the end
  double harmonic_energy = 0;    // eV: the molecule's vibrational energy in the harmonic picture (the ZPE)
  double vibrational_energy = 0; // eV: the molecule's kinetic energy plus its potential energy above the minimum
};

struct QctResult {
  NormalModes modes;
  std::vector<TrajectoryRecord> trajectories;
  std::map<std::string, long> counts;  // trajectories per outcome
  Estimate reactive;                   // every reactive outcome together
  std::map<std::string, Estimate> channels;  // per reactive outcome
  std::vector<OpacityBin> opacity;
  double largest_drift = 0;            // eV, over the trajectories
  double seconds = 0;                  // wall time of the dynamics
  long steps = 0;                      // trajectory-steps integrated
};

// What a caller may add to a study (a growth loop, say): the molecule's modes found elsewhere (on
// a reference surface), and a look at the systems still running after every check.
struct QctHooks {
  const NormalModes* modes = nullptr;  // not null: these, instead of the force field's minimum and modes
  // After every check (every check_every steps): the batch's systems and which are still running.
  std::function<void(const std::vector<Structure>& systems, const std::vector<char>& running)> visit;
};

// Runs the whole study; progress lines go to `progress` (nullptr: none). The force field is used
// for the normal modes (unless hooks.modes gives them) and then bound to the ensembles.
QctResult run_qct(const QctSettings& settings, ForceField force_field, Backend backend, std::ostream* progress,
                  const QctHooks& hooks = {});

// The system of one trajectory: the molecule's atoms, then the atom (type names and masses of the
// settings), at the given positions and velocities, in a non-periodic box.
Structure collision_system(const QctSettings& settings, const std::vector<Vec3>& positions,
                           const std::vector<Vec3>& velocities);

}  // namespace quasar::qct
