#pragma once
// What the model-file targets share: a potential that loaded is evaluated once on a small periodic
// structure on the CPU, so that any shape a reader let through and the evaluator reads past shows
// up under ASan (the defect issue 14 names: a truncated weight row that loaded without a word).
#include <algorithm>
#include <string>
#include <vector>

#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/evaluate.hpp"

namespace quasar::fuzz {

// Two atoms of each of the first four types, a few Å apart, in a 7 Å periodic cube.
inline void evaluate_small(Potential& potential, const std::vector<std::string>& types) {
  Structure s;
  s.box = Box::orthorhombic(7, 7, 7);
  const int n = static_cast<int>(std::min<std::size_t>(types.size(), 4));
  for (int t = 0; t < n; ++t) {
    const int k = s.type_index(types[static_cast<std::size_t>(t)]);
    s.type_masses[k] = 1.0;
    for (int a = 0; a < 2; ++a) {
      s.positions.push_back({0.5 + 1.6 * t + 0.9 * a, 1.0 + 2.1 * a, 0.7 + 0.4 * t});
      s.types.push_back(k);
    }
  }
  if (s.positions.empty()) return;
  evaluate(potential, s, Backend::Cpu, true);
}

// A Deep Potential model file (.yaml or .dp) loaded and evaluated as above, with frame and atomic
// parameters when the model takes them.
inline void load_and_evaluate_dp(const std::string& path) {
  dp::DeepPotential pot = dp::DeepPotential::from_file(path);
  const dp::DpModel& m = pot.model();
  if (m.numb_fparam > 0) pot.set_fparam(std::vector<double>(m.numb_fparam, 0.5));
  if (m.numb_aparam > 0) pot.set_aparam(std::vector<double>(m.numb_aparam, 0.5));
  evaluate_small(pot, m.type_map);
}

}  // namespace quasar::fuzz
