// Entry point of quasarplugin.so for LAMMPS's `plugin load`: pair styles quasar and quasar/dp.
#include "lammpsplugin.h"
#include "pair_quasar.h"
#include "version.h"

using namespace LAMMPS_NS;

static Pair *quasar_creator(LAMMPS *lmp)
{
  return new PairQuasar(lmp);
}

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
  plugin.name = "quasar";
  plugin.info = "Quasar pair style: any model Quasar reads (Deep Potential, EAM, n2p2, TOML force fields), CPU or GPU";
  plugin.author = "Quasar developers";
  plugin.creator.v1 = (lammpsplugin_factory1 *) &quasar_creator;
  plugin.handle = handle;
  (*register_plugin)(&plugin, lmp);
  plugin.name = "quasar/dp";
  plugin.info = "Quasar pair style quasar under its earlier name";
  plugin.creator.v1 = (lammpsplugin_factory1 *) &quasar_dp_creator;
  (*register_plugin)(&plugin, lmp);
}
