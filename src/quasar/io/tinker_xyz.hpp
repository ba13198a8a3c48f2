#pragma once
// Tinker's .xyz coordinates: a line with the atom count and a title, an optional box line
// (a b c alpha beta gamma, Å and degrees), then per atom its index, name, x, y, z, Tinker atom type
// and the indices of the atoms bonded to it. The structure's type names are the atom types as
// written ("231"), its bonds (topology, one entry per bonded pair) come from the connectivity, and
// its masses are 0: the parameter file gives them.
#include <string>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// Throws InputError naming the file and line: a count or index that is not a whole number, atoms
// numbered out of order, a bond to an atom that does not exist or to the atom itself, a bond listed
// by one atom and not by the other, a degenerate box.
Structure read_tinker_xyz(const std::string& path);
// Whether a .xyz file is Tinker's rather than extended XYZ: its first line holds the count followed
// by a title, or its second line is an atom record (index, name, three numbers, a type).
bool is_tinker_xyz(const std::string& path);
// The periodic cell of lengths a, b, c (Å) and angles alpha, beta, gamma (degrees) as Tinker builds
// it: a along x, b in the xy plane. Throws Error for angles that make no cell.
Box tinker_cell(const double lengths_angles[6]);

}  // namespace quasar::io
