#include "quasar/potential/dp/environment.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/potential/dp/env_row.hpp"

namespace quasar::dp {

void environment(const DpModel& model, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& mtype, int i,
                 std::vector<Slot>& slots) {
  const SeE2A& de = model.descriptor;
  const int nt = static_cast<int>(de.sel.size());
  const int ti = mtype[a.type[i]];
  std::vector<std::vector<std::pair<double, int>>> by_type(nt);  // (r, k)
  std::vector<Vec3> disp(list.count[i]);
  for (int k = 0; k < list.count[i]; ++k) {
    int j;
    disp[k] = list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j);
    const double r = std::sqrt(norm2(disp[k]));
    const int tj = mtype[a.type[j]];
    // Excluded pairs leave the list after the nearest sel[t] are chosen, as DeePMD-kit does.
    if (r < de.rcut) by_type[tj].push_back({r, model.pair_excluded[ti * nt + tj] ? -k - 1 : k});
  }
  slots.assign(de.nnei(), Slot{});
  int base = 0;
  for (int t = 0; t < nt; ++t) {
    auto& v = by_type[t];
    std::stable_sort(v.begin(), v.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
    const int keep = std::min(static_cast<int>(v.size()), de.sel[t]);
    for (int s = 0; s < keep; ++s) {
      Slot& sl = slots[base + s];
      if (v[s].second < 0) continue;  // excluded pair: stays padding
      const int k = v[s].second;
      sl.j = list.index[list.slot_of(i, k)];
      sl.d = disp[k];
      env_row(sl.d, de.env_protection, de.rcut_smth, de.rcut, sl.R, sl.dR);
    }
    base += de.sel[t];
  }
}

}  // namespace quasar::dp
