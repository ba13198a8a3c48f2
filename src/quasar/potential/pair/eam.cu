// EAM on a full neighbour list: one thread per atom in each of three passes (density, embedding,
// forces), so no atom is written by two threads: as the first term of an evaluation the kernels
// write over stale forces and per-atom values, else they add. Energy and virial totals are block
// sums, in fixed point for deterministic outputs. With ghosts (AtomState's n_local), kernels of their
// own let only centres embed and weight the pair terms as the CPU does (EamEval::shared_pair).
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/pair_loop.cuh"

namespace quasar {
namespace {

constexpr int kBlock = 128;

template <bool kEnergy, bool kPerAtom, AtomSet kSet, class Sum>
__global__ void __launch_bounds__(kBlock) density_kernel(EamArgs e, AtomsRef a, const PackedAtom* __restrict__ p,
                                                         NeighborRef list, double* totals, double* atom_energy,
                                                         bool overwrite, Sum add) {
  constexpr bool kGhosts = kSet == AtomSet::Ghosts;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double acc[1] = {0};
  if (i < a.n) {
    const PackedAtom pi = p[i];
    const int ti = pi.type;
    double rho = 0;
    for (int k = 0; k < list.count[i]; ++k) {
      int j, tj;
      const double r2 = norm2(packed_delta<kSet>(p, a, list, pi, i, k, j, tj));
      if (r2 < e.eval.cutsq) rho += e.eval.density(tj, ti, sqrt(r2));
    }
    double f, fp;
    e.eval.embed(ti, rho, f, fp);
    if (kGhosts && !pi.pad) f = fp = 0;  // a ghost: its density is incomplete
    e.rho[i] = rho;
    e.fp[i] = fp;
    acc[0] = f;
    if (kPerAtom) atom_energy[i] = overwrite ? f : atom_energy[i] + f;
  }
  if (kEnergy) device::block_sum_into<kBlock, 1>(acc, totals, add);
}

template <bool kEnergy, bool kPerAtom, AtomSet kSet, class Sum>
__global__ void __launch_bounds__(kBlock) force_kernel(EamArgs e, AtomsRef a, const PackedAtom* __restrict__ p,
                                                       NeighborRef list, double* totals, double* atom_energy,
                                                       double* atom_virial, bool overwrite, Sum add) {
  constexpr bool kGhosts = kSet == AtomSet::Ghosts;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  FullListSums<kEnergy> sums;
  if (i < a.n) {
    const PackedAtom pi = p[i];
    const double fpi = e.fp[i];
    for (int k = 0; k < list.count[i]; ++k) {
      int j, tj, lj;
      const Vec3 d = packed_delta<kSet>(p, a, list, pi, i, k, j, tj, kGhosts ? &lj : nullptr);
      const double r2 = norm2(d);
      if (r2 >= e.eval.cutsq) continue;
      double fpair, phi;
      if (!kGhosts) {
        e.eval.pair(pi.type, tj, sqrt(r2), fpi, __ldg(e.fp + j), fpair, phi);
        sums.add_pair(d, fpair, phi);
      } else if (pi.pad + lj > 0) {
        e.eval.shared_pair(pi.type, tj, sqrt(r2), fpi, __ldg(e.fp + j), 0.5 * (pi.pad + lj), fpair, phi);
        sums.add_pair(d, fpair, pi.pad * phi);
      }
    }
    sums.store(a, i, kPerAtom ? atom_energy : nullptr, atom_virial, overwrite);  // adds to the embedding energy
  }
  if (kEnergy) device::block_sum_into<kBlock, 10>(sums.acc, totals, add);
}

template <bool kEnergy, bool kPerAtom, AtomSet kSet, class Sum>
void launch_as(const EamArgs& e, AtomState& atoms, const NeighborRef& list, ForceOutput& out, Sum add) {
  const unsigned blocks = grid_for(atoms.size(), kBlock);
  double* ae = kPerAtom ? out.atom_energy.data() : nullptr;
  double* av = kPerAtom ? out.atom_virial.data() : nullptr;
  const bool overwrite = out.contents == ForceOutput::Contents::Stale;
  double* totals = out.term_totals();
  density_kernel<kEnergy, kPerAtom, kSet>
      <<<blocks, kBlock>>>(e, atoms.ref(), e.packed, list, totals, ae, overwrite, add);
  QUASAR_LAUNCH_CHECK("eam density_kernel");
  force_kernel<kEnergy, kPerAtom, kSet>
      <<<blocks, kBlock>>>(e, atoms.ref(), e.packed, list, totals, ae, av, overwrite, add);
  QUASAR_LAUNCH_CHECK("eam force_kernel");
}

template <bool kEnergy, bool kPerAtom, class Sum = device::FloatSum>
void launch(const EamArgs& e, AtomState& atoms, const NeighborRef& list, ForceOutput& out, Sum add = {}) {
  switch (atom_set_of(atoms)) {
    case AtomSet::Batch: launch_as<kEnergy, kPerAtom, AtomSet::Batch>(e, atoms, list, out, add); break;
    case AtomSet::Ghosts: launch_as<kEnergy, kPerAtom, AtomSet::Ghosts>(e, atoms, list, out, add); break;
    case AtomSet::Plain: launch_as<kEnergy, kPerAtom, AtomSet::Plain>(e, atoms, list, out, add); break;
  }
}

// Energy and virial totals in fixed point: the same bits every run.
template <bool kPerAtom>
void launch_deterministic(const EamArgs& e, AtomState& atoms, const NeighborRef& list, ForceOutput& out) {
  launch<true, kPerAtom>(e, atoms, list, out, device::FixedSum{out.fixed.start()});
  out.fixed.finish(out.term_totals(), ForceOutput::kTotals, device::fixed_scale::kTotal);
}

}  // namespace

void eam_compute_cuda(EamArgs e, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                      ForceOutput& out, Array<PackedAtom>& packed) {
  if (atoms.size() == 0) return;
  e.packed = pack_atoms(atoms, packed);
  // The output was prepared (ForceOutput::begin): totals zeroed when requested, arrays sized.
  const bool energy = req.energy || req.virial || req.per_atom;
  if (req.per_atom) {
    if (out.deterministic) launch_deterministic<true>(e, atoms, list, out);
    else launch<true, true>(e, atoms, list, out);
  } else if (energy) {
    if (out.deterministic) launch_deterministic<false>(e, atoms, list, out);
    else launch<true, false>(e, atoms, list, out);
  } else {
    launch<false, false>(e, atoms, list, out);
  }
}

}  // namespace quasar
