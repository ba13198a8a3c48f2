#pragma once
// Ab initio points for `quasar shepard build`: Cartesian geometries with energies, gradients and
// Hessians in a small text format (docs/formats/shepard.md, "Cartesian points"), and the data set
// made from them.
#include <string>
#include <vector>

#include "quasar/potential/shepard/coordinates.hpp"

namespace quasar::shepard {

struct CartesianPoints {
  std::vector<std::string> elements;
  std::vector<CartesianPoint> points;
};

CartesianPoints read_cartesian_points(const std::string& path);
void write_cartesian_points(const std::string& path, const CartesianPoints& points);

// A data set of these points: every confidence length `confidence`, the permutations `group`
// (empty: every permutation of identical atoms), element masses. An Error naming the point whose
// geometry is linear.
DataSet build_dataset(const CartesianPoints& points, const Parameters& parameters, double confidence,
                      std::vector<std::vector<int>> group = {});

}  // namespace quasar::shepard
