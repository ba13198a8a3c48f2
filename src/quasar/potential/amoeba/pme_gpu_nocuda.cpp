// Builds without CUDA: PmeGpu's kernels refuse (its constructor already does).
#include "quasar/potential/amoeba/pme_gpu.hpp"

namespace quasar::amoeba {

void PmeGpu::set_sites(const double*, std::size_t) { throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU"); }
void PmeGpu::spread_and_convolve(const double*, Source, bool, double) {
  throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU");
}
void PmeGpu::gather_multipoles(const double*, double) { throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU"); }
void PmeGpu::gather_field(double*) { throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU"); }
void PmeGpu::add_ewald_field(const double*, int, double, double*) {
  throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU");
}

}  // namespace quasar::amoeba
