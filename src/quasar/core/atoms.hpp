#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/device/array.hpp"

namespace quasar {

// Raw pointers to the per-atom arrays of an AtomState, passed by value to CPU loops and to kernels
// alike. Positions may lie outside the cell between neighbour-list builds.
struct AtomsRef {
  int n = 0;
  Box box;                      // the cell of a single system (of every atom when `system` is null)
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
  // A batch of several systems: each atom's system and each system's cell. Both null for one
  // system, so that the single-system case reads `box` as it always did.
  const int* system = nullptr;
  const Box* boxes = nullptr;

  // The cell atom i lives in: every displacement and image translation of atom i goes through it.
  // On the device a copy: a reference that could point into the kernel's parameters or into global
  // memory would make the compiler address the parameters generically (and change the code of the
  // single-system kernels); a copy from either is two plain loads the compiler keeps apart.
#ifdef __CUDA_ARCH__
  __device__ Box box_of(int i) const {
    if (system) return boxes[system[i]];
    return box;
  }
#else
  const Box& box_of(int i) const { return system ? boxes[system[i]] : box; }
#endif
};

// One entry of the per-atom property registry (AtomState::properties): `width` values per atom in
// an array on the state's backend, component-major (value c of atom i at c n + i). Spatial sorting
// permutes every entry, loading sizes every entry, checkpoints keep every `saved` entry (in input
// order) and to_structure hands every `output` entry to Structure::columns.
struct AtomProperty {
  std::string name;
  std::variant<Array<double>*, Array<int>*, Array<long>*> array;
  int width = 1;
  bool saved = true;      // in checkpoints
  bool optional = false;  // may be empty (charges of a system without them, systems of a single one)
  bool output = false;    // written by to_structure into Structure::columns (added properties)
};

// Atom state in structure-of-arrays form on one backend. In a GPU run it lives on the device for
// the whole run; the host sees it only through to_structure() at output steps.
//
// A state may hold a batch of independent systems: their atoms one system after another (system s
// owns [system_offsets()[s], system_offsets()[s + 1]), in every order the atoms are sorted into:
// spatial sorting keeps each system's atoms together), each system with its own cell. Atoms of one
// system never interact with another's. With one system nothing of this is allocated.
class AtomState {
 public:
  // n_local >= 0: only the first n_local atoms of s are centres whose energy counts; the others
  // are ghosts (copies of atoms owned elsewhere, as LAMMPS gives them to a pair style) that only
  // serve as neighbours and receive forces. Potentials that do not support ghosts ignore this.
  AtomState(Backend backend, const Structure& s, int n_local = -1);
  // A batch: the systems in this order. Their type names are merged (the union, in order of first
  // appearance; a name's mass must agree where two systems give one); either every system has
  // charges or none has. One system is the single-system state.
  AtomState(Backend backend, std::span<const Structure> systems);
  // Replaces every atom by those of s, in the arrays already allocated (they grow when needed).
  void load(const Structure& s, int n_local = -1);
  void load(std::span<const Structure> systems);

  Backend backend() const { return backend_; }
  int size() const { return n_; }
  // The cell of a single system (of system 0 of a batch: use box(s) there).
  const Box& box() const { return boxes_.front(); }
  void set_box(const Box& b) { set_box(0, b); }
  int num_systems() const { return static_cast<int>(boxes_.size()); }
  bool is_batch() const { return num_systems() > 1; }
  const Box& box(int s) const { return boxes_[static_cast<std::size_t>(s)]; }
  void set_box(int s, const Box& b);
  // Counts the changes of the cells (set_box, load), so that what depends on the cells alone (the
  // neighbour list's cell grids) is made again only after one.
  std::uint64_t cell_revision() const { return cell_revision_; }
  // num_systems() + 1 offsets: the atoms of system s are [offsets[s], offsets[s + 1]) in input order
  // and in every sorted order.
  const std::vector<int>& system_offsets() const { return offsets_; }
  const std::vector<std::string>& type_names() const { return type_names_; }
  const std::vector<double>& type_masses() const { return type_masses_host_; }
  int num_types() const { return static_cast<int>(type_names_.size()); }
  // Atoms of each type (host copy: types never change, sorting only permutes them).
  const std::vector<int>& type_counts() const { return type_counts_; }
  int n_local() const { return n_local_; }
  const std::vector<int>& local_type_counts() const { return local_type_counts_; }
  bool has_charges() const { return !charge.empty(); }
  // The id of input atom `index` (0-based input order) as the user knows it: the file's, else index + 1
  // (in a batch, counted within the atom's system).
  long file_id(long index) const;
  // Charges in input order (empty when there are none): what a SystemSetup of this state holds.
  std::vector<double> input_charges() const;
  AtomsRef ref();

  // Copies the state back to the host in input order (ids restored), with velocities and
  // unwrapped image information folded back into wrapped positions. A batch gives one structure
  // per system (to_structure() throws there).
  Structure to_structure() const;
  std::vector<Structure> to_structures() const;
  // Overwrites positions/velocities (input order) from a structure of the same atoms.
  void load_positions(const Structure& s);
  // Reorders every per-atom property by perm (new index -> old index): used for spatial sorting.
  void permute(const Array<int>& perm);

  // The registry of per-atom properties: the built-in arrays below, then those added, in this
  // order. A new built-in property is one line in properties(); a method that needs one of its own
  // (per-atom parameters, induced dipoles) adds it with add_property.
  std::vector<AtomProperty> properties();
  // Adds a property of `width` values per atom (zeros, or the structure's column of that name at
  // every load), permuted, checkpointed and (with `output`) written by to_structure. Returns its
  // array; the same array when the name was added before with the same type and width.
  template <class T>
  Array<T>& add_property(const std::string& name, int width = 1, bool output = true);
  // An added property by name, or null.
  template <class T>
  Array<T>* find_property(const std::string& name);

  Array<double> x, y, z, vx, vy, vz, fx, fy, fz;
  Array<int> type;
  Array<double> charge;
  Array<double> type_mass;
  Array<int> ix, iy, iz;
  Array<long> id;
  Array<int> index_of;  // input index -> current index (the inverse of id), kept through sorting
  // Batches (empty for one system): each atom's system, each system's cell on the backend, the
  // offsets on the backend, and per system what an ensemble driver needs: a target temperature
  // (K), a random stream (the seed its numbers are drawn with) and whether it still moves (1; 0:
  // finished, the integrators leave its atoms as they are). Loading sets 0 K, stream s and 1.
  Array<int> system;
  Array<Box> system_box;
  Array<int> system_offset;
  Array<double> system_temperature;
  Array<std::uint64_t> system_stream;
  Array<int> system_active;
  // Recomputes index_of after id was assigned directly (checkpoints); permute and load keep it.
  void update_index_of();

 private:
  struct Added {
    AtomProperty property;  // its array points into `storage`
    std::variant<std::unique_ptr<Array<double>>, std::unique_ptr<Array<int>>, std::unique_ptr<Array<long>>> storage;
  };
  void load_systems(std::span<const Structure> systems, int n_local);
  void fill_added(std::span<const Structure> systems);

  Backend backend_;
  int n_ = 0, n_local_ = 0;
  std::vector<Box> boxes_{Box{}};
  std::uint64_t cell_revision_ = 0;
  std::vector<int> offsets_{0, 0};
  std::vector<std::string> type_names_;
  std::vector<double> type_masses_host_;
  std::vector<int> type_counts_, local_type_counts_;
  std::vector<long> file_ids_;  // ids as read, indexed by input order (empty: index + 1 within the system)
  std::vector<Added> added_;
};

}  // namespace quasar
