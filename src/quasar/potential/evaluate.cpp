#include "quasar/potential/evaluate.hpp"

#include <algorithm>
#include <map>

namespace quasar {

namespace {

// Results of one computation, back in the structure's atom order.
Evaluation collect(const AtomState& atoms, const ForceOutput& out, bool per_atom) {
  Evaluation e;
  const auto totals = out.totals.to_vector();
  e.energy = totals[0];
  e.virial = {{{totals[1], totals[2], totals[3]}, {totals[4], totals[5], totals[6]}, {totals[7], totals[8], totals[9]}}};
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

}  // namespace

std::vector<Evaluation> evaluate_all(const std::vector<Potential*>& potentials, const Structure& s, Backend backend,
                                     bool per_atom, int n_local, bool deterministic) {
  AtomState atoms(backend, s, n_local);
  std::map<ListKind, double> cutoff;
  for (Potential* p : potentials) {
    double& rc = cutoff[p->list_kind(backend)];
    rc = std::max(rc, p->cutoff());
  }
  std::map<ListKind, NeighborList> lists;
  for (const auto& [kind, rc] : cutoff) {
    NeighborSettings ns;
    ns.cutoff = rc;
    ns.skin = 0.0;
    ns.kind = kind;
    ns.sort_every = 0;
    lists.emplace(kind, NeighborList(backend, ns)).first->second.build(atoms);
  }
  std::vector<Evaluation> out;
  ForceOutput f(backend, deterministic);
  for (Potential* p : potentials) {
    p->bind_types(atoms.type_names());
    p->compute(atoms, lists.at(p->list_kind(backend)).ref(), {true, true, per_atom}, f);
    out.push_back(collect(atoms, f, per_atom));
  }
  return out;
}

Evaluation evaluate(Potential& potential, const Structure& s, Backend backend, bool per_atom, int n_local,
                    bool deterministic) {
  return evaluate_all({&potential}, s, backend, per_atom, n_local, deterministic).front();
}

}  // namespace quasar
