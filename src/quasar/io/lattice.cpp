#include "quasar/io/lattice.hpp"

#include <climits>
#include <cmath>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::io {

Structure make_lattice(const std::string& kind, const std::string& element, double a, std::array<int, 3> repeat,
                       double mass) {
  std::vector<Vec3> basis;
  if (kind == "sc") basis = {{0, 0, 0}};
  else if (kind == "bcc") basis = {{0, 0, 0}, {0.5, 0.5, 0.5}};
  else if (kind == "fcc") basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  else if (kind == "diamond")
    basis = {{0, 0, 0},          {0.5, 0.5, 0},       {0.5, 0, 0.5},       {0, 0.5, 0.5},
             {0.25, 0.25, 0.25}, {0.75, 0.75, 0.25}, {0.75, 0.25, 0.75}, {0.25, 0.75, 0.75}};
  else throw Error("unknown lattice '" + kind + "' (valid: sc, bcc, fcc, diamond)");
  if (!(a > 0) || !std::isfinite(a)) throw Error("lattice constant must be a positive finite number");
  if (!(mass >= 0) || !std::isfinite(mass)) throw Error("mass must be a finite non-negative number");
  double atoms = static_cast<double>(basis.size());
  for (int k = 0; k < 3; ++k) {
    if (repeat[k] < 1) throw Error("lattice repeat counts must be at least 1");
    atoms *= repeat[k];
  }
  if (atoms > INT_MAX) throw Error("the lattice would have " + std::to_string(static_cast<long long>(atoms)) + " atoms, more than " + std::to_string(INT_MAX));
  Structure s;
  s.box = Box::orthorhombic(a * repeat[0], a * repeat[1], a * repeat[2]);
  s.type_index(element);
  if (mass > 0) s.type_masses[0] = mass;
  for (int i = 0; i < repeat[0]; ++i)
    for (int j = 0; j < repeat[1]; ++j)
      for (int k = 0; k < repeat[2]; ++k)
        for (const Vec3& b : basis) {
          s.positions.push_back({a * (i + b.x), a * (j + b.y), a * (k + b.z)});
          s.types.push_back(0);
        }
  return s;
}

}  // namespace quasar::io
