#pragma once
// The 1-2, 1-3 and 1-4 neighbours of every atom (core/topology.hpp: special_neighbors) on a
// backend, for pair terms that scale or skip bonded pairs (LAMMPS's special_bonds). CSR by input
// index, so that sorting the atoms changes nothing: a loop looks pairs up by AtomsRef::id.
#include <cstddef>

#include "quasar/core/hd.hpp"
#include "quasar/core/topology.hpp"
#include "quasar/device/array.hpp"

namespace quasar {

// Plain pointers for CPU loops and kernels.
struct ExclusionsRef {
  const int* offset = nullptr;   // atoms + 1
  const int* partner = nullptr;  // input indices
  const signed char* level = nullptr;

  // 0 when input atoms i and j are 1-2 neighbours, 1 for 1-3, 2 for 1-4, -1 otherwise.
  QUASAR_HD int level_of(long i, long j) const {
    const int end = offset[i + 1];
    for (int k = offset[i]; k < end; ++k)
      if (partner[k] == j) return level[k];
    return -1;
  }
};

// Weights of the three levels (LAMMPS's special_bonds lj w12 w13 w14): a pair's energy and force
// are multiplied by its weight; a weight of 0 removes the pair, as LAMMPS drops it from its list.
struct SpecialWeights {
  static constexpr bool kActive = true;
  ExclusionsRef exclusions;
  double w[3];
  QUASAR_HD double weight(long i, long j) const {
    const int l = exclusions.level_of(i, j);
    return l < 0 ? 1.0 : w[l];
  }
};

// No special pairs: what plain pair loops take (compiled away).
struct NoSpecial {
  static constexpr bool kActive = false;
  QUASAR_HD double weight(long, long) const { return 1.0; }
};

// The neighbours of a topology, held on the host and copied to a backend at first use there.
class Exclusions {
 public:
  Exclusions() = default;
  Exclusions(const Topology& topology, std::size_t atoms);
  std::size_t atoms() const { return atoms_; }
  const SpecialNeighbors& host() const { return host_; }
  // The arrays on backend b (uploaded when it changes).
  ExclusionsRef ref(Backend b);

 private:
  std::size_t atoms_ = 0;
  SpecialNeighbors host_;
  Array<int> offset_, partner_;
  Array<signed char> level_;
};

}  // namespace quasar
