#pragma once
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/core/system_setup.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar {

// Å: the longest cutoff a model file may declare. Far beyond any short-range potential (LAMMPS's
// EAM files stop near 10 Å, Deep Potentials near 12 Å); it keeps the neighbour list's reach finite.
constexpr double kMaxCutoff = 100.0;

// The lists of a compute call, in the order the potential requested them.
using NeighborRefs = std::span<const NeighborRef>;

// A potential energy model: one term of a ForceField (potential/force_field.hpp). MD, the CLI,
// Python and LAMMPS drive these through a force field.
class Potential {
 public:
  virtual ~Potential() = default;
  virtual std::string name() const = 0;
  // The registered family it belongs to (potential/registry.hpp): its name, unless a family's
  // potentials take other names (a bonded term "bond" of the family "bond/harmonic").
  virtual std::string family() const { return name(); }
  // Range of the interaction (Å): the largest cutoff of the lists it requests, 0 for none.
  virtual double cutoff() const = 0;
  // The lists it needs on a backend. By default one list of cutoff() (none when it is 0): full on
  // the GPU (kernels with one thread per atom and no atomics on forces), half on the CPU.
  virtual std::vector<NeighborRequest> neighbor_requests(Backend b) const {
    if (!(cutoff() > 0)) return {};
    return {{cutoff(), b == Backend::Cuda ? ListKind::Full : ListKind::Half}};
  }
  // Binds to a system: maps its type names onto the model's species (throws naming an unknown
  // type), takes charges and whatever else the model needs. Called before the first compute and
  // whenever the system changes.
  virtual void bind(const SystemSetup& setup) = 0;
  // Adds this term's forces into `atoms` and its energy, virial (into out.term_totals()) and per-atom
  // parts into `out`, as requested. `lists` are the lists of neighbor_requests(), in that order.
  // When out.contents is Stale (only if overwrites_outputs), it writes instead of adding.
  virtual void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) = 0;
  // Whether compute, as the first term, can overwrite stale forces and per-atom arrays (each entry
  // written once), so that the evaluation need not zero them first.
  virtual bool overwrites_outputs(Backend) const { return false; }
  // Arithmetic of the GPU evaluation (the CPU evaluates in double). A family lists the precisions
  // it supports in its registry entry (potential/registry.hpp); by default only double.
  virtual void set_precision(Precision p);
  // Solver state a restart needs to continue bit for bit (induced dipoles, predictor history);
  // checkpoints keep it by term name. Nothing by default.
  virtual void save_state(std::ostream&) const {}
  virtual void restore_state(std::istream&) {}
};

}  // namespace quasar
