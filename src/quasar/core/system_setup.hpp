#pragma once
// What a potential binds to before it computes anything: the system's description, as opposed to
// its state (positions, velocities), which changes every step. Plain host data; potentials take
// what they need from it (a pair potential its type names, an electrostatic term the charges, a
// bonded term the topology).
#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar {

struct SystemSetup {
  std::vector<std::string> type_names;  // type index -> name
  std::vector<double> type_masses;      // amu, per type
  std::vector<double> charges;          // e, per atom in input order; empty when the system has none
  std::vector<int> atom_types;          // type index per atom in input order (empty: not known, as for LAMMPS)
  Topology topology;                    // bonds, angles, ... by input index (core/topology.hpp)
  std::size_t atom_count = 0;           // atoms in the system (0: not known, as for the LAMMPS plugin)
  // Per-atom parameters by name, each an array in input order (polarisabilities, multipoles, ...).
  std::map<std::string, std::vector<double>> atom_params;

  static SystemSetup of(const Structure& s) {
    SystemSetup setup;
    setup.type_names = s.type_names;
    setup.type_masses = s.type_masses;
    setup.charges = s.charges;
    setup.atom_types = s.types;
    setup.topology = s.topology;
    setup.atom_count = s.size();
    return setup;
  }
  // A batch (AtomState of several systems): the merged types (merge_types) and the systems' atoms,
  // charges and topologies one after another (atom indices of a batch's input order).
  static SystemSetup of(std::span<const Structure> systems) {
    if (systems.size() == 1) return of(systems.front());
    MergedTypes m = merge_types(systems);
    SystemSetup setup;
    setup.type_names = std::move(m.names);
    setup.type_masses = std::move(m.masses);
    long molecules = 0;
    for (std::size_t k = 0; k < systems.size(); ++k) {
      const Structure& s = systems[k];
      setup.charges.insert(setup.charges.end(), s.charges.begin(), s.charges.end());
      for (int t : s.types) setup.atom_types.push_back(m.index[k][static_cast<std::size_t>(t)]);
      const long first = molecules;  // molecule ids of later systems follow the earlier ones'
      setup.topology.append(s.topology, static_cast<int>(setup.atom_count), first);
      for (long id : s.topology.molecules) molecules = std::max(molecules, first + id);
      setup.atom_count += s.size();
    }
    return setup;
  }
  // Only type names (and masses): what the LAMMPS plugin knows of its atom types.
  static SystemSetup of_types(std::vector<std::string> names, std::vector<double> masses = {}) {
    SystemSetup setup;
    setup.type_names = std::move(names);
    setup.type_masses = std::move(masses);
    return setup;
  }
};

}  // namespace quasar
