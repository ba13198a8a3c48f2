/* pair_style quasar/dp MODEL [device auto|cpu|cuda] [precision double|mixed32|mixed16]
   pair_coeff * * NAME_OF_TYPE_1 NAME_OF_TYPE_2 ...   (names from the model's type_map)

   Each rank evaluates the model for its local atoms as centres, with LAMMPS's ghost atoms as
   their neighbours, in an open box: Quasar builds its own neighbour list of local and ghost atoms
   and gives forces and per-atom virials to ghosts as well; LAMMPS sums those back onto their
   owners (newton pair on). Needs metal units. */
#include "pair_quasar_dp.h"

#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "neighbor.h"
#include "update.h"
#include "quasar/core/atoms.hpp"
#include "quasar/core/error.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/potential.hpp"
#include "quasar/potential/registry.hpp"

using namespace LAMMPS_NS;

struct PairQuasarDP::Engine {
  std::unique_ptr<quasar::Potential> potential;
  quasar::Backend backend = quasar::Backend::Cpu;
  std::vector<std::string> type_name;  // per LAMMPS type (index 1..ntypes)
  // Rebuilt when LAMMPS re-neighbours (the set of ghosts changes), else only positions move.
  quasar::Structure structure;
  std::unique_ptr<quasar::AtomState> atoms;
  std::unique_ptr<quasar::NeighborList> list;
  std::unique_ptr<quasar::ForceOutput> out;
  std::vector<double> fx, fy, fz, atom_energy, atom_virial;

  void update(double **x, const int *type, int nlocal, int nall, bool rebuild) {
    auto &s = structure;
    if (rebuild || !atoms || static_cast<int>(s.size()) != nall) {
      s = quasar::Structure();
      for (std::size_t t = 1; t < type_name.size(); ++t) s.type_index(type_name[t]);
      for (double &m : s.type_masses)
        if (m == 0) m = 1.0;  // masses do not enter the potential
      s.positions.resize(nall);
      s.types.resize(nall);
      for (int i = 0; i < nall; ++i) {
        s.positions[i] = {x[i][0], x[i][1], x[i][2]};
        s.types[i] = type[i] - 1;
      }
      // Room for the atoms to move until the next re-neighbouring.
      s.box = quasar::Box::enclosing(s.positions, 2 * potential->cutoff() + 10.0);
      atoms = std::make_unique<quasar::AtomState>(backend, s, nlocal);
      quasar::NeighborSettings ns;
      ns.cutoff = potential->cutoff();
      ns.skin = 1.0;
      ns.kind = potential->list_kind(backend);
      ns.sort_every = 0;  // atom i stays LAMMPS's atom i
      list = std::make_unique<quasar::NeighborList>(backend, ns);
      if (!out) out = std::make_unique<quasar::ForceOutput>(backend);
      potential->bind_types(atoms->type_names());
      list->build(*atoms);
      return;
    }
    for (int i = 0; i < nall; ++i) s.positions[i] = {x[i][0], x[i][1], x[i][2]};
    atoms->load_positions(s);
    list->update(*atoms);
  }
};

PairQuasarDP::PairQuasarDP(LAMMPS *lmp) : Pair(lmp)
{
  single_enable = 0;
  restartinfo = 0;
  one_coeff = 1;
  manybody_flag = 1;
  no_virial_fdotr_compute = 1;  // the virial comes from Quasar
  centroidstressflag = CENTROID_NOTAVAIL;
}

PairQuasarDP::~PairQuasarDP()
{
  if (allocated) {
    memory->destroy(setflag);
    memory->destroy(cutsq);
  }
}

void PairQuasarDP::allocate()
{
  allocated = 1;
  const int n = atom->ntypes;
  memory->create(setflag, n + 1, n + 1, "pair:setflag");
  memory->create(cutsq, n + 1, n + 1, "pair:cutsq");
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = 0;
}

