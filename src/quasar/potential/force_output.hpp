#pragma once
// What the terms of a force field add into: forces (in AtomState::f{x,y,z}), energy and virial per
// term, per-atom energies and virials. Everything lives on the atoms' backend; the host reads the
// totals only where it asks for them (output steps).
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.hpp"

namespace quasar {

struct ComputeRequest {
  bool energy = true;     // energy into the term's totals
  bool virial = true;     // virial into the term's totals
  bool per_atom = false;  // per-atom energies and virials
};

// Virial convention (LAMMPS, DeePMD-kit): W_ab = sum over pairs of r_ij,a * f_ij,b, with r_ij =
// r_i - r_j and f_ij the force on i due to j; pressure P_ab = (sum m v_a v_b + W_ab) / V.
class ForceOutput {
 public:
  static constexpr int kTotals = 10;  // energy, then the 3x3 virial by rows

  // What forces and per-atom arrays hold when a term starts (set by begin and begin_term).
  enum class Contents {
    Stale,  // an earlier evaluation's values: the term writes every entry (only the first term, and
            // only one that declares Potential::overwrites_outputs, which saves zeroing the arrays)
    Zero,   // zeros: the term adds
    Sums,   // what earlier terms of this evaluation added: the term adds
  };

  // kTotals values per term (energy, virial by rows); each term adds into its own block, so that
  // energies are known per term, and the totals are their sum (taken on the host, where they are
  // read: no kernel and no synchronisation in the step).
  Array<double> totals;
  Array<double> atom_energy;  // n, when requested (sum over terms)
  Array<double> atom_virial;  // 9 n, component-major: W_ab of atom i at [(3a+b) n + i]
  // A batch of systems (AtomState::num_systems() > 1): kTotals values per term and system at
  // [(term systems() + s) kTotals + c], the sums of each term's per-atom energies and virials over
  // the system's atoms (ForceField::compute asks the terms for per-atom parts in a batch; a segmented
  // sum in a fixed order follows each term). Empty for one system, whose totals are `totals`.
  Array<double> system_totals;
  // Deterministic accumulation: on the GPU every sum that threads share (forces on neighbours,
  // per-atom virials, totals) is taken in 64-bit fixed point (device/fixed_point.hpp), so that
  // evaluations of the same input are bit-identical. The CPU loops are deterministic anyway.
  bool deterministic = false;
  device::FixedPointSums fixed;  // the status of those sums (GPU)
  Contents contents = Contents::Zero;

  explicit ForceOutput(Backend b, bool deterministic_sums = false)
      : totals(b, kTotals), atom_energy(b), atom_virial(b), system_totals(b), deterministic(deterministic_sums),
        term_energy_(b), term_virial_(b) {}

  // Start of one evaluation of a force field of `terms` terms (ForceField::compute, the one place
  // that zeroes): sizes the arrays, zeroes the totals blocks of the terms evaluated (`evaluated[k]`;
  // empty: every term) when the request asks for energy or virial, so that the other terms keep
  // their last evaluation's, and zeroes the forces and per-atom arrays unless the first term
  // evaluated overwrites them (first_overwrites).
  void begin(AtomState& atoms, const ComputeRequest& req, int terms, bool first_overwrites,
             const std::vector<bool>& evaluated = {});
  // Before term k computes: its totals block becomes term_totals(); after the first, contents = Sums.
  // In a batch with per-atom parts, a term after the first adds its per-atom parts into zeroed
  // arrays of its own, so that end_term can sum them per system.
  void begin_term(int k);
  // After the term computed: in a batch, its per-system totals from its per-atom parts (which then
  // join the earlier terms' sums). Nothing for one system.
  void end_term();
  // Where the current term adds its energy and virial (kTotals values, on the atoms' backend).
  double* term_totals() { return totals.data() + static_cast<std::size_t>(kTotals) * term_; }
  int terms() const { return terms_; }

  // Host copies (synchronise on the GPU): the sums over terms, and each term's energy.
  double energy() const { return summed_totals()[0]; }
  Mat3 virial() const;
  std::vector<double> term_energies() const;
  std::vector<double> summed_totals() const;  // kTotals values
  // Systems of the last evaluation, and a host copy of every system's totals per term,
  // [(term systems() + s) kTotals + c]: system_totals in a batch, `totals` for one system.
  int systems() const { return systems_; }
  std::vector<double> system_term_totals() const;

 private:
  int terms_ = 1, term_ = 0, systems_ = 1, atoms_ = 0;
  bool started_ = false, per_atom_ = false, separated_ = false;
  const int* offsets_ = nullptr;           // the batch's system offsets, on the backend
  Array<double> term_energy_, term_virial_;  // a later term's own per-atom parts (batches)
};

}  // namespace quasar
