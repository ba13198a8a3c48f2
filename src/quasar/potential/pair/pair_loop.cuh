#pragma once
// GPU loop over a full neighbour list for any pair potential (see pair_loop.hpp): one thread per
// atom, no atomics on forces; energy and virial are reduced per block only when requested.
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/reduce.cuh"
#include "quasar/potential/potential.hpp"

namespace quasar {

template <class Eval, bool kEnergy, bool kPerAtom>
__global__ void __launch_bounds__(128) pair_loop_kernel(Eval eval, AtomsRef a, NeighborRef list, double* totals,
                                                        double* atom_energy, double* atom_virial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double f[3] = {0, 0, 0}, acc[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (i < a.n) {
    const int ti = a.type[i];
    const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
    const int count = list.count[i];
    for (int k = 0; k < count; ++k) {
      const long slot = list.slot_of(i, k);
      const int j = __ldg(list.index + slot);
      double dx = __ldg(a.x + j) - xi, dy = __ldg(a.y + j) - yi, dz = __ldg(a.z + j) - zi;
      const int code = __ldg(list.image + slot);
      if (code) {
        int p, q, r;
        unpack_image(code, p, q, r);
        const Vec3 s = a.box.shift(p, q, r);
        dx += s.x;
        dy += s.y;
        dz += s.z;
      }
      const double r2 = dx * dx + dy * dy + dz * dz;
      double fpair, e;
      if (!eval(ti, __ldg(a.type + j), r2, fpair, e)) continue;
      f[0] -= fpair * dx;
      f[1] -= fpair * dy;
      f[2] -= fpair * dz;
      if (kEnergy) {
        acc[0] += 0.5 * e;
        const double h = 0.5 * fpair;
        acc[1] += h * dx * dx; acc[2] += h * dx * dy; acc[3] += h * dx * dz;
        acc[4] += h * dy * dx; acc[5] += h * dy * dy; acc[6] += h * dy * dz;
        acc[7] += h * dz * dx; acc[8] += h * dz * dy; acc[9] += h * dz * dz;
      }
    }
    a.fx[i] = f[0];
    a.fy[i] = f[1];
    a.fz[i] = f[2];
    if (kPerAtom) {
      atom_energy[i] = acc[0];
      for (int c = 0; c < 9; ++c) atom_virial[static_cast<long>(c) * a.n + i] = acc[1 + c];
    }
  }
  if (kEnergy) device::block_sum_into<128, 10>(acc, totals);
}

template <class Eval>
void pair_loop_cuda(const Eval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                    ForceOutput& out) {
  const int n = atoms.size();
  const bool energy = req.energy || req.virial || req.per_atom;
  if (energy) out.totals.set_zero();
  if (req.per_atom) {
    out.atom_energy.resize(n);
    out.atom_virial.resize(9 * static_cast<std::size_t>(n));
  }
  const unsigned blocks = grid_for(n, 128);
  if (n == 0) return;
  if (req.per_atom)
    pair_loop_kernel<Eval, true, true><<<blocks, 128>>>(eval, atoms.ref(), list, out.totals.data(),
                                                         out.atom_energy.data(), out.atom_virial.data());
  else if (energy)
    pair_loop_kernel<Eval, true, false><<<blocks, 128>>>(eval, atoms.ref(), list, out.totals.data(), nullptr, nullptr);
  else
    pair_loop_kernel<Eval, false, false><<<blocks, 128>>>(eval, atoms.ref(), list, nullptr, nullptr, nullptr);
  QUASAR_LAUNCH_CHECK("pair_loop_kernel");
}

}  // namespace quasar
