#include "quasar/potential/amoeba/pair_list.hpp"

#include <algorithm>

#include "quasar/core/atoms.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/neighbor/neighbor_list.hpp"

namespace quasar::amoeba {

PairCandidates pair_candidates(const std::vector<Vec3>& r, const Box& box, double reach) {
  const std::size_t n = r.size();
  Structure s;
  s.type_names = {"X"};
  s.type_masses = {1.0};
  s.types.assign(n, 0);
  s.positions = r;
  s.box = box;
  AtomState atoms(Backend::Cpu, s);
  // A skin keeps pairs at the cutoff itself (the loops test <=); never re-sorted, and the list's
  // storage indices are mapped back to input indices.
  NeighborList list(Backend::Cpu, {reach, 0.25, ListKind::Half, 0});
  list.build(atoms);
  const NeighborRef ref = list.ref();
  const AtomsRef a = atoms.ref();
  std::vector<int> input_of(n);
  for (std::size_t i = 0; i < n; ++i) input_of[static_cast<std::size_t>(a.index_of[i])] = static_cast<int>(i);
  std::vector<std::vector<int>> by_atom(n);
  for (int i = 0; i < ref.n; ++i)
    for (int k = 0; k < ref.count[i]; ++k) {
      const int p = input_of[static_cast<std::size_t>(i)];
      const int q = input_of[static_cast<std::size_t>(ref.index[ref.slot_of(i, k)])];
      if (p == q) continue;  // an atom's own image in a small cell: no pair of the loops
      by_atom[static_cast<std::size_t>(std::min(p, q))].push_back(std::max(p, q));
    }
  PairCandidates c;
  c.offset.reserve(n + 1);
  c.offset.push_back(0);
  for (std::vector<int>& v : by_atom) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());  // several images of one pair: one entry
    c.partner.insert(c.partner.end(), v.begin(), v.end());
    c.offset.push_back(static_cast<int>(c.partner.size()));
  }
  return c;
}

}  // namespace quasar::amoeba
