#pragma once
// LAMMPS data files, atom styles atomic (id type x y z), charge (id type q x y z), bond, angle,
// molecular (id molecule type x y z) and full (id molecule type q x y z), with their topology.
#include <string>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// style "" takes the style from the "Atoms # style" comment (atomic when absent). Image flags,
// when present, unwrap the positions. Type names: the "Atom Type Labels" section when present,
// else the one-word comment of the type's Masses line ("1 12.011 # C"), else "1", "2", ...; masses
// from the Masses section. Bonds, Angles, Dihedrals and Impropers go into Structure::topology (atom
// indices in file order), with their Coeffs sections (numbers per type) and the style their
// comment names ("Bond Coeffs # harmonic"); molecule ids too. Pair Coeffs and class2 cross terms
// are checked and skipped.
Structure read_lammps_data(const std::string& path, const std::string& style = "");
// The cell must be in LAMMPS's restricted form (a along x, b in the xy plane). Styles as above;
// the structure's topology is written with it (bond: bonds only, angle: bonds and angles, molecular
// and full: all four), and a style that cannot hold a topology the structure has is an Error.
// Reading the file back gives the same structure (numbers with 17 digits).
void write_lammps_data(const std::string& path, const Structure& s, const std::string& style = "atomic");

}  // namespace quasar::io
