// The van der Waals kernels (vdw_gpu.hpp): sites, pairs per site, the gather to atoms, the totals.
#include <cub/block/block_reduce.cuh>

#include "quasar/core/units.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/mixed_sum.hpp"
#include "quasar/potential/amoeba/vdw_forms.hpp"
#include "quasar/potential/amoeba/vdw_gpu.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128, kTotalsBlock = 256, kResults = 11;  // energy, virial (9), pairs

struct VdwArgs {
  int n, classes;
  bool periodic;
  Box cell;
  double cutoff, taper;
  const int *parent, *cls, *special_offset, *special_partner, *child_offset, *child, *pair_offset, *pair_partner;
  const double *reduction, *r0, *eps, *special_scale;
  double *site, *grad, *results;
};

__global__ void __launch_bounds__(kBlock) site_kernel(VdwArgs v, AtomsRef a) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= v.n) return;
  const int i = a.index_of[j], p = a.index_of[v.parent[j]];
  const Vec3 s = vdw_site(v.cell, v.periodic, Vec3{a.x[i], a.y[i], a.z[i]}, Vec3{a.x[p], a.y[p], a.z[p]}, v.reduction[j]);
  v.site[3 * j] = s.x;
  v.site[3 * j + 1] = s.y;
  v.site[3 * j + 2] = s.z;
}

// One thread per site i over its partners k in ascending order: every other site in the gas phase,
// the full candidate list in a cell. Mixed mode: each pair in float from its displacement (formed
// in double, as is the cutoff test, so that both modes take the same pairs), the site's sums in
// fixed point.
template <bool kMixed>
__global__ void __launch_bounds__(kBlock) pair_kernel(VdwArgs v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= v.n) return;
  using T = MixedScalar<kMixed>;
  using Sum = MixedSum<kMixed>;
  const Vec3 si{v.site[3 * i], v.site[3 * i + 1], v.site[3 * i + 2]};
  int sp = v.special_offset[i];
  const int special_end = v.special_offset[i + 1];
  const int begin = v.periodic ? v.pair_offset[i] : 0, end = v.periodic ? v.pair_offset[i + 1] : v.n;
  const double cut2 = v.cutoff * v.cutoff;
  const Sum force(device::fixed_scale::kForce), share(device::fixed_scale::kAtomVirial);
  Sum g[3] = {force, force, force};
  Sum acc[kResults - 1] = {share, share, share, share, share, share, share, share, share, share};
  double pairs = 0;
  for (int q = begin; q < end; ++q) {
    const int k = v.periodic ? v.pair_partner[q] : q;
    if (k == i) continue;
    while (sp < special_end && v.special_partner[sp] < k) ++sp;
    const double scale = sp < special_end && v.special_partner[sp] == k ? v.special_scale[sp] : 1.0;
    if (scale == 0) continue;
    const Vec3 d = vdw_nearest(v.cell, v.periodic, Vec3{v.site[3 * k], v.site[3 * k + 1], v.site[3 * k + 2]} - si);
    const double r2 = dot(d, d);
    if (v.periodic && r2 > cut2) continue;
    const int pk = v.cls[i] * v.classes + v.cls[k];
    T e;
    Vec3Of<T> gp;  // dE/d(site k) = -dE/d(site i)
    vdw_pair<T>(d, r2, v.r0[pk], v.eps[pk] * scale, v.periodic, v.taper, v.cutoff, e, gp);
    const T dv[3] = {static_cast<T>(d.x), static_cast<T>(d.y), static_cast<T>(d.z)}, gv[3] = {gp.x, gp.y, gp.z};
    for (int c = 0; c < 3; ++c) g[c].add(-gv[c]);
    acc[0].add(e / 2);
    for (int al = 0; al < 3; ++al)
      for (int be = 0; be < 3; ++be) acc[1 + 3 * al + be].add(-dv[al] * gv[be] / 2);
    if (k > i) pairs += 1;
  }
  for (int c = 0; c < 3; ++c) v.grad[3 * i + c] = g[c].value();
  for (int c = 0; c < kResults - 1; ++c) v.results[kResults * static_cast<long>(i) + c] = acc[c].value();
  v.results[kResults * static_cast<long>(i) + kResults - 1] = pairs;
}

// One thread per atom j: its site's gradient (its share of it when reduced) and the shares of the
// reduced sites on its bonds; per-atom outputs take its site's halves and the tail's even share.
template <bool kMixed>
__global__ void __launch_bounds__(kBlock)
    gather_kernel(VdwArgs v, AtomsRef a, double tail_energy, double tail_virial, double* atom_energy,
                  double* atom_virial) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= v.n) return;
  const MixedSum<kMixed> zero(device::fixed_scale::kForce);
  MixedSum<kMixed> g[3] = {zero, zero, zero};
  const double own = v.reduction[j] == 0 ? 1.0 : v.reduction[j];
  for (int c = 0; c < 3; ++c) g[c].add(v.grad[3 * j + c] * own);
  for (int q = v.child_offset[j]; q < v.child_offset[j + 1]; ++q) {
    const int c = v.child[q];
    for (int x = 0; x < 3; ++x) g[x].add(v.grad[3 * c + x] * (1 - v.reduction[c]));
  }
  const double unit = units::kcal_mol;
  const int i = a.index_of[j];
  a.fx[i] -= unit * g[0].value();
  a.fy[i] -= unit * g[1].value();
  a.fz[i] -= unit * g[2].value();
  if (!atom_energy) return;
  const double* r = v.results + kResults * static_cast<long>(j);
  atom_energy[i] += unit * tail_energy / v.n + unit * r[0];
  for (int c = 0; c < 9; ++c)
    atom_virial[static_cast<long>(c) * v.n + i] += (c % 4 == 0 ? -unit * tail_virial / v.n : 0.0) + unit * r[1 + c];
}

