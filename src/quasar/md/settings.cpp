#include "quasar/md/settings.hpp"

#include <limits>

#include "quasar/md/integrators/registry.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::md {

namespace {
std::string resolve(const std::string& p, const std::filesystem::path& base) {
  if (p.empty()) return p;
  const std::filesystem::path path(p);
  return (path.is_absolute() ? path : base / path).string();
}

std::string names_text(const std::vector<std::string>& names) {
  std::string t;
  for (const auto& n : names) t += (t.empty() ? "" : ", ") + n;
  return t;
}

// [md] respa_every: an array of positive integers, each a multiple of the one before.
std::vector<int> respa_periods(const ConfigTable& md) {
  const toml::array* list = md.table->get_as<toml::array>("respa_every");
  if (!list) md.fail("respa_every", "expected an array of periods (inner steps), one per force group");
  std::vector<int> periods;
  for (const toml::node& v : *list) {
    const std::optional<int64_t> p = v.is_integer() ? v.value<int64_t>() : std::nullopt;
    if (!p || *p < 1 || *p > 1000000) md.fail("respa_every", "expected whole numbers of inner steps from 1 to 1000000");
    periods.push_back(static_cast<int>(*p));
  }
  if (const std::string problem = respa_periods_problem(periods); !problem.empty()) md.fail("respa_every", problem);
  return periods;
}
}  // namespace

MdSettings md_settings_from_config(const ConfigTable& root, const std::filesystem::path& base) {
  MdSettings s;
  s.deterministic = root.get_bool("deterministic", false);
  if (auto md = root.sub("md")) {
    md->allow_only({"integrator", "timestep_fs", "steps", "temperature_K", "init_velocities", "seed", "tau_t_fs",
                    "pressure_bar", "tau_p_fs", "compressibility_per_bar", "barostat", "barostat_every", "restart",
                    "fmax", "pressure_tol_bar", "max_move", "relax_cell", "respa_every"});
    IntegratorSettings& in = s.integrator;
    const std::string kind = md->get_string("integrator", "nve");
    if (!integrator_known(kind))
      md->fail("integrator", "unknown integrator \"" + kind + "\"; valid: " + names_text(integrator_names()));
    if (kind == "minimize") s.mode = "minimize";
    else in.kind = kind;
    if (md->has("respa_every")) {
      if (!integrator_takes_respa(kind))
        md->fail("respa_every", "multiple time stepping works with the integrators " + respa_integrators_text() +
                                    ", not \"" + kind + "\"");
      in.respa_every = respa_periods(*md);
      in.respa_file = md->file;
      in.respa_line = md->line_of("respa_every");
    }
    in.dt = md->get_double("timestep_fs", 1.0) * 1e-3;
    if (!(in.dt > 0)) md->fail("timestep_fs", "must be positive");
    s.steps = md->get_int("steps", 1000);
    if (s.steps < 0) md->fail("steps", "must not be negative");
    in.temperature = md->get_double("temperature_K", 300.0);
    if (in.temperature < 0) md->fail("temperature_K", "must not be negative");
    s.init_velocities = md->get_bool("init_velocities", true);
    in.seed = static_cast<uint64_t>(md->get_int("seed", 12345));
    in.tau_t = md->get_double("tau_t_fs", 100.0) * 1e-3;
    if (!(in.tau_t > 0)) md->fail("tau_t_fs", "must be positive");
    in.pressure = md->get_double("pressure_bar", 1.0);
    in.tau_p = md->get_double("tau_p_fs", 1000.0) * 1e-3;
    if (!(in.tau_p > 0)) md->fail("tau_p_fs", "must be positive");
    in.compressibility = md->get_double("compressibility_per_bar", 7e-7);
    if (!(in.compressibility > 0)) md->fail("compressibility_per_bar", "must be positive");
    const std::string baro = md->get_string("barostat", "isotropic");
    if (baro != "isotropic" && baro != "anisotropic") md->fail("barostat", "expected \"isotropic\" or \"anisotropic\"");
    in.anisotropic = baro == "anisotropic";
    in.barostat_every = static_cast<int>(md->get_int("barostat_every", 10, 1, std::numeric_limits<int>::max()));
    s.restart = resolve(md->get_string("restart", ""), base);
    s.minimize.fmax = md->get_double("fmax", 1e-3);
    if (!(s.minimize.fmax > 0)) md->fail("fmax", "must be positive");
    s.minimize.pressure_tol = md->get_double("pressure_tol_bar", 1.0);
    if (!(s.minimize.pressure_tol > 0)) md->fail("pressure_tol_bar", "must be positive");
    s.minimize.max_move = md->get_double("max_move", 0.1);
    if (!(s.minimize.max_move > 0)) md->fail("max_move", "must be positive");
    s.minimize.relax_cell = md->get_bool("relax_cell", false);
    s.minimize.pressure = in.pressure;
    s.minimize.max_steps = s.steps;
  }
  if (auto out = root.sub("output")) {
    out->allow_only({"thermo_every", "thermo_csv", "trajectory", "trajectory_format", "trajectory_every",
                     "checkpoint", "checkpoint_every", "progress", "thermo_screen"});
    OutputSettings& o = s.output;
    o.thermo_every = out->get_int("thermo_every", 100);
    if (o.thermo_every < 1) out->fail("thermo_every", "must be at least 1");
    o.thermo_csv = resolve(out->get_string("thermo_csv", ""), base);
    o.trajectory = resolve(out->get_string("trajectory", ""), base);
    o.trajectory_format = out->get_string("trajectory_format", "");
    if (!o.trajectory_format.empty() && o.trajectory_format != "extxyz" && o.trajectory_format != "lammps-dump")
      out->fail("trajectory_format", "expected \"extxyz\" or \"lammps-dump\"");
    o.trajectory_every = out->get_int("trajectory_every", 100);
    if (o.trajectory_every < 1) out->fail("trajectory_every", "must be at least 1");
    o.checkpoint = resolve(out->get_string("checkpoint", ""), base);
    o.checkpoint_every = out->get_int("checkpoint_every", 1000);
    if (o.checkpoint_every < 1) out->fail("checkpoint_every", "must be at least 1");
    o.progress = out->get_bool("progress", true);
    o.thermo_screen = out->get_bool("thermo_screen", true);
  }
  if (auto nb = root.sub("neighbor")) {
    nb->allow_only({"skin", "sort_every"});
    s.skin = nb->get_double("skin", 1.0);
    // The list reaches cutoff + skin: bounded as the cutoffs are (kMaxCutoff).
    if (!(s.skin >= 0 && s.skin <= kMaxCutoff))
      nb->fail("skin", "expected 0 to " + std::to_string(static_cast<int>(kMaxCutoff)) + " Å");
    s.sort_every = nb->get_int("sort_every", 1000, 0, std::numeric_limits<int>::max());  // 0: never
  }
  return s;
}

}  // namespace quasar::md
