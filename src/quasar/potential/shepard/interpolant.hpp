#pragma once
// The interpolated surface V(x) = sum_i w_i(Z) T_i(zeta_i) of a data set, its data points replicated
// over the permutation group, laid out as flat arrays (point after point, each point's values
// contiguous) that a kernel can read as they are: what the weights of every replica need
// (Z and 1/d) per replica, the Taylor coefficients once per data point. The CPU evaluation here is the reference: the
// exact method (every point's weight, wtol pruning, renormalisation over the points kept) and the
// approximate method for grids (one neighbour set per group of configurations, found at the
// group's centre), energies and analytic Cartesian gradients.
#include <span>
#include <vector>

#include "quasar/potential/shepard/dataset.hpp"

namespace quasar::shepard {

struct Interpolant {
  int atoms = 0, pairs = 0, internal = 0;
  int points = 0;  // replicated points: data points x group elements; replica r = i * group + g
  int data_points = 0, group = 1;
  Parameters parameters;
  // Per replica r, what every weight reads (contiguous, point after point):
  std::vector<double> z0;     // [r pairs + l]: Z_l of the replica
  std::vector<double> inv_d;  // [r pairs + l]: 1 / d_l
  // A replica is data point i seen with its atoms renamed by permutation g (atom a's role taken by
  // perm[a]): pair (a, b) becomes (perm[a], perm[b]) in Z, U's rows and d, while zeta, the energy
  // and the Taylor coefficients stay. pair_source[g pairs + l] is the data point's pair that the
  // replica's pair l comes from, so U is kept once per data point.
  std::vector<int> pair_source;
  // Per data point i:
  std::vector<double> u;         // [(i pairs + l) internal + k]: U
  std::vector<double> zeta0;     // [i internal + k]: U^T Z of the point
  std::vector<double> energy;    // [i]
  std::vector<double> gradient;  // [i internal + k]: dV/dzeta
  std::vector<double> hessian;   // [(i internal + k) internal + m]: d2V/dzeta2, full

  static Interpolant from(const DataSet& set);
};

// Scratch space of one evaluation (reused between calls of one thread).
struct Workspace {
  std::vector<double> z, scaled, taylor, dz_taylor, dz_weight, dvdz, dzeta;
  std::vector<int> set;
};

// The weight's denominator u = 1/v of replicated point r at Z (pairs values); its differences
// Z - Z(r) go to dz. u = 0 only at the point itself.
double weight_denominator(const Interpolant& f, int r, const double* z, double* dz);

// Steps 1 and 2 at the coordinates Z (pairs values): the replicated points whose relative weight
// exceeds wtol, in increasing order. At a data point itself (some s = 0): the points there.
void select_neighbours(const Interpolant& f, const double* z, std::vector<int>& set, Workspace& ws);

// Step 3 at Cartesian x (3N): V over the points `set`, weights renormalised over them, and, when
// grad is not null, dV/dx (3N) including the weights' derivatives.
double interpolate(const Interpolant& f, const double* x, std::span<const int> set, double* grad, Workspace& ws);

// The exact method at one configuration.
double evaluate(const Interpolant& f, const double* x, double* grad, Workspace& ws);
double evaluate(const Interpolant& f, const double* x, double* grad = nullptr);

// Many configurations (3N values each, one after another) on the CPU's threads; gradients (3N
// each) when the span is not empty.
void evaluate_batch(const Interpolant& f, std::span<const double> configs, std::span<double> energies,
                    std::span<double> gradients = {});

// The approximate method: configurations in groups (group g is [offsets[g], offsets[g+1]), the
// 3^nint points around a grid point, say); the neighbour set of configuration centres[g] (an
// index into the batch, inside its group) serves the whole group.
void evaluate_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                     std::span<const int> centres, std::span<double> energies, std::span<double> gradients = {});

// The checks of those arguments (an Error saying what does not fit), which the GPU twins share.
void check_batch(const Interpolant& f, std::span<const double> configs, std::span<const double> energies,
                 std::span<const double> gradients);
void check_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                  std::span<const int> centres, std::span<const double> energies, std::span<const double> gradients);

}  // namespace quasar::shepard
