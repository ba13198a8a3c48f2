#pragma once
// A GROW-style growth loop (Collins and co-workers): start from a few data points computed with a
// reference method, run trajectories on the current interpolated surface, choose new points among
// the configurations they visit (h-weight and variance sampling, selection.hpp), compute them with
// the reference (a force field: energy, gradient, and the Hessian by central differences of its
// forces; or an external program such as PySCF: analytic Hessians, external_reference.hpp), add them
// replicated over the permutation group, refresh the confidence lengths and repeat until the RMS
// error on held-out configurations (from trajectories on the reference itself) reaches a target,
// the cross section stops changing, or a point budget or iteration limit is reached.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/potential/force_field.hpp"
#include "quasar/potential/shepard/confidence.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/grow/external_reference.hpp"
#include "quasar/qct/qct.hpp"

namespace quasar::shepard {

struct GrowSettings {
  qct::QctSettings qct;                    // the collision; trajectories = per iteration
  std::vector<std::vector<double>> start;  // the first points' geometries: 3N each (molecule, then the atom)
  std::vector<int> permute;                // atoms (0-based) whose permutations form the group; empty: all identical atoms
  Parameters parameters;
  enum class Confidence { Constant, Bayes, Fitted };
  Confidence lengths = Confidence::Constant;  // every length `confidence`, or from the data (confidence.hpp)
  double confidence = 0.3;                 // 1/Å: the constant lengths, or the data's for a set too small to learn from
  ConfidenceSettings bayes_settings;
  FittedSettings fitted_settings;
  int iterations = 10;
  long max_points = 100;                   // data points (not replicated)
  double target_rms = 0;                   // eV: stop once the held-out RMS error is at most this (0: never)
  double cross_section_tolerance = 0;      // Å^2: stop once sigma changes by less between iterations (0: never)
  int h_weight_points = 5;                 // new points per iteration by each criterion
  int variance_points = 5;
  long candidates = 1000;                  // visited configurations kept per iteration (evenly thinned)
  long held_out = 200;                     // held-out configurations
  long held_out_trajectories = 0;          // trajectories on the reference that give them (0: qct.trajectories)
  double hessian_step = 1e-4;              // Å
  double min_distance = 0.4;               // Å: configurations with two atoms closer are not used
  double max_energy = 50.0;                // eV above the lowest start point: higher new points are skipped
  double rms_window = 1.0;                 // eV above the lowest start point: the held-out RMS also within it
  std::string output;                      // the data set, written after every iteration
};

// [grow] with the [qct] table beside it (every key checked; errors name the file and key).
GrowSettings grow_settings_from_config(const ConfigTable& grow, const ConfigTable& qct);

struct GrowIteration {
  int iteration = 0;
  long points = 0;             // data points when measured
  double rms = 0, max_error = 0;  // eV, over the held-out configurations
  double window_rms = 0;       // eV, over those within rms_window of the lowest start point
  long window_count = 0;       // how many they are
  double median_length = 0;    // 1/Å: the median confidence length when measured
  double leave_one_out_rms = 0;  // eV: the fitted lengths' leave-one-out RMS error (fitted only)
  double length_exponent = 0;  // the fitted lengths' exponent: d_i ~ spacing_i^exponent (confidence.hpp)
  long visited = 0;            // configurations seen by this iteration's trajectories
  long added = 0, skipped = 0; // new points; chosen ones not added (too high, or linear)
  long failed = 0;             // chosen ones the reference could not compute (an SCF that did not converge)
  double new_rms = 0;          // eV: the surface's RMS error at the new points, before they were added
  double cross_section = 0, cross_section_error = 0;  // Å^2, on this iteration's surface
  double seconds = 0;
};

struct GrowResult {
  DataSet set;
  std::vector<GrowIteration> iterations;
  std::string stopped_because;
  std::vector<std::string> failures;  // "iteration I: REASON" for every configuration the reference failed at
};

// The reference method: a force field (Hessians by central differences of its forces; trajectories
// on it give the held-out configurations and the molecule's modes) or an external program
// (analytic Hessians; too costly for trajectories: the held-out error is then measured at each
// iteration's new points before they are added, and the molecule's minimum and modes come from
// Newton steps with the program's Hessians).
struct GrowReference {
  std::optional<ForceField> force_field;
  ExternalReference program;
};

// The reference's energies, gradients and Hessians (central differences of its forces, step h) at
// configurations of the collision system (3N each): one batch of (1 + 6N) frames per call.
std::vector<CartesianPoint> reference_points(ForceField& reference, const qct::QctSettings& qct,
                                             const std::vector<std::vector<double>>& configs, double h, Backend backend);

// The permutations of the listed atoms (every ordering of them, the others fixed), identity first.
std::vector<std::vector<int>> permutations_of(const std::vector<int>& atoms, int n);

GrowResult grow(const GrowSettings& settings, GrowReference reference, Backend backend, std::ostream* progress);
inline GrowResult grow(const GrowSettings& settings, ForceField reference, Backend backend, std::ostream* progress) {
  return grow(settings, GrowReference{std::move(reference), {}}, backend, progress);
}

}  // namespace quasar::shepard
