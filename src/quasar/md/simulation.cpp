#include "quasar/md/simulation.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/integrators/fire.hpp"
#include "quasar/md/integrators/registry.hpp"
#include "quasar/md/progress.hpp"
#include "quasar/md/velocity.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::md {

namespace {
// The force field bound to the system before it says which lists it needs.
ForceField bound(ForceField ff, const Structure& s) {
  ff.bind(SystemSetup::of(s));
  return ff;
}

Structure with_velocities(Structure s, const MdSettings& settings) {
  if (settings.init_velocities && settings.restart.empty() && settings.mode == "md")
    assign_velocities(s, settings.integrator.temperature, settings.integrator.seed);
  return s;
}
}  // namespace

Simulation::Simulation(const Structure& s, ForceField force_field, const MdSettings& settings, Backend backend)
    : settings_(settings), backend_(backend), atoms_(backend, with_velocities(s, settings)),
      force_field_(bound(std::move(force_field), s)),
      lists_(backend, force_field_.neighbor_requests(backend), settings.skin, static_cast<int>(settings.sort_every)),
      out_(backend, settings.deterministic),
      integrator_(make_integrator(settings, backend, static_cast<int>(s.size()), force_field_)), kinetic_(backend, 6) {
  integrator_->attach(atoms_);  // its per-atom arrays join the properties a checkpoint holds
  if (!settings_.restart.empty()) {
    read_checkpoint(settings_.restart);  // starts the integrator
  } else {
    lists_.build(atoms_);
    compute_forces(true);
    start_integrator();
  }
}

void Simulation::start_integrator() {
  // A minimiser starts where run() minimises (its first evaluation may fail on a bad structure).
  if (settings_.mode != "minimize") integrator_->start(step_, atoms_, lists_, force_field_, out_);
}

Simulation::Simulation(const Structure& s, std::shared_ptr<Potential> potential, const MdSettings& settings,
                       Backend backend)
    : Simulation(s, ForceField(std::move(potential)), settings, backend) {}

void Simulation::compute_forces(bool energy) {
  force_field_.compute(atoms_, lists_.refs(), {energy, energy, false}, out_);
}

void Simulation::check_state(bool energy) {
  // Faults first: atoms gone non-finite also fill a GPU list past its room.
  integrator_->throw_if_faulted(atoms_, lists_.skin());
  lists_.check_overflow();
  if (energy) check_energy();
}

void Simulation::check_energy() {
  const double e = out_.energy();
  if (std::isfinite(e)) return;
  // Name the atom from the per-atom energies of the same state.
  Fault f{step_, -1, {kBadEnergy, e}};
  lists_.update(atoms_, 0);
  force_field_.compute(atoms_, lists_.refs(), {true, false, true}, out_);
  const auto energies = out_.atom_energy.to_vector();
  const auto ids = atoms_.id.to_vector();
  for (std::size_t i = 0; i < energies.size() && i < ids.size(); ++i)
    if (!std::isfinite(energies[i]) && (f.atom < 0 || ids[i] < f.atom)) {
      f.atom = ids[i];
      f.what.value = energies[i];
    }
  throw Error(describe(f, atoms_, lists_.skin()));
}

Thermo Simulation::thermo() {
  reduce_kinetic(atoms_, kinetic_.data(), settings_.deterministic ? &fixed_ : nullptr);
  const auto k = kinetic_.to_vector();
  const std::vector<double> totals = out_.summed_totals();
  const Mat3 w{{{totals[1], totals[2], totals[3]}, {totals[4], totals[5], totals[6]}, {totals[7], totals[8], totals[9]}}};
  Thermo t;
  t.step = step_;
  t.time = static_cast<double>(step_) * settings_.integrator.dt;
  t.kinetic = 0.5 * (k[0] + k[1] + k[2]);
  t.potential = totals[0];
  t.term_potential = out_.term_energies();
  t.total = t.kinetic + t.potential;
  t.temperature = 2.0 * t.kinetic / (integrator_->degrees_of_freedom() * units::boltzmann);
  t.volume = atoms_.box().volume();
  const Mat3 kin{{{k[0], k[3], k[4]}, {k[3], k[1], k[5]}, {k[4], k[5], k[2]}}};
  t.pressure_tensor = (units::nktv2p / t.volume) * (kin + w);
  t.pressure = trace(t.pressure_tensor) / 3.0;
  t.conserved = t.total - integrator_->reservoir_energy();
  return t;
}

