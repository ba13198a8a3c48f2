// The Cartesian points file and the data set built from it.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

#include "quasar/core/error.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/shepard/cartesian_points.hpp"
#include "quasar/potential/shepard/text_reader.hpp"

namespace quasar::shepard {

CartesianPoints read_cartesian_points(const std::string& path) {
  Reader in(path);
  CartesianPoints c;
  const auto version = in.keyed("shepard-points", 1);
  if (version[0] != "1") in.fail("shepard-points", "unknown version '" + version[0] + "' (this reader knows 1)");
  const long n = in.reader().to_int(in.keyed("atoms", 1)[0], "'atoms'", 3, kMaxAtoms);
  c.elements = in.keyed("elements", static_cast<int>(n));
  const int n3 = static_cast<int>(3 * n);
  const long points = in.count(in.keyed("points", 1)[0], "points", 2L * n3 * n3);
  for (long i = 1; i <= points; ++i) {
    const auto head = in.keyed("point", 1);
    if (head[0] != std::to_string(i)) in.fail("point", "expected point " + std::to_string(i) + ", found " + head[0]);
    CartesianPoint p;
    p.energy = in.number(in.keyed("energy", 1)[0], "energy");
    in.keyed("positions", 0);
    in.matrix("positions", static_cast<int>(n), 3, p.positions);
    in.keyed("gradient", 0);
    in.matrix("gradient", static_cast<int>(n), 3, p.gradient);
    in.keyed("hessian", 0);
    in.matrix("hessian", n3, n3, p.hessian);
    // Symmetric to rounding; stored as the mean of both triangles.
    double largest = 0;
    for (double h : p.hessian) largest = std::max(largest, std::abs(h));
    for (int a = 0; a < n3; ++a)
      for (int b = a + 1; b < n3; ++b) {
        double& x = p.hessian[static_cast<std::size_t>(a * n3 + b)];
        double& y = p.hessian[static_cast<std::size_t>(b * n3 + a)];
        if (std::abs(x - y) > 1e-6 * largest)
          in.fail("hessian", "not symmetric: entries (" + std::to_string(a + 1) + ", " + std::to_string(b + 1) +
                                 ") and (" + std::to_string(b + 1) + ", " + std::to_string(a + 1) + ") differ");
        x = y = 0.5 * (x + y);
      }
    c.points.push_back(std::move(p));
  }
  in.expect_end();
  return c;
}

void write_cartesian_points(const std::string& path, const CartesianPoints& c) {
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << std::setprecision(17);
    const std::size_t n = c.elements.size(), n3 = 3 * n;
    out << "# Cartesian points: Å, eV, eV/Å, eV/Å² (docs/formats/shepard.md)\nshepard-points 1\natoms " << n
        << "\nelements";
    for (const auto& e : c.elements) out << ' ' << e;
    out << "\npoints " << c.points.size() << '\n';
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      const CartesianPoint& p = c.points[i];
      if (p.positions.size() != n3 || p.gradient.size() != n3 || p.hessian.size() != n3 * n3)
        throw Error("Cartesian point " + std::to_string(i + 1) + ": sizes do not match " + std::to_string(n) + " atoms");
      out << "point " << i + 1 << "\nenergy " << p.energy << "\npositions\n";
      for (std::size_t a = 0; a < n; ++a) out << p.positions[3 * a] << ' ' << p.positions[3 * a + 1] << ' ' << p.positions[3 * a + 2] << '\n';
      out << "gradient\n";
      for (std::size_t a = 0; a < n; ++a) out << p.gradient[3 * a] << ' ' << p.gradient[3 * a + 1] << ' ' << p.gradient[3 * a + 2] << '\n';
      out << "hessian\n";
      for (std::size_t r = 0; r < n3; ++r) {
        for (std::size_t k = 0; k < n3; ++k) out << (k ? " " : "") << p.hessian[r * n3 + k];
        out << '\n';
      }
    }
  });
}

DataSet build_dataset(const CartesianPoints& c, const Parameters& parameters, double confidence,
                      std::vector<std::vector<int>> group) {
  if (!(confidence > 0) || !std::isfinite(confidence)) throw Error("shepard: the confidence length must be finite and > 0");
  DataSet s;
  s.elements = c.elements;
  for (const auto& e : s.elements) {
    const double m = element_mass(e);
    if (!(m > 0)) throw Error("shepard: '" + e + "' is not a chemical element (masses come from the elements)");
    s.masses.push_back(m);
  }
  s.permutations = group.empty() ? full_permutation_group(s.elements) : std::move(group);
  s.parameters = parameters;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    try {
      s.points.push_back(make_data_point(c.points[i], std::vector<double>(static_cast<std::size_t>(s.pairs()), confidence)));
    } catch (const Error& e) {
      throw Error("point " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  if (std::string p = s.problem(); !p.empty()) throw Error("shepard: " + p);
  return s;
}

}  // namespace quasar::shepard
