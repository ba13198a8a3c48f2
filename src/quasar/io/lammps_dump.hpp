#pragma once
#include <iosfwd>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// One frame of a LAMMPS text dump (custom style: id type x y z vx vy vz fx fy fz), with the
// triclinic "BOX BOUNDS xy xz yz" header when the cell is tilted. The cell must be in LAMMPS's
// restricted form.
void append_lammps_dump(std::ostream& out, const Structure& s, long step);

}  // namespace quasar::io
