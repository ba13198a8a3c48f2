#include "quasar/md/simulation.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/fire.hpp"
#include "quasar/md/progress.hpp"
#include "quasar/md/velocity.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::md {

namespace {
NeighborSettings list_settings(const Potential& p, const MdSettings& s, Backend b) {
  NeighborSettings n;
  n.cutoff = p.cutoff();
  n.skin = s.skin;
  n.kind = p.list_kind(b);
  n.sort_every = static_cast<int>(s.sort_every);
  return n;
}

Structure with_velocities(Structure s, const MdSettings& settings) {
  if (settings.init_velocities && settings.restart.empty() && settings.mode == "md")
    assign_velocities(s, settings.integrator.temperature, settings.integrator.seed);
  return s;
}
}  // namespace

Simulation::Simulation(const Structure& s, std::shared_ptr<Potential> potential, const MdSettings& settings,
                       Backend backend)
    : settings_(settings), backend_(backend), atoms_(backend, with_velocities(s, settings)),
      potential_(std::move(potential)), list_(backend, list_settings(*potential_, settings, backend)),
      out_(backend, settings.deterministic),
      integrator_(settings.integrator, backend, static_cast<int>(s.size())), kinetic_(backend, 6) {
  potential_->bind_types(atoms_.type_names());
  if (!settings_.restart.empty()) {
    read_checkpoint(settings_.restart);
  } else {
    list_.build(atoms_);
    compute_forces(true);
  }
}

void Simulation::compute_forces(bool energy) {
  potential_->compute(atoms_, list_.ref(), {energy, energy, false}, out_);
}

void Simulation::check_state(bool energy) {
  // Faults first: atoms gone non-finite also fill a GPU list past its room.
  integrator_.throw_if_faulted(atoms_, list_.settings().skin);
  list_.check_overflow();
  if (energy) check_energy();
}

void Simulation::check_energy() {
  const double e = out_.energy();
  if (std::isfinite(e)) return;
  // Name the atom from the per-atom energies of the same state.
  Fault f{step_, -1, {kBadEnergy, e}};
  list_.update(atoms_, 0);
  potential_->compute(atoms_, list_.ref(), {true, false, true}, out_);
  const auto energies = out_.atom_energy.to_vector();
  const auto ids = atoms_.id.to_vector();
  for (std::size_t i = 0; i < energies.size() && i < ids.size(); ++i)
    if (!std::isfinite(energies[i]) && (f.atom < 0 || ids[i] < f.atom)) {
      f.atom = ids[i];
      f.what.value = energies[i];
    }
  throw Error(describe(f, atoms_, list_.settings().skin));
}

Thermo Simulation::thermo() {
  reduce_kinetic(atoms_, kinetic_.data(), settings_.deterministic ? &fixed_ : nullptr);
  const auto k = kinetic_.to_vector();
  const Mat3 w = out_.virial();
  Thermo t;
  t.step = step_;
  t.time = static_cast<double>(step_) * settings_.integrator.dt;
  t.kinetic = 0.5 * (k[0] + k[1] + k[2]);
  t.potential = out_.energy();
  t.total = t.kinetic + t.potential;
  t.temperature = 2.0 * t.kinetic / (integrator_.degrees_of_freedom() * units::boltzmann);
  t.volume = atoms_.box().volume();
  const Mat3 kin{{{k[0], k[3], k[4]}, {k[3], k[1], k[5]}, {k[4], k[5], k[2]}}};
  t.pressure_tensor = (units::nktv2p / t.volume) * (kin + w);
  t.pressure = trace(t.pressure_tensor) / 3.0;
  t.conserved = t.total - integrator_.reservoir_energy();
  return t;
}

void Simulation::print_thermo(const Thermo& t) {
  std::ostringstream line;
  line << std::setw(10) << t.step << std::fixed << std::setprecision(4) << std::setw(12) << t.time << std::setprecision(2)
       << std::setw(11) << t.temperature << std::setprecision(6) << std::setw(18) << t.potential << std::setw(18)
       << t.total << std::setprecision(2) << std::setw(14) << t.pressure << std::setw(14) << t.volume;
  if (!header_printed_)
    std::cout << std::setw(10) << "step" << std::setw(12) << "time_ps" << std::setw(11) << "temp_K" << std::setw(18)
              << "pe_eV" << std::setw(18) << "etot_eV" << std::setw(14) << "press_bar" << std::setw(14) << "vol_A3"
              << "\n";
  header_printed_ = true;
  progress_clear_line();
  std::cout << line.str() << std::endl;
}

