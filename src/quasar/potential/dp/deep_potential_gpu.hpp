#pragma once
// The Deep Potential on the GPU. Atoms are evaluated in chunks of one centre type so that network
// activations never scale with the whole system:
//   environment  one block per atom: neighbours within rcut ranked by (type, distance, list order)
//                in shared memory, rows written per neighbour type, padded to sel;
//   embedding    per neighbour type, forward mode: [G; dG/ds] through every layer as one GEMM of
//                twice the rows (cuBLAS), bias + activation + derivative fused in one kernel;
//                or, for compressed models, the tables evaluated inside the next two kernels;
//   descriptor   one block per atom: G^T R_hat, then D = (G^T R)(G^T R)<^T;
//   fitting      GEMMs forward (keeping act'), GEMMs backward to dE/dD;
//   forces       one warp per neighbour slot: dE/dR_hat from G, dG and dE/d(G^T R), then forces
//                (atomics on the neighbour only) and virials; in 64-bit fixed point when asked
//                for deterministic sums (device/fixed_point.hpp).
// Precision: double; mixed32 (float networks); mixed16 (half GEMM operands on tensor cores with
// float accumulation; first embedding layer, last fitting layer, activations and the descriptor in
// float). Environment, forces and virials are double in every mode. Plain data only here.
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/dp/compress.hpp"
#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

constexpr int kGpuMaxTypes = 8;

// Model constants the kernels take by value.
struct GpuModel {
  int ntypes, nnei, m, axis, fit_in, extra;  // extra: frame + atomic parameters per atom
  double rcut, rcut_smth, env_protection;
  int sel[kGpuMaxTypes], sec[kGpuMaxTypes + 1];
  int type_one_side;
  char excluded[kGpuMaxTypes * kGpuMaxTypes], pair_excluded[kGpuMaxTypes * kGpuMaxTypes], atom_excluded[kGpuMaxTypes];
  double bias[kGpuMaxTypes];  // bias_atom_e + out_bias
};
GpuModel gpu_model_constants(const DpModel& model);

class GpuEvaluator {
 public:
  // chunk_atoms 0: chosen from a work-memory budget (work_bytes).
  GpuEvaluator(const DpModel& model, const EmbeddingTables* tables, Precision precision, long chunk_atoms = 0,
               double work_bytes = 4.0 * (1L << 30));
  ~GpuEvaluator();
  GpuEvaluator(const GpuEvaluator&) = delete;
  GpuEvaluator& operator=(const GpuEvaluator&) = delete;

  // Normalised frame/atomic parameters per atom id ([n][extra]), when the model has them.
  void set_extra(const std::vector<double>& values);
  // Adds the energy to totals[0], the virial to totals[1..9] and the forces to the atoms' forces;
  // per-atom terms when the pointers are not null. model_type (device) maps structure types to
  // model types; type_counts (host) are the atoms of each model type, so no step waits for the
  // device. With `fixed`, the sums that threads share are taken in 64-bit fixed point (the same
  // bits every run): totals must then hold zeros, and so must forces and per-atom virials unless
  // outputs_hold_sums says that they hold other terms' sums (then scratch arrays take the sums).
  void compute(AtomsRef atoms, const NeighborRef& list, const int* model_type, const std::vector<int>& type_counts,
               double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed = nullptr,
               bool outputs_hold_sums = false);
  // Work memory held (bytes) and atoms per chunk, for reports.
  double work_bytes() const;
  long chunk_atoms() const;

  struct Impl;  // one per precision, in deep_potential.cu

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::dp