void PairQuasarDP::settings(int narg, char **arg)
{
  if (narg < 1 || narg % 2 == 0)
    error->all(FLERR, "Illegal pair_style quasar/dp command: quasar/dp MODEL [device D] [precision P]");
  std::string device = "auto", precision = "double";
  for (int k = 1; k < narg; k += 2) {
    if (strcmp(arg[k], "device") == 0) device = arg[k + 1];
    else if (strcmp(arg[k], "precision") == 0) precision = arg[k + 1];
    else error->all(FLERR, std::string("Unknown pair_style quasar/dp keyword: ") + arg[k]);
  }
  try {
    engine = std::make_unique<Engine>();
    engine->backend = quasar::parse_backend(device);
    if (engine->backend == quasar::Backend::Cuda) {
      MPI_Comm node;
      int local_rank = 0;
      MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, comm->me, MPI_INFO_NULL, &node);
      MPI_Comm_rank(node, &local_rank);
      MPI_Comm_free(&node);
      quasar::device::select_gpu(local_rank);
    }
    engine->potential = quasar::load_model(arg[0]);
    quasar::set_model_precision(*engine->potential, precision);
    if (engine->potential->name() != "deepmd")
      error->all(FLERR, std::string("pair_style quasar/dp: ") + arg[0] + " is not a Deep Potential model");
  } catch (const quasar::Error &e) {
    error->all(FLERR, std::string("pair_style quasar/dp: ") + e.what());
  }
}

void PairQuasarDP::coeff(int narg, char **arg)
{
  if (!allocated) allocate();
  const int n = atom->ntypes;
  if (narg != 2 + n || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR, "Incorrect args for pair_coeff quasar/dp: * * followed by one model type name per atom type");
  engine->type_name.assign(1, "");
  for (int t = 1; t <= n; t++) engine->type_name.emplace_back(arg[1 + t]);
  try {
    engine->potential->bind_types({engine->type_name.begin() + 1, engine->type_name.end()});
  } catch (const quasar::Error &e) {
    error->all(FLERR, std::string("pair_coeff quasar/dp: ") + e.what());
  }
  for (int i = 1; i <= n; i++)
    for (int j = i; j <= n; j++) setflag[i][j] = 1;
}

void PairQuasarDP::init_style()
{
  if (strcmp(update->unit_style, "metal") != 0) error->all(FLERR, "Pair style quasar/dp requires metal units");
  if (force->newton_pair == 0) error->all(FLERR, "Pair style quasar/dp requires newton pair on");
  // No LAMMPS neighbour list: Quasar lists the local and ghost atoms itself.
}

double PairQuasarDP::init_one(int, int)
{
  return engine->potential->cutoff();
}

void PairQuasarDP::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  const int nlocal = atom->nlocal, nall = nlocal + atom->nghost;
  Engine &e = *engine;
  try {
    e.update(atom->x, atom->type, nlocal, nall, neighbor->ago == 0);
    const bool per_atom = eflag_atom || vflag_atom;
    e.potential->compute(*e.atoms, e.list->ref(), {eflag_either != 0, vflag_either != 0, per_atom}, *e.out);
    e.fx = e.atoms->fx.to_vector();
    e.fy = e.atoms->fy.to_vector();
    e.fz = e.atoms->fz.to_vector();
    if (per_atom) {
      e.atom_energy = e.out->atom_energy.to_vector();
      e.atom_virial = e.out->atom_virial.to_vector();
    }
  } catch (const quasar::Error &err) {
    error->one(FLERR, std::string("pair quasar/dp: ") + err.what());
  }
  double **f = atom->f;
  for (int i = 0; i < nall; i++) {
    f[i][0] += e.fx[i];
    f[i][1] += e.fy[i];
    f[i][2] += e.fz[i];
  }
  if (eflag_global) eng_vdwl += e.out->energy();
  if (vflag_global) {
    const quasar::Mat3 w = e.out->virial();
    virial[0] += w(0, 0);
    virial[1] += w(1, 1);
    virial[2] += w(2, 2);
    virial[3] += w(0, 1);
    virial[4] += w(0, 2);
    virial[5] += w(1, 2);
  }
  if (eflag_atom)
    for (int i = 0; i < nlocal; i++) eatom[i] += e.atom_energy[i];
  if (vflag_atom) {
    // Quasar: component-major [(3a + b) n + i]; LAMMPS: xx yy zz xy xz yz per atom.
    const std::size_t n = nall;
    const double *w = e.atom_virial.data();
    for (int i = 0; i < nall; i++) {
      vatom[i][0] += w[0 * n + i];
      vatom[i][1] += w[4 * n + i];
      vatom[i][2] += w[8 * n + i];
      vatom[i][3] += w[1 * n + i];
      vatom[i][4] += w[2 * n + i];
      vatom[i][5] += w[5 * n + i];
    }
  }
}
