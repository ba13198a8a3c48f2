#pragma once
#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/core/topology.hpp"

namespace quasar {

// Plain host data as read from or written to a file: what readers return and writers take.
struct Structure {
  Box box;
  std::vector<std::string> type_names;  // type index -> name ("Cu", "O", "1", ...)
  std::vector<double> type_masses;      // amu, per type
  std::vector<int> types;               // per atom, index into type_names
  std::vector<Vec3> positions;          // Å
  std::vector<Vec3> velocities;         // Å/ps; empty when the file has none
  std::vector<double> charges;          // e; empty when the file has none
  std::vector<long> ids;                // file's atom ids; empty means 1..N
  Topology topology;                    // bonds, angles, ... by input index; empty for atomic systems

  // Reference labels carried by some files (extended XYZ, training data).
  std::optional<double> energy;          // eV
  std::vector<Vec3> forces;              // eV/Å
  std::optional<Mat3> virial;            // eV, LAMMPS sign convention
  std::map<std::string, std::string> info;  // other key=value pairs of a header
  // Further per-atom values by name: extended XYZ columns of kind R that no field above holds, and
  // the properties added to an AtomState (AtomState::add_property), which loading fills from here
  // and to_structure writes back. `width` values per atom, atom after atom.
  struct Column {
    int width = 1;
    std::vector<double> values;
  };
  std::map<std::string, Column> columns;

  std::size_t size() const { return positions.size(); }
  // Type index of a name, adding it (with the element's mass, or 0) when new.
  int type_index(const std::string& name);
  // The first thing wrong with the data ("" when nothing is): sizes that disagree, a type index
  // out of range, a non-finite position, velocity, force, charge, energy or virial, a mass that is
  // negative or not finite, a topology entry with an atom out of range or twice, or a type out of
  // range. Readers report it at their file and line.
  std::string problem() const;
  // Throws an Error "origin: problem" when there is one.
  void validate(const std::string& origin) const;
};

// The type names of several structures (a batch) merged: the union in order of first appearance,
// each name's mass (the first nonzero one; two different nonzero masses throw an Error), and per
// structure the merged index of each of its types. One structure keeps its types as they are.
struct MergedTypes {
  std::vector<std::string> names;
  std::vector<double> masses;
  std::vector<std::vector<int>> index;  // [structure][its type] -> merged type
};
MergedTypes merge_types(std::span<const Structure> systems);

// The structure repeated n[0] x n[1] x n[2] times along its cell vectors (positions and types only).
Structure replicate(const Structure& s, std::array<int, 3> n);

// Standard atomic mass (amu) of a chemical element symbol; 0 when the symbol is not an element.
double element_mass(const std::string& symbol);

}  // namespace quasar
