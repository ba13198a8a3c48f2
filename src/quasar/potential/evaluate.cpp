#include "quasar/potential/evaluate.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "quasar/neighbor/neighbor_lists.hpp"

namespace quasar {

namespace {

// Results of one computation, per system, back in each structure's atom order.
std::vector<Evaluation> collect(const AtomState& atoms, const ForceField& ff, const ForceOutput& out, bool per_atom) {
  const int systems = atoms.num_systems(), terms = ff.size();
  const std::vector<int>& offsets = atoms.system_offsets();
  const std::vector<double> t = out.system_term_totals();  // [(term systems + s) kTotals + c]
  constexpr int kT = ForceOutput::kTotals;
  std::vector<Evaluation> all(static_cast<std::size_t>(systems));
  for (int s = 0; s < systems; ++s) {
    Evaluation& e = all[static_cast<std::size_t>(s)];
    double sum[kT];
    for (int c = 0; c < kT; ++c) sum[c] = t[static_cast<std::size_t>(s) * kT + c];
    for (int k = 1; k < terms; ++k)
      for (int c = 0; c < kT; ++c) sum[c] += t[(static_cast<std::size_t>(k) * systems + s) * kT + c];
    e.energy = sum[0];
    e.virial = {{{sum[1], sum[2], sum[3]}, {sum[4], sum[5], sum[6]}, {sum[7], sum[8], sum[9]}}};
    for (int k = 0; k < terms; ++k)
      e.terms.push_back({ff.terms()[k].name, t[(static_cast<std::size_t>(k) * systems + s) * kT]});
    const std::size_t count = static_cast<std::size_t>(offsets[s + 1] - offsets[s]);
    e.forces.resize(count);
    if (per_atom) {
      e.atom_energy.resize(count);
      e.atom_virial.resize(count);
    }
  }
  std::vector<int> system_of(static_cast<std::size_t>(atoms.size()));
  for (int s = 0; s < systems; ++s)
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) system_of[static_cast<std::size_t>(i)] = s;
  const auto ids = atoms.id.to_vector();
  const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
  const std::size_t n = ids.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int s = system_of[static_cast<std::size_t>(ids[i])];
    all[static_cast<std::size_t>(s)].forces[static_cast<std::size_t>(ids[i] - offsets[s])] = {fx[i], fy[i], fz[i]};
  }
  if (per_atom) {
    const auto ae = out.atom_energy.to_vector();
    const auto av = out.atom_virial.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
      const int s = system_of[static_cast<std::size_t>(ids[i])];
      const std::size_t at = static_cast<std::size_t>(ids[i] - offsets[s]);
      Evaluation& e = all[static_cast<std::size_t>(s)];
      e.atom_energy[at] = ae[i];
      Mat3& w = e.atom_virial[at];
      for (int c = 0; c < 9; ++c) w(c / 3, c % 3) = av[c * n + i];
    }
  }
  return all;
}

// Every force field on one AtomState of the frames (a batch when there are several): [field][frame].
std::vector<std::vector<Evaluation>> evaluate_frames(std::span<ForceField* const> force_fields,
                                                     std::span<const Structure> frames, Backend backend, bool per_atom,
                                                     int n_local, bool deterministic) {
  if (frames.empty()) return std::vector<std::vector<Evaluation>>(force_fields.size());
  std::optional<AtomState> atoms;
  if (frames.size() == 1) atoms.emplace(backend, frames.front(), n_local);
  else atoms.emplace(backend, frames);
  const SystemSetup setup = SystemSetup::of(frames);
  std::vector<NeighborRequest> requests;  // of every force field, each once
  for (ForceField* ff : force_fields) {
    ff->bind(setup);
    for (const NeighborRequest& r : ff->neighbor_requests(backend))
      if (std::find(requests.begin(), requests.end(), r) == requests.end()) requests.push_back(r);
  }
  NeighborLists lists(backend, requests, 0.0, 0);
  lists.build(*atoms);
  const std::vector<NeighborRef>& all = lists.refs();
  std::vector<std::vector<Evaluation>> out;
  ForceOutput f(backend, deterministic);
  for (ForceField* ff : force_fields) {
    std::vector<NeighborRef> mine;  // this force field's lists, in its own order
    for (const NeighborRequest& r : ff->neighbor_requests(backend))
      mine.push_back(all[static_cast<std::size_t>(std::find(requests.begin(), requests.end(), r) - requests.begin())]);
    ff->compute(*atoms, mine, {true, true, per_atom}, f);
    out.push_back(collect(*atoms, *ff, f, per_atom));
  }
  return out;
}

// A force field of one potential that the caller owns.
ForceField borrowed(Potential& p) { return ForceField(std::shared_ptr<Potential>(std::shared_ptr<Potential>(), &p)); }

}  // namespace

std::vector<Evaluation> evaluate_all(std::span<ForceField* const> force_fields, const Structure& s, Backend backend,
                                     bool per_atom, int n_local, bool deterministic) {
  const auto all = evaluate_frames(force_fields, std::span<const Structure>(&s, 1), backend, per_atom, n_local, deterministic);
  std::vector<Evaluation> out;
  for (const auto& e : all) out.push_back(e.front());
  return out;
}

std::vector<Evaluation> evaluate_all(const std::vector<Potential*>& potentials, const Structure& s, Backend backend,
                                     bool per_atom, int n_local, bool deterministic) {
  std::vector<ForceField> fields;
  for (Potential* p : potentials) fields.push_back(borrowed(*p));
  std::vector<ForceField*> ptrs;
  for (ForceField& f : fields) ptrs.push_back(&f);
  return evaluate_all(ptrs, s, backend, per_atom, n_local, deterministic);
}

Evaluation evaluate(ForceField& force_field, const Structure& s, Backend backend, bool per_atom, int n_local,
                    bool deterministic) {
  ForceField* const one[1] = {&force_field};
  return evaluate_all(one, s, backend, per_atom, n_local, deterministic).front();
}

Evaluation evaluate(Potential& potential, const Structure& s, Backend backend, bool per_atom, int n_local,
                    bool deterministic) {
  ForceField ff = borrowed(potential);
  return evaluate(ff, s, backend, per_atom, n_local, deterministic);
}

std::vector<std::vector<Evaluation>> evaluate_batch_all(std::span<ForceField* const> force_fields,
                                                        std::span<const Structure> frames, Backend backend,
                                                        bool per_atom, bool deterministic) {
  return evaluate_frames(force_fields, frames, backend, per_atom, -1, deterministic);
}

std::vector<Evaluation> evaluate_batch(ForceField& force_field, std::span<const Structure> frames, Backend backend,
                                       bool per_atom, bool deterministic) {
  ForceField* const one[1] = {&force_field};
  return evaluate_frames(one, frames, backend, per_atom, -1, deterministic).front();
}

std::vector<std::span<const Structure>> split_batches(std::span<const Structure> frames, long max_atoms,
                                                      long max_frames) {
  std::vector<std::span<const Structure>> out;
  std::size_t first = 0;
  long atoms = 0;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const long n = static_cast<long>(frames[k].size());
    const bool fits = k > first && atoms + n <= max_atoms && static_cast<long>(k - first) < max_frames &&
                      frames[k].charges.empty() == frames[first].charges.empty();
    if (k > first && !fits) {
      out.push_back(frames.subspan(first, k - first));
      first = k;
      atoms = 0;
    }
    atoms += n;
  }
  if (first < frames.size()) out.push_back(frames.subspan(first));
  return out;
}

}  // namespace quasar
