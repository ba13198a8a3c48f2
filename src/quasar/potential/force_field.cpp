#include "quasar/potential/force_field.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar {

namespace {
bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}
}  // namespace

void ForceField::add(std::shared_ptr<Potential> potential, std::string name, int group) {
  if (!potential) throw Error("force field: no potential given");
  auto taken = [&](const std::string& n) {
    return std::any_of(terms_.begin(), terms_.end(), [&](const Term& t) { return t.name == n; });
  };
  if (name.empty()) {
    name = potential->name();
    for (int k = 2; taken(name); ++k) name = potential->name() + "_" + std::to_string(k);
  } else if (!valid_name(name)) {
    throw Error("force field: term name '" + name + "' must be letters, digits, '_', '-' or '.'");
  } else if (taken(name)) {
    throw Error("force field: two terms are named '" + name + "'");
  }
  if (group < 0 || group >= kMaxGroups)
    throw Error("force field: group " + std::to_string(group) + " of term '" + name + "' is not in 0.." +
                std::to_string(kMaxGroups - 1));
  terms_.push_back({std::move(name), std::move(potential), group});
  mapped_ = false;
}

std::string ForceField::describe() const {
  std::string s;
  for (const Term& t : terms_) s += (s.empty() ? "" : " + ") + t.name;
  return s;
}

double ForceField::cutoff() const {
  double rc = 0;
  for (const Term& t : terms_) rc = std::max(rc, t.potential->cutoff());
  return rc;
}

void ForceField::bind(const SystemSetup& setup) {
  for (Term& t : terms_) t.potential->bind(setup);
  mapped_ = false;  // requests may depend on what was bound
}

std::vector<NeighborRequest> ForceField::neighbor_requests(Backend b) const {
  std::vector<NeighborRequest> all;
  for (const Term& t : terms_)
    for (const NeighborRequest& r : t.potential->neighbor_requests(b))
      if (std::find(all.begin(), all.end(), r) == all.end()) all.push_back(r);
  return all;
}

void ForceField::map_lists(Backend b) {
  const std::vector<NeighborRequest> all = neighbor_requests(b);
  first_.assign(1, 0);
  list_of_.clear();
  for (const Term& t : terms_) {
    for (const NeighborRequest& r : t.potential->neighbor_requests(b))
      list_of_.push_back(static_cast<int>(std::find(all.begin(), all.end(), r) - all.begin()));
    first_.push_back(static_cast<int>(list_of_.size()));
  }
  refs_.resize(list_of_.size());
  mapped_ = true;
  mapped_backend_ = b;
}

void ForceField::compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out,
                         unsigned groups) {
  const Backend b = atoms.backend();
  if (!mapped_ || mapped_backend_ != b) map_lists(b);
  auto selected = [&](const Term& t) { return ((groups >> t.group) & 1u) != 0; };
  const auto first = std::find_if(terms_.begin(), terms_.end(), selected);
  const bool overwrites = first != terms_.end() && first->potential->overwrites_outputs(b);
  // A batch's per-system totals are sums of per-atom parts (ForceOutput::end_term).
  ComputeRequest request = req;
  if (atoms.is_batch() && (req.energy || req.virial)) request.per_atom = true;
  // A subset of the terms: the others keep their totals from their last evaluation.
  evaluated_.clear();
  if (!std::all_of(terms_.begin(), terms_.end(), selected))
    for (const Term& t : terms_) evaluated_.push_back(selected(t));
  out.begin(atoms, request, size(), overwrites, evaluated_);
  for (std::size_t k = 0; k < terms_.size(); ++k) {
    if (!selected(terms_[k])) continue;
    for (int r = first_[k]; r < first_[k + 1]; ++r) {
      const int list = list_of_[static_cast<std::size_t>(r)];
      if (list >= static_cast<int>(lists.size()))
        throw Error("force field: term '" + terms_[k].name + "' needs " + std::to_string(list + 1) +
                    " neighbour lists, " + std::to_string(lists.size()) + " given");
      refs_[static_cast<std::size_t>(r)] = lists[static_cast<std::size_t>(list)];
    }
    out.begin_term(static_cast<int>(k));
    const NeighborRefs term_lists(refs_.data() + first_[k], static_cast<std::size_t>(first_[k + 1] - first_[k]));
    terms_[k].potential->compute(atoms, term_lists, request, out);
    out.end_term();
  }
}

std::vector<std::pair<std::string, std::string>> ForceField::save_states() const {
  std::vector<std::pair<std::string, std::string>> states;
  for (const Term& t : terms_) {
    std::ostringstream s;
    t.potential->save_state(s);
    if (!s.str().empty()) states.emplace_back(t.name, s.str());
  }
  return states;
}

void ForceField::restore_state(const std::string& name, const std::string& bytes) {
  for (Term& t : terms_)
    if (t.name == name) {
      std::istringstream s(bytes);
      t.potential->restore_state(s);
      return;
    }
  throw Error("no term named '" + name + "' in the force field (" + describe() + ")");
}

}  // namespace quasar
