#pragma once
// What a potential binds to before it computes anything: the system's description, as opposed to
// its state (positions, velocities), which changes every step. Plain host data; potentials take
// what they need from it (a pair potential its type names, an electrostatic term the charges).
#include <span>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar {

struct SystemSetup {
  std::vector<std::string> type_names;  // type index -> name
  std::vector<double> type_masses;      // amu, per type
  std::vector<double> charges;          // e, per atom in input order; empty when the system has none
  // Topology (bonds, angles, ...) and per-atom parameters join here as they are added.

  static SystemSetup of(const Structure& s) { return {s.type_names, s.type_masses, s.charges}; }
  // A batch (AtomState of several systems): the merged types (merge_types) and the systems' atoms
  // one after another.
  static SystemSetup of(std::span<const Structure> systems) {
    if (systems.size() == 1) return of(systems.front());
    MergedTypes m = merge_types(systems);
    SystemSetup setup{std::move(m.names), std::move(m.masses), {}};
    for (const Structure& s : systems) setup.charges.insert(setup.charges.end(), s.charges.begin(), s.charges.end());
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
