#pragma once
// Confidence lengths d_l(i) of a data set's points estimated from the data themselves, after the
// Bayesian scheme of Bettens and Collins (J. Chem. Phys. 111, 816 (1999)): how far a point's
// Taylor expansion can be trusted along each coordinate follows from how well it predicts the
// energies of its neighbouring data points. The published equations were not at hand; this is a
// reconstruction of the scheme from its description (docs/architecture.md says what it assumes).
#include <vector>

#include "quasar/potential/shepard/dataset.hpp"

namespace quasar::shepard {

struct ConfidenceSettings {
  // The energy (eV) at which a Taylor expansion's error defines its confidence length: along
  // coordinate l the error model a_l |dZ_l|^3 reaches it at d_l = (energy / a_l)^(1/3).
  double energy = 0.01;
  int neighbours = 0;          // data points that test each expansion; 0: 2 x pairs
  double noise = 0.1;          // the error model's relative uncertainty: sigma_j = noise e_j
  double prior_weight = 1.0;   // the prior's strength: a_l ~ a0 +- a0 / sqrt(prior_weight)
  // The least coefficient believed, as a fraction of a0: a fit that puts a neighbour's error on
  // other coordinates says little about this one (lengths at most floor^(-1/3) typical ones).
  double floor = 0.01;
  double min_length = 1e-3;    // bounds on d (1/Å): where the data say nothing, or everything
  double max_length = 10.0;
  double fallback = 1.0;       // d for a set of one point (nothing to learn from)
};

// Sets every point's confidence lengths. Per point i, the `neighbours` nearest other data points j
// (nearest in Z over the group's images of j) give the errors e_j = |E_j - T_i(Z_j)|. The model
// e_j = sum_l a_l |Z_jl - Z_il|^3 + noise (third order: the first term a second-order expansion
// misses), Gaussian noise of deviation `noise` e_j, and a Gaussian prior a_l ~ a0 +- a0 with a0 the median of
// e / sum_l |dZ_l|^3 over the whole set: a_l is the posterior mode (a regularised least-squares
// solve), floored at `floor` a0, and d_l = (energy / a_l)^(1/3) clamped into [min_length, max_length].
void bayes_confidence(DataSet& set, const ConfidenceSettings& settings = {});

// Confidence lengths fitted to the data by leave-one-out: every data point j is predicted from the
// others (the interpolation at Z_j with j and its images left out), and the lengths are those that
// minimise the RMS of E_j minus that prediction. One length per point, scaled per pair by the
// pair's spread (pair_exponent below),
//   d_i = scale (h_i / h)^exponent,
// h_i the distance in Z (weighted as below, nearest images) from point i to its `spacing`-th nearest other point
// and h their median: with exponent 1 the lengths follow the local spacing of the data, so they
// shrink where the set grows dense and a far point's weight falls off; with 0 they are one
// constant. The scale (1/Å) and the exponent (0, 1/4 .. 1) are searched on a grid, and the
// scale is lowered from the least leave-one-out RMS while it stays within `tolerance` of it.
struct FittedSettings {
  int neighbours = 256;        // nearest replicas of the others that each prediction sums over
  int spacing = 1;             // h_i: the distance to this nearest other data point
  double min_length = 1e-3;    // bounds on d (1/Å)
  double max_length = 10.0;
  double fallback = 0.3;       // d of every point for sets too small to fit (below min_points)
  int min_points = 10;
  // eV above the set's lowest energy: only the points within it count in the RMS that the fit
  // minimises (the dynamically relevant region; points high above it are predicted badly by any
  // lengths and would decide the fit alone), unless fewer than min_points are. 0: every point.
  double window = 3.0;
  // Along pair l the length is d_i (g / sigma_l)^-pair_exponent, sigma_l the spread of Z_l over
  // the set (every image), g their geometric mean: pairs whose Z varies more get longer lengths,
  // in the distances above too (0: the same along every pair).
  double pair_exponent = 0.5;
  // The choice: from the least RMS, shorter scales while their RMS is within this fraction of it
  // (confidence.cpp says why the least alone is not taken).
  double tolerance = 0.02;
};

struct FittedLengths {
  double scale = 0, exponent = 0;   // the choice (scale in 1/Å); 0, 0 when the fallback was used
  double spacing = 0;               // h: the median spacing (1/Å)
  double leave_one_out_rms = 0;     // eV: the RMS leave-one-out error with the lengths chosen (over the window)
  long counted = 0;                 // the points within the window
  double median_length = 0;         // 1/Å
};

FittedLengths fitted_confidence(DataSet& set, const FittedSettings& settings = {});

// E_j minus the prediction of point j by the other points, every point i with the length
// lengths[i] along every pair, the sum over the `neighbours` replicas nearest to Z_j (all of them
// when it is at least the replicas of the other points), with the set's weight form and wtol.
std::vector<double> leave_one_out_errors(const DataSet& set, const std::vector<double>& lengths, int neighbours);

}  // namespace quasar::shepard