void Simulation::write_thermo(const Thermo& t) {
  if (settings_.output.thermo_screen) print_thermo(t);
  if (settings_.output.thermo_csv.empty()) return;
  if (!csv_.is_open()) {
    const bool append = !settings_.restart.empty() && std::filesystem::exists(settings_.output.thermo_csv);
    csv_.open(settings_.output.thermo_csv, append ? std::ios::app : std::ios::trunc);
    if (!csv_) throw Error("cannot write " + settings_.output.thermo_csv);
    if (!append) csv_ << "step,time_ps,temp_K,ke_eV,pe_eV,etot_eV,press_bar,vol_A3,conserved_eV\n";
  }
  csv_ << std::setprecision(12) << t.step << "," << t.time << "," << t.temperature << "," << t.kinetic << ","
       << t.potential << "," << t.total << "," << t.pressure << "," << t.volume << "," << t.conserved << "\n";
  csv_.flush();
}

void Simulation::write_frame() {
  const std::string& path = settings_.output.trajectory;
  std::string format = settings_.output.trajectory_format;
  if (format.empty()) format = path.size() > 5 && path.substr(path.size() - 5) == ".dump" ? "lammps-dump" : "extxyz";
  if (!traj_.is_open()) {
    const bool append = !settings_.restart.empty();
    traj_.open(path, append ? std::ios::app : std::ios::trunc);
    if (!traj_) throw Error("cannot write " + path);
  }
  Structure s = atoms_.to_structure();
  if (format == "lammps-dump") {
    io::append_lammps_dump(traj_, s, step_);
  } else {
    s.energy = out_.energy();
    std::ostringstream st;
    st << step_;
    io::append_extxyz(traj_, s, {{"step", st.str()}});
  }
  traj_.flush();
}

void Simulation::run() {
  if (settings_.mode == "minimize") {
    const MinimizeResult r = minimize_fire(atoms_, list_, *potential_, out_, settings_.minimize);
    std::cout << (r.converged ? "minimisation converged" : "minimisation stopped at max_steps") << " after "
              << r.steps << " steps: energy " << std::setprecision(12) << r.energy << " eV, max force " << r.max_force
              << " eV/Å\n";
    if (!settings_.output.trajectory.empty()) write_frame();
    return;
  }
  run_to(settings_.steps);
}

void Simulation::run_to(long last) {
  const OutputSettings& o = settings_.output;
  if (!started_) {
    if (const auto f = find_nonfinite_state(atoms_, step_)) throw Error(describe(*f, atoms_, list_.settings().skin));
    check_state(true);
    if (step_ == 0 || !settings_.restart.empty()) write_thermo(thermo());
    if (step_ == 0 && !o.trajectory.empty()) write_frame();
    started_ = true;
  }
  Progress progress(step_, last, atoms_.size(), settings_.integrator.dt, o.progress);
  while (step_ < last) {
    ++step_;
    const bool thermo_now = step_ % o.thermo_every == 0 || step_ == last;
    const bool frame_now = !o.trajectory.empty() && step_ % o.trajectory_every == 0;
    const bool energy = thermo_now || frame_now;
    integrator_.advance(step_, atoms_, list_, *potential_, out_, {energy, energy, false});
    const bool checkpoint_now = !o.checkpoint.empty() && (step_ % o.checkpoint_every == 0 || step_ == last);
    // A fault, or a GPU list that ran out of room, is caught before anything computed after it is written.
    if (thermo_now || frame_now || checkpoint_now) check_state(energy);
    if (thermo_now) write_thermo(thermo());
    if (frame_now) write_frame();
    if (checkpoint_now) write_checkpoint(o.checkpoint);
    progress.update(step_);
  }
  progress.finish(step_);
}

void run_from_config(const ConfigTable& root, const std::filesystem::path& base_dir, Backend backend,
                     bool deterministic) {
  // Cheap checks of every table first, so that a typo fails before any file is read.
  MdSettings settings = md_settings_from_config(root, base_dir);
  settings.deterministic = settings.deterministic || deterministic;
  const Structure s = io::structure_from_config(root.require_sub("structure"), base_dir);
  auto pot = make_potential(root.require_sub("potential"), base_dir);
  Simulation sim(s, std::move(pot), settings, backend);
  std::cout << "quasar: " << s.size() << " atoms, " << sim.potential().name() << " potential, "
            << (settings.mode == "minimize" ? "FIRE minimisation" : settings.integrator.kind + " dynamics") << " on "
            << backend_name(backend) << (settings.deterministic ? ", deterministic sums" : "") << "\n";
  sim.run();
}

}  // namespace quasar::md
