#pragma once
// GPU loop over a full neighbour list for any pair potential (see pair_loop.hpp): one thread per
// atom, no atomics on forces (each thread sums its atom's pairs in list order, the same every run),
// written over stale values as the first term of an evaluation, else added; energy and virial are
// reduced per block only when requested, in fixed point when the output asks for deterministic sums.
// A Special other than NoSpecial (core/exclusions.hpp) scales or skips bonded pairs; the packed
// records then carry each atom's input index, by which the pairs are looked up. With ghosts
// (AtomState's n_local) a kernel of its own weights the pairs as the CPU loop does; the records then
// say which atoms are centres (ghosts and special weights do not meet: a LAMMPS pair style has no
// topology of Quasar's, so the potential refuses the pair of them).
#include "quasar/core/error.hpp"
#include "quasar/core/exclusions.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/potential/packed_atom.hpp"
#include "quasar/potential/pair/pair_sums.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

namespace {
// What a packed record's pad holds.
enum class PackPad { Zero, InputIndex, Centre };

template <PackPad kPad>
__global__ void pack_atoms_kernel(AtomsRef a, PackedAtom* __restrict__ p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const int pad = kPad == PackPad::InputIndex ? static_cast<int>(a.id[i])
                  : kPad == PackPad::Centre   ? (a.id[i] < a.n_local ? 1 : 0)
                                              : 0;
  p[i] = PackedAtom{a.x[i], a.y[i], a.z[i], a.type[i], pad};
}
}  // namespace

static inline bool has_ghosts(const AtomState& atoms) { return atoms.n_local() < atoms.size(); }

// What a kernel's atoms are, fixed at compile time: one system (whose cell the kernel reads from its
// parameters, as a single-system kernel always did: a run-time choice between those and a batch's
// cells in global memory costs the LJ kernel 14 registers and 5% of a step), one system with ghost
// atoms, or a batch of systems (each atom's cell through its system). A state with ghosts holds one
// system, so the two never meet.
enum class AtomSet { Plain, Ghosts, Batch };

static inline AtomSet atom_set_of(const AtomState& atoms) {
  return atoms.is_batch() ? AtomSet::Batch : has_ghosts(atoms) ? AtomSet::Ghosts : AtomSet::Plain;
}

template <AtomSet kSet>
__device__ __forceinline__ const Box& cell_of_atom(const AtomsRef& a, int i) {
  if constexpr (kSet == AtomSet::Batch) return a.boxes[a.system[i]];
  else return a.box;
}

// Fills `packed` from the atoms' positions and types (see packed_atom.hpp); with `ids`, each
// record's pad holds the atom's input index; with ghosts, 1 for a centre and 0 for a ghost.
static inline const PackedAtom* pack_atoms(AtomState& atoms, Array<PackedAtom>& packed, bool ids = false) {
  if (packed.backend() != Backend::Cuda) packed = Array<PackedAtom>(Backend::Cuda);
  packed.resize(atoms.size());
  const unsigned blocks = grid_for(atoms.size(), 256);
  if (ids) pack_atoms_kernel<PackPad::InputIndex><<<blocks, 256>>>(atoms.ref(), packed.data());
  else if (has_ghosts(atoms)) pack_atoms_kernel<PackPad::Centre><<<blocks, 256>>>(atoms.ref(), packed.data());
  else pack_atoms_kernel<PackPad::Zero><<<blocks, 256>>>(atoms.ref(), packed.data());
  QUASAR_LAUNCH_CHECK("pack_atoms_kernel");
  return packed.data();
}

// Neighbour k of atom i from the packed records: displacement r_j + image - r_i, j's type and pad.
template <AtomSet kSet>
__device__ __forceinline__ Vec3 packed_delta(const PackedAtom* __restrict__ p, const AtomsRef& a,
                                             const NeighborRef& list, const PackedAtom& pi, int i, int k, int& j,
                                             int& tj, int* pad_j = nullptr) {
  const long slot = list.slot_of(i, k);
  j = __ldg(list.index + slot);
  const PackedAtom pj = p[j];
  tj = pj.type;
  if (pad_j) *pad_j = pj.pad;
  Vec3 d{pj.x - pi.x, pj.y - pi.y, pj.z - pi.z};
  const int code = __ldg(list.image + slot);
  if (code) {
    int u, v, w;
    unpack_image(code, u, v, w);
    d += cell_of_atom<kSet>(a, i).shift(u, v, w);
  }
  return d;
}

