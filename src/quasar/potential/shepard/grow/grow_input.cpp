// The [grow] table of `quasar shepard grow` (grow.hpp).
#include <algorithm>
#include <cmath>

#include "quasar/potential/shepard/grow/grow.hpp"

namespace quasar::shepard {

GrowSettings grow_settings_from_config(const ConfigTable& t, const ConfigTable& qct_table) {
  t.allow_only({"start", "permute", "weight", "p", "q", "wtol", "confidence", "length", "confidence_energy",
                "confidence_neighbours", "prior_weight", "fit_neighbours", "fit_spacing", "fit_window", "fit_pair_exponent", "iterations", "max_points", "target_rms_meV",
                "cross_section_tolerance", "h_weight_points", "variance_points", "candidates", "held_out",
                "held_out_trajectories", "hessian_step", "min_distance", "max_energy", "rms_window", "output"});
  GrowSettings s;
  s.qct = qct::qct_settings_from_config(qct_table);
  const std::size_t n = s.qct.molecule.size() + 1, n3 = 3 * n;
  const std::vector<double> start = t.get_doubles("start");
  if (start.empty() || start.size() % n3 != 0)
    t.fail("start", "expected geometries of " + std::to_string(n) + " atoms (the molecule, then the atom): " +
                        std::to_string(n3) + " numbers (Å) each, not " + std::to_string(start.size()));
  for (std::size_t k = 0; k < start.size(); k += n3) s.start.emplace_back(start.begin() + static_cast<std::ptrdiff_t>(k), start.begin() + static_cast<std::ptrdiff_t>(k + n3));
  if (t.has("permute")) {
    std::vector<std::string> elements = s.qct.molecule;
    elements.push_back(s.qct.projectile);
    for (double a : t.get_doubles("permute")) {
      if (a != std::floor(a) || a < 0 || a >= static_cast<double>(n))
        t.fail("permute", "atom indices are whole numbers from 0 to " + std::to_string(n - 1));
      s.permute.push_back(static_cast<int>(a));
    }
    for (int a : s.permute)
      if (elements[static_cast<std::size_t>(a)] != elements[static_cast<std::size_t>(s.permute.front())])
        t.fail("permute", "the permuted atoms must be of one element");
    std::vector<int> sorted = s.permute;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) t.fail("permute", "an atom is listed twice");
  }
  const std::string weight = t.get_string("weight", "two-part");
  if (weight == "one-part") s.parameters.weight = WeightKind::OnePart;
  else if (weight != "two-part") t.fail("weight", "takes \"two-part\" or \"one-part\", not \"" + weight + "\"");
  s.parameters.p = t.get_double("p", 2);
  s.parameters.q = t.get_double("q", 12);
  s.parameters.wtol = t.get_double("wtol", 1e-8);
  if (!(s.parameters.p >= 1)) t.fail("p", "must be >= 1");
  if (s.parameters.weight == WeightKind::TwoPart && !(s.parameters.q > s.parameters.p)) t.fail("q", "must exceed p");
  if (!(s.parameters.wtol >= 0 && s.parameters.wtol < 1)) t.fail("wtol", "must lie in [0, 1)");
  s.confidence = t.get_double("length", 0.3);
  if (!(s.confidence > 0)) t.fail("length", "must be positive (1/Å)");
  const std::string confidence = t.get_string("confidence", "constant");
  if (confidence == "bayes") s.lengths = GrowSettings::Confidence::Bayes;
  else if (confidence == "fitted") s.lengths = GrowSettings::Confidence::Fitted;
  else if (confidence != "constant")
    t.fail("confidence", "takes \"fitted\", \"bayes\" or \"constant\", not \"" + confidence + "\"");
  s.bayes_settings.energy = t.get_double("confidence_energy", 0.01);
  if (!(s.bayes_settings.energy > 0)) t.fail("confidence_energy", "must be positive (eV)");
  s.bayes_settings.neighbours = static_cast<int>(t.get_int("confidence_neighbours", 0, 0, 100000));
  s.bayes_settings.prior_weight = t.get_double("prior_weight", 1.0);
  if (!(s.bayes_settings.prior_weight > 0)) t.fail("prior_weight", "must be positive");
  s.fitted_settings.neighbours = static_cast<int>(t.get_int("fit_neighbours", s.fitted_settings.neighbours, 1, 1000000));
  s.fitted_settings.spacing = static_cast<int>(t.get_int("fit_spacing", s.fitted_settings.spacing, 1, 1000000));
  s.fitted_settings.window = t.get_double("fit_window", s.fitted_settings.window);
  if (!(s.fitted_settings.window >= 0)) t.fail("fit_window", "must be >= 0 (eV above the set's lowest energy; 0: every point)");
  s.fitted_settings.pair_exponent = t.get_double("fit_pair_exponent", s.fitted_settings.pair_exponent);
  if (!(s.fitted_settings.pair_exponent >= 0 && s.fitted_settings.pair_exponent <= 4))
    t.fail("fit_pair_exponent", "must lie in [0, 4] (0: the same length along every pair)");
  s.iterations = static_cast<int>(t.get_int("iterations", 10, 0, 1000000));
  s.max_points = t.get_int("max_points", 100, 1, 10000000);
  if (s.max_points < static_cast<long>(s.start.size()))
    t.fail("max_points", "is below the number of start points (" + std::to_string(s.start.size()) + ")");
  s.target_rms = t.get_double("target_rms_meV", 0) * 1e-3;
  if (s.target_rms < 0) t.fail("target_rms_meV", "must be >= 0 (0: no target)");
  s.cross_section_tolerance = t.get_double("cross_section_tolerance", 0);
  if (s.cross_section_tolerance < 0) t.fail("cross_section_tolerance", "must be >= 0 (Å^2; 0: no test)");
  s.h_weight_points = static_cast<int>(t.get_int("h_weight_points", 5, 0, 1000000));
  s.variance_points = static_cast<int>(t.get_int("variance_points", 5, 0, 1000000));
  if (s.h_weight_points + s.variance_points == 0) t.fail("variance_points", "h_weight_points and variance_points are both 0");
  s.candidates = t.get_int("candidates", 1000, 1, 100000);
  s.held_out = t.get_int("held_out", 200, 1, 10000000);
  s.held_out_trajectories = t.get_int("held_out_trajectories", 0, 0);
  s.hessian_step = t.get_double("hessian_step", 1e-4);
  if (!(s.hessian_step > 0 && s.hessian_step < 0.1)) t.fail("hessian_step", "must lie in (0, 0.1) Å");
  s.min_distance = t.get_double("min_distance", 0.4);
  if (!(s.min_distance > 0)) t.fail("min_distance", "must be positive (Å)");
  s.max_energy = t.get_double("max_energy", 50.0);
  if (!(s.max_energy > 0)) t.fail("max_energy", "must be positive (eV above the lowest start point)");
  s.rms_window = t.get_double("rms_window", 1.0);
  if (!(s.rms_window > 0)) t.fail("rms_window", "must be positive (eV above the lowest start point)");
  s.output = t.get_string("output", "");
  return s;
}

}  // namespace quasar::shepard
