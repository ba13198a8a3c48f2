#include "quasar/md/velocity.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/core/random.hpp"
#include "quasar/core/units.hpp"

namespace quasar::md {

double temperature_of(const Structure& s) {
  double twice_ke = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    twice_ke += s.type_masses[s.types[i]] * units::mvv2e * norm2(s.velocities[i]);
  const double dof = std::max(1.0, 3.0 * static_cast<double>(s.size()) - 3.0);
  return twice_ke / (dof * units::boltzmann);
}

void assign_velocities(Structure& s, double temperature, uint64_t seed) {
  const std::size_t n = s.size();
  s.velocities.assign(n, Vec3{});
  if (n < 2 || temperature <= 0) return;
  Vec3 p{};
  double mass = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double m = s.type_masses[s.types[i]];
    if (!(m > 0)) throw Error("atom type '" + s.type_names[s.types[i]] + "' has no mass");
    double g[3];
    normal3(seed, 0xFFFFFFFFFFFFull, static_cast<uint32_t>(i), 5, g);
    const double sd = std::sqrt(units::boltzmann * temperature / (m * units::mvv2e));
    s.velocities[i] = {sd * g[0], sd * g[1], sd * g[2]};
    p += m * s.velocities[i];
    mass += m;
  }
  const Vec3 vcm = (1.0 / mass) * p;
  for (auto& v : s.velocities) v -= vcm;
  const double scale = std::sqrt(temperature / temperature_of(s));
  for (auto& v : s.velocities) v = scale * v;
}

}  // namespace quasar::md
