#include "quasar/potential/nnp/cpu_evaluator.hpp"

#include <algorithm>
#include <cmath>

namespace quasar::nnp {

struct CpuEvaluator::Work {
  std::vector<NeighborEntry> nb;
  std::vector<int> index;  // the atom of each entry
  std::vector<double> G, x, grad_x, grad;
  nn::Network::Trace trace;
};

namespace {
constexpr int kBlockAtoms = 16;  // energies and virials are summed per block, then in block order
}

CpuEvaluator::CpuEvaluator(const Descriptor& descriptor, const PreparedModel& prepared)
    : prepared_(&prepared), descriptor_(descriptor) {}

CpuEvaluator::~CpuEvaluator() = default;

void CpuEvaluator::compute(const AtomsRef& a, const NeighborRef& list, const std::vector<int>& element_of,
                           Outputs& out) {
  const long n = a.n;
  const long blocks = (n + kBlockAtoms - 1) / kBlockAtoms;
  const int threads = device::threads_for(blocks, 2);
  while (work_.size() < static_cast<std::size_t>(threads)) work_.push_back(std::make_unique<Work>());
  const std::size_t un = static_cast<std::size_t>(n);
  buffers_.prepare(threads, {a.fx, a.fy, a.fz, out.atom_virial}, {un, un, un, 9 * un});
  std::vector<double> partial(static_cast<std::size_t>(blocks) * 10, 0.0);
  device::parallel_ranges(blocks, threads, [&](int t, long begin, long end) {
    Work& w = *work_[static_cast<std::size_t>(t)];
    for (long b = begin; b < end; ++b) {
      double* sums = &partial[static_cast<std::size_t>(b) * 10];
      for (long i = b * kBlockAtoms; i < std::min(n, (b + 1) * kBlockAtoms); ++i) {
        if (a.id[i] >= a.n_local) continue;  // a ghost: a neighbour only
        centre(w, a, list, element_of, static_cast<int>(i), buffers_.get(t, 0), buffers_.get(t, 1),
               buffers_.get(t, 2), buffers_.get(t, 3), out, sums);
      }
    }
  });
  buffers_.reduce();
  for (long b = 0; b < blocks; ++b)
    for (int c = 0; c < 10; ++c) out.totals[c] += partial[static_cast<std::size_t>(b) * 10 + c];
}

void CpuEvaluator::centre(Work& w, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& element_of,
                          int i, double* fx, double* fy, double* fz, double* atom_virial, Outputs& out,
                          double sums[10]) {
  const int element = element_of[a.type[i]];
  const PreparedElement& pe = prepared_->elements[static_cast<std::size_t>(element)];
  const double rc = prepared_->cutoff;
  w.nb.clear();
  w.index.clear();
  const Box& box = a.box_of(i);
  for (int k = 0; k < list.count[i]; ++k) {
    int j = 0;
    const Vec3 d = list.delta(box, a.x, a.y, a.z, i, k, j);
    const double r = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    if (r >= rc) continue;
    w.nb.push_back({d.x, d.y, d.z, r, element_of[a.type[j]]});
    w.index.push_back(j);
  }
  const int ns = descriptor_.count(element);
  w.G.assign(static_cast<std::size_t>(ns), 0.0);
  descriptor_.values(element, w.nb, w.G.data());
  w.x.resize(static_cast<std::size_t>(ns));
  for (int s = 0; s < ns; ++s) w.x[s] = pe.scale[s] * w.G[s] + pe.shift[s];
  pe.net.forward(w.x.data(), w.trace);
  const double e = prepared_->energy_scale * w.trace.acts.back()[0] + pe.energy_offset;
  sums[0] += e;
  if (out.atom_energy) out.atom_energy[i] += e;
  // dE/dG = energy_scale * dNet/dx * scale.
  const double one = prepared_->energy_scale;
  w.grad_x.resize(static_cast<std::size_t>(ns));
  pe.net.backward(w.trace, &one, w.grad_x.data());
  for (int s = 0; s < ns; ++s) w.grad_x[s] *= pe.scale[s];
  const std::size_t nn = w.nb.size();
  w.grad.assign(3 * nn, 0.0);
  descriptor_.gradient(element, w.nb, w.grad_x.data(), w.grad.data());
  // grad[j] = dE/dd_j with d_j = r_j - r_i: the neighbour feels -grad, the centre +grad.
  double fi[3] = {0, 0, 0};
  const long n = a.n;
  for (std::size_t k = 0; k < nn; ++k) {
    const double* g = &w.grad[3 * k];
    const int j = w.index[k];
    fx[j] -= g[0];
    fy[j] -= g[1];
    fz[j] -= g[2];
    for (int m = 0; m < 3; ++m) fi[m] += g[m];
    const double d[3] = {w.nb[k].dx, w.nb[k].dy, w.nb[k].dz};
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        // As the Deep Potential: -(dE/dd)_p d_q, given to the neighbour.
        const double v = -g[p] * d[q];
        sums[1 + p * 3 + q] += v;
        if (atom_virial) atom_virial[(p * 3 + q) * n + j] += v;
      }
  }
  fx[i] += fi[0];
  fy[i] += fi[1];
  fz[i] += fi[2];
}

}  // namespace quasar::nnp
