#include "quasar/potential/evaluate.hpp"

#include <algorithm>
#include <memory>

#include "quasar/neighbor/neighbor_lists.hpp"

namespace quasar {

namespace {

// Results of one computation, back in the structure's atom order.
Evaluation collect(const AtomState& atoms, const ForceField& ff, const ForceOutput& out, bool per_atom) {
  Evaluation e;
  const auto totals = out.summed_totals();
  e.energy = totals[0];
  e.virial = {{{totals[1], totals[2], totals[3]}, {totals[4], totals[5], totals[6]}, {totals[7], totals[8], totals[9]}}};
  const auto energies = out.term_energies();
  for (int k = 0; k < ff.size(); ++k) e.terms.push_back({ff.terms()[k].name, energies[k]});
  const auto ids = atoms.id.to_vector();
  const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
  const std::size_t n = ids.size();
  e.forces.resize(n);
  for (std::size_t i = 0; i < n; ++i) e.forces[ids[i]] = {fx[i], fy[i], fz[i]};
  if (per_atom) {
    const auto ae = out.atom_energy.to_vector();
    const auto av = out.atom_virial.to_vector();
    e.atom_energy.resize(n);
    e.atom_virial.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      e.atom_energy[ids[i]] = ae[i];
      Mat3& w = e.atom_virial[ids[i]];
      for (int c = 0; c < 9; ++c) w(c / 3, c % 3) = av[c * n + i];
    }
  }
  return e;
}

// A force field of one potential that the caller owns.
ForceField borrowed(Potential& p) { return ForceField(std::shared_ptr<Potential>(std::shared_ptr<Potential>(), &p)); }

}  // namespace

std::vector<Evaluation> evaluate_all(std::span<ForceField* const> force_fields, const Structure& s, Backend backend,
                                     bool per_atom, int n_local, bool deterministic) {
  AtomState atoms(backend, s, n_local);
  const SystemSetup setup = SystemSetup::of(s);
  std::vector<NeighborRequest> requests;  // of every force field, each once
  for (ForceField* ff : force_fields) {
    ff->bind(setup);
    for (const NeighborRequest& r : ff->neighbor_requests(backend))
      if (std::find(requests.begin(), requests.end(), r) == requests.end()) requests.push_back(r);
  }
  NeighborLists lists(backend, requests, 0.0, 0);
  lists.build(atoms);
  const std::vector<NeighborRef>& all = lists.refs();
  std::vector<Evaluation> out;
  ForceOutput f(backend, deterministic);
  for (ForceField* ff : force_fields) {
    std::vector<NeighborRef> mine;  // this force field's lists, in its own order
    for (const NeighborRequest& r : ff->neighbor_requests(backend))
      mine.push_back(all[static_cast<std::size_t>(std::find(requests.begin(), requests.end(), r) - requests.begin())]);
    ff->compute(atoms, mine, {true, true, per_atom}, f);
    out.push_back(collect(atoms, *ff, f, per_atom));
  }
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

}  // namespace quasar
