// `quasar shepard qct INPUT.toml`: quasi-classical trajectories of an atom + molecule collision on
// the input's force field; a summary on standard output and every number in a JSON file.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/qct/qct.hpp"

namespace quasar::cli {

namespace {
const char* kQctHelp = R"(usage: quasar shepard qct INPUT.toml [--device auto|cpu|cuda] [--output FILE.json]

Quasi-classical trajectories of an atom + molecule collision: the [potential] table(s) of INPUT.toml
give the force field, its [qct] table the molecule (type names and a starting geometry), the colliding
atom, the collision energy, b_max, the number of trajectories, the seed, the timestep and the stop
rules (see docs/user-guide.md). Prints the normal modes, progress lines and a summary (outcomes,
reaction probability, cross sections with their standard errors, P(b)); writes every number,
each trajectory's too, to [qct] output or --output (JSON).
)";

nlohmann::json to_json(const qct::Estimate& e) {
  return {{"count", e.count}, {"trajectories", e.trials}, {"probability", e.probability},
          {"probability_error", e.probability_error}, {"cross_section_A2", e.cross_section},
          {"cross_section_error_A2", e.cross_section_error}};
}

nlohmann::json to_json(const qct::QctSettings& s, const qct::QctResult& r, const std::string& input) {
  nlohmann::json j;
  j["input"] = input;
  j["settings"] = {{"molecule", s.molecule}, {"projectile", s.projectile},
                   {"collision_energy_eV", s.collision.collision_energy},
                   {"collision_energy_kcal_mol", s.collision.collision_energy / units::kcal_mol},
                   {"b_max_A", s.collision.b_max}, {"initial_separation_A", s.collision.initial_separation},
                   {"trajectories", s.trajectories}, {"seed", s.collision.seed}, {"timestep_fs", s.timestep * 1e3},
                   {"max_steps", s.max_steps}, {"stop_distance_A", s.stop_distance},
                   {"bond_distance_A", s.bond_distance}};
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
  for (const qct::OpacityBin& o : r.opacity)
    j["opacity"].push_back({{"b_low_A", o.b_low}, {"b_high_A", o.b_high}, {"trajectories", o.trials},
                            {"reactive", o.reactive}, {"probability", o.probability}, {"error", o.error}});
  j["largest_energy_drift_eV"] = r.largest_drift;
  j["seconds"] = r.seconds;
  j["trajectory_steps"] = r.steps;
  for (const qct::TrajectoryRecord& t : r.trajectories)
    j["trajectories"].push_back({{"b_A", t.b}, {"outcome", t.outcome}, {"steps", t.steps},
                                 {"initial_energy_eV", t.initial_energy}, {"energy_drift_eV", t.energy_drift},
                                 {"harmonic_energy_eV", t.harmonic_energy},
                                 {"vibrational_energy_eV", t.vibrational_energy}});
  return j;
}

void print_summary(const qct::QctResult& r, double b_max) {
  std::cout << "qct: " << r.trajectories.size() << " trajectories, " << r.steps << " trajectory-steps in "
            << std::setprecision(3) << r.seconds << " s; largest energy drift " << r.largest_drift << " eV\n";
  for (const auto& [name, count] : r.counts) std::cout << "  " << std::setw(20) << std::left << name << count << '\n';
  std::cout << std::right << std::setprecision(4);
  auto line = [](const std::string& name, const qct::Estimate& e) {
    std::cout << "  " << name << ": P = " << e.probability << " +- " << e.probability_error
              << ", sigma = " << e.cross_section << " +- " << e.cross_section_error << " Å^2\n";
  };
  std::ostringstream all;
  all << "reactive (b_max " << b_max << " Å)";
  line(all.str(), r.reactive);
  for (const auto& [name, e] : r.channels) line(name, e);
  std::cout << "  P(b):";
  for (const qct::OpacityBin& o : r.opacity)
    std::cout << ' ' << std::setprecision(3) << o.b_low << '-' << o.b_high << ": " << o.probability;
  std::cout << std::setprecision(6) << std::endl;
}
}  // namespace

int qct_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--device", "--output"});
  if (a.has("--help")) {
    std::cout << kQctHelp;
    return 0;
  }
  if (a.positional.size() != 1) throw UsageError("shepard qct takes one input file");
  const std::string path = a.positional[0];
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  top.allow_only({"potential", "qct", "device"});
  Backend backend = Backend::Cpu;
  try {
    backend = parse_backend(a.get("--device", top.get_string("device", "auto")));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    if (a.has("--device")) throw;
    top.fail("device", e.what());
  }
  const auto base = std::filesystem::absolute(path).parent_path();
  const ConfigTable table = top.require_sub("qct");
  const qct::QctSettings settings = qct::qct_settings_from_config(table);
  std::string output = a.get("--output", "");
  if (output.empty() && table.has("output")) output = (base / table.get_string("output")).string();
  ForceField force_field = make_force_field(top, base);
  const qct::QctResult result = qct::run_qct(settings, std::move(force_field), backend, &std::cout);
  print_summary(result, settings.collision.b_max);
  if (!output.empty()) {
    const nlohmann::json j = to_json(settings, result, path);
    io::write_file_atomically(output, [&](std::ostream& out) { out << j.dump(1) << '\n'; });
    std::cout << "qct: wrote " << output << '\n';
  }
  return 0;
}

}  // namespace quasar::cli
