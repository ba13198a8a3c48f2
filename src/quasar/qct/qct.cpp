#include "quasar/qct/qct.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/md/ensemble.hpp"
#include "quasar/potential/evaluate.hpp"

namespace quasar::qct {

namespace {
// Seconds between progress lines.
constexpr double kProgressEvery = 2.0;

double mass_of(const QctSettings& s, const std::string& name) {
  const auto it = s.masses.find(name);
  return it != s.masses.end() ? it->second : element_mass(name);
}
}  // namespace

QctSettings qct_settings_from_config(const ConfigTable& t) {
  t.allow_only({"molecule", "positions", "projectile", "masses", "collision_energy", "energy_unit", "b_max",
                "trajectories", "seed", "timestep_fs", "initial_separation", "stop_distance", "max_steps",
                "check_every", "bond_distance", "b_bins", "batch", "isolation_distance", "minimum_force",
                "quanta", "output"});
  QctSettings s;
  s.molecule = t.get_strings("molecule");
  if (s.molecule.size() < 2) t.fail("molecule", "the molecule needs at least two atoms (type names)");
  const std::vector<double> xyz = t.get_doubles("positions");
  if (xyz.size() != 3 * s.molecule.size())
    t.fail("positions", "expected 3 numbers (x, y, z in Å) per molecule atom: " + std::to_string(3 * s.molecule.size()) +
                            " for " + std::to_string(s.molecule.size()) + " atoms, not " + std::to_string(xyz.size()));
  for (std::size_t i = 0; i < s.molecule.size(); ++i) s.positions.push_back({xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]});
  s.projectile = t.get_string("projectile");
  if (s.projectile.empty()) t.fail("projectile", "names the colliding atom's type");
  if (const auto m = t.sub("masses")) {
    for (const auto& [key, value] : *m->table) {
      const std::string name(key.str());
      const double mass = m->get_double(name);
      if (!(mass > 0)) m->fail(name, "a mass must be positive (amu)");
      s.masses[name] = mass;
    }
  }
  std::vector<std::string> names = s.molecule;
  names.push_back(s.projectile);
  for (const std::string& name : names)
    if (!(mass_of(s, name) > 0))
      t.fail("masses", "type '" + name + "' is no element with a known mass: give masses." + name + " (amu)");

  const double energy = t.get_double("collision_energy");
  if (!(energy > 0)) t.fail("collision_energy", "must be positive");
  const std::string unit = t.get_string("energy_unit", "kcal/mol");
  if (unit == "kcal/mol") s.collision.collision_energy = energy * units::kcal_mol;
  else if (unit == "eV") s.collision.collision_energy = energy;
  else t.fail("energy_unit", "takes \"kcal/mol\" or \"eV\", not \"" + unit + "\"");
  s.collision.b_max = t.get_double("b_max");
  if (!(s.collision.b_max > 0)) t.fail("b_max", "must be positive (Å)");
  s.collision.initial_separation = t.get_double("initial_separation", 8.0);
  if (!(s.collision.initial_separation > s.collision.b_max))
    t.fail("initial_separation", "must exceed b_max (the atom starts that far from the molecule's centre of mass)");
  s.collision.seed = static_cast<uint64_t>(t.get_int("seed", 1, 0));
  s.trajectories = t.get_int("trajectories", std::nullopt, 2, 1L << 40);
  s.timestep = t.get_double("timestep_fs", 0.1) * 1e-3;
  if (!(s.timestep > 0)) t.fail("timestep_fs", "must be positive");
  s.stop_distance = t.get_double("stop_distance", s.collision.initial_separation);
  if (!(s.stop_distance > 0)) t.fail("stop_distance", "must be positive (Å)");
  s.max_steps = t.get_int("max_steps", 100000, 1);
  s.check_every = t.get_int("check_every", 10, 1);
  s.bond_distance = t.get_double("bond_distance", 2.0);
  if (!(s.bond_distance > 0)) t.fail("bond_distance", "must be positive (Å)");
  if (!(s.bond_distance < s.stop_distance)) t.fail("bond_distance", "must be below the stop distance");
  s.b_bins = static_cast<int>(t.get_int("b_bins", 10, 1, 100000));
  s.batch = static_cast<int>(t.get_int("batch", 1024, 2, 1L << 24));
  s.isolation = t.get_double("isolation_distance", 100.0);
  if (!(s.isolation > 0)) t.fail("isolation_distance", "must be positive (Å)");
  if (t.has("quanta"))
    for (double q : t.get_doubles("quanta")) {
      if (!(q >= 0 && q == std::floor(q) && q <= 1000))
        t.fail("quanta", "expected whole numbers of vibrational quanta (0 to 1000) per normal mode");
      s.collision.quanta.push_back(static_cast<int>(q));
    }
  s.modes.force_tolerance = t.get_double("minimum_force", s.modes.force_tolerance);
  if (!(s.modes.force_tolerance > 0)) t.fail("minimum_force", "must be positive (eV/Å)");
  return s;
}

