#pragma once
// The pair part of AMOEBA's polarization gradient (polarization_term.cpp's loop) on the GPU, in
// double or mixed32 (InduceArgs::mixed, mixed_arith.hpp): one thread per atom gathers polar_forms.hpp's dP/dr_i, dP/dM_i and its half of the pairs'
// virial over its partners in ascending order (no atomics: the same bits every run), on the device
// data and the dipoles that InduceGpu's last solve left there (its tables, pair list, lab moments
// and ud, up). The sums come back to the host (O(N)), where polarization_energy adds the energy, the
// reciprocal part and the frames' chain rule (pair_sums). polar_pair_sums runs the same formulas
// over host arrays, for tests without a GPU.
#include <vector>

#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/polar_forms.hpp"
#include "quasar/potential/amoeba/polarization_term.hpp"

namespace quasar::amoeba {

// The sums over host arrays: a from induce_args, M the lab moments, the dipoles u; f = electric / 2.
PolarPairSums polar_pair_sums(const InduceArgs& a, const std::vector<Moments>& M, const InducedDipoles& u,
                              bool mutual, double f);

// The sums on the GPU from gpu's last solve (throws without CUDA).
PolarPairSums polar_pair_sums_gpu(const InduceGpu& gpu, bool mutual, double f);

// The kernel's launcher (polar_kernels.cu): per atom grad (3), dM (13), virial (9) and pairs (1).
void launch_polar_pairs(const InduceArgs& a, const double* M, const double* ud, const double* up, bool mutual,
                        double f, double* grad, double* dM, double* virial, int* pairs);

}  // namespace quasar::amoeba
