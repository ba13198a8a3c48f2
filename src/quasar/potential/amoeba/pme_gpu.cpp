#include "quasar/potential/amoeba/pme_gpu.hpp"

#include <algorithm>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/pme_splines.hpp"

namespace quasar::amoeba {

static_assert(sizeof(Vec3) == 3 * sizeof(double), "positions go to the device as 3 doubles per site");
static_assert(sizeof(Moments) == 13 * sizeof(double), "moments go to the device as 13 doubles per site");

namespace {
bool same_cell(const Box& a, const Box& b) {
  for (int i = 0; i < 3; ++i) {
    if (a.origin[i] != b.origin[i]) return false;
    for (int j = 0; j < 3; ++j)
      if (a.h(i, j) != b.h(i, j) || a.hinv(i, j) != b.hinv(i, j)) return false;
  }
  return true;
}
}  // namespace

PmeGpu::PmeGpu() {
  if (!built_with_cuda()) throw_no_cuda("AMOEBA's particle-mesh Ewald on the GPU");
  ctx_ = std::make_unique<device::Context>(Backend::Cuda);
}

PmeGpu::~PmeGpu() = default;

void PmeGpu::set_grid(const PmeGrid& grid, const Box& box) {
  if (grid.order < 4 || grid.order > kPmeMaxOrder)
    throw Error("amoeba PME: a B-spline order from 4 to 8 is needed (the quadrupoles' third derivatives)");
  for (int d = 0; d < 3; ++d)
    if (grid.size[static_cast<std::size_t>(d)] < grid.order)
      throw Error("amoeba PME: each grid size must be at least the B-spline order");
  if (!(grid.alpha > 0)) throw Error("amoeba PME: the Ewald alpha must be positive");
  const bool new_mesh = !grid_set_ || grid.size != grid_.size || grid.order != grid_.order;
  if (new_mesh) {
    const std::array<int, 3>& K = grid.size;
    plan_.reset();
    plan_ = std::make_unique<device::FftPlan>(*ctx_, std::vector<int>{K[0], K[1], K[2]});
    std::vector<double> moduli;
    for (int d = 0; d < 3; ++d) {
      const std::vector<double> m = pme_bspline_moduli(K[static_cast<std::size_t>(d)], grid.order);
      moduli.insert(moduli.end(), m.begin(), m.end());
    }
    moduli_.assign(moduli);
    const std::size_t points = static_cast<std::size_t>(K[0]) * K[1] * K[2];
    mesh_.resize(points);
    cell_start_.resize(points + 1);
  }
  if (new_mesh || !same_cell(box, box_)) sites_set_ = false;
  grid_ = grid;
  box_ = box;
  grid_set_ = true;
}

void PmeGpu::check_ready(const char* what) const {
  if (!grid_set_ || !sites_set_)
    throw Error(std::string("amoeba PME on the GPU: ") + what + " before set_grid and set_sites");
}

void PmeGpu::multipoles(const double* moments, double electric) {
  check_ready("multipoles");
  grad.resize(3 * sites_);
  dM.resize(13 * sites_);
  site.resize(10 * sites_);
  totals.resize(10);
  spread_and_convolve(moments, Source::Multipoles, true, electric);
  gather_multipoles(moments, electric);
}

void PmeGpu::add_field(const double* moments, double* field) {
  check_ready("add_field");
  spread_and_convolve(moments, Source::Multipoles, false, 1.0);
  gather_field(field);
}

void PmeGpu::add_dipole_field(const double* dipoles, double* field) {
  check_ready("add_dipole_field");
  spread_and_convolve(dipoles, Source::Dipoles, false, 1.0);
  gather_field(field);
}

void PmeGpu::prepare(const std::vector<Vec3>& r, const Box& box, const PmeGrid& grid) {
  set_grid(grid, box);
  if (sites_set_ && r.size() == host_positions_.size() &&
      std::equal(r.begin(), r.end(), host_positions_.begin(),
                 [](const Vec3& a, const Vec3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }))
    return;
  positions_.resize(3 * r.size());
  positions_.upload(reinterpret_cast<const double*>(r.data()), 3 * r.size());
  set_sites(positions_.data(), r.size());
  host_positions_ = r;
}

PmeResult PmeGpu::compute(const std::vector<Vec3>& r, const std::vector<Moments>& M, const Box& box,
                          const PmeGrid& grid, double electric) {
  if (M.size() != r.size()) throw Error("amoeba PME on the GPU: moments and positions differ in number");
  prepare(r, box, grid);
  const std::size_t n = r.size();
  moments_.resize(13 * n);
  moments_.upload(reinterpret_cast<const double*>(M.data()), 13 * n);
  multipoles(moments_.data(), electric);
  PmeResult out;
  double t[10];
  totals.download(t, 10);
  out.energy = t[0];
  std::copy(t + 1, t + 10, out.virial);
  out.grad.resize(n);
  grad.download(reinterpret_cast<double*>(out.grad.data()), 3 * n);
  out.dM.resize(n);
  dM.download(reinterpret_cast<double*>(out.dM.data()), 13 * n);
  std::vector<double> s(10 * n);
  site.download(s.data(), 10 * n);
  out.site_energy.resize(n);
  out.site_virial.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    out.site_energy[j] = s[10 * j];
    std::copy(s.begin() + static_cast<long>(10 * j + 1), s.begin() + static_cast<long>(10 * j + 10),
              out.site_virial[j].begin());
  }
  return out;
}

void PmeGpu::add_field(const std::vector<Vec3>& r, const std::vector<Moments>& M, const Box& box, const PmeGrid& grid,
                       std::vector<Vec3>& field) {
  if (M.size() != r.size() || field.size() != r.size())
    throw Error("amoeba PME on the GPU: moments, fields and positions differ in number");
  prepare(r, box, grid);
  const std::size_t n = r.size();
  moments_.resize(13 * n);
  moments_.upload(reinterpret_cast<const double*>(M.data()), 13 * n);
  field_.resize(3 * n);
  field_.upload(reinterpret_cast<const double*>(field.data()), 3 * n);
  add_field(moments_.data(), field_.data());
  field_.download(reinterpret_cast<double*>(field.data()), 3 * n);
}

PmeResult reciprocal_pme(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                         double electric) {
  const PmeGrid grid{g.pme_size, g.pme_order, g.ewald_alpha};
  if (g.pme_gpu) return g.pme_gpu->compute(r, M, g.box, grid, electric);
  return pme_multipole(r, M, g.box, grid, electric);
}

void add_reciprocal_pme_field(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                              std::vector<Vec3>& field) {
  if (g.pme_gpu) return g.pme_gpu->add_field(r, M, g.box, PmeGrid{g.pme_size, g.pme_order, g.ewald_alpha}, field);
  const PmeResult pme = reciprocal_pme(g, r, M, 1.0);
  for (std::size_t i = 0; i < r.size(); ++i)
    for (int a = 0; a < 3; ++a) field[i][a] -= pme.dM[i][static_cast<std::size_t>(1 + a)];
}

}  // namespace quasar::amoeba
