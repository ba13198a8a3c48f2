#pragma once
// The neighbour lists of a force field: one NeighborList per distinct request (cutoff and kind), all
// with the same skin. The first list also re-sorts the atoms in space every sort_every steps; the
// others are rebuilt after such a sort, since every index changed.
#include <vector>

#include "quasar/neighbor/neighbor_list.hpp"

namespace quasar {

class NeighborLists {
 public:
  // skin and sort_every as in NeighborSettings; one list per request, in this order.
  NeighborLists(Backend backend, const std::vector<NeighborRequest>& requests, double skin, int sort_every);

  int size() const { return static_cast<int>(lists_.size()); }
  double skin() const { return skin_; }
  NeighborList& operator[](int k) { return lists_[static_cast<std::size_t>(k)]; }
  const NeighborList& operator[](int k) const { return lists_[static_cast<std::size_t>(k)]; }
  // As NeighborList::update and build, for every list.
  void update(AtomState& atoms, long step = 0);
  void build(AtomState& atoms);
  // Views of every list, in request order (valid until the next update).
  const std::vector<NeighborRef>& refs();
  // Throws if a GPU build ran out of room in any list (checked at output steps).
  void check_overflow();
  // Builds of the first list so far (0 without lists; synchronises on the GPU).
  long builds() const { return lists_.empty() ? 0 : lists_.front().builds(); }

 private:
  double skin_;
  int sort_every_;
  std::vector<NeighborList> lists_;
  std::vector<NeighborRef> refs_;
};

}  // namespace quasar
