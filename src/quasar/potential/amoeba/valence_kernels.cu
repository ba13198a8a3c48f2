// The valence terms' kernels (valence_gpu.hpp): per entry, per atom, and one block for the totals.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/mixed_sum.hpp"
#include "quasar/potential/amoeba/valence_gpu.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128, kTotalsBlock = 256;

// One thread per entry: the form's energy and its exact gradient through duals, as on the CPU, in
// the arithmetic S (double, or float in mixed mode).
template <class Form, class S>
__global__ void __launch_bounds__(kBlock)
    entry_kernel(Form form, const typename Form::Entry* __restrict__ entries, long count, AtomsRef a,
                 double* __restrict__ results) {
  const long k = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  constexpr int A = Form::kAtoms;
  int idx[A];
  double energy, w[9];
  Vec3 f[A];
  evaluate_entry<S>(form, entries[k], a, idx, energy, w, f);
  double* out = results + k * (10 + 3 * A);
  out[0] = energy;
  for (int c = 0; c < 9; ++c) out[1 + c] = w[c];
  for (int m = 0; m < A; ++m) {
    out[10 + 3 * m] = f[m].x;
    out[10 + 3 * m + 1] = f[m].y;
    out[10 + 3 * m + 2] = f[m].z;
  }
}

// One thread per atom (input index j): the forces of its entries in entry order and, with per-atom
// outputs, an equal share of each entry's energy and virial; in fixed point in mixed mode.
template <bool kMixed>
__global__ void __launch_bounds__(kBlock)
    gather_kernel(const int* __restrict__ offset, const int* __restrict__ incidence, const double* __restrict__ results,
                  int A, AtomsRef a, double* atom_energy, double* atom_virial) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  const int stride = 10 + 3 * A;
  using Sum = MixedSum<kMixed>;
  const Sum force(device::fixed_scale::kForce), share(device::fixed_scale::kAtomVirial);
  Sum f[3] = {force, force, force}, e = share;
  Sum w[9] = {share, share, share, share, share, share, share, share, share};
  for (int q = offset[j]; q < offset[j + 1]; ++q) {
    const int entry = incidence[q] / A, slot = incidence[q] % A;
    const double* r = results + static_cast<long>(entry) * stride;
    for (int c = 0; c < 3; ++c) f[c].add(r[10 + 3 * slot + c]);
    if (atom_energy) {
      e.add(r[0] / A);
      for (int c = 0; c < 9; ++c) w[c].add(r[1 + c] / A);
    }
  }
  const int i = a.index_of[j];
  a.fx[i] += f[0].value();
  a.fy[i] += f[1].value();
  a.fz[i] += f[2].value();
  if (!atom_energy) return;
  atom_energy[i] += e.value();
  for (int c = 0; c < 9; ++c) atom_virial[static_cast<long>(c) * a.n + i] += w[c].value();
}

// One block: energy and virial summed over the entries, each thread over a fixed stride, then
// CUB's fixed tree; added to the term's totals.
__global__ void __launch_bounds__(kTotalsBlock)
    totals_kernel(const double* __restrict__ results, long count, int stride, double* totals) {
  using Reduce = cub::BlockReduce<double, kTotalsBlock>;
  __shared__ typename Reduce::TempStorage temp;
  double acc[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (long k = threadIdx.x; k < count; k += kTotalsBlock)
    for (int c = 0; c < 10; ++c) acc[c] += results[k * stride + c];
  for (int c = 0; c < 10; ++c) {
    const double s = Reduce(temp).Sum(acc[c]);
    if (threadIdx.x == 0) totals[c] += s;
    __syncthreads();
  }
}

// The mixed mode's totals: each thread's stride and then the threads' sums, all in fixed point (a
// thread's sum is a multiple of the resolution, so that adding it again rounds nothing).
__global__ void __launch_bounds__(kTotalsBlock)
    fixed_totals_kernel(const double* __restrict__ results, long count, int stride, double* totals) {
  __shared__ double part[10][kTotalsBlock];
  for (int c = 0; c < 10; ++c) {
    device::FixedAccumulator acc(device::fixed_scale::kTotal);
    for (long k = threadIdx.x; k < count; k += kTotalsBlock) acc.add(results[k * stride + c]);
    part[c][threadIdx.x] = acc.value();
  }
  __syncthreads();
  if (threadIdx.x >= 10) return;
  device::FixedAccumulator sum(device::fixed_scale::kTotal);
  for (int t = 0; t < kTotalsBlock; ++t) sum.add(part[threadIdx.x][t]);
  totals[threadIdx.x] += sum.value();
}

template <class Form, bool kMixed>
void launch_in(ValenceBatch& b, const ValenceUnits& u, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out) {
  using Entry = typename Form::Entry;
  constexpr int A = Form::kAtoms;
  entry_kernel<Form, MixedScalar<kMixed>><<<grid_for(b.count, kBlock), kBlock>>>(
      Form{u}, reinterpret_cast<const Entry*>(b.entries.data()), b.count, a, b.results.data());
  QUASAR_LAUNCH_CHECK("amoeba valence entry_kernel");
  gather_kernel<kMixed><<<grid_for(a.n, kBlock), kBlock>>>(b.incidence_offset.data(), b.incidence.data(),
                                                            b.results.data(), A, a,
                                                            req.per_atom ? out.atom_energy.data() : nullptr,
                                                            req.per_atom ? out.atom_virial.data() : nullptr);
  QUASAR_LAUNCH_CHECK("amoeba valence gather_kernel");
  if (kMixed) fixed_totals_kernel<<<1, kTotalsBlock>>>(b.results.data(), b.count, 10 + 3 * A, out.term_totals());
  else totals_kernel<<<1, kTotalsBlock>>>(b.results.data(), b.count, 10 + 3 * A, out.term_totals());
  QUASAR_LAUNCH_CHECK("amoeba valence totals_kernel");
}

template <class Form>
void launch(ValenceBatch& b, const ValenceUnits& u, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out,
            bool mixed) {
  if (mixed) launch_in<Form, true>(b, u, a, req, out);
  else launch_in<Form, false>(b, u, a, req, out);
}

}  // namespace

void valence_compute_cuda(ValenceGpu& gpu, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out,
                          Precision precision) {
  if (a.n == 0) return;
  const bool mixed = precision == Precision::Mixed32;
  for (ValenceBatch& b : gpu.batches) {
    const ValenceUnits& u = gpu.units;
    switch (b.form) {
      case ValenceForm::Bond: launch<BondForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::Angle: launch<AngleForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::InPlaneAngle: launch<InPlaneAngleForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::StretchBend: launch<StretchBendForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::Urey: launch<UreyForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::OutOfPlane: launch<OutOfPlaneForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::Torsion: launch<TorsionForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::PiTorsion: launch<PiTorsionForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::TorsionTorsion: launch<TorsionTorsionForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::AngleTorsion: launch<AngleTorsionForm>(b, u, a, req, out, mixed); break;
      case ValenceForm::StretchTorsion: launch<StretchTorsionForm>(b, u, a, req, out, mixed); break;
    }
  }
}

}  // namespace quasar::amoeba
