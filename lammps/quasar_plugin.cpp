// Entry point of quasarplugin.so for LAMMPS's `plugin load`.
#include "lammpsplugin.h"
#include "pair_quasar.h"
#include "version.h"

using namespace LAMMPS_NS;

static Pair *quasar_dp_creator(LAMMPS *lmp)
{
  return new PairQuasarDP(lmp);
}

extern "C" void lammpsplugin_init(void *lmp, void *handle, void *regfunc)
{
  lammpsplugin_t plugin;
  auto register_plugin = (lammpsplugin_regfunc) regfunc;
  plugin.version = LAMMPS_VERSION;
  plugin.style = "pair";
  plugin.name = "quasar/dp";
  plugin.info = "Quasar Deep Potential (se_e2_a) pair style, CPU or GPU";
  plugin.author = "Quasar developers";
  plugin.creator.v1 = (lammpsplugin_factory1 *) &quasar_dp_creator;
  plugin.handle = handle;
  (*register_plugin)(&plugin, lmp);
}
