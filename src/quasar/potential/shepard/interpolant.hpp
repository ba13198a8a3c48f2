#pragma once
// The interpolated surface V(x) = sum_i w_i(Z) T_i(zeta_i) of a data set, its data points replicated
// over the permutation group, laid out as flat arrays that a kernel can read as they are. A replica
// is never stored: replica r = i * group + g is data point i seen with its atoms renamed by
// permutation g, so its Z and 1/d are the point's, read through the pair map of g. The CPU
// evaluation here is the exact method (every replica's weight, wtol pruning, renormalisation over
// the replicas kept) and the approximate method for grids (one neighbour set per group of
// configurations, found at the group's centre), energies and analytic Cartesian gradients: the
// weights of one configuration against all replicas as loops over the data points' columns that
// the compiler vectorises (QUASAR_CPU_CLONES), then the Taylor terms of the replicas kept. The
// scalar `*_reference` functions (interpolant_reference.cpp) follow the method's equations replica
// by replica; the tests hold the fast path to them.
#include <span>
#include <vector>

#include "quasar/potential/shepard/dataset.hpp"

namespace quasar::shepard {

struct Interpolant {
  int atoms = 0, pairs = 0, internal = 0;
  int points = 0;  // replicated points: data points x group elements; replica r = i * group + g
  int data_points = 0, group = 1;
  int stride = 0;  // data points rounded up to kColumnBlock: the length of a column below
  Parameters parameters;
  // Replica (i, g): data point i with atom a's role taken by perm[a] of permutation g, so that its
  // pair l is the point's pair pair_source[g pairs + l] in Z, U's rows and d, while zeta, the
  // energy and the Taylor coefficients stay.
  std::vector<int> pair_source;
  // Per data point i, in rows of `width` values (the larger of pairs and internal rounded up to
  // kRowTile; zeros beyond the row's own length), in its own pair order m:
  int width = 0;
  std::vector<double> point_z;      // [i width + m]: Z_m
  std::vector<double> point_inv_d;  // [i width + m]: 1 / d_m
  std::vector<double> u;            // [(i pairs + m) width + k]: U
  std::vector<double> u_t;          // [(i internal + k) width + m]: U transposed
  std::vector<double> hessian;      // [(i internal + k) width + m]: d2V/dzeta2 (symmetric)
  std::vector<double> gradient;     // [i width + k]: dV/dzeta
  std::vector<double> energy;       // [i]
  // Z and 1/d again as columns over the data points, for loops over points: [m stride + i]; the
  // padding points (i >= data_points) lie so far away that their weights are 0.
  std::vector<double> z_columns, inv_d_columns;

  static constexpr int kColumnBlock = 64;  // points that the fast path takes together
  static constexpr int kRowTile = 8;       // doubles of one AVX-512 vector
  static Interpolant from(const DataSet& set);
};

// Z of replica r (pairs values, in the replica's pair order).
void replica_z(const Interpolant& f, int r, double* z);

// Scratch space of one evaluation (reused between calls of one thread).
struct Workspace {
  std::vector<double> z, scaled, taylor, dz_taylor, dz_weight, dvdz, dzeta, denominators, permuted;
  std::vector<std::size_t> columns;
  std::vector<unsigned char> near;
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

// The references: the same steps replica by replica in the equations' order (scalar loops).
// select_neighbours and interpolate agree with them to rounding; the kept sets are the same but
// for a replica within a rounding of wtol.
void select_neighbours_reference(const Interpolant& f, const double* z, std::vector<int>& set, Workspace& ws);
double interpolate_reference(const Interpolant& f, const double* x, std::span<const int> set, double* grad,
                             Workspace& ws);
double evaluate_reference(const Interpolant& f, const double* x, double* grad = nullptr);

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
