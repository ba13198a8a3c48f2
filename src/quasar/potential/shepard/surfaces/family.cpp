// The analytic reference surfaces in the registry (type "analytic-surface").
#include "quasar/core/config.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/surfaces/surface_potential.hpp"

namespace quasar {

void register_analytic_surface_family(PotentialRegistry& registry) {
  PotentialFamily family;
  family.name = "analytic-surface";
  family.description = "published analytic surfaces of small reactions (ch5-cbg2009: H + CH4), CPU, for Shepard work";
  family.capabilities.per_atom = true;
  family.from_config = [](const ConfigTable& t, const std::filesystem::path&) -> std::unique_ptr<Potential> {
    return std::make_unique<AnalyticSurfacePotential>(t);
  };
  registry.add(std::move(family));
}

}  // namespace quasar