Structure collision_system(const QctSettings& s, const std::vector<Vec3>& positions,
                           const std::vector<Vec3>& velocities) {
  Structure sys;
  std::vector<std::string> names = s.molecule;
  names.push_back(s.projectile);
  for (const std::string& name : names) {
    const auto it = std::find(sys.type_names.begin(), sys.type_names.end(), name);
    if (it == sys.type_names.end()) {
      sys.type_names.push_back(name);
      sys.type_masses.push_back(mass_of(s, name));
      sys.types.push_back(static_cast<int>(sys.type_names.size()) - 1);
    } else {
      sys.types.push_back(static_cast<int>(it - sys.type_names.begin()));
    }
  }
  sys.positions = positions;
  sys.velocities = velocities;
  sys.box = Box::enclosing(positions, 2 * (s.stop_distance + s.collision.initial_separation));
  return sys;
}

QctResult run_qct(const QctSettings& s, ForceField force_field, Backend backend, std::ostream* progress,
                  const QctHooks& hooks) {
  const int n = static_cast<int>(s.molecule.size());
  QctResult result;
  // The molecule's modes, with the atom far away on the z axis.
  if (hooks.modes) {
    result.modes = *hooks.modes;
  } else {
    Vec3 centre{};
    for (const Vec3& r : s.positions) centre += r * (1.0 / n);
    std::vector<Vec3> r = s.positions;
    r.push_back(centre + Vec3{0, 0, s.isolation});
    const Structure system = collision_system(s, r, {});
    std::vector<int> molecule(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) molecule[static_cast<std::size_t>(i)] = i;
    const BatchForces forces = [&](std::span<const Structure> frames) {
      return evaluate_batch(force_field, frames, backend);
    };
    result.modes = normal_modes(system, molecule, forces, s.modes);
  }
  const NormalModes& modes = result.modes;
  if (progress) {
    *progress << "qct: minimum after " << modes.iterations << " Newton steps (largest force " << std::setprecision(3)
              << modes.largest_force << " eV/Å), energy " << std::setprecision(10) << modes.energy << " eV\n"
              << "qct: frequencies (cm^-1):" << std::fixed << std::setprecision(1);
    for (int k = 0; k < modes.modes(); ++k) *progress << ' ' << modes.wavenumber(k);
    *progress << std::defaultfloat << std::setprecision(6) << "\nqct: zero-point energy " << modes.zero_point_energy()
              << " eV (" << modes.zero_point_energy() / units::kcal_mol << " kcal/mol)" << std::endl;
  }

  std::vector<std::string> elements = s.molecule;
  elements.push_back(s.projectile);
  std::vector<double> masses = modes.masses;
  const double atom_mass = mass_of(s, s.projectile);
  masses.push_back(atom_mass);
  std::vector<int> molecule_atoms(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) molecule_atoms[static_cast<std::size_t>(i)] = i;

  md::MdSettings md;
  md.integrator.kind = "nve";
  md.integrator.dt = s.timestep;
  md.steps = s.max_steps;
  md.init_velocities = false;
  md.output.thermo_screen = false;
  md.output.progress = false;
  md.output.thermo_every = s.max_steps;
  md::EnsembleSettings es;
  es.finish_on_fault = true;

  const auto start = std::chrono::steady_clock::now();
  auto last_line = start;
  const long total = s.trajectories;
  const long batches = (total + s.batch - 1) / s.batch;
  result.trajectories.resize(static_cast<std::size_t>(total));
  long first = 0, done = 0, reactive_so_far = 0;
  for (long k = 0; k < batches; ++k) {
    const long size = total / batches + (k < total % batches ? 1 : 0);
    std::vector<Structure> systems;
    for (long t = first; t < first + size; ++t) {
      const InitialCondition ic = initial_condition(modes, atom_mass, s.collision, static_cast<uint64_t>(t));
      std::vector<Vec3> r = ic.molecule_positions, v = ic.molecule_velocities;
      r.push_back(ic.atom_position);
      v.push_back(ic.atom_velocity);
      systems.push_back(collision_system(s, r, v));
      TrajectoryRecord& rec = result.trajectories[static_cast<std::size_t>(t)];
      rec.b = ic.b;
      rec.harmonic_energy = ic.harmonic_energy;
      rec.vibrational_energy = ic.vibrational_kinetic;
    }
    md::Ensemble ens(std::move(systems), force_field, md, es, backend);
    const int m = ens.num_systems();
    std::vector<char> done_here(static_cast<std::size_t>(m), 0);
    auto record = [&](int j) -> TrajectoryRecord& { return result.trajectories[static_cast<std::size_t>(first + j)]; };
    {
      const md::EnsembleThermo t0 = ens.thermo();
      for (int j = 0; j < m; ++j) {
        record(j).initial_energy = t0.systems[static_cast<std::size_t>(j)].total;
        // The molecule's vibrational energy: its internal kinetic energy plus the potential above the minimum.
        record(j).vibrational_energy += t0.systems[static_cast<std::size_t>(j)].potential - modes.energy;
      }
    }
    auto account = [&](const md::EnsembleThermo& th) {
      for (int j = 0; j < m; ++j) {
        if (done_here[static_cast<std::size_t>(j)]) continue;
        TrajectoryRecord& rec = record(j);
        const double drift = std::abs(th.systems[static_cast<std::size_t>(j)].total - rec.initial_energy);
        rec.energy_drift = std::isfinite(drift) ? std::max(rec.energy_drift, drift) : drift;
      }
    };
    while (ens.step() < s.max_steps && ens.num_active() > 0) {
      ens.run_to(std::min(ens.step() + s.check_every, s.max_steps));
      account(ens.thermo());
      for (const md::SystemFault& f : ens.faults()) {
        if (done_here[static_cast<std::size_t>(f.system)]) continue;
        done_here[static_cast<std::size_t>(f.system)] = 1;
        record(f.system).outcome = kFault;
        record(f.system).steps = f.step;
        ++done;
      }
      const std::vector<Structure> now = ens.structures();
      if (hooks.visit) {
        std::vector<char> running(static_cast<std::size_t>(m));
        for (int j = 0; j < m; ++j)
          running[static_cast<std::size_t>(j)] = !done_here[static_cast<std::size_t>(j)] && ens.active()[static_cast<std::size_t>(j)];
        hooks.visit(now, running);
      }
      std::vector<int> stop;
      for (int j = 0; j < m; ++j) {
        if (done_here[static_cast<std::size_t>(j)] || !ens.active()[static_cast<std::size_t>(j)]) continue;
        const Structure& st = now[static_cast<std::size_t>(j)];
        const auto parts = fragments(st.positions, s.bond_distance);
        if (!fragments_separated(parts, st.positions, st.velocities, masses, s.stop_distance)) continue;
        TrajectoryRecord& rec = record(j);
        rec.outcome = classify(parts, molecule_atoms, n, elements);
        rec.steps = ens.step();
        done_here[static_cast<std::size_t>(j)] = 1;
        reactive_so_far += is_reactive(rec.outcome) ? 1 : 0;
        ++done;
        stop.push_back(j);
      }
      if (!stop.empty()) ens.finish(stop);
      const auto now_time = std::chrono::steady_clock::now();
      if (progress && std::chrono::duration<double>(now_time - last_line).count() > kProgressEvery) {
        last_line = now_time;
        *progress << "qct: batch " << k + 1 << "/" << batches << ", step " << ens.step() << ": " << ens.num_active()
                  << " running; " << done << "/" << total << " done, " << reactive_so_far << " reactive, "
                  << std::setprecision(3) << std::chrono::duration<double>(now_time - start).count() << " s"
                  << std::setprecision(6) << std::endl;
      }
    }
    for (int j = 0; j < m; ++j) {
      if (done_here[static_cast<std::size_t>(j)]) continue;
      record(j).outcome = kUnfinished;
      record(j).steps = ens.step();
      ++done;
    }
    for (int j = 0; j < m; ++j) result.steps += record(j).steps;
    if (progress)
      *progress << "qct: batch " << k + 1 << "/" << batches << " finished at step " << ens.step() << "; " << done << "/"
                << total << " done, " << reactive_so_far << " reactive" << std::endl;
    first += size;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<double> b;
  std::vector<char> reactive;
  for (const TrajectoryRecord& rec : result.trajectories) {
    ++result.counts[rec.outcome];
    b.push_back(rec.b);
    reactive.push_back(is_reactive(rec.outcome) ? 1 : 0);
    if (rec.outcome != kFault) result.largest_drift = std::max(result.largest_drift, rec.energy_drift);
  }
  long reactive_count = 0;
  for (const auto& [outcome, count] : result.counts)
    if (is_reactive(outcome)) {
      result.channels[outcome] = estimate(count, total, s.collision.b_max);
      reactive_count += count;
    }
  result.reactive = estimate(reactive_count, total, s.collision.b_max);
  result.opacity = opacity(b, reactive, s.collision.b_max, s.b_bins);
  return result;
}

}  // namespace quasar::qct
