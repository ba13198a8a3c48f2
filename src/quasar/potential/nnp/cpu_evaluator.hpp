#pragma once
// The CPU reference of n2p2 potentials in double precision: per centre the symmetry functions of its
// neighbours, the element's network forward and back to dE/dG, and the symmetry functions' gradients
// times dE/dG (recomputed rather than stored) to forces, virial and per-atom parts.
#include <memory>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/prepared.hpp"

namespace quasar::nnp {

class CpuEvaluator {
 public:
  CpuEvaluator(const Descriptor& descriptor, const PreparedModel& prepared);
  ~CpuEvaluator();

  struct Outputs {
    double totals[10] = {};            // energy, virial by rows (added to)
    double* atom_energy = nullptr;     // n, added to (centres only), or null
    double* atom_virial = nullptr;     // 9 n component-major, added to, or null
  };
  // `element_of[type]` is the model element of each structure type. Forces are added to a.fx/fy/fz.
  void compute(const AtomsRef& a, const NeighborRef& list, const std::vector<int>& element_of, Outputs& out);

 private:
  struct Work;
  void centre(Work& w, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& element_of, int i,
              double* fx, double* fy, double* fz, double* atom_virial, Outputs& out, double sums[10]);

  const PreparedModel* prepared_;
  const Descriptor& descriptor_;
  std::vector<std::unique_ptr<Work>> work_;  // per thread
  device::ThreadBuffers buffers_;
};

}  // namespace quasar::nnp
