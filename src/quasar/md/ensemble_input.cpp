#include "quasar/md/ensemble_input.hpp"

#include <iostream>
#include <limits>

#include "quasar/io/read.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::md {

namespace {
std::string resolve(const std::string& p, const std::filesystem::path& base) {
  if (p.empty()) return p;
  const std::filesystem::path path(p);
  return (path.is_absolute() ? path : base / path).string();
}

// An array of whole numbers from `min` to `max` (each a system index or a seed).
std::vector<long> whole_numbers(const ConfigTable& t, std::string_view key, long min, long max) {
  const toml::array* list = t.table->get_as<toml::array>(key);
  if (!list) t.fail(key, "expected an array of whole numbers");
  std::vector<long> out;
  for (const toml::node& v : *list) {
    const std::optional<int64_t> x = v.is_integer() ? v.value<int64_t>() : std::nullopt;
    if (!x || *x < min || *x > max)
      t.fail(key, "expected whole numbers from " + std::to_string(min) + " to " + std::to_string(max));
    out.push_back(static_cast<long>(*x));
  }
  return out;
}

std::string count_text(std::size_t n, const char* what) { return std::to_string(n) + " " + what; }
}  // namespace

EnsembleSettings ensemble_settings_from_config(const ConfigTable& t, std::span<const Structure> structures,
                                               const std::filesystem::path& base_dir) {
  const std::size_t systems = structures.size();
  t.allow_only({"copies", "temperatures_K", "seeds", "stop_distance", "stop_every", "on_fault", "trajectory_systems",
                "final_structures"});
  EnsembleSettings e;
  if (t.has("temperatures_K")) {
    const bool one = t.table->get("temperatures_K")->is_number();
    const std::vector<double> temperatures = t.get_doubles("temperatures_K");
    for (double k : temperatures)
      if (!(k >= 0)) t.fail("temperatures_K", "temperatures must not be negative");
    if (one) e.temperatures.assign(systems, temperatures.front());
    else if (temperatures.size() == systems) e.temperatures = temperatures;
    else t.fail("temperatures_K", "expected one temperature or one per system (" + count_text(systems, "systems") + "), found " +
                                      count_text(temperatures.size(), "values"));
  }
  if (t.has("seeds")) {
    const std::vector<long> seeds = whole_numbers(t, "seeds", 0, std::numeric_limits<long>::max());
    if (seeds.size() != systems)
      t.fail("seeds", "expected one seed per system (" + count_text(systems, "systems") + "), found " +
                          count_text(seeds.size(), "seeds"));
    e.seeds.assign(seeds.begin(), seeds.end());
  }
  e.stop_distance = t.get_double("stop_distance", 0.0);
  if (!(e.stop_distance >= 0)) t.fail("stop_distance", "must not be negative (0: no stop rule)");
  for (std::size_t k = 0; k < systems && e.stop_distance > 0; ++k) {
    const Box& b = structures[k].box;
    if (b.periodic[0] || b.periodic[1] || b.periodic[2])
      t.fail("stop_distance", "applies to systems without a periodic direction; system " + std::to_string(k) + " is periodic");
  }
  e.stop_every = t.get_int("stop_every", 100, 1, std::numeric_limits<int>::max());
  const std::string on_fault = t.get_string("on_fault", "stop");
  if (on_fault != "stop" && on_fault != "finish")
    t.fail("on_fault", "expected \"stop\" (a fault stops the run) or \"finish\" (it finishes its system only)");
  e.finish_on_fault = on_fault == "finish";
  if (t.has("trajectory_systems")) {
    for (long s : whole_numbers(t, "trajectory_systems", 0, std::numeric_limits<int>::max())) {
      if (static_cast<std::size_t>(s) >= systems)
        t.fail("trajectory_systems", "system " + std::to_string(s) + " is not one of the " + count_text(systems, "systems") +
                                         " (0 to " + std::to_string(systems - 1) + ")");
      e.trajectory_systems.push_back(static_cast<int>(s));
    }
  }
  e.final_structures = resolve(t.get_string("final_structures", ""), base_dir);
  return e;
}

std::vector<Structure> ensemble_systems_from_config(const ConfigTable& root, const std::filesystem::path& base_dir) {
  const ConfigTable e = root.require_sub("ensemble");
  const long copies = e.get_int("copies", 1, 1, 100000000);
  const std::vector<Structure> frames = io::frames_from_config(root.require_sub("structure"), base_dir);
  std::vector<Structure> systems;
  systems.reserve(frames.size() * static_cast<std::size_t>(copies));
  for (const Structure& f : frames)
    for (long c = 0; c < copies; ++c) systems.push_back(f);
  if (systems.size() < 2)
    e.fail("copies", "an ensemble needs at least two systems: the structure file holds one frame; set copies to 2 or "
                     "more, or run it without [ensemble]");
  return systems;
}

void run_ensemble_from_config(const ConfigTable& root, const std::filesystem::path& base_dir, Backend backend,
                              bool deterministic) {
  // Cheap checks of every table first, so that a typo fails before any file is read.
  MdSettings settings = md_settings_from_config(root, base_dir);
  settings.deterministic = settings.deterministic || deterministic;
  const ConfigTable table = root.require_sub("ensemble");
  table.allow_only({"copies", "temperatures_K", "seeds", "stop_distance", "stop_every", "on_fault",
                    "trajectory_systems", "final_structures"});
  const std::string kind = settings.mode == "md" ? settings.integrator.kind : settings.mode;
  if (kind != "nve" && kind != "langevin" && kind != "bussi")
    root.require_sub("md").fail("integrator", "an ensemble integrates with nve, langevin or bussi, not \"" + kind + "\"");
  if (!settings.integrator.respa_every.empty())
    root.require_sub("md").fail("respa_every", "an ensemble takes no multiple time stepping");
  std::vector<Structure> systems = ensemble_systems_from_config(root, base_dir);
  const EnsembleSettings es = ensemble_settings_from_config(table, systems, base_dir);
  ForceField ff = make_force_field(root, base_dir);
  const std::string what = ff.size() == 1 ? ff.potential(0).name() + " potential" : ff.describe() + " force field";
  std::size_t atoms = 0;
  for (const Structure& s : systems) atoms += s.size();
  const std::size_t count = systems.size();
  Ensemble ensemble(std::move(systems), std::move(ff), settings, es, backend);
  std::cout << "quasar: ensemble of " << count << " systems, " << atoms << " atoms, " << what << ", "
            << ensemble.integrator().describe() << " on " << backend_name(backend)
            << (settings.deterministic ? ", deterministic sums" : "") << "\n";
  ensemble.run();
  std::cout << "quasar: " << ensemble.num_active() << " of " << count << " systems still moving at step "
            << ensemble.step() << "; " << ensemble.faults().size() << " finished by faults\n";
}

}  // namespace quasar::md
