// The ensemble's outputs: thermo (a summary line on the screen, one CSV line per system), the
// trajectories of selected systems and every system's final state.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/ensemble.hpp"
#include "quasar/md/progress.hpp"

namespace quasar::md {

namespace {
constexpr const char* kSystemPlaceholder = "{system}";

std::string text_of(long v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string trajectory_format(const OutputSettings& o) {
  if (!o.trajectory_format.empty()) return o.trajectory_format;
  const std::string& path = o.trajectory;
  return path.size() > 5 && path.substr(path.size() - 5) == ".dump" ? "lammps-dump" : "extxyz";
}
}  // namespace

void Ensemble::write_thermo(const EnsembleThermo& t) {
  const OutputSettings& o = settings_.output;
  const std::size_t terms = static_cast<std::size_t>(force_field_.size());
  if (o.thermo_screen) {
    // One line for all systems: how many still move, and the means over every system.
    double temperature = 0, potential = 0, total = 0;
    int moving = 0;
    for (const SystemThermo& s : t.systems) {
      temperature += s.temperature;
      potential += s.potential;
      total += s.total;
      moving += s.active ? 1 : 0;
    }
    const double n = static_cast<double>(t.systems.size());
    if (!header_printed_)
      std::cout << std::setw(10) << "step" << std::setw(12) << "time_ps" << std::setw(9) << "active" << std::setw(13)
                << "mean_temp_K" << std::setw(18) << "mean_pe_eV" << std::setw(18) << "mean_etot_eV" << "\n";
    header_printed_ = true;
    progress_clear_line();
    std::cout << std::setw(10) << t.step << std::fixed << std::setprecision(4) << std::setw(12) << t.time << std::setw(9)
              << moving << std::setprecision(2) << std::setw(13) << temperature / n << std::setprecision(6) << std::setw(18)
              << potential / n << std::setw(18) << total / n << std::defaultfloat << std::endl;
  }
  if (o.thermo_csv.empty()) return;
  if (!csv_.is_open()) {
    const bool append = !settings_.restart.empty() && std::filesystem::exists(o.thermo_csv);
    csv_.open(o.thermo_csv, append ? std::ios::app : std::ios::trunc);
    if (!csv_) throw Error("cannot write " + o.thermo_csv);
    if (!append) {
      csv_ << "step,time_ps,system,active,temp_K,ke_eV,pe_eV,etot_eV,conserved_eV,press_bar,vol_A3";
      if (terms > 1)
        for (const auto& term : force_field_.terms()) csv_ << ",pe_" << term.name << "_eV";
      csv_ << "\n";
    }
  }
  std::ostringstream lines;
  lines << std::setprecision(12);
  for (std::size_t s = 0; s < t.systems.size(); ++s) {
    const SystemThermo& st = t.systems[s];
    lines << t.step << "," << t.time << "," << s << "," << (st.active ? 1 : 0) << "," << st.temperature << ","
          << st.kinetic << "," << st.potential << "," << st.total << "," << st.conserved << "," << st.pressure << ","
          << st.volume;
    if (terms > 1)
      for (double e : st.term_potential) lines << "," << e;
    lines << "\n";
  }
  csv_ << lines.str();
  csv_.flush();
}

void Ensemble::write_frames() {
  const OutputSettings& o = settings_.output;
  const std::string format = trajectory_format(o);
  std::vector<int> chosen = ensemble_.trajectory_systems;
  if (chosen.empty())
    for (int s = 0; s < num_systems(); ++s) chosen.push_back(s);
  const std::size_t placeholder = o.trajectory.find(kSystemPlaceholder);
  const bool per_system = placeholder != std::string::npos;
  if (!per_system && format == "lammps-dump" && chosen.size() > 1)
    throw Error("output.trajectory: a LAMMPS dump holds one system; put \"{system}\" in its name for one file per "
                "system, or choose one system ([ensemble] trajectory_systems)");
  if (traj_.empty()) {
    const bool append = !settings_.restart.empty();
    for (std::size_t k = 0; k < (per_system ? chosen.size() : 1); ++k) {
      std::string path = o.trajectory;
      if (per_system) path.replace(placeholder, std::string(kSystemPlaceholder).size(), std::to_string(chosen[k]));
      traj_.push_back(std::make_unique<std::ofstream>(path, append ? std::ios::app : std::ios::trunc));
      if (!*traj_.back()) throw Error("cannot write " + path);
    }
  }
  const std::vector<Structure> all = atoms_.to_structures();
  const std::vector<double> totals = out_.system_term_totals();
  const int n = num_systems(), terms = out_.terms();
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const int s = chosen[k];
    std::ostream& out = *traj_[per_system ? k : 0];
    Structure frame = all[static_cast<std::size_t>(s)];
    if (format == "lammps-dump") {
      io::append_lammps_dump(out, frame, step_);
    } else {
      double e = 0;
      for (int term = 0; term < terms; ++term) e += totals[(static_cast<std::size_t>(term) * n + s) * ForceOutput::kTotals];
      frame.energy = e;
      io::append_extxyz(out, frame, {{"step", text_of(step_)}, {"system", text_of(s)}});
    }
    out.flush();
  }
}

// Extended XYZ, one frame per system with its index, the step, whether it still moves and its
// potential energy (of the last evaluation with energies).
void Ensemble::write_structures(const std::string& path) {
  const std::vector<Structure> all = atoms_.to_structures();
  const std::vector<double> totals = out_.system_term_totals();
  const int n = num_systems(), terms = out_.terms();
  io::write_file_atomically(path, [&](std::ostream& out) {
    for (int s = 0; s < n; ++s) {
      Structure frame = all[static_cast<std::size_t>(s)];
      double e = 0;
      for (int term = 0; term < terms; ++term) e += totals[(static_cast<std::size_t>(term) * n + s) * ForceOutput::kTotals];
      frame.energy = e;
      io::append_extxyz(out, frame,
                        {{"step", text_of(step_)},
                         {"system", text_of(s)},
                         {"active", active_[static_cast<std::size_t>(s)] ? "T" : "F"}});
    }
  });
}

}  // namespace quasar::md
