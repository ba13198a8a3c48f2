#include "quasar/potential/nnp/model.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <numeric>

namespace quasar::nnp {

double Model::max_cutoff() const {
  double rc = 0;
  for (const ElementModel& e : elements)
    for (const SymmetryFunction& f : e.functions) rc = std::max(rc, f.rc);
  return rc;
}

bool is_compact_type(int type) { return type >= 20 && type <= 25; }

std::string compact_subtype(WindowCore core, bool alt) {
  if (core == WindowCore::Exp) return "e";
  return "p" + std::to_string(static_cast<int>(core)) + (alt ? "a" : "");
}

namespace {

// Compares key by key as n2p2's operator< does: the first key that differs decides.
class KeyOrder {
 public:
  template <class T>
  KeyOrder& then(const T& a, const T& b) {
    if (result_ == 0) result_ = a < b ? -1 : (b < a ? 1 : 0);
    return *this;
  }
  bool before() const { return result_ < 0; }

 private:
  int result_ = 0;
};

}  // namespace

bool n2p2_before(const SymmetryFunction& a, const SymmetryFunction& b, double c) {
  KeyOrder k;
  k.then(a.centre, b.centre).then(a.type, b.type);
  if (a.type != b.type) return k.before();
  // n2p2 sorts after converting to normalised units: eta /= c * c, lengths *= c.
  const double c2 = c * c;
  switch (a.type) {
    case 2:
    case 12:
      k.then(a.rc * c, b.rc * c).then(a.eta / c2, b.eta / c2).then(a.rs * c, b.rs * c);
      if (a.type == 2) k.then(a.e1, b.e1);
      break;
    case 3:
    case 9:
    case 13:
      k.then(a.rc * c, b.rc * c).then(a.eta / c2, b.eta / c2).then(a.rs * c, b.rs * c);
      k.then(a.zeta, b.zeta).then(a.lambda, b.lambda);
      if (a.type != 13) k.then(a.e1, b.e1).then(a.e2, b.e2);
      break;
    default: {  // compact types
      k.then(compact_subtype(a.core, a.core_alt), compact_subtype(b.core, b.core_alt));
      const bool pair = a.type == 20 || a.type == 21 || a.type == 22;
      const bool triple = a.type == 21 || a.type == 22;
      if (pair) k.then(a.e1, b.e1);
      if (triple) k.then(a.e2, b.e2);
      k.then(a.rc * c, b.rc * c).then(a.rlow * c, b.rlow * c);
      if (a.type != 20 && a.type != 23) k.then(a.left, b.left).then(a.right, b.right);
    }
  }
  return k.before();
}

std::vector<std::size_t> ElementModel::layer_sizes() const {
  std::vector<std::size_t> sizes{functions.size()};
  for (int h : hidden) sizes.push_back(static_cast<std::size_t>(h));
  sizes.push_back(1);
  return sizes;
}

std::size_t ElementModel::parameter_count() const {
  const auto sizes = layer_sizes();
  std::size_t n = 0;
  for (std::size_t l = 1; l < sizes.size(); ++l) n += sizes[l - 1] * sizes[l] + sizes[l];
  return n;
}

void sort_symmetry_functions(Model& model) {
  const double c = model.normalized ? model.conv_length : 1.0;
  for (ElementModel& e : model.elements) {
    std::vector<std::size_t> order(e.functions.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
      return n2p2_before(e.functions[i], e.functions[j], c);
    });
    std::vector<SymmetryFunction> functions;
    std::vector<Scaling> scaling;
    for (std::size_t i : order) {
      functions.push_back(e.functions[i]);
      if (e.scaling.size() == e.functions.size()) scaling.push_back(e.scaling[i]);
    }
    e.functions = std::move(functions);
    if (e.scaling.size() == e.functions.size()) e.scaling = std::move(scaling);
  }
}

namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string model_difference(const Model& a, const Model& b) {
  auto number = [](const std::string& what, double x, double y) -> std::string {
    return same_bits(x, y) ? "" : what + ": " + number_text(x) + " against " + number_text(y);
  };
  auto integer = [](const std::string& what, long x, long y) -> std::string {
    return x == y ? "" : what + ": " + std::to_string(x) + " against " + std::to_string(y);
  };
  std::string d;
  auto first = [&d](const std::string& s) {
    if (d.empty()) d = s;
  };
  first(integer("elements", static_cast<long>(a.elements.size()), static_cast<long>(b.elements.size())));
  first(integer("cutoff_type", static_cast<int>(a.cutoff), static_cast<int>(b.cutoff)));
  first(number("cutoff alpha", a.cutoff_alpha, b.cutoff_alpha));
  first(integer("scaling mode", static_cast<int>(a.scaling), static_cast<int>(b.scaling)));
  first(number("scale_min_short", a.scale_min, b.scale_min));
  first(number("scale_max_short", a.scale_max, b.scale_max));
  first(integer("normalize_nodes", a.normalize_nodes, b.normalize_nodes));
  first(integer("normalisation", a.normalized, b.normalized));
  first(number("mean_energy", a.mean_energy, b.mean_energy));
  first(number("conv_energy", a.conv_energy, b.conv_energy));
  first(number("conv_length", a.conv_length, b.conv_length));
  first(number("length unit", a.length_unit, b.length_unit));
  first(number("energy unit", a.energy_unit, b.energy_unit));
  if (!d.empty()) return d;
  if (a.training_keywords.size() != b.training_keywords.size())
    return integer("training keywords", static_cast<long>(a.training_keywords.size()),
                   static_cast<long>(b.training_keywords.size()));
  for (auto i = a.training_keywords.begin(), j = b.training_keywords.begin(); i != a.training_keywords.end(); ++i, ++j)
    if (i->first != j->first || i->second.first != j->second.first)
      return "training keyword '" + i->first + " " + i->second.first + "' against '" + j->first + " " + j->second.first + "'";
  for (std::size_t k = 0; k < a.elements.size(); ++k) {
    const ElementModel& x = a.elements[k];
    const ElementModel& y = b.elements[k];
    const std::string el = "element " + std::to_string(k + 1) + " (" + x.symbol + ")";
    if (x.symbol != y.symbol) return el + ": symbol " + x.symbol + " against " + y.symbol;
    first(integer(el + ": atomic number", x.atomic_number, y.atomic_number));
    first(number(el + ": atom_energy", x.atom_energy, y.atom_energy));
    first(x.activations == y.activations ? "" : el + ": activations " + x.activations + " against " + y.activations);
    first(x.hidden == y.hidden ? "" : el + ": hidden layer widths differ");
    first(integer(el + ": functions", static_cast<long>(x.functions.size()), static_cast<long>(y.functions.size())));
    first(integer(el + ": scaling rows", static_cast<long>(x.scaling.size()), static_cast<long>(y.scaling.size())));
    first(integer(el + ": weights", static_cast<long>(x.weights.size()), static_cast<long>(y.weights.size())));
    if (!d.empty()) return d;
    for (std::size_t i = 0; i < x.functions.size(); ++i) {
      const SymmetryFunction& f = x.functions[i];
      const SymmetryFunction& g = y.functions[i];
      const std::string fn = el + ", function " + std::to_string(i + 1);
      first(integer(fn + ": type", f.type, g.type));
      first(integer(fn + ": centre", f.centre, g.centre));
      first(integer(fn + ": e1", f.e1, g.e1));
      first(integer(fn + ": e2", f.e2, g.e2));
      first(number(fn + ": eta", f.eta, g.eta));
      first(number(fn + ": rs", f.rs, g.rs));
      first(number(fn + ": rc", f.rc, g.rc));
      first(number(fn + ": lambda", f.lambda, g.lambda));
      first(number(fn + ": zeta", f.zeta, g.zeta));
      first(number(fn + ": rlow", f.rlow, g.rlow));
      first(number(fn + ": left", f.left, g.left));
      first(number(fn + ": right", f.right, g.right));
      first(integer(fn + ": subtype", static_cast<int>(f.core) * 2 + f.core_alt, static_cast<int>(g.core) * 2 + g.core_alt));
      if (!d.empty()) return d;
    }
    for (std::size_t i = 0; i < x.scaling.size(); ++i) {
      const std::string row = el + ", scaling row " + std::to_string(i + 1);
      first(number(row + ": min", x.scaling[i].min, y.scaling[i].min));
      first(number(row + ": max", x.scaling[i].max, y.scaling[i].max));
      first(number(row + ": mean", x.scaling[i].mean, y.scaling[i].mean));
      first(number(row + ": sigma", x.scaling[i].sigma, y.scaling[i].sigma));
      if (!d.empty()) return d;
    }
    for (std::size_t i = 0; i < x.weights.size() && d.empty(); ++i)
      first(number(el + ", weight " + std::to_string(i + 1), x.weights[i], y.weights[i]));
    if (!d.empty()) return d;
  }
  return d;
}

}  // namespace quasar::nnp
