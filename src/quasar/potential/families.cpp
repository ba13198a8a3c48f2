// Every family built in: one registration function per family folder, called here, in the order
// that `quasar info` and error messages list them. Families are listed rather than registered by
// static initialisers in their own files, because a static library keeps only the object files
// that something references: this list is that reference.
#include "quasar/potential/registry.hpp"

namespace quasar {

void register_pair_families(PotentialRegistry& registry);    // potential/pair/family.cpp
void register_bonded_families(PotentialRegistry& registry);  // potential/bonded/family.cpp
namespace dp {
void register_family(PotentialRegistry& registry);  // potential/dp/family.cpp
}

PotentialRegistry& potential_registry() {
  static PotentialRegistry registry = [] {
    PotentialRegistry r;
    register_pair_families(r);
    register_bonded_families(r);
    dp::register_family(r);
    return r;
  }();
  return registry;
}

}  // namespace quasar
