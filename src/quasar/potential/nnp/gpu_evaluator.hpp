#pragma once
// Behler-Parrinello potentials on the GPU. Centres are ordered by element (CUB radix sort; ghosts
// last), then per element:
//   functions  one block per centre (nnp_pairs.cuh): neighbours within the cutoff staged in shared
//              memory by element with their radial factors, radial terms per neighbour, angular terms
//              per pair with every lane of a warp on a pair of its own; partial sums per thread added
//              in a fixed order; scaled into the network's input rows;
//   network    one GEMM per layer over all centres of the element (cuBLAS), bias and activation
//              fused in one kernel keeping act'; the energies; GEMMs back to dE/dx;
//   forces     one block per centre, the same walk: per pair the dE/dG-weighted partial derivatives
//              of its functions summed, then the gradient of both neighbours summed in shared memory;
//              the neighbour's force and per-atom virial by atomics (64-bit fixed point when
//              deterministic sums are asked for).
// Precision: double, or mixed32 (symmetry functions and networks in float; forces, virials and
// energies summed in double). Plain data only here.
#include <memory>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/prepared.hpp"

namespace quasar::nnp {

class GpuEvaluator {
 public:
  GpuEvaluator(const Descriptor& descriptor, const PreparedModel& prepared, Precision precision);
  ~GpuEvaluator();
  GpuEvaluator(const GpuEvaluator&) = delete;
  GpuEvaluator& operator=(const GpuEvaluator&) = delete;

  // Adds the energy to totals[0], the virial to totals[1..9], forces to the atoms' and per-atom
  // terms where the pointers are not null. element_of (device) maps structure types to elements;
  // element_counts (host) are the centres of each element, so that no step waits for the device.
  // With `fixed`, shared sums are taken in 64-bit fixed point: totals must hold zeros, and so must
  // forces and per-atom virials unless outputs_hold_sums (then scratch arrays take the sums).
  void compute(AtomsRef atoms, const NeighborRef& list, const int* element_of, const std::vector<int>& element_counts,
               double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed = nullptr,
               bool outputs_hold_sums = false);

  struct Impl;  // one per precision, in gpu_evaluator.cu

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::nnp
