// The valence terms' kernels (valence_gpu.hpp): per entry, per atom, and one block for the totals.
#include <cub/block/block_reduce.cuh>

#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/amoeba/valence_gpu.hpp"

namespace quasar::amoeba {
namespace {

constexpr int kBlock = 128, kTotalsBlock = 256;

// One thread per entry: the form's energy and its exact gradient through duals, as on the CPU.
template <class Form>
__global__ void __launch_bounds__(kBlock)
    entry_kernel(Form form, const typename Form::Entry* __restrict__ entries, long count, AtomsRef a,
                 double* __restrict__ results) {
  const long k = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  constexpr int A = Form::kAtoms;
  int idx[A];
  double energy, w[9];
  Vec3 f[A];
  evaluate_entry(form, entries[k], a, idx, energy, w, f);
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
// outputs, an equal share of each entry's energy and virial.
__global__ void __launch_bounds__(kBlock)
    gather_kernel(const int* __restrict__ offset, const int* __restrict__ incidence, const double* __restrict__ results,
                  int A, AtomsRef a, double* atom_energy, double* atom_virial) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  const int stride = 10 + 3 * A;
  double f[3] = {0, 0, 0}, e = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int q = offset[j]; q < offset[j + 1]; ++q) {
    const int entry = incidence[q] / A, slot = incidence[q] % A;
    const double* r = results + static_cast<long>(entry) * stride;
    for (int c = 0; c < 3; ++c) f[c] += r[10 + 3 * slot + c];
    if (atom_energy) {
      e += r[0] / A;
      for (int c = 0; c < 9; ++c) w[c] += r[1 + c] / A;
    }
  }
  const int i = a.index_of[j];
  a.fx[i] += f[0];
  a.fy[i] += f[1];
  a.fz[i] += f[2];
  if (!atom_energy) return;
  atom_energy[i] += e;
  for (int c = 0; c < 9; ++c) atom_virial[static_cast<long>(c) * a.n + i] += w[c];
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

template <class Form>
void launch(ValenceBatch& b, const ValenceUnits& u, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out) {
  using Entry = typename Form::Entry;
  constexpr int A = Form::kAtoms;
  entry_kernel<Form><<<grid_for(b.count, kBlock), kBlock>>>(
      Form{u}, reinterpret_cast<const Entry*>(b.entries.data()), b.count, a, b.results.data());
  QUASAR_LAUNCH_CHECK("amoeba valence entry_kernel");
  gather_kernel<<<grid_for(a.n, kBlock), kBlock>>>(b.incidence_offset.data(), b.incidence.data(), b.results.data(), A,
                                                    a, req.per_atom ? out.atom_energy.data() : nullptr,
                                                    req.per_atom ? out.atom_virial.data() : nullptr);
  QUASAR_LAUNCH_CHECK("amoeba valence gather_kernel");
  totals_kernel<<<1, kTotalsBlock>>>(b.results.data(), b.count, 10 + 3 * A, out.term_totals());
  QUASAR_LAUNCH_CHECK("amoeba valence totals_kernel");
}

}  // namespace

void valence_compute_cuda(ValenceGpu& gpu, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out) {
  if (a.n == 0) return;
  for (ValenceBatch& b : gpu.batches) {
    const ValenceUnits& u = gpu.units;
    switch (b.form) {
      case ValenceForm::Bond: launch<BondForm>(b, u, a, req, out); break;
      case ValenceForm::Angle: launch<AngleForm>(b, u, a, req, out); break;
      case ValenceForm::InPlaneAngle: launch<InPlaneAngleForm>(b, u, a, req, out); break;
      case ValenceForm::StretchBend: launch<StretchBendForm>(b, u, a, req, out); break;
      case ValenceForm::Urey: launch<UreyForm>(b, u, a, req, out); break;
      case ValenceForm::OutOfPlane: launch<OutOfPlaneForm>(b, u, a, req, out); break;
      case ValenceForm::Torsion: launch<TorsionForm>(b, u, a, req, out); break;
      case ValenceForm::PiTorsion: launch<PiTorsionForm>(b, u, a, req, out); break;
      case ValenceForm::TorsionTorsion: launch<TorsionTorsionForm>(b, u, a, req, out); break;
      case ValenceForm::AngleTorsion: launch<AngleTorsionForm>(b, u, a, req, out); break;
      case ValenceForm::StretchTorsion: launch<StretchTorsionForm>(b, u, a, req, out); break;
    }
  }
}

}  // namespace quasar::amoeba
