#pragma once
// A term's deterministic GPU sums (ForceOutput::deterministic) of forces and per-atom virials: its
// kernels add them in 64-bit fixed point (device/fixed_point.hpp) into arrays that start at zero,
// the outputs themselves when they hold zeros, else zeroed scratch arrays whose values are then
// added to the outputs, so that a term after other terms keeps their sums.
#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.hpp"

namespace quasar {

class FixedPointOutputs {
 public:
  // Where the kernels add: the atoms' forces and atom_virial (null: none), or scratch arrays when
  // the outputs hold other terms' sums.
  struct Targets {
    AtomsRef atoms;
    double* atom_virial = nullptr;
  };
  Targets begin(const AtomsRef& atoms, double* atom_virial, bool outputs_hold_sums);
  // Converts the sums (forces, per-atom virials, the kTotals totals) to doubles, adding scratch
  // sums to the outputs.
  void finish(device::FixedPointSums& fixed, const AtomsRef& atoms, double* atom_virial, double* totals);

 private:
  Array<double> forces_{Backend::Cuda}, virials_{Backend::Cuda};
  Targets targets_;
  bool scratch_ = false;
};

}  // namespace quasar
