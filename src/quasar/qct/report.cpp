// The QCT study's numbers as JSON (the keys docs/user-guide.md lists).
#include <nlohmann/json.hpp>

#include "quasar/core/units.hpp"
#include "quasar/qct/report.hpp"

namespace quasar::qct {

namespace {
nlohmann::json to_json(const Estimate& e) {
  return {{"count", e.count}, {"trajectories", e.trials}, {"probability", e.probability},
          {"probability_error", e.probability_error}, {"cross_section_A2", e.cross_section},
          {"cross_section_error_A2", e.cross_section_error}};
}

nlohmann::json report(const QctSettings& s, const QctResult& r, const std::string& input) {
  nlohmann::json j;
  j["input"] = input;
  j["settings"] = {{"molecule", s.molecule}, {"projectile", s.projectile},
                   {"collision_energy_eV", s.collision.collision_energy},
                   {"collision_energy_kcal_mol", s.collision.collision_energy / units::kcal_mol},
                   {"b_max_A", s.collision.b_max}, {"initial_separation_A", s.collision.initial_separation},
                   {"trajectories", s.trajectories}, {"seed", s.collision.seed}, {"timestep_fs", s.timestep * 1e3},
                   {"max_steps", s.max_steps}, {"stop_distance_A", s.stop_distance},
                   {"bond_distance_A", s.bond_distance}, {"quanta", s.collision.quanta}};
  nlohmann::json modes;
  std::vector<double> wavenumbers;
  for (int k = 0; k < r.modes.modes(); ++k) wavenumbers.push_back(r.modes.wavenumber(k));
  std::vector<std::vector<double>> minimum;
  for (const Vec3& p : r.modes.minimum) minimum.push_back({p.x, p.y, p.z});
  modes["wavenumbers_cm"] = wavenumbers;
  modes["zero_point_energy_eV"] = r.modes.zero_point_energy();
  modes["minimum_energy_eV"] = r.modes.energy;
  modes["minimum_A"] = minimum;
  modes["largest_force_eV_A"] = r.modes.largest_force;
  j["normal_modes"] = modes;
  j["counts"] = r.counts;
  j["reactive"] = to_json(r.reactive);
  for (const auto& [name, e] : r.channels) j["channels"][name] = to_json(e);
  for (const OpacityBin& o : r.opacity)
    j["opacity"].push_back({{"b_low_A", o.b_low}, {"b_high_A", o.b_high}, {"trajectories", o.trials},
                            {"reactive", o.reactive}, {"probability", o.probability}, {"error", o.error}});
  j["largest_energy_drift_eV"] = r.largest_drift;
  j["seconds"] = r.seconds;
  j["trajectory_steps"] = r.steps;
  for (const TrajectoryRecord& t : r.trajectories)
    j["trajectories"].push_back({{"b_A", t.b}, {"outcome", t.outcome}, {"steps", t.steps},
                                 {"initial_energy_eV", t.initial_energy}, {"energy_drift_eV", t.energy_drift},
                                 {"harmonic_energy_eV", t.harmonic_energy},
                                 {"vibrational_energy_eV", t.vibrational_energy}});
  return j;
}

}  // namespace

std::string report_json(const QctSettings& settings, const QctResult& result, const std::string& input) {
  return report(settings, result, input).dump(1);
}

}  // namespace quasar::qct
