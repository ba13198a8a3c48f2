#include "quasar/potential/amoeba/vdw_gpu.hpp"

#include <algorithm>

namespace quasar::amoeba {

void prepare_vdw_gpu(VdwGpu& gpu, const VdwSystem& v) {
  const std::size_t n = v.cls.size();
  gpu.atoms = static_cast<long>(n);
  gpu.parent.assign(v.parent);
  gpu.cls.assign(v.cls);
  gpu.reduction.assign(v.reduction);
  gpu.r0.assign(v.r0);
  gpu.eps.assign(v.eps);
  // Each atom's special partners in ascending order, so that a thread walking its partners in
  // ascending order finds their scales with one moving index.
  std::vector<int> partner;
  std::vector<double> scale;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::pair<int, double>> list;
    for (int k = v.special_offset[i]; k < v.special_offset[i + 1]; ++k)
      list.emplace_back(v.special_partner[static_cast<std::size_t>(k)], v.special_scale[static_cast<std::size_t>(k)]);
    std::sort(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [k, s] : list) {
      partner.push_back(k);
      scale.push_back(s);
    }
  }
  gpu.special_offset.assign(v.special_offset);
  gpu.special_partner.assign(partner);
  gpu.special_scale.assign(scale);
  // The reduced sites on each atom's bonds (their parent is the atom), ascending.
  std::vector<int> offset(n + 1, 0), child;
  for (std::size_t i = 0; i < n; ++i)
    if (v.reduction[i] != 0) ++offset[static_cast<std::size_t>(v.parent[i]) + 1];
  for (std::size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  child.resize(static_cast<std::size_t>(offset[n]));
  std::vector<int> at(offset.begin(), offset.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (v.reduction[i] != 0) child[static_cast<std::size_t>(at[static_cast<std::size_t>(v.parent[i])]++)] = static_cast<int>(i);
  gpu.child_offset.assign(offset);
  gpu.child.assign(child);
  gpu.site.resize(3 * n);
  gpu.grad.resize(3 * n);
  gpu.results.resize(11 * n);
  gpu.pairs.resize(1);
  gpu.ready = true;
}

}  // namespace quasar::amoeba
