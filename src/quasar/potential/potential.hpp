#pragma once
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.hpp"
#include "quasar/neighbor/neighbor_list.hpp"

namespace quasar {

// Å: the longest cutoff a model file may declare. Far beyond any short-range potential (LAMMPS's
// EAM files stop near 10 Å, Deep Potentials near 12 Å); it keeps the neighbour list's reach finite.
constexpr double kMaxCutoff = 100.0;

struct ComputeRequest {
  bool energy = true;     // total energy into totals[0]
  bool virial = true;     // total virial into totals[1..9]
  bool per_atom = false;  // per-atom energies and virials
};

// Results of one evaluation, on the atoms' backend. Forces go into AtomState::f{x,y,z}.
// Virial convention (LAMMPS, DeePMD-kit): W_ab = sum over pairs of r_ij,a * f_ij,b, with r_ij =
// r_i - r_j and f_ij the force on i due to j; pressure P_ab = (sum m v_a v_b + W_ab) / V.
struct ForceOutput {
  static constexpr int kTotals = 10;  // energy, then the 3x3 virial by rows
  Array<double> totals;               // kTotals values
  Array<double> atom_energy;          // n, when requested
  Array<double> atom_virial;          // 9 n, component-major: W_ab of atom i at [(3a+b) n + i]
  // Deterministic accumulation: on the GPU every sum that threads share (forces on neighbours,
  // per-atom virials, totals) is taken in 64-bit fixed point (device/fixed_point.hpp), so that
  // evaluations of the same input are bit-identical. The CPU loops are deterministic anyway.
  bool deterministic = false;
  device::FixedPointSums fixed;  // the status of those sums (GPU)

  explicit ForceOutput(Backend b, bool deterministic_sums = false)
      : totals(b, kTotals), atom_energy(b), atom_virial(b), deterministic(deterministic_sums) {}
  // Host copy of totals (synchronises on the GPU).
  double energy() const { return totals.to_vector()[0]; }
  Mat3 virial() const {
    auto t = totals.to_vector();
    return {{{t[1], t[2], t[3]}, {t[4], t[5], t[6]}, {t[7], t[8], t[9]}}};
  }
};

// A potential energy model. MD, the CLI, Python and LAMMPS all drive these objects.
class Potential {
 public:
  virtual ~Potential() = default;
  virtual std::string name() const = 0;
  virtual double cutoff() const = 0;
  // The list this potential wants on a backend (GPU kernels prefer full lists: no atomics).
  virtual ListKind list_kind(Backend b) const { return b == Backend::Cuda ? ListKind::Full : ListKind::Half; }
  // Maps the system's type names onto the model's species; throws naming an unknown type.
  virtual void bind_types(const std::vector<std::string>& type_names) = 0;
  // Overwrites the forces of `atoms` and fills `out` as requested.
  virtual void compute(AtomState& atoms, const NeighborRef& list, const ComputeRequest& req, ForceOutput& out) = 0;
};

}  // namespace quasar
