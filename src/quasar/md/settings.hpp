#pragma once
// The [md], [output] and [neighbor] tables of an input file.
#include <filesystem>
#include <string>

#include "quasar/core/config.hpp"
#include "quasar/md/integrator.hpp"
#include "quasar/neighbor/neighbor_list.hpp"

namespace quasar::md {

struct MinimizeSettings {
  double fmax = 1e-3;          // eV/Å: converged when every force component is below
  double pressure_tol = 1.0;   // bar: converged when every stress component is within this of the target
  long max_steps = 10000;
  double max_move = 0.1;       // Å per step
  double dt = 0.1;             // initial FIRE timestep (unit masses; dx ~ dt^2 F)
  bool relax_cell = false;
  double pressure = 0.0;       // bar, target when relaxing the cell
};

struct OutputSettings {
  long thermo_every = 100;
  std::string thermo_csv;          // "" for none
  std::string trajectory;          // "" for none
  std::string trajectory_format;   // extxyz | lammps-dump ("" from the extension)
  long trajectory_every = 100;
  std::string checkpoint;          // "" for none
  long checkpoint_every = 1000;
  bool progress = true;
  bool thermo_screen = true;       // thermo lines on standard output (the CSV file is separate)
};

struct MdSettings {
  std::string mode = "md";         // md | minimize
  IntegratorSettings integrator;
  MinimizeSettings minimize;
  long steps = 1000;
  bool init_velocities = true;     // draw Maxwell-Boltzmann velocities at `temperature` (unless restarting)
  std::string restart;             // checkpoint to continue from
  OutputSettings output;
  double skin = 1.0;
  long sort_every = 1000;
  // Bit-identical GPU runs: forces, energies, virials and the integrator's sums in 64-bit fixed
  // point (ForceOutput::deterministic). The CPU is deterministic either way.
  bool deterministic = false;
};

// Reads [md], [output] and [neighbor] (each optional) and the top-level key `deterministic`; file
// names become relative to base_dir.
MdSettings md_settings_from_config(const ConfigTable& root, const std::filesystem::path& base_dir);

}  // namespace quasar::md
