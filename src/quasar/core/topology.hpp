#pragma once
// Bonded topology as plain host data: bonds, angles, dihedrals and impropers, each a list of atom
// tuples (input indices, 0-based) with a type per entry, and the coefficients per type with the
// style that a LAMMPS data file names ("Bond Coeffs # harmonic"). Structure carries it from the
// readers; SystemSetup hands it to the potentials that need it.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace quasar {

// One kind of bonded interaction.
struct BondedSet {
  explicit BondedSet(int atoms_per_entry = 2) : arity(atoms_per_entry) {}
  int arity;           // atoms per entry: 2 (bonds), 3 (angles), 4 (dihedrals, impropers)
  int num_types = 0;   // types of this kind (a data file's "N bond types"), entries' types < num_types
  std::vector<int> atoms;  // arity input indices per entry, in the order the file gives them
  std::vector<int> types;  // per entry, 0-based
  std::string style;       // the coefficients' style ("harmonic"); "" when not named
  std::vector<std::vector<double>> coeffs;  // per type, as the file gives them; empty: no coefficients
  long coeffs_line = 0;    // the line of the Coeffs section in Topology::file (0: none)

  std::size_t size() const { return types.size(); }
  bool empty() const { return types.empty(); }
  const int* entry(std::size_t k) const { return atoms.data() + k * static_cast<std::size_t>(arity); }
  void add(std::initializer_list<int> entry_atoms, int type);
  bool operator==(const BondedSet&) const = default;
};

struct Topology {
  BondedSet bonds{2}, angles{3}, dihedrals{4}, impropers{4};  // arity fixed per kind
  std::vector<long> molecules;  // molecule id per atom (atom styles bond ... full); empty when none
  std::string file;             // the file it was read from, for messages ("" when made in code)

  // No entries, no types and no molecule ids.
  bool empty() const;
  // The four kinds with their names as a data file's sections spell them ("Bonds", "Bond Coeffs").
  struct Kind {
    const char* section;  // "Bonds"
    const char* noun;     // "bond"
  };
  static constexpr std::array<Kind, 4> kKinds = {{{"Bonds", "bond"}, {"Angles", "angle"}, {"Dihedrals", "dihedral"},
                                                  {"Impropers", "improper"}}};
  BondedSet& set(int kind) { return kind == 0 ? bonds : kind == 1 ? angles : kind == 2 ? dihedrals : impropers; }
  const BondedSet& set(int kind) const { return kind == 0 ? bonds : kind == 1 ? angles : kind == 2 ? dihedrals : impropers; }
  // The first thing wrong for a system of `atoms` atoms ("" when nothing is): an atom index out of
  // range, an atom twice in one entry, a type out of range, coefficients for another number of
  // types, sizes that disagree.
  std::string problem(std::size_t atoms) const;
  // Appends another system's entries (and molecule ids) with its atom indices moved by `atom_offset`
  // and its molecule ids by `molecule_offset`, for a batch of systems. Throws Error where the two
  // declare different types, styles or coefficients of a kind both use.
  void append(const Topology& other, int atom_offset, long molecule_offset);
  bool operator==(const Topology&) const = default;
};

// The 1-2, 1-3 and 1-4 neighbours of every atom, as LAMMPS's special_bonds defines them from the
// bonds: 1-2 are the bond partners, 1-3 the partners' partners that are neither the atom itself nor
// one of its 1-2 neighbours, 1-4 the 1-3 neighbours' partners that are none of those. CSR by input
// index: atom i's neighbours are partner[offset[i] .. offset[i + 1]), ordered by level and then by
// index, with level[k] 0 (1-2), 1 (1-3) or 2 (1-4).
struct SpecialNeighbors {
  std::vector<int> offset;   // atoms + 1
  std::vector<int> partner;  // input indices
  std::vector<signed char> level;
};
SpecialNeighbors special_neighbors(const Topology& topology, std::size_t atoms);

}  // namespace quasar
