#pragma once
// The Deep Potential on the CPU, in double: the reference that the GPU evaluator and DeePMD-kit are
// checked against. Centres are taken in blocks of up to kBlockAtoms atoms of one type; for a block,
// every neighbour row of one neighbour type goes through the embedding net as one matrix product
// per layer (nn/rows.hpp, forward mode for dG/ds), and the block's descriptors through the fitting
// net likewise (and back, for dE/dD). Padding slots at the end of a type's slots all have the same
// environment row, so their share of the descriptor is a precomputed suffix sum (the tables
// below) instead of rows. Blocks are split over the CPU's threads (device/parallel.hpp); forces and
// per-atom virials of neighbours go into per-thread arrays added in thread order, energy and virial
// totals are summed per block and then in block order, so that results are the same bits every
// run with the same thread count, and agree with other thread counts to rounding.
#include <memory>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/dp/compress.hpp"
#include "quasar/nn/rows.hpp"
#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

struct BlockWork;

class CpuEvaluator {
 public:
  static constexpr int kBlockAtoms = 8;

  CpuEvaluator(const DpModel& model, const EmbeddingTables* tables);
  ~CpuEvaluator();

  // What one evaluation asks for and where it goes. `extra`: the normalised frame and atomic
  // parameters of every atom by input index (numb_fparam + numb_aparam each), or empty.
  struct Outputs {
    bool per_atom = false;
    double* atom_energy = nullptr;  // n, added to (per_atom)
    double* atom_virial = nullptr;  // 9 n, component-major, added to (per_atom)
    double totals[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // energy, virial by rows (set)
    // For checks against DeePMD-kit: the descriptor (M axis_neuron) and the input of the last
    // fitting layer of every atom, by atom index; forces then are not computed.
    std::vector<double>* descriptor = nullptr;
    std::vector<double>* fit_last_input = nullptr;
  };
  // Adds forces into a.fx, a.fy, a.fz (centres: atoms with id < n_local).
  // `model` is the one the evaluator was made for (its owner may have moved since).
  void compute(const DpModel& model, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& model_type,
               const std::vector<double>& extra, Outputs& out);

 private:
  void block(BlockWork& w, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& model_type,
             const std::vector<double>& extra, int ti, const int* atoms, int count, double* fx, double* fy, double* fz,
             double* atom_virial, Outputs& out, double partial[10]);
  void embed(BlockWork& w, int net, int rows, const double* s, double* G, double* dG) const;

  const DpModel* model_;
  const EmbeddingTables* tables_;
  int nnei_ = 0, m_ = 0;
  // Per centre type and slot: the normalised row of a padding slot, and for type t's slots
  // [base_t, base_t + sel_t] the suffix sums over padding slots from there to the type's last,
  // of G(s_hat) x R_hat (4 x M, component-major), at [(ti (nnei + nt) + base_t + t + k) 4 M].
  std::vector<double> pad_rhat_, pad_suffix_;
  std::vector<nn::RowsNet> embeddings_, fittings_;  // the model's nets prepared for rows
  std::vector<std::unique_ptr<BlockWork>> work_;          // per thread
  device::ThreadBuffers buffers_;
  std::vector<int> centres_;
};

}  // namespace quasar::dp
