#include "quasar/md/ensemble.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/registry.hpp"
#include "quasar/md/integrators/systems.hpp"
#include "quasar/md/progress.hpp"
#include "quasar/md/velocity.hpp"

namespace quasar::md {

namespace {
double temperature_of(const EnsembleSettings& e, const MdSettings& s, std::size_t k) {
  return e.temperatures.empty() ? s.integrator.temperature : e.temperatures[k];
}
uint64_t seed_of(const EnsembleSettings& e, const MdSettings& s, std::size_t k) {
  return e.seeds.empty() ? s.integrator.seed + k : e.seeds[k];
}

// The systems as the run starts: checked against the settings, with velocities drawn per system
// (its temperature and seed) as md::Simulation draws them for one.
std::vector<Structure> prepared(std::vector<Structure> systems, const MdSettings& s, const EnsembleSettings& e) {
  const std::size_t n = systems.size();
  if (n < 2) throw Error("an ensemble needs at least two systems (" + std::to_string(n) + " given); run one alone");
  if (s.mode != "md") throw Error("an ensemble runs molecular dynamics, not '" + s.mode + "'");
  if (!e.temperatures.empty() && e.temperatures.size() != n)
    throw Error("ensemble: " + std::to_string(e.temperatures.size()) + " temperatures for " + std::to_string(n) + " systems");
  if (!e.seeds.empty() && e.seeds.size() != n)
    throw Error("ensemble: " + std::to_string(e.seeds.size()) + " seeds for " + std::to_string(n) + " systems");
  for (std::size_t k = 0; k < n; ++k) {
    const double t = temperature_of(e, s, k);
    if (!(t >= 0) || !std::isfinite(t))
      throw Error("ensemble: the temperature of system " + std::to_string(k) + " must be finite and not negative");
  }
  if (!(e.stop_distance >= 0) || !std::isfinite(e.stop_distance)) throw Error("ensemble: stop_distance must be finite and not negative");
  if (e.stop_distance > 0 && e.stop_every < 1) throw Error("ensemble: stop_every must be at least 1");
  for (std::size_t k = 0; k < n; ++k) {
    const Box& b = systems[k].box;
    if (e.stop_distance > 0 && (b.periodic[0] || b.periodic[1] || b.periodic[2]))
      throw Error("ensemble: the stop distance applies to systems without periodic directions; system " +
                  std::to_string(k) + " is periodic");
  }
  for (int k : e.trajectory_systems)
    if (k < 0 || static_cast<std::size_t>(k) >= n)
      throw Error("ensemble: trajectory system " + std::to_string(k) + " is not one of the " + std::to_string(n) + " systems");
  if (s.init_velocities && s.restart.empty())
    for (std::size_t k = 0; k < n; ++k) assign_velocities(systems[k], temperature_of(e, s, k), seed_of(e, s, k));
  return systems;
}

ForceField bound(ForceField ff, std::span<const Structure> systems) {
  ff.bind(SystemSetup::of(systems));
  return ff;
}
}  // namespace

Ensemble::Ensemble(std::vector<Structure> systems, ForceField force_field, const MdSettings& settings,
                   const EnsembleSettings& ensemble, Backend backend)
    : Ensemble(prepared(std::move(systems), settings, ensemble), std::move(force_field), settings, ensemble, backend,
               0) {}

Ensemble::Ensemble(const std::vector<Structure>& systems, ForceField force_field, const MdSettings& settings,
                   const EnsembleSettings& ensemble, Backend backend, int)
    : settings_(settings), ensemble_(ensemble), backend_(backend), atoms_(backend, systems),
      force_field_(bound(std::move(force_field), systems)),
      lists_(backend, force_field_.neighbor_requests(backend), settings.skin, static_cast<int>(settings.sort_every)),
      out_(backend, settings.deterministic),
      integrator_(make_integrator(settings, backend, atoms_.size(), force_field_)),
      active_(systems.size(), 1), kinetic_(backend) {
  integrator_->bind_systems(atoms_);  // refuses the methods that cannot integrate batches
  integrator_->attach(atoms_);
  integrator_->faults().set_isolate(ensemble_.finish_on_fault);
  std::vector<double> temperatures(systems.size());
  std::vector<uint64_t> seeds(systems.size());
  for (std::size_t k = 0; k < systems.size(); ++k) {
    temperatures[k] = temperature_of(ensemble_, settings_, k);
    seeds[k] = seed_of(ensemble_, settings_, k);
  }
  atoms_.system_temperature.assign(temperatures);
  atoms_.system_stream.assign(seeds);
  kinetic_.resize(6 * systems.size());
  if (!settings_.restart.empty()) {
    read_checkpoint(settings_.restart);
  } else {
    lists_.build(atoms_);
    compute_forces(true);
    integrator_->start(step_, atoms_, lists_, force_field_, out_);
  }
}

void Ensemble::compute_forces(bool energy) {
  force_field_.compute(atoms_, lists_.refs(), {energy, energy, false}, out_);
}

int Ensemble::num_active() const { return static_cast<int>(std::count(active_.begin(), active_.end(), 1)); }

void Ensemble::upload_active() {
  atoms_.system_active.assign(std::vector<int>(active_.begin(), active_.end()));
}

void Ensemble::finish(const std::vector<int>& systems) {
  for (int s : systems)
    if (s < 0 || s >= num_systems())
      throw Error("finish: system " + std::to_string(s) + " is not one of the " + std::to_string(num_systems()) + " systems");
  for (int s : systems) active_[static_cast<std::size_t>(s)] = 0;
  upload_active();
}

void Ensemble::finish_system(int s, const std::string& why) {
  active_[static_cast<std::size_t>(s)] = 0;
  if (settings_.output.thermo_screen) {
    progress_clear_line();
    std::cout << "system " << s << " finished at step " << step_ << ": " << why << std::endl;
  }
}

EnsembleThermo Ensemble::thermo() {
  const int n = num_systems();
  systems_kinetic(atoms_, systems_ref(atoms_, integrator_->faults()), kinetic_.data(), 6);
  const std::vector<double> k = kinetic_.to_vector();
  const std::vector<double> totals = out_.system_term_totals();
  const std::vector<double> reservoir = integrator_->system_reservoir_energy();
  const std::vector<int>& offsets = atoms_.system_offsets();
  const int terms = out_.terms();
  EnsembleThermo t;
  t.step = step_;
  t.time = static_cast<double>(step_) * settings_.integrator.dt;
  t.systems.resize(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    SystemThermo& st = t.systems[static_cast<std::size_t>(s)];
    const double* ks = k.data() + 6 * static_cast<std::size_t>(s);
    double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int term = 0; term < terms; ++term) {
      const double* block = totals.data() + (static_cast<std::size_t>(term) * n + s) * ForceOutput::kTotals;
      st.term_potential.push_back(block[0]);
      st.potential += block[0];
      for (int c = 0; c < 9; ++c) w[c] += block[1 + c];
    }
    st.kinetic = 0.5 * (ks[0] + ks[1] + ks[2]);
    st.total = st.kinetic + st.potential;
    st.degrees_of_freedom = system_dof(offsets[s + 1] - offsets[s]);
    st.temperature = 2.0 * st.kinetic / (st.degrees_of_freedom * units::boltzmann);
    st.conserved = st.total - reservoir[static_cast<std::size_t>(s)];
    st.volume = atoms_.box(s).volume();
    st.pressure = units::nktv2p / st.volume * (ks[0] + ks[1] + ks[2] + w[0] + w[4] + w[8]) / 3.0;
    st.active = active_[static_cast<std::size_t>(s)] != 0;
  }
  return t;
}

