#include "quasar/potential/nnp/input_nn_keywords.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

namespace quasar::nnp::detail {

int atomic_number(const std::string& symbol) {
  // n2p2's ElementMap: hydrogen to nobelium; the position plus one is the atomic number.
  static constexpr std::array<std::string_view, 102> symbols = {
      "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",  "Cl",
      "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se",
      "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb",
      "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er",
      "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At",
      "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No"};
  for (std::size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i] == symbol) return static_cast<int>(i) + 1;
  return 0;
}

namespace {

constexpr std::string_view kPrediction[] = {
    "number_of_elements", "elements", "atom_energy", "cutoff_type", "symfunction_short", "scale_symmetry_functions",
    "scale_min_short", "scale_max_short", "center_symmetry_functions", "scale_symmetry_functions_sigma",
    "global_hidden_layers_short", "global_nodes_short", "global_activation_short", "element_hidden_layers_short",
    "element_nodes_short", "element_activation_short", "normalize_nodes", "mean_energy", "conv_length", "conv_energy",
    "nnp_type"};

// n2p2's training keywords, and conv_charge, which only charges use (a 2G potential has none) but
// nnp-norm writes beside the other normalisation keywords.
constexpr std::string_view kTraining[] = {
    "random_seed", "test_fraction", "epochs", "normalize_data_set", "use_short_forces", "rmse_threshold",
    "rmse_threshold_energy", "rmse_threshold_force", "rmse_threshold_charge", "rmse_threshold_trials",
    "rmse_threshold_trials_energy", "rmse_threshold_trials_force", "rmse_threshold_trials_charge", "energy_fraction",
    "force_fraction", "force_energy_ratio", "charge_fraction", "use_old_weights_short", "use_old_weights_charge",
    "weights_min", "weights_max", "nguyen_widrow_weights_short", "nguyen_widrow_weights_charge",
    "precondition_weights", "main_error_metric", "write_trainpoints", "write_trainforces", "write_traincharges",
    "write_weights_epoch", "write_neuronstats", "write_trainlog", "repeated_energy_update", "updater_type",
    "parallel_mode", "jacobian_mode", "update_strategy", "selection_mode", "selection_mode_energy",
    "selection_mode_force", "selection_mode_charge", "task_batch_size_energy", "task_batch_size_force",
    "task_batch_size_charge", "gradient_type", "gradient_eta", "gradient_adam_eta", "gradient_adam_beta1",
    "gradient_adam_beta2", "gradient_adam_epsilon", "kalman_type", "kalman_epsilon", "kalman_eta", "kalman_etatau",
    "kalman_etamax", "kalman_q0", "kalman_qtau", "kalman_qmin", "kalman_lambda_short", "kalman_nue_short",
    "memorize_symfunc_results", "force_weight", "conv_charge"};

// The networks and settings of n2p2's 4G-HDNNP (electronegativities, charge equilibration, Ewald
// sums, screening), and the initial hardness of its charge training.
constexpr std::string_view kRefused[] = {
    "global_hidden_layers_electrostatic", "global_nodes_electrostatic", "global_activation_electrostatic",
    "element_hidden_layers_electrostatic", "element_nodes_electrostatic", "element_activation_electrostatic",
    "fixed_gausswidth", "ewald_truncation_error_method", "ewald_prec", "screen_electrostatics", "four_pi_epsilon",
    "initial_hardness"};

// n2p2's alternative names.
const std::map<std::string_view, std::string_view>& alternatives() {
  static const std::map<std::string_view, std::string_view> m = {
      {"nnp_generation", "nnp_type"},
      {"nnp_type_gen", "nnp_type"},
      {"nnp_gen", "nnp_type"},
      {"short_energy_error_threshold", "rmse_threshold_energy"},
      {"short_force_error_threshold", "rmse_threshold_force"},
      {"short_energy_fraction", "energy_fraction"},
      {"short_force_fraction", "force_fraction"},
      {"symfunction", "symfunction_short"}};
  return m;
}

template <std::size_t N>
bool listed(const std::string_view (&list)[N], std::string_view w) {
  for (std::string_view k : list)
    if (k == w) return true;
  return false;
}

}  // namespace

KeywordInfo keyword_info(const std::string& word) {
  KeywordInfo k;
  const auto alt = alternatives().find(word);
  k.name = alt == alternatives().end() ? word : std::string(alt->second);
  if (listed(kPrediction, k.name)) k.use = KeywordUse::Prediction;
  else if (listed(kTraining, k.name)) k.use = KeywordUse::Training;
  else if (listed(kRefused, k.name)) k.use = KeywordUse::Refused;
  // Settings.cpp lets these appear on several lines (and fixed_gausswidth, initial_hardness: refused).
  k.repeatable = k.name == "symfunction_short" || k.name == "atom_energy" || k.name == "element_nodes_short";
  return k;
}

