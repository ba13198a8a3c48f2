#pragma once
// A force field: an ordered list of terms, each a potential with a name and a force group. The terms
// bind to one system, share the neighbour lists they request alike, and add into one ForceOutput,
// which keeps each term's energy and virial. Whoever runs the force field (md::Simulation,
// evaluate, GhostEvaluator) owns the lists: one per distinct request (neighbor/neighbor_lists.hpp).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quasar/potential/potential.hpp"

namespace quasar {

class ForceField {
 public:
  static constexpr int kMaxGroups = 32;
  static constexpr unsigned kAllGroups = ~0u;  // a bit per group

  struct Term {
    std::string name;
    std::shared_ptr<Potential> potential;
    int group = 0;  // the multiple-time-step integrator evaluates groups at different rates
  };

  ForceField() = default;
  explicit ForceField(std::shared_ptr<Potential> potential) { add(std::move(potential)); }

  // Appends a term. name "": the potential's name, made unique with a suffix (eam, eam_2, ...).
  // Throws Error for a name already taken, a name that is not letters, digits, '_', '-' and '.', or
  // a group outside [0, kMaxGroups).
  void add(std::shared_ptr<Potential> potential, std::string name = "", int group = 0);
  const std::vector<Term>& terms() const { return terms_; }
  int size() const { return static_cast<int>(terms_.size()); }
  bool empty() const { return terms_.empty(); }
  Potential& potential(int k) { return *terms_[static_cast<std::size_t>(k)].potential; }
  // "eam" for one term, "eam + lj" for several: for messages.
  std::string describe() const;
  // The largest cutoff of any term.
  double cutoff() const;

  void bind(const SystemSetup& setup);
  // The distinct lists the terms need on a backend, in the order first requested.
  std::vector<NeighborRequest> neighbor_requests(Backend b) const;
  // One evaluation: prepares `out` (the zeroing happens there, once), then every term whose group is
  // in `groups` adds its part. `lists` are the lists of neighbor_requests(atoms.backend()), in order.
  // The forces (and per-atom values) are those of the terms evaluated; the energy and virial totals
  // of the other terms stay as their last evaluation left them.
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out,
               unsigned groups = kAllGroups);

  // Solver state of the terms that have some (name, bytes), for checkpoints; and back, by name
  // (throws Error when no term has that name).
  std::vector<std::pair<std::string, std::string>> save_states() const;
  void restore_state(const std::string& name, const std::string& bytes);

 private:
  void map_lists(Backend b);

  std::vector<Term> terms_;
  // Per term, where its requests sit among neighbor_requests(mapped_): the term's views are
  // refs_[first_[k] .. first_[k + 1]), filled from list index list_of_[...] at each compute.
  bool mapped_ = false;
  Backend mapped_backend_ = Backend::Cpu;
  std::vector<int> first_, list_of_;
  std::vector<NeighborRef> refs_;
  std::vector<bool> evaluated_;  // per term, in a compute of a subset of the groups
};

}  // namespace quasar
