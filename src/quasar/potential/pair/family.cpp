// The pair folder's families in the registry: Lennard-Jones and EAM.
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar {

void register_pair_families(PotentialRegistry& registry) {
  Capabilities pair;
  pair.gpu = true;
  pair.ghost_atoms = true;
  pair.per_atom = true;

  PotentialFamily lj;
  lj.name = "lj";
  lj.description = "Lennard-Jones 12-6 as LAMMPS's lj/cut: per-type parameters, mixing, shift";
  lj.capabilities = pair;
  lj.from_config = [](const ConfigTable& t, const std::filesystem::path&) -> std::unique_ptr<Potential> {
    return std::make_unique<LennardJones>(t);
  };
  registry.add(std::move(lj));

  PotentialFamily eam;
  eam.name = "eam";
  eam.description = "embedded-atom method: DYNAMO funcfl and setfl files as LAMMPS's eam and eam/alloy";
  eam.capabilities = pair;
  eam.from_config = [](const ConfigTable& t, const std::filesystem::path& base_dir) -> std::unique_ptr<Potential> {
    return std::make_unique<Eam>(Eam::from_config(t, base_dir));
  };
  eam.model_extensions = {".eam", ".eam.alloy", ".setfl"};
  eam.from_file = [](const std::string& path, const ModelOptions&) -> std::unique_ptr<Potential> {
    const bool funcfl = path.size() >= 4 && path.compare(path.size() - 4, 4, ".eam") == 0;
    return std::make_unique<Eam>(funcfl ? Eam::from_funcfl({{"*", path}}) : Eam::from_setfl(path));
  };
  registry.add(std::move(eam));
}

}  // namespace quasar
