#include "quasar/potential/fixed_point_outputs.hpp"

#include "quasar/potential/force_output.hpp"

namespace quasar {

FixedPointOutputs::Targets FixedPointOutputs::begin(const AtomsRef& a, double* atom_virial, bool outputs_hold_sums) {
  scratch_ = outputs_hold_sums;
  targets_ = {a, atom_virial};
  if (!scratch_) return targets_;
  const std::size_t n = static_cast<std::size_t>(a.n);
  forces_.resize(3 * n);
  forces_.set_zero();
  targets_.atoms.fx = forces_.data();
  targets_.atoms.fy = targets_.atoms.fx + n;
  targets_.atoms.fz = targets_.atoms.fy + n;
  if (atom_virial) {
    virials_.resize(9 * n);
    virials_.set_zero();
    targets_.atom_virial = virials_.data();
  }
  return targets_;
}

void FixedPointOutputs::finish(device::FixedPointSums& fixed, const AtomsRef& a, double* atom_virial, double* totals) {
  const long n = a.n;
  double* const into[3] = {a.fx, a.fy, a.fz};
  double* const sums[3] = {targets_.atoms.fx, targets_.atoms.fy, targets_.atoms.fz};
  for (int k = 0; k < 3; ++k) fixed.finish(sums[k], n, device::fixed_scale::kForce, scratch_ ? into[k] : nullptr);
  if (atom_virial)
    fixed.finish(targets_.atom_virial, 9 * n, device::fixed_scale::kAtomVirial, scratch_ ? atom_virial : nullptr);
  fixed.finish(totals, ForceOutput::kTotals, device::fixed_scale::kTotal);
}

}  // namespace quasar
