// The bonded folder's families in the registry: bond/harmonic and angle/harmonic. Their terms take
// entries and coefficients from the system's topology, which a LAMMPS pair style does not hand over
// (no ghost atoms).
#include "quasar/potential/bonded/bonded_term.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar {

void register_bonded_families(PotentialRegistry& registry) {
  Capabilities bonded;
  bonded.gpu = true;
  bonded.per_atom = true;
  const struct {
    const char* name;
    const char* description;
  } types[] = {{"bond/harmonic", "harmonic bonds E = K (r - r0)^2 from the data file's Bonds and Bond Coeffs"},
               {"angle/harmonic", "harmonic angles E = K (theta - theta0)^2 from the data file's Angles and Angle Coeffs"}};
  for (const auto& t : types) {
    PotentialFamily f;
    f.name = t.name;
    f.description = t.description;
    f.capabilities = bonded;
    f.from_config = [](const ConfigTable& table, const std::filesystem::path&) { return make_bonded_potential(table); };
    registry.add(std::move(f));
  }
}

}  // namespace quasar
