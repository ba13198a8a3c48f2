#pragma once
// The Deep Potential evaluation on the GPU, first version: the same algorithm as the CPU reference
// (double precision), one thread per atom for the environment, one per neighbour slot for the
// embedding net, one block per atom for descriptor, fitting net and backward pass. Plain data only:
// no CUDA headers.
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

constexpr int kGpuMaxTypes = 8, kGpuMaxLayers = 8, kGpuMaxWidth = 256;

struct GpuNet {
  int layers = 0;
  int in[kGpuMaxLayers], out[kGpuMaxLayers], residual[kGpuMaxLayers], act[kGpuMaxLayers];
  long w[kGpuMaxLayers], b[kGpuMaxLayers], idt[kGpuMaxLayers];  // offsets into the weights; idt -1 when absent
};

// Everything the kernels read about the model; lives in device memory.
struct GpuModel {
  int ntypes, nnei, m, axis, fit_in, extra;  // extra: frame + atomic parameters per atom
  double rcut, rcut_smth, env_protection;
  int sel[kGpuMaxTypes], sec[kGpuMaxTypes + 1];
  int type_one_side;
  GpuNet emb[kGpuMaxTypes * kGpuMaxTypes], fit[kGpuMaxTypes];
  char excluded[kGpuMaxTypes * kGpuMaxTypes], pair_excluded[kGpuMaxTypes * kGpuMaxTypes], atom_excluded[kGpuMaxTypes];
  double bias[kGpuMaxTypes];  // bias_atom_e + out_bias
  int max_width;              // widest fitting layer input or output
  int fit_outputs;            // largest sum of a fitting net's layer widths
};

// Flattens the model for the kernels: fills `g` and the weights (host copies to upload).
void flatten_model(const DpModel& model, GpuModel& g, std::vector<double>& weights);

struct GpuBuffers {
  const GpuModel* model;      // device
  const double* weights;      // device
  const double* davg;         // device, [ntypes][nnei][4]
  const double* dstd;
  const int* model_type;      // structure type -> model type
  const double* extra;        // normalised fparam/aparam per atom id ([n][extra]) or null
  int* nlist;                 // [n][nnei]
  double* rhat;               // [n][nnei][4]
  double* drhat;              // [n][nnei][4][3]
  double* disp;               // [n][nnei][3]
  double* g;                  // [n][nnei][m]
  double* dg;                 // [n][nnei][m]
};

// Energy, forces (overwritten), virial and per-atom terms into the given device arrays.
void deep_potential_cuda(const GpuBuffers& b, const GpuModel& host_model, AtomsRef atoms, const NeighborRef& list,
                         double* totals, double* atom_energy, double* atom_virial);

}  // namespace quasar::dp