void Ensemble::retire_faulted() {
  const std::vector<Fault> found = integrator_->faults().system_faults();
  bool changed = false;
  for (std::size_t s = 0; s < found.size(); ++s) {
    if (found[s].what.kind == kNoFault || !active_[s]) continue;
    const std::string message = describe(found[s], atoms_, lists_.skin());
    faults_.push_back({static_cast<int>(s), found[s].step, message});
    finish_system(static_cast<int>(s), message);
    changed = true;
  }
  if (changed) upload_active();
}

void Ensemble::check_state(bool energy) {
  // Faults first: atoms gone non-finite also fill a GPU list past its room.
  if (ensemble_.finish_on_fault) retire_faulted();
  else integrator_->throw_if_faulted(atoms_, lists_.skin());
  lists_.check_overflow();
  if (!energy) return;
  const std::vector<double> totals = out_.system_term_totals();
  const int n = num_systems(), terms = out_.terms();
  bool changed = false;
  for (int s = 0; s < n; ++s) {
    double e = 0;
    for (int term = 0; term < terms; ++term) e += totals[(static_cast<std::size_t>(term) * n + s) * ForceOutput::kTotals];
    if (std::isfinite(e) || !active_[static_cast<std::size_t>(s)]) continue;
    const std::string message = "potential energy of system " + std::to_string(s) + " is " + (std::isnan(e) ? "nan" : "inf") +
                                " at step " + std::to_string(step_);
    if (!ensemble_.finish_on_fault) throw Error(message);
    faults_.push_back({s, step_, message});
    finish_system(s, message);
    changed = true;
  }
  if (changed) upload_active();
}

