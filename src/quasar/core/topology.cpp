#include "quasar/core/topology.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"

namespace quasar {

void BondedSet::add(std::initializer_list<int> entry_atoms, int type) {
  atoms.insert(atoms.end(), entry_atoms.begin(), entry_atoms.end());
  types.push_back(type);
}

bool Topology::empty() const {
  for (int k = 0; k < 4; ++k)
    if (!set(k).empty() || set(k).num_types > 0) return false;
  return molecules.empty();
}

std::string Topology::problem(std::size_t n) const {
  if (!molecules.empty() && molecules.size() != n)
    return "molecule ids have " + std::to_string(molecules.size()) + " entries for " + std::to_string(n) + " atoms";
  for (int k = 0; k < 4; ++k) {
    const BondedSet& b = set(k);
    const std::string noun = kKinds[static_cast<std::size_t>(k)].noun;
    const int arity = k == 0 ? 2 : k == 1 ? 3 : 4;
    if (b.arity != arity) return noun + "s have " + std::to_string(b.arity) + " atoms per entry, not " + std::to_string(arity);
    if (b.num_types < 0) return "a negative number of " + noun + " types";
    if (b.atoms.size() != b.types.size() * static_cast<std::size_t>(arity))
      return std::to_string(b.atoms.size()) + " atom indices for " + std::to_string(b.types.size()) + " " + noun + "s";
    if (!b.coeffs.empty() && b.coeffs.size() != static_cast<std::size_t>(b.num_types))
      return "coefficients for " + std::to_string(b.coeffs.size()) + " " + noun + " types, " + std::to_string(b.num_types) +
             " declared";
    for (std::size_t e = 0; e < b.size(); ++e) {
      const std::string which = noun + " " + std::to_string(e + 1);
      if (b.types[e] < 0 || b.types[e] >= b.num_types)
        return "the type " + std::to_string(b.types[e] + 1) + " of " + which + " is not between 1 and " +
               std::to_string(b.num_types);
      const int* a = b.entry(e);
      for (int m = 0; m < arity; ++m) {
        if (a[m] < 0 || static_cast<std::size_t>(a[m]) >= n)
          return "atom index " + std::to_string(a[m]) + " of " + which + " is out of range (" + std::to_string(n) + " atoms)";
        for (int q = 0; q < m; ++q)
          if (a[q] == a[m]) return "atom index " + std::to_string(a[m]) + " appears twice in " + which;
      }
    }
  }
  return {};
}

void Topology::append(const Topology& other, int atom_offset, long molecule_offset) {
  for (int k = 0; k < 4; ++k) {
    BondedSet& mine = set(k);
    const BondedSet& theirs = other.set(k);
    if (theirs.num_types == 0 && theirs.empty()) continue;
    if (mine.num_types == 0 && mine.empty()) {
      mine.num_types = theirs.num_types;
      mine.style = theirs.style;
      mine.coeffs = theirs.coeffs;
      mine.coeffs_line = theirs.coeffs_line;
    } else if (mine.num_types != theirs.num_types || mine.style != theirs.style || mine.coeffs != theirs.coeffs) {
      throw Error(std::string("the systems of a batch declare different ") + kKinds[static_cast<std::size_t>(k)].noun +
                  " types or coefficients");
    }
    for (int a : theirs.atoms) mine.atoms.push_back(a + atom_offset);
    mine.types.insert(mine.types.end(), theirs.types.begin(), theirs.types.end());
  }
  for (long m : other.molecules) molecules.push_back(m + molecule_offset);
  if (file.empty()) file = other.file;
}

SpecialNeighbors special_neighbors(const Topology& t, std::size_t n) {
  std::vector<std::vector<int>> bonded(n);  // 1-2 partners, with repeats where a bond repeats
  for (std::size_t e = 0; e < t.bonds.size(); ++e) {
    const int* a = t.bonds.entry(e);
    bonded[static_cast<std::size_t>(a[0])].push_back(a[1]);
    bonded[static_cast<std::size_t>(a[1])].push_back(a[0]);
  }
  SpecialNeighbors s;
  s.offset.assign(1, 0);
  std::vector<int> levels[3], taken;
  auto sorted_unique = [](std::vector<int>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  for (std::size_t i = 0; i < n; ++i) {
    // 1-3 candidates: partners of partners; 1-4 candidates: their partners (LAMMPS builds both from
    // the uncut lists, then keeps each atom at its lowest level and never the atom itself).
    levels[0] = bonded[i];
    levels[1].clear();
    for (int j : bonded[i]) levels[1].insert(levels[1].end(), bonded[j].begin(), bonded[j].end());
    sorted_unique(levels[1]);
    levels[2].clear();
    for (int j : levels[1]) levels[2].insert(levels[2].end(), bonded[j].begin(), bonded[j].end());
    taken.assign(1, static_cast<int>(i));
    for (int level = 0; level < 3; ++level) {
      std::vector<int>& v = levels[level];
      sorted_unique(v);
      for (int j : v) {
        if (std::find(taken.begin(), taken.end(), j) != taken.end()) continue;
        s.partner.push_back(j);
        s.level.push_back(static_cast<signed char>(level));
      }
      taken.insert(taken.end(), v.begin(), v.end());
    }
    s.offset.push_back(static_cast<int>(s.partner.size()));
  }
  return s;
}

}  // namespace quasar