// One block: energy and virial over the sites (with the tail) into the totals, the pair count.
__global__ void __launch_bounds__(kTotalsBlock)
    totals_kernel(VdwArgs v, double tail_energy, double tail_virial, double* totals, double* pairs) {
  using Reduce = cub::BlockReduce<double, kTotalsBlock>;
  __shared__ typename Reduce::TempStorage temp;
  double acc[kResults] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (long k = threadIdx.x; k < v.n; k += kTotalsBlock)
    for (int c = 0; c < kResults; ++c) acc[c] += v.results[k * kResults + c];
  const double unit = units::kcal_mol;
  for (int c = 0; c < kResults; ++c) {
    const double s = Reduce(temp).Sum(acc[c]);
    if (threadIdx.x == 0) {
      if (c == 0) totals[0] += unit * (s + tail_energy);
      else if (c < 10) totals[c] += unit * s - (c % 4 == 1 ? unit * tail_virial : 0.0);
      else *pairs = s;
    }
    __syncthreads();
  }
}

// The mixed mode's totals: each thread's stride of the sites and then the threads' sums, in fixed
// point (eV; a thread's sum is a multiple of the resolution, so that adding it again rounds
// nothing); the pair count in double (whole numbers, exact).
__global__ void __launch_bounds__(kTotalsBlock)
    fixed_totals_kernel(VdwArgs v, double tail_energy, double tail_virial, double* totals, double* pairs) {
  __shared__ double part[kResults][kTotalsBlock];
  const double unit = units::kcal_mol;
  for (int c = 0; c < kResults; ++c) {
    device::FixedAccumulator acc(c < 10 ? device::fixed_scale::kTotal : 1.0);
    for (long k = threadIdx.x; k < v.n; k += kTotalsBlock)
      acc.add(c < 10 ? unit * v.results[k * kResults + c] : v.results[k * kResults + c]);
    part[c][threadIdx.x] = acc.value();
  }
  __syncthreads();
  const int c = threadIdx.x;
  if (c >= kResults) return;
  device::FixedAccumulator sum(c < 10 ? device::fixed_scale::kTotal : 1.0);
  for (int t = 0; t < kTotalsBlock; ++t) sum.add(part[c][t]);
  const double s = sum.value();
  if (c == 0) totals[0] += s + unit * tail_energy;
  else if (c < 10) totals[c] += s - (c % 4 == 1 ? unit * tail_virial : 0.0);
  else *pairs = s;
}

}  // namespace

void vdw_compute_cuda(VdwGpu& gpu, const VdwSystem& v, const AtomsRef& a, const ComputeRequest& req,
                      ForceOutput& out, Precision precision) {
  const bool mixed = precision == Precision::Mixed32;
  const int n = a.n;
  if (n == 0) return;
  const Box& cell = a.box;
  const bool periodic = cell.periodic[0] || cell.periodic[1] || cell.periodic[2];
  VdwArgs args{n,
               v.classes,
               periodic,
               cell,
               v.cutoff,
               v.taper,
               gpu.parent.data(),
               gpu.cls.data(),
               gpu.special_offset.data(),
               gpu.special_partner.data(),
               gpu.child_offset.data(),
               gpu.child.data(),
               nullptr,
               nullptr,
               gpu.reduction.data(),
               gpu.r0.data(),
               gpu.eps.data(),
               gpu.special_scale.data(),
               gpu.site.data(),
               gpu.grad.data(),
               gpu.results.data()};
  const unsigned blocks = grid_for(n, kBlock);
  site_kernel<<<blocks, kBlock>>>(args, a);
  QUASAR_LAUNCH_CHECK("amoeba vdw site_kernel");
  if (periodic) {
    // The candidates within reach of the sites (the CPU's list made full), built on the device.
    gpu.candidates.build(gpu.site.data(), n, cell, v.cutoff);
    args.pair_offset = gpu.candidates.offset();
    args.pair_partner = gpu.candidates.partner();
  }
  if (mixed) pair_kernel<true><<<blocks, kBlock>>>(args);
  else pair_kernel<false><<<blocks, kBlock>>>(args);
  QUASAR_LAUNCH_CHECK("amoeba vdw pair_kernel");
  VdwTail tail;
  if (periodic && v.long_range) tail = vdw_long_range(v, cell.volume());
  double* atom_energy = req.per_atom ? out.atom_energy.data() : nullptr;
  double* atom_virial = req.per_atom ? out.atom_virial.data() : nullptr;
  if (mixed) gather_kernel<true><<<blocks, kBlock>>>(args, a, tail.energy, tail.virial, atom_energy, atom_virial);
  else gather_kernel<false><<<blocks, kBlock>>>(args, a, tail.energy, tail.virial, atom_energy, atom_virial);
  QUASAR_LAUNCH_CHECK("amoeba vdw gather_kernel");
  if (mixed) fixed_totals_kernel<<<1, kTotalsBlock>>>(args, tail.energy, tail.virial, out.term_totals(), gpu.pairs.data());
  else totals_kernel<<<1, kTotalsBlock>>>(args, tail.energy, tail.virial, out.term_totals(), gpu.pairs.data());
  QUASAR_LAUNCH_CHECK("amoeba vdw totals_kernel");
}

}  // namespace quasar::amoeba