// Positions by input index on the host; a system whose two atoms are farther apart than the stop
// distance is finished (its atoms never wrap: it has no periodic direction).
void Ensemble::apply_stop_rule() {
  if (!(ensemble_.stop_distance > 0)) return;
  const auto x = atoms_.x.to_vector(), y = atoms_.y.to_vector(), z = atoms_.z.to_vector();
  const auto ids = atoms_.id.to_vector();
  std::vector<Vec3> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[static_cast<std::size_t>(ids[i])] = {x[i], y[i], z[i]};
  const std::vector<int>& offsets = atoms_.system_offsets();
  const double limit2 = ensemble_.stop_distance * ensemble_.stop_distance;
  bool changed = false;
  for (int s = 0; s < num_systems(); ++s) {
    if (!active_[static_cast<std::size_t>(s)]) continue;
    double widest = 0;
    for (int i = offsets[s]; i < offsets[s + 1]; ++i)
      for (int j = i + 1; j < offsets[s + 1]; ++j) widest = std::max(widest, norm2(r[j] - r[i]));
    if (widest <= limit2) continue;
    finish_system(s, "two atoms are " + std::to_string(std::sqrt(widest)) + " Å apart");
    changed = true;
  }
  if (changed) upload_active();
}

void Ensemble::run() {
  run_to(settings_.steps);
  if (!ensemble_.final_structures.empty()) write_structures(ensemble_.final_structures);
}

void Ensemble::run_to(long last) {
  const OutputSettings& o = settings_.output;
  if (!started_) {
    if (const auto f = find_nonfinite_state(atoms_, step_)) throw Error(describe(*f, atoms_, lists_.skin()));
    check_state(true);
    if (step_ == 0 || !settings_.restart.empty()) write_thermo(thermo());
    if (step_ == 0 && !o.trajectory.empty()) write_frames();
    started_ = true;
  }
  Progress progress(step_, last, atoms_.size(), settings_.integrator.dt, o.progress);
  while (step_ < last && num_active() > 0) {
    ++step_;
    const bool thermo_now = step_ % o.thermo_every == 0 || step_ == last;
    const bool frame_now = !o.trajectory.empty() && step_ % o.trajectory_every == 0;
    const bool stop_now = ensemble_.stop_distance > 0 && step_ % ensemble_.stop_every == 0;
    const bool energy = thermo_now || frame_now;
    integrator_->advance(step_, atoms_, lists_, force_field_, out_, {energy, energy, false});
    bool checkpoint_now = !o.checkpoint.empty() && (step_ % o.checkpoint_every == 0 || step_ == last);
    // A fault, or a GPU list that ran out of room, is caught before anything computed after it is written.
    if (thermo_now || frame_now || checkpoint_now || stop_now) check_state(energy);
    if (stop_now) apply_stop_rule();
    if (num_active() == 0 && !thermo_now) {
      // The last system finished: the run ends here, with its outputs of this step.
      if (!energy) compute_forces(true);  // nothing moves any more: the same forces, with energies
      write_thermo(thermo());
      checkpoint_now = !o.checkpoint.empty();
    } else if (thermo_now) {
      write_thermo(thermo());
    }
    if (frame_now) write_frames();
    if (checkpoint_now) write_checkpoint(o.checkpoint);
    progress.update(step_);
  }
  progress.finish(step_);
}

}  // namespace quasar::md
