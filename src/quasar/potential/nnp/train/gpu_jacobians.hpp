#pragma once
// The predictions and Jacobians of TrainingNetworks (networks.hpp) on the GPU, for structures whose
// symmetry-function derivatives are kept (memorize_symfunc_results with forces). Every atom's inputs
// and derivatives are on the GPU once: uploaded from the CPU, or computed there (inputs_kernel.cuh). An update's rows, per element, are the atoms of the structure
// (an energy) or the centres that see the moving atom (a force component), their tangents the kept
// derivatives contracted along the atom's displacement; the rows of every element run through their
// networks forward with tangents and back in one kernel (fused_rows.cuh; or one GEMM per layer,
// nn/dual_layers.cuh, for networks too large for it), adding dE/dw or dF/dw to a Jacobian that stays
// on the GPU for the Kalman filter. The CPU's TrainingNetworks are the
// reference (nnp_train_jacobian_test).
#include <memory>
#include <span>

#include "quasar/potential/nnp/train/networks.hpp"

namespace quasar::nnp {

class GpuJacobians {
 public:
  // `fused_kernel`: one kernel per call (fused_rows.cuh) where the networks fit it, else cuBLAS GEMMs
  // layer by layer (false: always the GEMMs, to test them against each other).
  explicit GpuJacobians(const TrainingNetworks& nets, bool fused_kernel = true);
  ~GpuJacobians();
  GpuJacobians(const GpuJacobians&) = delete;
  GpuJacobians& operator=(const GpuJacobians&) = delete;

  // Structure s with its inputs (which must hold the derivatives), uploaded once.
  bool has(std::size_t s) const;
  void add(std::size_t s, const TrainingStructure& structure, const StructureInputs& inputs);
  // Structures ids[k] whose inputs and (with `derivatives`; force() needs them) derivatives the GPU
  // computes from their neighbourhoods (CPU lists, data.hpp), as TrainingNetworks::inputs does on the
  // CPU (inputs_kernel.cuh).
  void add_computed(std::span<const std::size_t> ids, std::span<const TrainingStructure* const> structures,
                    std::span<const Neighborhood> neighborhoods, bool derivatives = true);
  // The elements of the neighbours of atom a of structure s.
  std::vector<int> neighbor_elements(std::size_t s, int a) const;
  // What the GPU holds of structure s, as TrainingNetworks::inputs returns it (for tests).
  StructureInputs inputs(std::size_t s) const;
  // The networks' current weights: from the CPU networks, or from the weights in the combined order
  // (TrainingNetworks::weights()) on the GPU, as the Kalman filter's state holds them.
  void set_weights(const TrainingNetworks& nets);
  void set_weights(const double* combined);
  // The predicted energy of structure s, or force component c of its atom a; with `jacobian` (the
  // networks' parameter_count() values on the GPU) the gradient is added there.
  double energy(std::size_t s, double* jacobian = nullptr);
  double force(std::size_t s, int a, int c, double* jacobian = nullptr);
  // x *= factor for n values on the GPU.
  static void scale(double* x, long n, double factor);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::nnp
