// The shepard folder's family in the registry: modified Shepard interpolated surfaces of one
// molecule, from a data-set file, text or HDF5 (docs/formats/shepard.md).
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/shepard_potential.hpp"

namespace quasar::shepard {

void register_family(PotentialRegistry& registry) {
  PotentialFamily f;
  f.name = "shepard";
  f.description = "modified Shepard interpolation (Collins) of one molecule's surface from a .shepard data set (text or HDF5)";
  f.capabilities.gpu = true;       // the batch of molecules evaluated by gpu_interpolant.cu
  f.capabilities.per_atom = true;  // the energy shared evenly, virials r_i F_i
  f.from_config = [](const ConfigTable& t, const std::filesystem::path& base_dir) -> std::unique_ptr<Potential> {
    t.allow_only({"type", "name", "group", "file"});
    const std::filesystem::path given(t.get_string("file"));
    const std::string path = (given.is_absolute() ? given : base_dir / given).string();
    if (!std::filesystem::is_regular_file(path)) t.fail("file", "Shepard data set '" + path + "' not found");
    return ShepardPotential::from_file(path);
  };
  f.model_extensions = {".shepard", ".shepard.h5", ".shepard.hdf5"};
  f.from_file = [](const std::string& path, const ModelOptions&) -> std::unique_ptr<Potential> {
    return ShepardPotential::from_file(path);
  };
  registry.add(std::move(f));
}

}  // namespace quasar::shepard
