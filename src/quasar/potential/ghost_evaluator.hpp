#pragma once
// A model evaluated for the local atoms of a domain-decomposed MD code, with the ghost atoms it
// provides as neighbours (LAMMPS's pair style quasar: lammps/pair_quasar.cpp). This header is C++11
// and includes nothing of Quasar's, so that it compiles inside LAMMPS whatever its C++ standard.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace quasar {

class GhostEvaluator {
 public:
  // model: any model Quasar reads (a family's model file, or a TOML file of [potential] tables)
  // whose families support ghost atoms (the registry's capabilities); device: auto, cpu or cuda
  // (then GPU local_rank mod the node's GPUs); precision: double, mixed32 or mixed16 (for the terms
  // whose families offer it); options: the model file's options (name, value), as `quasar eval`'s
  // (("units", "bohr,Ha") for n2p2's files), each one its family must take. Throws std::runtime_error
  // with the reason.
  GhostEvaluator(const std::string& model, const std::string& device, const std::string& precision, int local_rank,
                 const std::vector<std::pair<std::string, std::string> >& options =
                     std::vector<std::pair<std::string, std::string> >());
  // The names of the model options any family built in takes ("units"), for a code's keyword checks.
  static std::vector<std::string> model_option_names();
  ~GhostEvaluator();
  double cutoff() const;
  bool on_gpu() const;
  // The model's name of each of the code's atom types (type 1 first).
  void set_type_names(const std::vector<std::string>& names);

  // Atoms [0, nlocal) are centres, [nlocal, nall) ghosts; types are 1-based. `rebuild`: the set of
  // ghosts changed (a re-neighbouring). Adds forces to f (of every atom, ghosts included) and,
  // where the pointers are not null, the energy, the virial (xx yy zz xy xz yz), per-atom energies
  // (local atoms) and per-atom virials (every atom, same order).
  void compute(double* const* x, const int* type, int nlocal, int nall, bool rebuild, double* const* f,
               double* energy, double* virial, double* atom_energy, double* const* atom_virial);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar
