#include "quasar/potential/dp/compress.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/cpu_clones.hpp"
#include "quasar/potential/dp/env_row.hpp"

namespace quasar::dp {

void EmbeddingTables::locate(double x, int& interval, double& t) const {
  // Clamped so that a non-finite input (inf from two atoms on one spot, or nan) stays within the
  // table and the conversion to int below defined; nan goes to lower (std::clamp would keep it).
  x = x >= lower ? (x <= max ? x : max) : lower;
  if (x < upper) {
    interval = std::min(static_cast<int>((x - lower) / stride0), n0 - 1);
    t = x - (lower + interval * stride0);
  } else {
    const int k = std::min(static_cast<int>((x - upper) / stride1), n1 - 1);
    interval = n0 + k;
    t = x - (upper + k * stride1);
  }
}

namespace {
// The polynomial of one interval for every output (vectorised over the outputs).
QUASAR_CPU_CLONES
void eval_piece(const double* __restrict c, int m, double t, double slope, double* __restrict y,
                double* __restrict dy) {
  for (int q = 0; q < m; ++q) {
    const double a5 = c[q], a4 = c[m + q], a3 = c[2 * m + q], a2 = c[3 * m + q], a1 = c[4 * m + q], a0 = c[5 * m + q];
    y[q] = a0 + t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
    dy[q] = slope * (a1 + t * (2 * a2 + t * (3 * a3 + t * (4 * a4 + t * 5 * a5))));
  }
}
}  // namespace

void EmbeddingTables::eval(int net, double x, double* y, double* dy) const { eval_rows(net, &x, 1, y, dy); }

void EmbeddingTables::eval_rows(int net, const double* x, int rows, double* y, double* dy) const {
  for (int r = 0; r < rows; ++r) {
    int l;
    double t;
    locate(x[r], l, t);
    const double slope = x[r] < lower || x[r] > max ? 0.0 : 1.0;  // flat outside the table: forces stay conservative
    eval_piece(&coef[(static_cast<std::size_t>(net) * intervals() + l) * 6 * m], m, t, slope,
               y + static_cast<std::size_t>(r) * m, dy + static_cast<std::size_t>(r) * m);
  }
}

EmbeddingTables table_grid(const SeE2A& de, const Compression& s) {
  const int nt = static_cast<int>(de.sel.size()), nnei = de.nnei();
  EmbeddingTables tab;
  tab.m = de.m();
  tab.nets = static_cast<int>(de.embeddings.size());
  // Range of the normalised input s_hat = (s - davg) / dstd: s = 0 for padding and distant
  // neighbours, s = w(r) / r at the closest distance.
  const double r = s.min_nbor_dist + de.env_protection;
  double w, dw;
  smooth_switch(r, de.rcut_smth, de.rcut, w, dw);
  const double smax = w / r;
  tab.lower = 1e300;
  tab.upper = -1e300;
  for (int ti = 0; ti < nt; ++ti)
    for (int k = 0; k < nnei; ++k) {
      const std::size_t at = (static_cast<std::size_t>(ti) * nnei + k) * 4;
      tab.lower = std::min(tab.lower, -de.davg[at] / de.dstd[at]);
      tab.upper = std::max(tab.upper, (smax - de.davg[at]) / de.dstd[at]);
    }
  if (!(tab.upper > tab.lower) || !std::isfinite(tab.upper - tab.lower))
    throw Error("dp compress: empty input range (check min_nbor_dist and the statistics)");
  tab.stride0 = s.step;
  tab.stride1 = 10 * s.step;
  // Interval counts in double first: a tiny step must fail here, not overflow an int.
  const double n0 = std::max(1.0, std::ceil((tab.upper - tab.lower) / tab.stride0));
  const double n1_bound = std::ceil((s.extrapolate - 1) * n0 * tab.stride0 / tab.stride1) + 1;
  const double bytes = 8.0 * 6 * tab.m * tab.nets * (n0 + n1_bound);
  if (!(n0 + n1_bound <= kMaxTableIntervals && bytes <= kMaxTableBytes))
  {
    std::ostringstream os;
    os << "dp compress: step " << s.step << " and extrapolate " << s.extrapolate << " give " << n0 + n1_bound
       << " intervals of " << tab.nets << " nets x " << tab.m << " outputs (at most " << kMaxTableIntervals << " and "
       << (static_cast<long>(kMaxTableBytes) >> 20) << " MB of coefficients): use a larger step or a smaller extrapolate";
    throw Error(os.str());
  }
  tab.n0 = static_cast<int>(n0);
  tab.upper = tab.lower + tab.n0 * tab.stride0;  // the fine part ends on a node
  tab.n1 = std::max(1, static_cast<int>(std::ceil((s.extrapolate - 1) * (tab.upper - tab.lower) / tab.stride1)));
  tab.max = tab.upper + tab.n1 * tab.stride1;
  return tab;
}

EmbeddingTables build_tables(const SeE2A& de, const Compression& s) {
  EmbeddingTables tab = table_grid(de, s);
  const int M = tab.m, L = tab.intervals();
  tab.coef.assign(static_cast<std::size_t>(tab.nets) * L * 6 * M, 0.0);
  std::vector<double> y0, d0, s0, y1, d1, s1;
  for (int net = 0; net < tab.nets; ++net) {
    double x0 = tab.lower;
    de.embeddings[net].forward_scalar(x0, y0, d0, s0);
    for (int l = 0; l < L; ++l) {
      // Nodes computed as locate() places them, so no rounding drift.
      const double x1 = l + 1 <= tab.n0 ? tab.lower + (l + 1) * tab.stride0 : tab.upper + (l + 1 - tab.n0) * tab.stride1;
      de.embeddings[net].forward_scalar(x1, y1, d1, s1);
      const double dx = x1 - x0;
      double* c = &tab.coef[(static_cast<std::size_t>(net) * L + l) * 6 * M];
      for (int q = 0; q < M; ++q) {
        // Quintic Hermite interpolation of value, slope and curvature at both ends.
        const double dy = y1[q] - y0[q];
        c[q] = (12 * dy - 6 * (d1[q] + d0[q]) * dx + (s1[q] - s0[q]) * dx * dx) / (2 * std::pow(dx, 5));
        c[M + q] = (-30 * dy + (14 * d1[q] + 16 * d0[q]) * dx + (-2 * s1[q] + 3 * s0[q]) * dx * dx) / (2 * std::pow(dx, 4));
        c[2 * M + q] = (20 * dy - (8 * d1[q] + 12 * d0[q]) * dx + (s1[q] - 3 * s0[q]) * dx * dx) / (2 * std::pow(dx, 3));
        c[3 * M + q] = s0[q] / 2;
        c[4 * M + q] = d0[q];
        c[5 * M + q] = y0[q];
      }
      x0 = x1;
      y0.swap(y1);
      d0.swap(d1);
      s0.swap(s1);
    }
  }
  return tab;
}

}  // namespace quasar::dp
