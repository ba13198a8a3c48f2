#pragma once
// The interface between mpole_gpu.cpp and the kernel of mpole_kernels.cu (no CUDA headers).
#include "quasar/potential/amoeba/mpole_site.hpp"

namespace quasar::amoeba {

// Every site's shares (mpole_site) into device arrays: energy (n), gradient (3 n), dE/dM (13 n),
// virial (9 n), pairs (n); on the default stream.
void launch_mpole_sites(const MpoleArgs& a, double* energy, double* grad, double* dM, double* virial, int* pairs);

}  // namespace quasar::amoeba
