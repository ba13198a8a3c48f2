#include "quasar/neighbor/neighbor_lists.hpp"

namespace quasar {

NeighborLists::NeighborLists(Backend backend, const std::vector<NeighborRequest>& requests, double skin, int sort_every)
    : skin_(skin), sort_every_(sort_every) {
  lists_.reserve(requests.size());
  for (std::size_t k = 0; k < requests.size(); ++k) {
    NeighborSettings s;
    s.cutoff = requests[k].cutoff;
    s.skin = skin;
    s.kind = requests[k].kind;
    s.sort_every = k == 0 ? sort_every : 0;  // one list sorts the atoms for all
    lists_.emplace_back(backend, s);
  }
}

void NeighborLists::update(AtomState& atoms, long step) {
  if (lists_.empty()) return;
  lists_.front().update(atoms, step);
  const bool sorted = sort_every_ > 0 && step > 0 && step % sort_every_ == 0;
  for (std::size_t k = 1; k < lists_.size(); ++k) {
    if (sorted) lists_[k].build(atoms);
    else lists_[k].update(atoms, step);
  }
}

void NeighborLists::build(AtomState& atoms) {
  for (NeighborList& l : lists_) l.build(atoms);
}

const std::vector<NeighborRef>& NeighborLists::refs() {
  refs_.resize(lists_.size());
  for (std::size_t k = 0; k < lists_.size(); ++k) refs_[k] = lists_[k].ref();
  return refs_;
}

void NeighborLists::check_overflow() {
  for (NeighborList& l : lists_) l.check_overflow();
}

}  // namespace quasar