template <class Eval, bool kEnergy, bool kPerAtom, AtomSet kSet, class Sum, class Special>
__global__ void __launch_bounds__(128) pair_loop_kernel(Eval eval, AtomsRef a, const PackedAtom* __restrict__ p,
                                                        NeighborRef list, double* totals, double* atom_energy,
                                                        double* atom_virial, bool overwrite, Sum add,
                                                        Special special) {
  constexpr bool kGhosts = kSet == AtomSet::Ghosts;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  FullListSums<kEnergy> sums;
  if (i < a.n) {
    const PackedAtom pi = p[i];
    const int count = list.count[i];
    for (int k = 0; k < count; ++k) {
      int j, tj, lj;
      const Vec3 d = packed_delta<kSet>(p, a, list, pi, i, k, j, tj, kGhosts ? &lj : nullptr);
      double fpair, e;
      if (kGhosts && pi.pad + lj == 0) continue;  // two ghosts
      if (!eval(pi.type, tj, norm2(d), fpair, e)) continue;
      if constexpr (Special::kActive) {
        const double w = special.weight(pi.pad, p[j].pad);
        if (w == 0.0) continue;
        fpair *= w;
        e *= w;
      }
      if (kGhosts) sums.add_pair(d, 0.5 * (pi.pad + lj) * fpair, pi.pad * e);
      else sums.add_pair(d, fpair, e);
    }
    if (kPerAtom && overwrite) atom_energy[i] = 0;
    sums.store(a, i, kPerAtom ? atom_energy : nullptr, atom_virial, overwrite);
  }
  if (kEnergy) device::block_sum_into<128, 10>(sums.acc, totals, add);
}

template <class Eval, AtomSet kSet, class Sum, class Special>
void pair_loop_kernels(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                       ForceOutput& out, const PackedAtom* p, Sum add, const Special& special) {
  const unsigned blocks = grid_for(atoms.size(), 128);
  const bool overwrite = out.contents == ForceOutput::Contents::Stale;
  double* totals = out.term_totals();
  if (req.per_atom)
    pair_loop_kernel<Eval, true, true, kSet><<<blocks, 128>>>(eval, atoms.ref(), p, list, totals, out.atom_energy.data(),
                                                              out.atom_virial.data(), overwrite, add, special);
  else if (req.energy || req.virial)
    pair_loop_kernel<Eval, true, false, kSet><<<blocks, 128>>>(eval, atoms.ref(), p, list, totals, nullptr, nullptr,
                                                               overwrite, add, special);
  else
    pair_loop_kernel<Eval, false, false, kSet><<<blocks, 128>>>(eval, atoms.ref(), p, list, nullptr, nullptr, nullptr,
                                                                overwrite, add, special);
  QUASAR_LAUNCH_CHECK("pair_loop_kernel");
}

template <class Eval, class Sum, class Special>
void pair_loop_launch(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                      ForceOutput& out, const PackedAtom* p, Sum add, const Special& special) {
  switch (atom_set_of(atoms)) {
    case AtomSet::Batch:
      pair_loop_kernels<Eval, AtomSet::Batch>(eval, atoms, list, req, out, p, add, special);
      break;
    case AtomSet::Ghosts:
      // The potential refuses special weights with ghosts before it gets here.
      if constexpr (Special::kActive) throw Error("pair loop: special weights with ghost atoms");
      else pair_loop_kernels<Eval, AtomSet::Ghosts>(eval, atoms, list, req, out, p, add, special);
      break;
    case AtomSet::Plain:
      pair_loop_kernels<Eval, AtomSet::Plain>(eval, atoms, list, req, out, p, add, special);
      break;
  }
}

template <class Eval, class Special = NoSpecial>
void pair_loop_cuda(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                    ForceOutput& out, Array<PackedAtom>& packed, const Special& special = {}) {
  // The output was prepared (ForceOutput::begin): totals zeroed when requested, arrays sized.
  const int n = atoms.size();
  const bool energy = req.energy || req.virial || req.per_atom;
  if (n == 0) return;
  const PackedAtom* p = pack_atoms(atoms, packed, Special::kActive);
  if (!(out.deterministic && energy)) {
    pair_loop_launch(eval, atoms, list, req, out, p, device::FloatSum{}, special);
    return;
  }
  pair_loop_launch(eval, atoms, list, req, out, p, device::FixedSum{out.fixed.start()}, special);
  out.fixed.finish(out.term_totals(), ForceOutput::kTotals, device::fixed_scale::kTotal);
}

}  // namespace quasar
