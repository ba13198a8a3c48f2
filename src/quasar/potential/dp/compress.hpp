#pragma once
// Tabulated embedding nets ("compression", as DeePMD-kit's dp compress): every output of every
// embedding net, as a function of its scalar input s_hat, becomes a piecewise fifth-order polynomial
// that matches the net's value and first two derivatives at the nodes. The fine part of the table
// covers [lower, upper] (the inputs that neighbours at or beyond min_nbor_dist produce) with
// stride `step`; the coarse part continues to max = upper + (extrapolate - 1)(upper - lower) with
// stride 10 step; outside [lower, max] the output is held at the end value (flat, so forces stay
// the energy's derivatives). The file keeps only the
// settings (model.quasar_compress); the tables are rebuilt from the weights when the model is read.
#include <vector>

#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

struct EmbeddingTables {
  double lower = 0, upper = 0, max = 0, stride0 = 0, stride1 = 0;
  int n0 = 0, n1 = 0;   // fine and coarse intervals
  int m = 0, nets = 0;  // outputs per net, nets
  std::vector<double> coef;  // [net][interval][6][m]: coefficients of t^5 .. t^0, t = x - node

  int intervals() const { return n0 + n1; }
  // Interval of x and the local coordinate t (after clamping x into [lower, max]).
  void locate(double x, int& interval, double& t) const;
  // All m outputs of one net and their derivatives at x.
  void eval(int net, double x, double* y, double* dy) const;
  // The same at `rows` inputs x: y and dy rows x m.
  void eval_rows(int net, const double* x, int rows, double* y, double* dy) const;
};

// The tables' nodes (lower, upper, max, strides, interval counts, m, nets) without coefficients:
// what the model reader checks before anything is allocated. Throws Error when the input range is
// empty or the tables would exceed these limits (a real model needs a few thousand intervals and
// tens of MB at the default step 0.01).
constexpr long kMaxTableIntervals = 1L << 20;
constexpr double kMaxTableBytes = 256.0 * (1 << 20);
EmbeddingTables table_grid(const SeE2A& descriptor, const Compression& settings);
EmbeddingTables build_tables(const SeE2A& descriptor, const Compression& settings);

}  // namespace quasar::dp
