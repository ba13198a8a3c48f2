#pragma once
// LAMMPS data files, atom styles "atomic" (id type x y z) and "charge" (id type q x y z).
#include <string>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// style "" takes the style from the "Atoms # style" comment (atomic when absent). Image flags,
// when present, unwrap the positions. Type names: the "Atom Type Labels" section when present,
// else "1", "2", ...; masses from the Masses section.
Structure read_lammps_data(const std::string& path, const std::string& style = "");
// The cell must be in LAMMPS's restricted form (a along x, b in the xy plane).
void write_lammps_data(const std::string& path, const Structure& s, const std::string& style = "atomic");

}  // namespace quasar::io
