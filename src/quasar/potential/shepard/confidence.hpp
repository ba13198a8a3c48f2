#pragma once
// Confidence lengths d_l(i) of a data set's points estimated from the data themselves, after the
// Bayesian scheme of Bettens and Collins (J. Chem. Phys. 111, 816 (1999)): how far a point's
// Taylor expansion can be trusted along each coordinate follows from how well it predicts the
// energies of its neighbouring data points. The published equations were not at hand; this is a
// reconstruction of the scheme from its description (docs/architecture.md says what it assumes).
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

}  // namespace quasar::shepard
