#pragma once
// LAMMPS text dumps (dump atom and dump custom): writing one frame, reading every frame.
#include <iosfwd>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// One frame in the layout of dump custom: id type element x y z, then vx vy vz and fx fy fz when
// the structure has them, then its further columns (Structure::columns: name, or name[1] name[2]
// ... for several values), with the triclinic "BOX BOUNDS xy xz yz" header when the cell is tilted.
// The cell must be in LAMMPS's restricted form.
void append_lammps_dump(std::ostream& out, const Structure& s, long step);

// Every frame of a text dump: ITEM: TIMESTEP (kept as info "step"), NUMBER OF ATOMS, BOX BOUNDS
// (orthogonal, or "xy xz yz" with the bounding box LAMMPS writes; flags pp/ff/ss/... per
// direction, periodic when pp) and ATOMS with its columns: id, type and/or element, one of the
// position sets x y z (with ix iy iz: unwrapped), xs ys zs, xu yu zu, xsu ysu zsu, and optionally
// vx vy vz (Å/ps), fx fy fz (eV/Å, kept as labels), q, mass; other columns are checked for
// nothing and skipped. ITEM: UNITS, when there, must be metal; ITEM: TIME is skipped. Atoms are
// ordered by id. Type names come from the element column, else type_names[type - 1] when given,
// else the type number.
std::vector<Structure> read_lammps_dump(const std::string& path, const std::vector<std::string>& type_names = {});

}  // namespace quasar::io
