/* pair_style quasar MODEL [device auto|cpu|cuda] [precision double|mixed32|mixed16] [OPTION VALUE ...]
   pair_coeff * * NAME_OF_TYPE_1 NAME_OF_TYPE_2 ...   (names the model knows: elements, type_map)
   (pair_style quasar/dp is the same style.)

   MODEL is any model Quasar reads whose families support ghost atoms: a Deep Potential, an EAM
   file, an n2p2 folder, a TOML file of [potential] tables (a force field of several terms). OPTIONs
   are the model file's options of `quasar eval` (`units bohr,Ha` for n2p2 files in bohr and
   hartree); LAMMPS itself stays in metal units. Each rank evaluates the
   model for its local atoms as centres, with LAMMPS's ghost atoms as their neighbours
   (quasar::GhostEvaluator): forces and per-atom virials of ghosts go back to LAMMPS, which sums them
   onto their owners (newton pair on). Needs metal units. */
#include "pair_quasar.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "neighbor.h"
#include "update.h"
#include "quasar/potential/ghost_evaluator.hpp"

using namespace LAMMPS_NS;

PairQuasar::PairQuasar(LAMMPS *lmp, const char *style_name) : Pair(lmp), style(style_name)
{
  single_enable = 0;
  restartinfo = 0;
  one_coeff = 1;
  manybody_flag = 1;
  no_virial_fdotr_compute = 1;  // the virial comes from Quasar
  centroidstressflag = CENTROID_NOTAVAIL;
}

PairQuasar::~PairQuasar()
{
  if (allocated) {
    memory->destroy(setflag);
    memory->destroy(cutsq);
  }
}

void PairQuasar::allocate()
{
  allocated = 1;
  const int n = atom->ntypes;
  memory->create(setflag, n + 1, n + 1, "pair:setflag");
  memory->create(cutsq, n + 1, n + 1, "pair:cutsq");
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = 0;
}

void PairQuasar::settings(int narg, char **arg)
{
  if (narg < 1 || narg % 2 == 0)
    error->all(FLERR, "Illegal pair_style " + style + " command: " + style +
                          " MODEL [device D] [precision P] [OPTION VALUE ...]");
  std::string device = "auto", precision = "double";
  std::vector<std::pair<std::string, std::string>> options;  // the model file's options
  const std::vector<std::string> option_names = quasar::GhostEvaluator::model_option_names();
  for (int k = 1; k < narg; k += 2) {
    if (strcmp(arg[k], "device") == 0) device = arg[k + 1];
    else if (strcmp(arg[k], "precision") == 0) precision = arg[k + 1];
    else if (std::find(option_names.begin(), option_names.end(), arg[k]) != option_names.end())
      options.emplace_back(arg[k], arg[k + 1]);
    else {
      std::string valid = "device, precision";
      for (const std::string &n : option_names) valid += ", " + n;
      error->all(FLERR, "Unknown pair_style " + style + " keyword: " + arg[k] + " (valid: " + valid + ")");
    }
  }
  // One GPU per rank of a node.
  MPI_Comm node;
  int local_rank = 0;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, comm->me, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  try {
    engine.reset(new quasar::GhostEvaluator(arg[0], device, precision, local_rank, options));
  } catch (const std::exception &e) {
    error->all(FLERR, "pair_style " + style + ": " + e.what());
  }
}

void PairQuasar::coeff(int narg, char **arg)
{
  if (!allocated) allocate();
  const int n = atom->ntypes;
  if (narg != 2 + n || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR, "Incorrect args for pair_coeff " + style +
                          ": * * followed by one model type name for each of the " + std::to_string(n) +
                          " atom types");
  try {
    engine->set_type_names(std::vector<std::string>(arg + 2, arg + 2 + n));
  } catch (const std::exception &e) {
    error->all(FLERR, "pair_coeff " + style + ": " + e.what());
  }
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = 1;
}

void PairQuasar::init_style()
{
  if (strcmp(update->unit_style, "metal") != 0) error->all(FLERR, "Pair style " + style + " requires metal units");
  if (force->newton_pair == 0) error->all(FLERR, "Pair style " + style + " requires newton pair on");
  // No LAMMPS neighbour list: Quasar lists the local and ghost atoms itself.
}

double PairQuasar::init_one(int, int)
{
  return engine->cutoff();
}

void PairQuasar::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  try {
    engine->compute(atom->x, atom->type, atom->nlocal, atom->nlocal + atom->nghost, neighbor->ago == 0, atom->f,
                    eflag_global ? &eng_vdwl : nullptr, vflag_global ? virial : nullptr,
                    eflag_atom ? eatom : nullptr, vflag_atom ? vatom : nullptr);
  } catch (const std::exception &e) {
    error->one(FLERR, "pair " + style + ": " + e.what());
  }
}
