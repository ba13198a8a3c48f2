#include "quasar/core/structure.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar {

int Structure::type_index(const std::string& name) {
  for (std::size_t t = 0; t < type_names.size(); ++t)
    if (type_names[t] == name) return static_cast<int>(t);
  type_names.push_back(name);
  type_masses.push_back(element_mass(name));
  return static_cast<int>(type_names.size()) - 1;
}

MergedTypes merge_types(std::span<const Structure> systems) {
  MergedTypes m;
  if (systems.size() == 1) {  // one structure keeps its types as they are
    const Structure& s = systems.front();
    m.names = s.type_names;
    m.masses = s.type_masses;
    auto& index = m.index.emplace_back(s.type_names.size());
    for (std::size_t t = 0; t < index.size(); ++t) index[t] = static_cast<int>(t);
    return m;
  }
  for (std::size_t k = 0; k < systems.size(); ++k) {
    const Structure& s = systems[k];
    auto& index = m.index.emplace_back();
    for (std::size_t t = 0; t < s.type_names.size(); ++t) {
      const auto it = std::find(m.names.begin(), m.names.end(), s.type_names[t]);
      const double mass = t < s.type_masses.size() ? s.type_masses[t] : 0.0;
      if (it == m.names.end()) {
        index.push_back(static_cast<int>(m.names.size()));
        m.names.push_back(s.type_names[t]);
        m.masses.push_back(mass);
        continue;
      }
      const std::size_t u = static_cast<std::size_t>(it - m.names.begin());
      index.push_back(static_cast<int>(u));
      if (m.masses[u] == 0) m.masses[u] = mass;
      else if (mass != 0 && mass != m.masses[u])
        throw Error("type " + m.names[u] + " has mass " + std::to_string(mass) + " in system " + std::to_string(k) +
                    " and " + std::to_string(m.masses[u]) + " in an earlier one");
    }
  }
  return m;
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

namespace {
bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
std::string show(Vec3 v) {
  std::ostringstream o;
  o << "(" << v.x << ", " << v.y << ", " << v.z << ")";
  return o.str();
}
}  // namespace

std::string Structure::problem() const {
  const std::size_t n = positions.size();
  auto count = [&](std::size_t got, const char* what) {
    return got != n && got != 0 ? std::string(what) + " has " + std::to_string(got) + " entries for " + std::to_string(n) + " atoms"
                                : std::string();
  };
  if (types.size() != n) return std::to_string(types.size()) + " types for " + std::to_string(n) + " atoms";
  for (const std::string& p : {count(velocities.size(), "velocities"), count(charges.size(), "charges"),
                               count(ids.size(), "ids"), count(forces.size(), "forces")})
    if (!p.empty()) return p;
  if (type_masses.size() != type_names.size())
    return std::to_string(type_masses.size()) + " masses for " + std::to_string(type_names.size()) + " types";
  for (std::size_t t = 0; t < type_masses.size(); ++t)
    if (!(type_masses[t] >= 0) || !std::isfinite(type_masses[t]))
      return "mass " + std::to_string(type_masses[t]) + " of type " + type_names[t] + " is not a finite non-negative number";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string atom = "atom " + std::to_string(i + 1);
    if (types[i] < 0 || types[i] >= static_cast<int>(type_names.size()))
      return "type index " + std::to_string(types[i]) + " of " + atom + " is out of range";
    if (!finite(positions[i])) return "the position of " + atom + " is not finite: " + show(positions[i]);
    if (!velocities.empty() && !finite(velocities[i])) return "the velocity of " + atom + " is not finite: " + show(velocities[i]);
    if (!forces.empty() && !finite(forces[i])) return "the force on " + atom + " is not finite: " + show(forces[i]);
    if (!charges.empty() && !std::isfinite(charges[i])) return "the charge of " + atom + " is not finite";
  }
  for (const auto& [name, c] : columns) {
    if (c.width < 1 || c.values.size() != static_cast<std::size_t>(c.width) * n)
      return "column " + name + " has " + std::to_string(c.values.size()) + " values for " + std::to_string(n) +
             " atoms of width " + std::to_string(c.width);
    for (std::size_t k = 0; k < c.values.size(); ++k)
      if (!std::isfinite(c.values[k]))
        return "value " + std::to_string(k % c.width + 1) + " of column " + name + " of atom " +
               std::to_string(k / c.width + 1) + " is not finite";
  }
  if (energy && !std::isfinite(*energy)) return "the energy is not finite";
  if (virial)
    for (int r = 0; r < 3; ++r)
      if (!finite(virial->r[r])) return "the virial is not finite";
  for (int r = 0; r < 3; ++r)
    if (!finite(box.h.r[r]) || !finite(box.hinv.r[r])) return "the cell is not finite";
  if (!finite(box.origin)) return "the cell origin is not finite";
  return topology.problem(n);
}

void Structure::validate(const std::string& origin) const {
  if (const std::string p = problem(); !p.empty()) throw Error(origin + ": " + p);
}

}  // namespace quasar
