#include "quasar/core/structure.hpp"

#include "quasar/core/error.hpp"

namespace quasar {

int Structure::type_index(const std::string& name) {
  for (std::size_t t = 0; t < type_names.size(); ++t)
    if (type_names[t] == name) return static_cast<int>(t);
  type_names.push_back(name);
  type_masses.push_back(element_mass(name));
  return static_cast<int>(type_names.size()) - 1;
}

Structure replicate(const Structure& s, std::array<int, 3> n) {
  Structure r;
  r.type_names = s.type_names;
  r.type_masses = s.type_masses;
  Mat3 h = s.box.h;
  for (int a = 0; a < 3; ++a) {
    const double f = n[a];
    h.r[a] = f * s.box.h.r[a];
  }
  r.box = s.box;
  r.box.set_matrix(h);
  for (int a = 0; a < n[0]; ++a)
    for (int b = 0; b < n[1]; ++b)
      for (int c = 0; c < n[2]; ++c)
        for (std::size_t i = 0; i < s.size(); ++i) {
          r.positions.push_back(s.positions[i] + s.box.shift(a, b, c));
          r.types.push_back(s.types[i]);
        }
  return r;
}

void Structure::validate(const std::string& origin) const {
  const std::size_t n = positions.size();
  auto need = [&](std::size_t got, const char* what) {
    if (got != n && got != 0)
      throw Error(origin + ": " + what + " has " + std::to_string(got) + " entries for " + std::to_string(n) +
                  " atoms");
  };
  if (types.size() != n)
    throw Error(origin + ": " + std::to_string(types.size()) + " types for " + std::to_string(n) + " atoms");
  need(velocities.size(), "velocities");
  need(charges.size(), "charges");
  need(ids.size(), "ids");
  need(forces.size(), "forces");
  if (type_masses.size() != type_names.size())
    throw Error(origin + ": " + std::to_string(type_masses.size()) + " masses for " +
                std::to_string(type_names.size()) + " types");
  for (int t : types)
    if (t < 0 || t >= static_cast<int>(type_names.size()))
      throw Error(origin + ": atom type index " + std::to_string(t) + " out of range");
}

}  // namespace quasar
