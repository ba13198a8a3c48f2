#include "quasar/md/integrators/respa.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/langevin.hpp"
#include "quasar/md/integrators/registry.hpp"

namespace quasar::md {

namespace {
[[noreturn]] void fail(const IntegratorSettings& s, const std::string& msg) {
  if (!s.respa_file.empty()) throw InputError(s.respa_file, s.respa_line, "'md.respa_every': " + msg);
  throw Error("'md.respa_every': " + msg);
}

std::string periods_text(const std::vector<int>& periods) {
  std::string t;
  for (int p : periods) t += (t.empty() ? "" : " ") + std::to_string(p);
  return t;
}
}  // namespace

std::string respa_periods_problem(const std::vector<int>& periods) {
  if (periods.empty()) return "expected at least one period";
  if (static_cast<int>(periods.size()) > ForceField::kMaxGroups)
    return "expected at most " + std::to_string(ForceField::kMaxGroups) + " periods (one per force group)";
  for (std::size_t g = 0; g < periods.size(); ++g) {
    if (periods[g] < 1) return "the period of group " + std::to_string(g) + " must be positive";
    if (g > 0 && periods[g] % periods[g - 1] != 0)
      return "the period of group " + std::to_string(g) + " (" + std::to_string(periods[g]) +
             ") must be a multiple of the one before (" + std::to_string(periods[g - 1]) + ")";
  }
  return {};
}

MultipleTimeStep::MultipleTimeStep(const IntegratorSettings& s, Backend backend, int num_atoms,
                                   const ForceField& force_field, const std::string& inner)
    : Integrator(s, backend, num_atoms), inner_(inner), periods_(s.respa_every) {
  if (!integrator_takes_respa(inner_))
    fail(s, "multiple time stepping works with the integrators " + respa_integrators_text() + ", not \"" + inner_ +
                "\"");
  if (inner_ == "langevin" && !(s_.tau_t > 0)) throw Error("the thermostat time constant must be positive");
  if (const std::string problem = respa_periods_problem(periods_); !problem.empty()) fail(s, problem);
  int highest = 0;
  for (const auto& t : force_field.terms()) highest = std::max(highest, t.group);
  if (static_cast<int>(periods_.size()) != highest + 1)
    fail(s, "gives " + std::to_string(periods_.size()) + " period" + (periods_.size() == 1 ? "" : "s") +
                ", the force field's groups are 0.." + std::to_string(highest) + ": give one period per group");
  // Levels: the distinct periods of the groups that have terms, ascending.
  unsigned used = 0;
  for (const auto& t : force_field.terms()) used |= 1u << t.group;
  for (int g = 0; g <= highest; ++g) {
    if (!((used >> g) & 1u)) continue;
    if (levels_.empty() || levels_.back().period != periods_[static_cast<std::size_t>(g)])
      levels_.push_back({periods_[static_cast<std::size_t>(g)], 0u});
    levels_.back().groups |= 1u << g;
  }
  if (levels_.empty()) throw Error("multiple time stepping: the force field has no terms");
}

std::string MultipleTimeStep::name() const { return inner_ + "/respa " + periods_text(periods_); }

std::string MultipleTimeStep::describe() const {
  return inner_ + " dynamics with r-RESPA (group periods " + periods_text(periods_) + ")";
}

void MultipleTimeStep::attach(AtomState& atoms) {
  forces_.clear();
  for (std::size_t l = 0; l < levels_.size(); ++l)
    forces_.push_back(&atoms.add_property<double>("respa_force_level" + std::to_string(l), 3, false));
}

gpu::LevelForces MultipleTimeStep::level_forces(int level) {
  double* base = forces_[static_cast<std::size_t>(level)]->data();
  return {base, base + num_atoms_, base + 2 * static_cast<std::size_t>(num_atoms_)};
}

void MultipleTimeStep::start(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                             ForceOutput& out) {
  if (forces_.empty()) attach(atoms);
  if (restored_) held_ = true;  // a checkpoint restored every level's forces
  if (held_) return;
  const double limit = max_move(lists);
  if (levels_.size() == 1) {
    store_level(step, atoms, 0, false, limit);  // the forces computed already are the one level's
  } else {
    for (int l = static_cast<int>(levels_.size()) - 1; l >= 0; --l) {
      force_field.compute(atoms, lists.refs(), {false, false, false}, out, levels_[static_cast<std::size_t>(l)].groups);
      store_level(step, atoms, l, false, limit);
    }
    force_field.compute(atoms, lists.refs(), {true, true, false}, out);  // the total force again
  }
  held_ = true;
}

void MultipleTimeStep::advance(long step, AtomState& atoms, NeighborLists& lists, ForceField& force_field,
                               ForceOutput& out, ComputeRequest req) {
  if (!held_) start(step - 1, atoms, lists, force_field, out);
  const bool gpu = atoms.backend() == Backend::Cuda;
  const int levels = static_cast<int>(levels_.size());
  const double skin = lists.skin(), limit = max_move(lists);
  auto opens = [&](int l) { return (step - 1) % levels_[static_cast<std::size_t>(l)].period == 0; };
  auto closes = [&](int l) { return step % levels_[static_cast<std::size_t>(l)].period == 0; };
  for (int l = levels - 1; l >= 1; --l)
    if (opens(l)) kick_level(atoms, l, -1, limit);
  inner_move(step, atoms, out, limit);
  // On the CPU a bad atom stops the step before the list sees it.
  if (!gpu) faults_.throw_if_any(atoms, skin);
  lists.update(atoms, step);
  // One level: its evaluation is the step's. Several: the levels' forces alone, then, where energies
  // or the virial are asked for, every term at these positions (the output's energies and forces).
  const bool output = req.energy || req.virial || req.per_atom;
  const ComputeRequest level_request = levels == 1 ? req : ComputeRequest{false, false, false};
  for (int l = levels - 1; l >= 0; --l) {
    if (!closes(l)) continue;
    force_field.compute(atoms, lists.refs(), level_request, out, levels_[static_cast<std::size_t>(l)].groups);
    store_level(step, atoms, l, l == 0, limit);
  }
  for (int l = 1; l < levels; ++l)
    if (closes(l)) kick_level(atoms, l, step, limit);
  if (levels > 1 && output) force_field.compute(atoms, lists.refs(), req, out);
  if (!gpu) faults_.throw_if_any(atoms, skin);
}

void MultipleTimeStep::inner_move(long step, AtomState& atoms, const ForceOutput& out, double limit) {
  const Level& inner = levels_.front();
  const bool kick_first = (step - 1) % inner.period == 0;
  const double dt_kick = inner.period * s_.dt;
  const gpu::LevelForces f = level_forces(0);
  const FaultCheck check{faults_.slots(), fault_when(step, kAfterDrift), limit};
  AtomsRef a = atoms.ref();
  if (inner_ == "langevin") {
    const StepParams p = langevin_params(s_, step);
    if (atoms.backend() == Backend::Cuda) {
      gpu::respa_inner_baoab(a, f, kick_first, dt_kick, p, state_.data() + kThermostatWork, check,
                             out.deterministic ? &fixed_ : nullptr, step_work_.data());
      return;
    }
    double work = 0;
    for (int i = 0; i < a.n; ++i) {
      const Vec3 before{a.x[i], a.y[i], a.z[i]};
      if (kick_first) kick(a, i, f.x[i], f.y[i], f.z[i], dt_kick);
      work += baoab_aoa(a, i, p);
      faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
    }
    state_[kThermostatWork] += work;
    return;
  }
  if (atoms.backend() == Backend::Cuda) {
    gpu::respa_inner_move(a, f, kick_first, dt_kick, s_.dt, check);
    return;
  }
  for (int i = 0; i < a.n; ++i) {
    const Vec3 before{a.x[i], a.y[i], a.z[i]};
    if (kick_first) kick(a, i, f.x[i], f.y[i], f.z[i], dt_kick);
    drift(a, i, s_.dt);
    faults_.note(step, kAfterDrift, a.id[i], check_moved(a, i, before, limit));
  }
}

void MultipleTimeStep::kick_level(AtomState& atoms, int level, long step, double limit) {
  const double dt = levels_[static_cast<std::size_t>(level)].period * s_.dt;
  const gpu::LevelForces f = level_forces(level);
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    const FaultCheck check{faults_.slots(), fault_when(step, kAfterForces), limit};
    gpu::respa_kick(a, f, dt, step >= 0 ? &check : nullptr);
    return;
  }
  for (int i = 0; i < a.n; ++i) {
    kick(a, i, f.x[i], f.y[i], f.z[i], dt);
    if (step >= 0) faults_.note(step, kAfterForces, a.id[i], check_kicked_by(a, i, f.x[i], f.y[i], f.z[i]));
  }
}

void MultipleTimeStep::store_level(long step, AtomState& atoms, int level, bool with_kick, double limit) {
  const double dt = levels_[static_cast<std::size_t>(level)].period * s_.dt;
  const gpu::LevelForces f = level_forces(level);
  AtomsRef a = atoms.ref();
  if (atoms.backend() == Backend::Cuda) {
    gpu::respa_store(a, f, with_kick, dt, {faults_.slots(), fault_when(step, kAfterForces), limit});
    return;
  }
  for (int i = 0; i < a.n; ++i) {
    f.x[i] = a.fx[i];
    f.y[i] = a.fy[i];
    f.z[i] = a.fz[i];
    if (!with_kick) continue;
    half_kick(a, i, dt);
    faults_.note(step, kAfterForces, a.id[i], check_kicked(a, i));
  }
}

}  // namespace quasar::md
