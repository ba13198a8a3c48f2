#pragma once
// The pairs a periodic system's pair loops visit: for each atom, the atoms of higher index that
// have an image within reach, in ascending order, found with the engine's cell and Verlet lists
// (neighbor/), so that a loop costs O(N) instead of O(N^2). The loops still take each pair at its
// nearest image and test their own cutoff, so that they sum the pairs the all-pairs loop does, in
// the same order.
#include <cstddef>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/core/vec.hpp"

namespace quasar::amoeba {

struct PairCandidates {
  std::vector<int> offset;   // per atom, its partners' range in `partner` (n + 1 entries)
  std::vector<int> partner;  // higher indices, ascending per atom
};

// r: positions by input index; box: periodic in at least one direction.
PairCandidates pair_candidates(const std::vector<Vec3>& r, const Box& box, double reach);

// The partners k > i of atom i: those of a candidate list, or every k < n without one.
class PartnerRange {
 public:
  PartnerRange(const int* list, std::size_t first, std::size_t last) : list_(list), first_(first), last_(last) {}
  struct Iterator {
    const int* list;
    std::size_t at;
    std::size_t operator*() const { return list ? static_cast<std::size_t>(list[at]) : at; }
    Iterator& operator++() {
      ++at;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return at != o.at; }
  };
  Iterator begin() const { return {list_, first_}; }
  Iterator end() const { return {list_, last_}; }

 private:
  const int* list_;
  std::size_t first_, last_;
};

inline PartnerRange partners(const PairCandidates* c, std::size_t i, std::size_t n) {
  if (!c) return {nullptr, i + 1, n};
  return {c->partner.data(), static_cast<std::size_t>(c->offset[i]), static_cast<std::size_t>(c->offset[i + 1])};
}

}  // namespace quasar::amoeba
