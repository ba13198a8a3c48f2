// Fuzz target: the TOML input of `quasar run`, through every check `quasar run` makes before the
// simulation starts (cli/run.cpp, md::run_from_config): toml++'s parser, the top-level keys and
// device, [md], [output] and [neighbor], the structure (a lattice, or a file) and the potential
// of [potential] (LJ, EAM or Deep Potential files), then the potential bound to the structure's
// types, and [ensemble] for copies of the structure. Relative file names resolve in an empty scratch folder, so they must end in "not found";
// absolute ones (the examples' LAMMPS potential) are read. Lattices of more than 20000 atoms are
// not built (valid input whose only cost is its size; the counts' range is the reader's to check
// when they are small). Seeds: examples/*/*.toml and the inputs the
// tests write (fuzz/seeds/run_input).
#include <cmath>
#include <filesystem>

#include "fuzz_input.hpp"
#include "quasar/core/config.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/ensemble_input.hpp"
#include "quasar/md/settings.hpp"
#include "quasar/potential/registry.hpp"

namespace {

// A lattice whose repeat counts (by magnitude) would give more than `limit` atoms (up to 8 per cell).
bool big_lattice(const toml::table& root, double limit) {
  const toml::array* rep = root.at_path("structure.repeat").as_array();
  if (!root.at_path("structure.lattice") || !rep || rep->size() != 3) return false;
  double atoms = 8;
  for (const auto& r : *rep) atoms *= std::abs(r.value<double>().value_or(1.0));
  return atoms > limit;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.toml");
  const auto base = std::filesystem::path(path).parent_path() / "empty";
  std::filesystem::create_directories(base);
  return quasar::fuzz::expect_input_error([&] {
    const toml::table root = quasar::parse_toml_file(path);
    const quasar::ConfigTable top{&root, path, ""};
    top.allow_only({"structure", "potential", "md", "output", "neighbor", "device", "deterministic", "ensemble"});
    top.get_bool("deterministic", false);
    quasar::parse_backend(top.get_string("device", "auto"));
    quasar::md::md_settings_from_config(top, base);
    const bool build_structure = !big_lattice(root, 20000);
    quasar::Structure s;
    if (build_structure) s = quasar::io::structure_from_config(top.require_sub("structure"), base);
    auto force_field = quasar::make_force_field(top, base);
    if (build_structure) force_field.bind(quasar::SystemSetup::of(s));
    // [ensemble]: copies of the structure (at most 20000 atoms in all) and the table's other keys.
    if (const auto e = top.sub("ensemble")) {
      const long copies = e->get_int("copies", 1, 1, 100000000);
      if (build_structure && copies >= 2 && static_cast<double>(copies) * static_cast<double>(s.size()) <= 20000) {
        const std::vector<quasar::Structure> systems(static_cast<std::size_t>(copies), s);
        quasar::md::ensemble_settings_from_config(*e, systems, base);
      }
    }
  });
}
