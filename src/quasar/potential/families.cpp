// Every family built in: one registration function per family folder, called here, in the order
// that `quasar info` and error messages list them. Families are listed rather than registered by
// static initialisers in their own files, because a static library keeps only the object files
// that something references: this list is that reference. Each line is compiled when its module is
// built (CMake's QUASAR_WITH_<MODULE> options set the definitions); this file belongs to the
// `quasar` library itself, not to the potential module, since it names the family modules.
#include "quasar/potential/registry.hpp"

namespace quasar {

#if QUASAR_WITH_PAIR
void register_pair_families(PotentialRegistry& registry);  // potential/pair/family.cpp
#endif
#if QUASAR_WITH_BONDED
void register_bonded_families(PotentialRegistry& registry);  // potential/bonded/family.cpp
#endif
#if QUASAR_WITH_DP
namespace dp {
void register_family(PotentialRegistry& registry);  // potential/dp/family.cpp
}
#endif
#if QUASAR_WITH_NNP
namespace nnp {
void register_family(PotentialRegistry& registry);  // potential/nnp/family.cpp
}
#endif
#if QUASAR_WITH_SHEPARD
namespace shepard {
void register_family(PotentialRegistry& registry);  // potential/shepard/family.cpp
}
#endif
#if QUASAR_WITH_AMOEBA
namespace amoeba {
void register_family(PotentialRegistry& registry);  // potential/amoeba/family.cpp
}
#endif
#if QUASAR_WITH_SURFACES
void register_analytic_surface_family(PotentialRegistry& registry);  // potential/shepard/surfaces/family.cpp
#endif

PotentialRegistry& potential_registry() {
  static PotentialRegistry registry = [] {
    PotentialRegistry r;
#if QUASAR_WITH_PAIR
    register_pair_families(r);
#endif
#if QUASAR_WITH_BONDED
    register_bonded_families(r);
#endif
#if QUASAR_WITH_DP
    dp::register_family(r);
#endif
#if QUASAR_WITH_NNP
    nnp::register_family(r);
#endif
#if QUASAR_WITH_SHEPARD
    shepard::register_family(r);
#endif
#if QUASAR_WITH_SURFACES
    register_analytic_surface_family(r);
#endif
#if QUASAR_WITH_AMOEBA
    amoeba::register_family(r);
#endif
    return r;
  }();
  return registry;
}

}  // namespace quasar
