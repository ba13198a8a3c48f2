#pragma once
// Product analysis of atom + molecule trajectories by interatomic distances (fragments: atoms
// joined by chains of distances below a bond distance), the stop test (every two fragments apart
// beyond a distance and receding), and the estimators: reaction probability, cross section
// sigma = pi b_max^2 N_r / N with its binomial standard error, and P(b) in bins of b.
#include <span>
#include <string>
#include <vector>

#include "quasar/core/vec.hpp"

namespace quasar::qct {

// Atoms (indices of the system) in fragments: single linkage at `bond_distance` (Å); fragments
// ordered by their first atom, each fragment's atoms ascending.
std::vector<std::vector<int>> fragments(std::span<const Vec3> positions, double bond_distance);

// Whether the trajectory can stop: at least two fragments, the centres of mass of every two of
// them farther apart than `distance` (Å) and moving apart.
bool fragments_separated(const std::vector<std::vector<int>>& parts, std::span<const Vec3> positions,
                         std::span<const Vec3> velocities, std::span<const double> masses, double distance);

// Names of the outcome: "nonreactive" (the molecule and the atom as they came), "exchange" (the
// atom took the place of an atom of its element, which left), else the products' formulas (Hill
// order: C, H, then alphabetical; fragments largest first, " + " between), e.g. "CH3 + H2".
// `molecule` are the system's molecule atoms, `projectile` the atom; `elements` per system atom.
std::string classify(const std::vector<std::vector<int>>& parts, std::span<const int> molecule, int projectile,
                     std::span<const std::string> elements);
// The formula of atoms of a system (Hill order).
std::string formula(std::span<const int> atoms, std::span<const std::string> elements);

inline constexpr const char* kNonreactive = "nonreactive";
inline constexpr const char* kUnfinished = "unfinished";  // the step limit came first
inline constexpr const char* kFault = "fault";            // the trajectory went non-finite or stopped on a fault

// Whether an outcome is a reaction (anything but the three above).
bool is_reactive(const std::string& outcome);

// A count of N trajectories with impact parameters up to b_max (Å): probability N_r / N, cross
// section pi b_max^2 N_r / N (Å^2) and its standard error pi b_max^2 sqrt(N_r (N - N_r) / N) / N.
struct Estimate {
  long count = 0, trials = 0;
  double probability = 0, probability_error = 0;
  double cross_section = 0, cross_section_error = 0;
};
Estimate estimate(long count, long trials, double b_max);

// P(b) in `bins` equal bins of b over [0, b_max]: per bin the trajectories, the reactive ones, the
// probability and its standard error sqrt(P (1 - P) / n).
struct OpacityBin {
  double b_low = 0, b_high = 0;
  long trials = 0, reactive = 0;
  double probability = 0, error = 0;
};
std::vector<OpacityBin> opacity(std::span<const double> b, std::span<const char> reactive, double b_max, int bins);

}  // namespace quasar::qct