std::string prediction_keyword_list() {
  std::string s;
  for (std::string_view k : kPrediction) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {

// The function with only what its type takes (and where it came from): what input.nn can write.
SymmetryFunction used_parameters(const SymmetryFunction& f) {
  SymmetryFunction u;
  u.type = f.type;
  u.centre = f.centre;
  u.line = f.line;
  const bool one = f.type == 2 || f.type == 20;
  const bool two = f.type == 3 || f.type == 9 || f.type == 21 || f.type == 22;
  if (one || two) u.e1 = f.e1;
  if (two) u.e2 = f.e2;
  u.rc = f.rc;
  if (is_compact_type(f.type)) {
    u.rlow = f.rlow;
    u.core = f.core;
    u.core_alt = f.core_alt;
    if (f.type != 20 && f.type != 23) {
      u.left = f.left;
      u.right = f.right;
    }
  } else {
    u.eta = f.eta;
    u.rs = f.rs;
    if (f.type != 2 && f.type != 12) {
      u.lambda = f.lambda;
      u.zeta = f.zeta;
    }
  }
  return u;
}

bool same_bits(double a, double b) { return std::signbit(a) == std::signbit(b) && (a == b || (a != a && b != b)); }

}  // namespace

std::string function_problem(const SymmetryFunction& f, int n) {
  const int t = f.type;
  if (t != 2 && t != 3 && t != 9 && t != 12 && t != 13 && (t < 20 || t > 25))
    return "unknown symmetry function type " + std::to_string(t) + " (n2p2's are 2, 3, 9, 12, 13, 20, 21, 22, 23, 24, 25)";
  if (f.centre < 0 || f.centre >= n) return "centre element index " + std::to_string(f.centre) + " out of range";
  const SymmetryFunction u = used_parameters(f);
  const bool one = t == 2 || t == 20, two = t == 3 || t == 9 || t == 21 || t == 22;
  if ((one || two) && (f.e1 < 0 || f.e1 >= n)) return "neighbour element index " + std::to_string(f.e1) + " out of range";
  if (two && (f.e2 < 0 || f.e2 >= n)) return "second neighbour element index " + std::to_string(f.e2) + " out of range";
  if (two && f.e1 > f.e2) return "the neighbour elements of an angular function are ordered e1 <= e2 (as n2p2 stores them)";
  for (double v : {f.eta, f.rs, f.rc, f.lambda, f.zeta, f.rlow, f.left, f.right})
    if (!std::isfinite(v)) return "a parameter is not a finite number";
  if (!(f.rc > 0)) return "the cutoff radius rc must be positive, found " + number_text(f.rc);
  if (is_compact_type(t)) {
    if (!(f.rlow < f.rc)) return "the lower radial bound " + number_text(f.rlow) + " must lie below rc " + number_text(f.rc);
    const int core = static_cast<int>(f.core);
    if (core < 1 || core > 5) return "unknown window core";
    if (f.core_alt && f.core == WindowCore::Exp) return "the suffix a exists for the polynomial subtypes p1..p4 only";
    if (t != 20 && t != 23) {
      if (!(f.left < f.right)) return "the left angle " + number_text(f.left) + " must lie below the right angle " + number_text(f.right);
      const double centre = (f.left + f.right) / 2;
      if ((f.left < 0 && centre != 0) || (f.right > 180 && centre != 180))
        return "an angular window reaching beyond [0, 180] degrees must be centred at 0 or 180 (n2p2's rule)";
      if (f.right - f.left > 360) return "an angular window wider than 360 degrees";
    }
  } else {
    if (!(f.eta >= 0)) return "eta must not be negative, found " + number_text(f.eta);
    if (t != 2 && t != 12 && !(f.zeta >= 1)) return "zeta must be at least 1, found " + number_text(f.zeta);
  }
  const bool same = u.e1 == f.e1 && u.e2 == f.e2 && u.core == f.core && u.core_alt == f.core_alt &&
                    same_bits(u.eta, f.eta) && same_bits(u.rs, f.rs) && same_bits(u.lambda, f.lambda) &&
                    same_bits(u.zeta, f.zeta) && same_bits(u.rlow, f.rlow) && same_bits(u.left, f.left) &&
                    same_bits(u.right, f.right);
  if (!same) return "a parameter that type " + std::to_string(t) + " does not take is set (input.nn could not write it)";
  return "";
}

std::string scaling_problem(const Scaling& s, ScalingMode mode) {
  for (double v : {s.min, s.max, s.mean, s.sigma})
    if (!std::isfinite(v)) return "a value is not a finite number";
  if (!(s.min <= s.max)) return "the minimum " + number_text(s.min) + " exceeds the maximum " + number_text(s.max);
  if (!(s.sigma >= 0)) return "sigma " + number_text(s.sigma) + " is negative";
  if ((mode == ScalingMode::Scale || mode == ScalingMode::ScaleCenter) && !(s.max > s.min))
    return "the minimum equals the maximum: scaling by max - min would divide by zero";
  if (mode == ScalingMode::ScaleSigma && !(s.sigma > 0)) return "sigma is 0: scaling by sigma would divide by zero";
  return "";
}

}  // namespace quasar::nnp::detail
