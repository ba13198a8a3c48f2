// Bonded terms on the GPU: one thread per atom evaluates every entry its atom takes part in (looked
// up by input index, atoms found through AtomsRef::index_of) and keeps its own force and share of
// energy and virial: no atomics on forces or per-atom arrays, so the result is the same every run
// and stale outputs can be overwritten. Totals are block sums, in fixed point when asked.
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/fixed_point.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/potential/bonded/bonded_term.hpp"

namespace quasar {

namespace {

template <class Form, bool kEnergy, bool kPerAtom, class Sum>
__global__ void __launch_bounds__(128) bonded_kernel(Form form, AtomsRef a, BondedRef list, double* totals,
                                                     double* atom_energy, double* atom_virial, bool overwrite, Sum add) {
  constexpr int kArity = Form::kArity;
  constexpr double kShare = 1.0 / kArity;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double acc[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // energy, virial by rows: this atom's shares
  if (i < a.n) {
    const long k = a.id[i];
    double f[3] = {0, 0, 0};
    const int end = list.atom_offset[k + 1];
    for (int s = list.atom_offset[k]; s < end; ++s) {
      const int code = list.atom_entries[s];
      const int e = code / kArity, place = code - e * kArity;
      BondedGeometry<kArity> g{a, {}};
      for (int m = 0; m < kArity; ++m) g.idx[m] = a.index_of[list.atoms[e * kArity + m]];
      Vec3 fe[kArity];
      double we[9];
      const double ee = form(list.type[e], g, fe, we);
      f[0] += fe[place].x;
      f[1] += fe[place].y;
      f[2] += fe[place].z;
      if (kEnergy) {
        acc[0] += kShare * ee;
        for (int c = 0; c < 9; ++c) acc[1 + c] += kShare * we[c];
      }
    }
    if (overwrite) {
      a.fx[i] = f[0];
      a.fy[i] = f[1];
      a.fz[i] = f[2];
    } else {
      a.fx[i] += f[0];
      a.fy[i] += f[1];
      a.fz[i] += f[2];
    }
    if (kPerAtom) {
      atom_energy[i] = overwrite ? acc[0] : atom_energy[i] + acc[0];
      for (int c = 0; c < 9; ++c) {
        double& w = atom_virial[static_cast<long>(c) * a.n + i];
        w = overwrite ? acc[1 + c] : w + acc[1 + c];
      }
    }
  }
  if (kEnergy) device::block_sum_into<128, 10>(acc, totals, add);
}

template <class Form, class Sum>
void bonded_launch(const Form& form, const BondedRef& list, AtomState& atoms, const ComputeRequest& req,
                   ForceOutput& out, Sum add) {
  const unsigned blocks = grid_for(atoms.size(), 128);
  const bool overwrite = out.contents == ForceOutput::Contents::Stale;
  double* totals = out.term_totals();
  if (req.per_atom)
    bonded_kernel<Form, true, true><<<blocks, 128>>>(form, atoms.ref(), list, totals, out.atom_energy.data(),
                                                      out.atom_virial.data(), overwrite, add);
  else if (req.energy || req.virial)
    bonded_kernel<Form, true, false><<<blocks, 128>>>(form, atoms.ref(), list, totals, nullptr, nullptr, overwrite, add);
  else
    bonded_kernel<Form, false, false><<<blocks, 128>>>(form, atoms.ref(), list, nullptr, nullptr, nullptr, overwrite, add);
  QUASAR_LAUNCH_CHECK("bonded_kernel");
}

}  // namespace

template <class Form>
void bonded_compute_cuda(const Form& form, const BondedRef& list, AtomState& atoms, const ComputeRequest& req,
                         ForceOutput& out) {
  // The output was prepared (ForceOutput::begin): totals zeroed when requested, arrays sized.
  if (atoms.size() == 0) return;
  const bool energy = req.energy || req.virial || req.per_atom;
  if (!(out.deterministic && energy)) {
    bonded_launch(form, list, atoms, req, out, device::FloatSum{});
    return;
  }
  bonded_launch(form, list, atoms, req, out, device::FixedSum{out.fixed.start()});
  out.fixed.finish(out.term_totals(), ForceOutput::kTotals, device::fixed_scale::kTotal);
}

template void bonded_compute_cuda(const HarmonicBondForm&, const BondedRef&, AtomState&, const ComputeRequest&,
                                  ForceOutput&);
template void bonded_compute_cuda(const HarmonicAngleForm&, const BondedRef&, AtomState&, const ComputeRequest&,
                                  ForceOutput&);

}  // namespace quasar
