#pragma once
// Where a growing data set needs new points, chosen among configurations visited by trajectories
// (each 3N Cartesian coordinates, one after another): GROW's h-weight criterion and variance
// sampling. Both are deterministic: ties go to the earlier configuration.
#include <span>
#include <vector>

#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

// The spread of the interpolation at x: sum_i w_i (T_i - V)^2 over the points kept, w_i the
// relative weights (eV^2). Zero at a data point and where one point carries all the weight.
double interpolation_variance(const Interpolant& f, const double* x, Workspace& ws);

// Variance sampling: up to `count` configurations with the largest interpolation variance, each
// at least one `length` (in Z, 1/Å: sum_l dZ_l^2 >= length^2) from those chosen before. Indices
// into the configurations, in the order chosen.
std::vector<int> select_by_variance(const Interpolant& f, std::span<const double> configs, int count, double length);

// The h-weight criterion: a data point placed at visited configuration m (with every confidence
// length `length` and the group's images) would take the relative weight
//   omega(k, m) = v_m(Z_k) / (v_m(Z_k) + sum_r v_r(Z_k) + 1)
// at each visited configuration k, the data set's replicated points r beside it, with the data
// set's weight form; the 1, a background of the weight at about one confidence length, makes a
// point count only near it (far from everything two tiny weights would share k evenly). h(m) = sum_k omega(k, m) is large where the trajectories go often and the data
// points are far. Chosen greedily: the largest h, then the chosen point joins the data set's sums,
// up to `count` configurations. `group` is the data set's permutations (atom a goes to perm[a]).
std::vector<int> select_by_h_weight(const Interpolant& f, const std::vector<std::vector<int>>& group,
                                    std::span<const double> configs, int count, double length);

}  // namespace quasar::shepard
