#pragma once
// AMOEBA's particle-mesh Ewald (pme_multipole.hpp) on the GPU, in double, with cuFFT: the same
// splines (pme_splines.hpp), moduli, influence function and gathers as the CPU reference, so that
// the two agree to rounding.
//
// A PmeGpu is prepared once and reused: set_grid (grid sizes, order, alpha, the cell: moduli and the
// cuFFT plan), then set_sites (the sites' spline weights and their grid cells, from device
// positions), then any number of evaluations on those sites: the permanent multipoles' reciprocal
// part (energy, gradient, dE/dM, virial, per-site shares) or the reciprocal field of moments or of
// point dipoles (what the induced-dipole solver needs once per conjugate-gradient step, device
// arrays in and out, no host copy).
//
// Device layouts (by site, input order): positions, dipoles and fields 3 per site (x, y, z);
// moments 13 per site as multipole_pair.hpp's Moments (q, d, Q/3 as a full matrix). The kernels run
// on the default stream and cuFFT on the PmeGpu's own blocking stream, so that the work is ordered
// with the caller's default-stream work; calls return before the GPU has finished.
//
// Spreading is a gather over grid points, not a scatter with atomics: one thread per grid point
// sums the sites whose splines cover it, found through a list of the sites in each grid cell sorted
// by a stable radix sort (so in ascending site order within a cell). Every sum runs in a fixed
// order (the totals by fixed block reductions), so the results are the same bits every run; they
// differ from the CPU's only by the order of additions and cuFFT's rounding against FFTW's.
#include <array>
#include <memory>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"
#include "quasar/device/fft.hpp"
#include "quasar/potential/amoeba/multipole_pair.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"
#include "quasar/potential/amoeba/pme_multipole.hpp"

namespace quasar::amoeba {

class PmeGpu {
 public:
  PmeGpu();  // makes its CUDA context (throws without CUDA)
  ~PmeGpu();
  PmeGpu(const PmeGpu&) = delete;
  PmeGpu& operator=(const PmeGpu&) = delete;

  // The grid and the cell. New sizes or order make a new cuFFT plan and grid; any change asks for
  // set_sites again (the sites' grid coordinates depend on both).
  void set_grid(const PmeGrid& grid, const Box& box);
  // n sites at `positions` (device, 3 per site): their B-spline weights and grid cells.
  void set_sites(const double* positions, std::size_t n);
  std::size_t sites() const { return sites_; }

  // The permanent multipoles' reciprocal part of `moments` (device, 13 per site) times `electric`,
  // as pme_multipole: the results stay on the device in the arrays below until the next call.
  void multipoles(const double* moments, double electric);
  Array<double> grad{Backend::Cuda};    // dE/dx at fixed lab moments, 3 per site
  Array<double> dM{Backend::Cuda};      // dE/dM, 13 per site
  Array<double> site{Backend::Cuda};    // per site: its energy share, then its moment part of the virial (9)
  Array<double> totals{Backend::Cuda};  // energy, then the virial (9, row-major) at fixed lab moments

  // field (device, 3 per site) -= the gradient of the reciprocal potential of `moments` (13 per
  // site) at every site, every site's own density included: add_reciprocal_field of
  // induced_dipoles.hpp (electric 1), without the Ewald self field (ewald_self_field times each site's
  // dipole), which is the caller's there too. add_dipole_field does the same for point dipoles (3 per
  // site): one call per conjugate-gradient product, after set_sites once per geometry.
  void add_field(const double* moments, double* field);
  void add_dipole_field(const double* dipoles, double* field);

  // field += the reciprocal field of `sources` (width 13: moments, width 3: dipoles) plus Ewald's
  // self field `self` times each site's dipole, summed in the CPU's order (induced_dipoles.cpp): what
  // the induced-dipole solver's ReciprocalFieldHook adds (induce_gpu.hpp), all on the device.
  void add_ewald_field(const double* sources, int width, double self, double* field);
  // Evaluations (spread, forward and backward FFT, gather) run so far: tests check with it that the
  // GPU did the work.
  long evaluations() const { return evaluations_; }

  // The host's arrays through the device (uploads, one evaluation, downloads), for the terms that
  // still compute the rest on the host: pme_multipole's result, and add_reciprocal_field. The
  // sites are set again only when the positions, grid or cell differ from the last call's.
  // The sites at r (host) for this grid and cell: uploaded and set only when they differ from the
  // last ones.
  void prepare(const std::vector<Vec3>& r, const Box& box, const PmeGrid& grid);
  PmeResult compute(const std::vector<Vec3>& r, const std::vector<Moments>& M, const Box& box, const PmeGrid& grid,
                    double electric);
  void add_field(const std::vector<Vec3>& r, const std::vector<Moments>& M, const Box& box, const PmeGrid& grid,
                 std::vector<Vec3>& field);

 private:
  enum class Source { Multipoles, Dipoles };
  // pme_kernels.cu: the spline coefficients of the values, spread, forward FFT, the influence
  // function (with the virial's cell part when asked for), backward FFT; then the gathers.
  void spread_and_convolve(const double* values, Source source, bool virial, double electric);
  void gather_multipoles(const double* moments, double electric);
  void gather_field(double* field);
  void check_ready(const char* what) const;

  std::unique_ptr<device::Context> ctx_;
  std::unique_ptr<device::FftPlan> plan_;
  PmeGrid grid_{};
  Box box_{};
  bool grid_set_ = false, sites_set_ = false;
  std::size_t sites_ = 0;
  long evaluations_ = 0;
  Array<double> moduli_{Backend::Cuda};              // |b(m)|^-2 of the three dimensions: K0 + K1 + K2 values
  Array<std::complex<double>> mesh_{Backend::Cuda};  // the grid, transformed in place
  Array<double> theta_{Backend::Cuda};               // per site [d][p][i]: 3 x 4 x order weights
  Array<int> cell_{Backend::Cuda};                   // each site's grid cell (its first points, flat)
  // The sites sorted by cell (stable: ascending within a cell) and where each cell's run starts.
  Array<int> site_index_{Backend::Cuda}, sorted_cell_{Backend::Cuda}, site_order_{Backend::Cuda};
  Array<int> cell_start_{Backend::Cuda};
  Array<unsigned char> sort_scratch_{Backend::Cuda};
  Array<double> coef_{Backend::Cuda};     // 10 spline-derivative coefficients per site
  Array<double> partial_{Backend::Cuda};  // per block of grid points: the virial's cell part (9)
  // The host path's copies: the positions of the sites set, the moments, a field (also
  // add_ewald_field's reciprocal part).
  std::vector<Vec3> host_positions_;
  Array<double> positions_{Backend::Cuda}, moments_{Backend::Cuda}, field_{Backend::Cuda};
};

// The reciprocal part for the electrostatic terms: on g.pme_gpu when set (through host copies), else
// pme_multipole on the CPU, with g's grid, order and alpha.
PmeResult reciprocal_pme(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                         double electric);
// field -= the reciprocal potential's gradient of M at every site (electric 1), likewise.
void add_reciprocal_pme_field(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                              std::vector<Vec3>& field);

}  // namespace quasar::amoeba