void Simulation::print_thermo(const Thermo& t) {
  std::ostringstream line;
  line << std::setw(10) << t.step << std::fixed << std::setprecision(4) << std::setw(12) << t.time << std::setprecision(2)
       << std::setw(11) << t.temperature << std::setprecision(6) << std::setw(18) << t.potential << std::setw(18)
       << t.total << std::setprecision(2) << std::setw(14) << t.pressure << std::setw(14) << t.volume;
  // Several terms: each one's energy after the columns above.
  const bool terms = force_field_.size() > 1;
  if (terms)
    for (double e : t.term_potential) line << std::setprecision(6) << std::setw(18) << e;
  if (!header_printed_) {
    std::cout << std::setw(10) << "step" << std::setw(12) << "time_ps" << std::setw(11) << "temp_K" << std::setw(18)
              << "pe_eV" << std::setw(18) << "etot_eV" << std::setw(14) << "press_bar" << std::setw(14) << "vol_A3";
    if (terms)
      for (const auto& term : force_field_.terms()) std::cout << std::setw(18) << "pe_" + term.name;
    std::cout << "\n";
  }
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
    if (!append) {
      csv_ << "step,time_ps,temp_K,ke_eV,pe_eV,etot_eV,press_bar,vol_A3,conserved_eV";
      if (force_field_.size() > 1)
        for (const auto& term : force_field_.terms()) csv_ << ",pe_" << term.name << "_eV";
      csv_ << "\n";
    }
  }
  csv_ << std::setprecision(12) << t.step << "," << t.time << "," << t.temperature << "," << t.kinetic << ","
       << t.potential << "," << t.total << "," << t.pressure << "," << t.volume << "," << t.conserved;
  if (force_field_.size() > 1)
    for (double e : t.term_potential) csv_ << "," << e;
  csv_ << "\n";
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
  if (settings_.mode == "minimize") return minimize();
  run_to(settings_.steps);
}

// FIRE from the current state, step by step to convergence.
void Simulation::minimize() {
  auto& fire = dynamic_cast<Fire&>(*integrator_);
  fire.start(0, atoms_, lists_, force_field_, out_);
  for (long step = 1; !fire.converged() && step <= settings_.minimize.max_steps; ++step)
    fire.advance(step, atoms_, lists_, force_field_, out_, {true, true, false});
  const MinimizeResult& r = fire.result();
  std::cout << (r.converged ? "minimisation converged" : "minimisation stopped at max_steps") << " after " << r.steps
            << " steps: energy " << std::setprecision(12) << r.energy << " eV, max force " << r.max_force << " eV/Å\n";
  if (!settings_.output.trajectory.empty()) write_frame();
}

void Simulation::run_to(long last) {
  const OutputSettings& o = settings_.output;
  if (!started_) {
    if (const auto f = find_nonfinite_state(atoms_, step_)) throw Error(describe(*f, atoms_, lists_.skin()));
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
    integrator_->advance(step_, atoms_, lists_, force_field_, out_, {energy, energy, false});
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
  ForceField ff = make_force_field(root, base_dir);
  const std::string what = ff.size() == 1 ? ff.potential(0).name() + " potential" : ff.describe() + " force field";
  Simulation sim(s, std::move(ff), settings, backend);
  std::cout << "quasar: " << s.size() << " atoms, " << what << ", " << sim.integrator().describe() << " on "
            << backend_name(backend) << (settings.deterministic ? ", deterministic sums" : "") << "\n";
  sim.run();
}

}  // namespace quasar::md
