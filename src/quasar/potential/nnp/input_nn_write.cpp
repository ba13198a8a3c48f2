// input.nn written from a Model, and the check that n2p2's files can hold a model as it is.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <ostream>

#include "quasar/io/read.hpp"
#include "quasar/io/text.hpp"
#include "quasar/potential/nnp/input_nn_keywords.hpp"
#include "quasar/potential/nnp/model_io.hpp"

namespace quasar::nnp {

namespace detail {

NetworkKeywords network_keywords(const Model& m) {
  NetworkKeywords k;
  if (m.elements.empty()) return k;
  const ElementModel& first = m.elements.front();
  k.widths = first.hidden;
  // The hidden activations most elements share (the first such element's on a tie).
  std::size_t best = 0;
  for (const ElementModel& x : m.elements) {
    std::size_t n = 0;
    for (const ElementModel& y : m.elements) n += y.activations == x.activations;
    if (n > best) best = n, k.activations = x.activations;
  }
  for (std::size_t i = 0; i < m.elements.size(); ++i) {
    const ElementModel& x = m.elements[i];
    const std::string name = "element " + x.symbol;
    if (x.hidden.size() != first.hidden.size())
      k.problem = name + " has " + std::to_string(x.hidden.size()) + " hidden layers, " + first.symbol + " " +
                  std::to_string(first.hidden.size()) + " (n2p2 cannot give elements different numbers of layers)";
    else if (!x.hidden.empty() && x.hidden.back() != first.hidden.back())
      k.problem = name + ": the last hidden layer differs from " + first.symbol + "'s (n2p2 takes it from global_nodes_short only)";
    else if (x.activations.size() != x.hidden.size() + 1)
      k.problem = name + " needs one activation per hidden layer and one for the output layer";
    else if (x.activations.back() != k.activations.back())
      k.problem = name + ": the output activation differs (n2p2 takes it from global_activation_short only)";
    if (!k.problem.empty()) return k;
    if (x.hidden != k.widths) k.own_widths.push_back(static_cast<int>(i));
    if (x.activations != k.activations) k.own_activations.push_back(static_cast<int>(i));
  }
  if (k.own_activations.size() > 1)
    k.problem = "more than one element's hidden activations differ from the others' (n2p2 allows one element_activation_short)";
  return k;
}

}  // namespace detail

namespace {

bool bits_equal(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::string letters(const std::string& activations) {
  std::string s;
  for (char c : activations) s += (s.empty() ? "" : " ") + std::string(1, c);
  return s;
}

std::string words(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

std::string function_line(const Model& m, const SymmetryFunction& f) {
  using detail::number_text;
  auto symbol = [&](int i) { return m.elements[static_cast<std::size_t>(i)].symbol; };
  std::string s = "symfunction_short " + symbol(f.centre) + " " + std::to_string(f.type);
  auto add = [&s](const std::string& w) { s += " " + w; };
  switch (f.type) {
    case 2: add(symbol(f.e1)), add(number_text(f.eta)), add(number_text(f.rs)), add(number_text(f.rc)); break;
    case 3:
    case 9:
      add(symbol(f.e1)), add(symbol(f.e2)), add(number_text(f.eta)), add(number_text(f.lambda));
      add(number_text(f.zeta)), add(number_text(f.rc)), add(number_text(f.rs));
      break;
    case 12: add(number_text(f.eta)), add(number_text(f.rs)), add(number_text(f.rc)); break;
    case 13:
      add(number_text(f.eta)), add(number_text(f.rs)), add(number_text(f.lambda)), add(number_text(f.zeta));
      add(number_text(f.rc));
      break;
    default:
      if (f.type == 20 || f.type == 21 || f.type == 22) add(symbol(f.e1));
      if (f.type == 21 || f.type == 22) add(symbol(f.e2));
      add(number_text(f.rlow)), add(number_text(f.rc));
      if (f.type != 20 && f.type != 23) add(number_text(f.left)), add(number_text(f.right));
      add(compact_subtype(f.core, f.core_alt));
  }
  return s;
}

}  // namespace

std::string model_problem(const Model& m) {
  using detail::number_text;
  const int n = static_cast<int>(m.elements.size());
  if (n == 0) return "the model has no elements";
  for (int i = 0; i < n; ++i) {
    const ElementModel& x = m.elements[static_cast<std::size_t>(i)];
    const int z = detail::atomic_number(x.symbol);
    if (z == 0) return "'" + x.symbol + "' is not an element symbol n2p2 knows (H to No)";
    if (z != x.atomic_number) return "element " + x.symbol + " has atomic number " + std::to_string(x.atomic_number);
    if (i > 0 && !(m.elements[static_cast<std::size_t>(i) - 1].atomic_number < z))
      return "the elements are not in increasing atomic number (n2p2's order)";
    if (!std::isfinite(x.atom_energy)) return "element " + x.symbol + ": atom_energy is not finite";
  }
  const int cutoff = static_cast<int>(m.cutoff);
  if (cutoff < 0 || cutoff > 8) return "unknown cutoff type " + std::to_string(cutoff);
  if (!(m.cutoff_alpha >= 0 && m.cutoff_alpha < 1)) return "the inner cutoff fraction alpha must lie in [0, 1)";
  const int scaling = static_cast<int>(m.scaling);
  if (scaling < 0 || scaling > 4) return "unknown scaling mode";
  if (!std::isfinite(m.scale_min) || !std::isfinite(m.scale_max)) return "scale_min_short or scale_max_short is not finite";
  if (m.normalized) {
    if (!std::isfinite(m.mean_energy)) return "mean_energy is not finite";
    if (!(m.conv_energy > 0 && std::isfinite(m.conv_energy))) return "conv_energy must be positive and finite";
    if (!(m.conv_length > 0 && std::isfinite(m.conv_length))) return "conv_length must be positive and finite";
  } else if (!bits_equal(m.mean_energy, 0) || !bits_equal(m.conv_energy, 1) || !bits_equal(m.conv_length, 1)) {
    return "mean_energy, conv_energy and conv_length are set but the model is not normalized";
  }
  const detail::NetworkKeywords net = detail::network_keywords(m);
  if (!net.problem.empty()) return net.problem;
  const bool any_scaling = std::any_of(m.elements.begin(), m.elements.end(), [](auto& x) { return !x.scaling.empty(); });
  const bool any_weights = std::any_of(m.elements.begin(), m.elements.end(), [](auto& x) { return !x.weights.empty(); });
  const double c = m.normalized ? m.conv_length : 1.0;
  for (int i = 0; i < n; ++i) {
    const ElementModel& x = m.elements[static_cast<std::size_t>(i)];
    const std::string name = "element " + x.symbol;
    if (x.hidden.size() > 100) return name + ": more than 100 hidden layers";
    for (int w : x.hidden)
      if (w < 1 || w > 1000000) return name + ": a hidden layer width outside [1, 1000000]";
    for (char a : x.activations)
      if (std::string("ltsprgcSeh").find(a) == std::string::npos || a == '\0')
        return name + ": unknown activation '" + std::string(1, a) + "'";
    if (x.functions.empty()) return name + " has no symmetry functions";
    for (std::size_t k = 0; k < x.functions.size(); ++k) {
      const SymmetryFunction& f = x.functions[k];
      const std::string fn = name + ", function " + std::to_string(k + 1);
      if (f.centre != i) return fn + ": its centre is another element";
      if (const std::string p = detail::function_problem(f, n); !p.empty()) return fn + ": " + p;
      if (k > 0 && n2p2_before(f, x.functions[k - 1], c))
        return fn + ": not in n2p2's order (sort_symmetry_functions sorts a model)";
    }
    if (any_scaling && x.scaling.size() != x.functions.size())
      return name + ": " + std::to_string(x.scaling.size()) + " scaling rows for " + std::to_string(x.functions.size()) +
             " functions";
    for (std::size_t k = 0; k < x.scaling.size(); ++k)
      if (const std::string p = detail::scaling_problem(x.scaling[k], m.scaling); !p.empty())
        return name + ", scaling row " + std::to_string(k + 1) + ": " + p;
    if (any_weights && x.weights.size() != x.parameter_count())
      return name + ": " + std::to_string(x.weights.size()) + " weights for a network of " +
             std::to_string(x.parameter_count());
    for (double w : x.weights)
      if (!std::isfinite(w)) return name + ": a weight is not finite";
  }
  for (const auto& [key, value] : m.training_keywords) {
    const detail::KeywordInfo k = detail::keyword_info(key);
    if (k.use != detail::KeywordUse::Training || k.name != key)
      return "'" + key + "' is not one of n2p2's training keywords under its main name";
    if (value.first.find_first_of("#!\n\r") != std::string::npos || io::join(io::split_words(value.first)) != value.first)
      return "training keyword '" + key + "': the value '" + value.first + "' is not words separated by single spaces";
    if (key == "conv_charge") {
      double v = 0;
      if (!m.normalized) return "conv_charge needs the model's normalisation (n2p2 refuses it alone)";
      if (!io::parse_finite(value.first, v)) return "conv_charge must be one finite number";
    }
  }
  return "";
}

void write_input_nn(const Model& m, const std::filesystem::path& file) {
  if (const std::string p = model_problem(m); !p.empty()) throw Error("cannot write " + file.string() + ": " + p);
  using detail::number_text;
  const detail::NetworkKeywords net = detail::network_keywords(m);
  io::write_file_atomically(file.string(), [&](std::ostream& o) {
    o << "# A Behler-Parrinello potential in n2p2's format (input.nn), written by Quasar.\n";
    o << "number_of_elements " << m.elements.size() << "\nelements";
    for (const ElementModel& x : m.elements) o << ' ' << x.symbol;
    o << '\n';
    for (const ElementModel& x : m.elements)
      if (!bits_equal(x.atom_energy, 0)) o << "atom_energy " << x.symbol << ' ' << number_text(x.atom_energy) << '\n';
    if (m.normalized)
      o << "mean_energy " << number_text(m.mean_energy) << "\nconv_energy " << number_text(m.conv_energy)
        << "\nconv_length " << number_text(m.conv_length) << '\n';
    o << "cutoff_type " << static_cast<int>(m.cutoff) << ' ' << number_text(m.cutoff_alpha) << '\n';
    if (m.scaling == ScalingMode::Scale || m.scaling == ScalingMode::ScaleCenter) o << "scale_symmetry_functions\n";
    if (m.scaling == ScalingMode::Center || m.scaling == ScalingMode::ScaleCenter) o << "center_symmetry_functions\n";
    if (m.scaling == ScalingMode::ScaleSigma) o << "scale_symmetry_functions_sigma\n";
    o << "scale_min_short " << number_text(m.scale_min) << "\nscale_max_short " << number_text(m.scale_max) << '\n';
    if (m.normalize_nodes) o << "normalize_nodes\n";
    o << "global_hidden_layers_short " << net.widths.size() << '\n';
    if (!net.widths.empty()) o << "global_nodes_short " << words(net.widths) << '\n';
    o << "global_activation_short " << letters(net.activations) << '\n';
    for (int i : net.own_widths)
      o << "element_nodes_short " << m.elements[static_cast<std::size_t>(i)].symbol << ' '
        << words(m.elements[static_cast<std::size_t>(i)].hidden) << '\n';
    for (int i : net.own_activations)
      o << "element_activation_short " << m.elements[static_cast<std::size_t>(i)].symbol << ' '
        << letters(m.elements[static_cast<std::size_t>(i)].activations) << '\n';
    for (const ElementModel& x : m.elements) {
      o << "# " << x.symbol << ": " << x.functions.size() << " symmetry functions in n2p2's order\n";
      for (const SymmetryFunction& f : x.functions) o << function_line(m, f) << '\n';
    }
    if (!m.training_keywords.empty()) o << "# training\n";
    for (const auto& [key, value] : m.training_keywords)
      o << key << (value.first.empty() ? "" : " ") << value.first << '\n';
  });
}

}  // namespace quasar::nnp
