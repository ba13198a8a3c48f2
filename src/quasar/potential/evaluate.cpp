#include "quasar/potential/evaluate.hpp"

namespace quasar {

Evaluation evaluate(Potential& potential, const Structure& s, Backend backend, bool per_atom) {
  AtomState atoms(backend, s);
  potential.bind_types(atoms.type_names());
  NeighborSettings ns;
  ns.cutoff = potential.cutoff();
  ns.skin = 0.0;
  ns.kind = potential.list_kind(backend);
  ns.sort_every = 0;
  NeighborList list(backend, ns);
  list.build(atoms);
  ForceOutput out(backend);
  potential.compute(atoms, list.ref(), {true, true, per_atom}, out);

  Evaluation e;
  const auto totals = out.totals.to_vector();
  e.energy = totals[0];
  e.virial = {{{totals[1], totals[2], totals[3]}, {totals[4], totals[5], totals[6]}, {totals[7], totals[8], totals[9]}}};
  const auto ids = atoms.id.to_vector();
  const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
  const std::size_t n = s.size();
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

}  // namespace quasar
