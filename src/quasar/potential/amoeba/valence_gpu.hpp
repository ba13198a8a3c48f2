#pragma once
// The valence terms on the GPU with the CPU reference's own formula code (valence_forms.hpp), in
// double or in mixed precision. Per term, three launches: one thread per entry writes the entry's
// energy, virial and the force on each of its atoms into a results array (no atomics); one thread
// per atom gathers the forces of its entries (and per-atom shares) in entry order, through a list of
// each atom's entries built at bind; one block sums energy and virial over the entries in a fixed
// order. So the outputs are the same bits every run. Mixed mode (Precision::Mixed32): the entries'
// arithmetic in float on displacements formed in double (evaluate_entry<float>), each entry's
// results stored as doubles, and the gathers and totals summed in 64-bit fixed point
// (mixed_sum.hpp).
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/potential/amoeba/valence_forms.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar::amoeba {

enum class ValenceForm {
  Bond, Angle, InPlaneAngle, StretchBend, Urey, OutOfPlane, Torsion, PiTorsion, TorsionTorsion, AngleTorsion,
  StretchTorsion
};

// One form's entries on the device.
struct ValenceBatch {
  ValenceForm form;
  int atoms_per_entry = 0;
  long count = 0;
  Array<unsigned char> entries{Backend::Cuda};  // count entries of the form's Entry type
  Array<int> incidence_offset{Backend::Cuda};   // per input atom, its range in `incidence` (n + 1)
  Array<int> incidence{Backend::Cuda};          // entry * atoms_per_entry + slot, ascending per atom
  Array<double> results{Backend::Cuda};         // per entry: energy, virial (9), forces (3 per atom), eV
};

// A term's entries on the device (one batch per form; the angle term has two).
struct ValenceGpu {
  ValenceUnits units{};
  Array<double> grids{Backend::Cuda};  // the torsion-torsion grids the entries point into
  std::vector<ValenceBatch> batches;
  bool ready = false;
};

// Copies a term's entries to the device (after bind, before the first GPU evaluation).
void prepare_valence_gpu(ValenceGpu& gpu, Term term, const ValenceEntries& entries, const ForceFieldHeader& header,
                         std::size_t atoms);

// Adds the term's forces, energy and virial (and per-atom shares) as add_valence_term does, for
// atoms on the CUDA backend; `a` is their view, whose cell may be the key's; in double or mixed32.
// valence_kernels.cu.
void valence_compute_cuda(ValenceGpu& gpu, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out,
                          Precision precision);

}  // namespace quasar::amoeba
