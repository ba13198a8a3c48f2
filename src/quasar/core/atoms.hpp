#pragma once
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/device/array.hpp"

namespace quasar {

// Raw pointers to the per-atom arrays of an AtomState, passed by value to CPU loops and to kernels
// alike. Positions may lie outside the cell between neighbour-list builds.
struct AtomsRef {
  int n = 0;
  Box box;                      // the cell (of every atom: one system)
  double *x, *y, *z;
  double *vx, *vy, *vz;
  double *fx, *fy, *fz;
  int* type;
  const double* charge;       // null when the system has no charges
  const double* type_mass;    // per type
  int *ix, *iy, *iz;          // periodic image counters (unwrapped r = r + image * h)
  long* id;                   // id of the atom in the input (kept through spatial sorting)
  const int* index_of;        // current index of the atom with input index k: index_of[id[i]] == i
  int n_local = 0;            // atoms with id < n_local are centres; the rest are ghosts (see AtomState)

  // The cell atom i lives in: every displacement and image translation of atom i goes through it.
  QUASAR_HD const Box& box_of(int /*i*/) const { return box; }
};

// Atom state in structure-of-arrays form on one backend. In a GPU run it lives on the device for
// the whole run; the host sees it only through to_structure() at output steps.
class AtomState {
 public:
  // n_local >= 0: only the first n_local atoms of s are centres whose energy counts; the others
  // are ghosts (copies of atoms owned elsewhere, as LAMMPS gives them to a pair style) that only
  // serve as neighbours and receive forces. Potentials that do not support ghosts ignore this.
  AtomState(Backend backend, const Structure& s, int n_local = -1);
  // Replaces every atom by those of s, in the arrays already allocated (they grow when needed).
  void load(const Structure& s, int n_local = -1);

  Backend backend() const { return backend_; }
  int size() const { return n_; }
  const Box& box() const { return box_; }
  void set_box(const Box& b) { box_ = b; }
  const std::vector<std::string>& type_names() const { return type_names_; }
  const std::vector<double>& type_masses() const { return type_masses_host_; }
  int num_types() const { return static_cast<int>(type_names_.size()); }
  // Atoms of each type (host copy: types never change, sorting only permutes them).
  const std::vector<int>& type_counts() const { return type_counts_; }
  int n_local() const { return n_local_; }
  const std::vector<int>& local_type_counts() const { return local_type_counts_; }
  bool has_charges() const { return !charge.empty(); }
  // The id of input atom `index` (0-based input order) as the user knows it: the file's, else index + 1.
  long file_id(long index) const { return file_ids_.empty() ? index + 1 : file_ids_[static_cast<std::size_t>(index)]; }
  AtomsRef ref();

  // Copies the state back to the host in input order (ids restored), with velocities and
  // unwrapped image information folded back into wrapped positions.
  Structure to_structure() const;
  // Overwrites positions/velocities (input order) from a structure of the same atoms.
  void load_positions(const Structure& s);
  // Reorders every per-atom array by perm (new index -> old index): used for spatial sorting.
  void permute(const Array<int>& perm);

  Array<double> x, y, z, vx, vy, vz, fx, fy, fz;
  Array<int> type;
  Array<double> charge;
  Array<double> type_mass;
  Array<int> ix, iy, iz;
  Array<long> id;
  Array<int> index_of;  // input index -> current index (the inverse of id), kept through sorting
  // Recomputes index_of after id was assigned directly (checkpoints); permute and load keep it.
  void update_index_of();

 private:
  Backend backend_;
  int n_, n_local_;
  Box box_;
  std::vector<std::string> type_names_;
  std::vector<double> type_masses_host_;
  std::vector<int> type_counts_, local_type_counts_;
  std::vector<long> file_ids_;  // ids as read, indexed by input order
};

}  // namespace quasar
