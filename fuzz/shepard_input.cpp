// Fuzz target: the TOML inputs of `quasar shepard qct`, `quasar shepard grow` and `quasar shepard eval
// --grid`, through every check they make before the first trajectory or grid point (cli/qct.cpp,
// cli/shepard.cpp): toml++'s parser, the top-level keys and device, [qct]
// (qct_settings_from_config), with [grow] the growth settings (grow_settings_from_config), and the
// reference force field of [potential] or the reference program of [reference]; with [[zmatrix]]
// the grid (grid_settings_from_config) and the Cartesians of its first and last points. Relative file names resolve in an empty scratch
// folder, so they must end in "not found". Seeds: the examples' inputs and the inputs the tests
// write (fuzz/seeds/shepard_input).
#include <filesystem>

#include "fuzz_input.hpp"
#include "quasar/core/config.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/grid_io.hpp"
#include "quasar/potential/shepard/grow/grow.hpp"
#include "quasar/qct/qct.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.toml");
  const auto base = std::filesystem::path(path).parent_path() / "empty";
  std::filesystem::create_directories(base);
  return quasar::fuzz::expect_input_error([&] {
    const toml::table root = quasar::parse_toml_file(path);
    const quasar::ConfigTable top{&root, path, ""};
    if (top.has("zmatrix")) {
      const quasar::shepard::GridSettings g = quasar::shepard::grid_settings_from_config(top);
      std::vector<double> x(static_cast<std::size_t>(3 * g.grid.atoms()));
      g.grid.cartesians(0, x.data());
      g.grid.cartesians(g.grid.points() - 1, x.data());
      return;
    }
    top.allow_only({"potential", "reference", "qct", "grow", "device"});
    quasar::parse_backend(top.get_string("device", "cpu"));
    if (top.has("grow"))
      quasar::shepard::grow_settings_from_config(top.require_sub("grow"), top.require_sub("qct"));
    else
      quasar::qct::qct_settings_from_config(top.require_sub("qct"));
    if (top.has("reference"))
      quasar::shepard::external_reference_from_config(top.require_sub("reference"), base);
    else
      quasar::make_force_field(top, base);
  });
}
