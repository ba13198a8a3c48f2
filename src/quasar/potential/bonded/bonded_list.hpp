#pragma once
// One kind of bonded entries (core/topology.hpp: BondedSet) on a backend, with the per-atom index
// the kernels need: the GPU assembles forces without atomics, one thread per atom looping over the
// entries its atom takes part in (each entry is evaluated by each of its atoms' threads, which
// keeps the sums the same every run and lets the term overwrite stale outputs).
#include <cstddef>
#include <vector>

#include "quasar/core/topology.hpp"
#include "quasar/device/array.hpp"

namespace quasar {

struct BondedRef {
  int entries = 0;
  const int* atoms = nullptr;        // arity input indices per entry
  const int* type = nullptr;         // per entry
  const int* atom_offset = nullptr;  // by input index (atoms + 1): atom k's part is atom_entries[offset[k] .. offset[k + 1])
  const int* atom_entries = nullptr; // entry * arity + the atom's place in it
};

class BondedList {
 public:
  BondedList() = default;
  // The entries of `set` for a system of `atoms` atoms (set checked with Topology::problem).
  BondedList(const BondedSet& set, std::size_t atoms);
  std::size_t atoms() const { return atoms_; }
  int entries() const { return static_cast<int>(type_host_.size()); }
  // The arrays on backend b (uploaded when it changes).
  BondedRef ref(Backend b);

 private:
  std::size_t atoms_ = 0;
  std::vector<int> atoms_host_, type_host_, offset_host_, entries_host_;
  Array<int> atoms_dev_, type_dev_, offset_dev_, entries_dev_;
};

}  // namespace quasar
