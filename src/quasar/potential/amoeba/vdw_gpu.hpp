#pragma once
// The buffered 14-7 van der Waals term on the GPU with the CPU reference's formula code
// (vdw_forms.hpp), in double or in mixed precision (Precision::Mixed32: sites and displacements in
// double, each pair's arithmetic in float, every sum over pairs, sites and atoms in 64-bit fixed
// point, the long-range correction in double on the host). One thread per site computes its sites
// (reduced hydrogens on their bonds), then one thread per site visits every partner (all sites in
// the gas phase; in a periodic cell the candidates within reach of AMOEBA's own pair list built on
// the device from the sites each evaluation, pair_list_gpu.hpp), with the 1-2/1-3 scale factors found by walking the site's
// sorted special list; it writes its site's gradient and half of each pair's energy and virial. One
// thread per atom then gathers the gradients of its site and of the sites it carries (reduction
// factors), and one block sums the totals and Tinker's pair count in a fixed order: no atomics, the
// same bits every run.
#include "quasar/core/atoms.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/potential/amoeba/pair_list_gpu.hpp"
#include "quasar/potential/amoeba/vdw_term.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar::amoeba {

struct VdwGpu {
  long atoms = 0;
  Array<int> parent{Backend::Cuda}, cls{Backend::Cuda};
  Array<double> reduction{Backend::Cuda}, r0{Backend::Cuda}, eps{Backend::Cuda};
  Array<int> special_offset{Backend::Cuda}, special_partner{Backend::Cuda};  // sorted by partner per atom
  Array<double> special_scale{Backend::Cuda};
  Array<int> child_offset{Backend::Cuda}, child{Backend::Cuda};  // the reduced sites each atom carries
  DevicePairCandidates candidates;  // full candidate lists (a cell)
  Array<double> site{Backend::Cuda}, grad{Backend::Cuda}, results{Backend::Cuda};  // 3, 3 and 11 per site
  Array<double> pairs{Backend::Cuda};  // Tinker's count of the last evaluation (one value)
  bool ready = false;
};

// Copies the system's vdW data to the device (after bind, before the first GPU evaluation).
void prepare_vdw_gpu(VdwGpu& gpu, const VdwSystem& v);

// Adds forces, energy, virial (and per-atom halves of each pair's) as add_vdw does, for atoms on
// the CUDA backend (one system), in double or mixed32; the pair count stays on the device in
// gpu.pairs. vdw_kernels.cu.
void vdw_compute_cuda(VdwGpu& gpu, const VdwSystem& v, const AtomsRef& a, const ComputeRequest& req,
                      ForceOutput& out, Precision precision);

}  // namespace quasar::amoeba
