#include "quasar/io/lammps_dump.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace quasar::io {

void append_lammps_dump(std::ostream& out, const Structure& s, long step) {
  const LammpsBounds b = lammps_bounds(s.box);
  std::ostringstream o;
  o << std::setprecision(17);
  o << "ITEM: TIMESTEP\n" << step << "\nITEM: NUMBER OF ATOMS\n" << s.size() << "\n";
  const char* pbc[3] = {s.box.periodic[0] ? "pp" : "ff", s.box.periodic[1] ? "pp" : "ff", s.box.periodic[2] ? "pp" : "ff"};
  if (b.xy == 0 && b.xz == 0 && b.yz == 0) {
    o << "ITEM: BOX BOUNDS " << pbc[0] << " " << pbc[1] << " " << pbc[2] << "\n"
      << b.xlo << " " << b.xhi << "\n" << b.ylo << " " << b.yhi << "\n" << b.zlo << " " << b.zhi << "\n";
  } else {
    // LAMMPS writes the bounding box of the tilted cell.
    const double xlo = b.xlo + std::min({0.0, b.xy, b.xz, b.xy + b.xz});
    const double xhi = b.xhi + std::max({0.0, b.xy, b.xz, b.xy + b.xz});
    const double ylo = b.ylo + std::min(0.0, b.yz), yhi = b.yhi + std::max(0.0, b.yz);
    o << "ITEM: BOX BOUNDS xy xz yz " << pbc[0] << " " << pbc[1] << " " << pbc[2] << "\n"
      << xlo << " " << xhi << " " << b.xy << "\n" << ylo << " " << yhi << " " << b.xz << "\n"
      << b.zlo << " " << b.zhi << " " << b.yz << "\n";
  }
  o << "ITEM: ATOMS id type x y z vx vy vz fx fy fz\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 v = s.velocities.empty() ? Vec3{} : s.velocities[i];
    const Vec3 f = s.forces.empty() ? Vec3{} : s.forces[i];
    o << (s.ids.empty() ? static_cast<long>(i + 1) : s.ids[i]) << " " << s.types[i] + 1 << " " << s.positions[i].x
      << " " << s.positions[i].y << " " << s.positions[i].z << " " << v.x << " " << v.y << " " << v.z << " " << f.x
      << " " << f.y << " " << f.z << "\n";
  }
  out << o.str();
}

}  // namespace quasar::io
