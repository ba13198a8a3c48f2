// Consistency of a data set, permutation groups, comparison.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "quasar/potential/shepard/dataset.hpp"

namespace quasar::shepard {

const char* weight_kind_name(WeightKind k) { return k == WeightKind::OnePart ? "one-part" : "two-part"; }

std::vector<std::vector<int>> identity_group(int atoms) {
  std::vector<int> id(static_cast<std::size_t>(atoms));
  std::iota(id.begin(), id.end(), 0);
  return {id};
}

std::vector<std::vector<int>> full_permutation_group(const std::vector<std::string>& elements) {
  const int n = static_cast<int>(elements.size());
  std::vector<std::vector<int>> group = identity_group(n);
  // For each element, compose every permutation found so far with each arrangement of its atoms.
  std::map<std::string, std::vector<int>> atoms_of;
  for (int a = 0; a < n; ++a) atoms_of[elements[static_cast<std::size_t>(a)]].push_back(a);
  for (const auto& [element, atoms] : atoms_of) {
    if (atoms.size() < 2) continue;
    std::vector<std::vector<int>> grown;
    std::vector<int> arrangement = atoms;  // sorted: next_permutation visits every order, identity first
    do {
      for (const auto& g : group) {
        std::vector<int> p = g;
        for (std::size_t k = 0; k < atoms.size(); ++k) p[static_cast<std::size_t>(atoms[k])] = arrangement[k];
        grown.push_back(std::move(p));
      }
    } while (std::next_permutation(arrangement.begin(), arrangement.end()));
    group = std::move(grown);
  }
  return group;
}

std::string permutation_problem(const std::vector<int>& p, const std::vector<std::string>& elements) {
  const std::size_t n = elements.size();
  if (p.size() != n) return "it has " + std::to_string(p.size()) + " entries for " + std::to_string(n) + " atoms";
  std::vector<bool> hit(n, false);
  for (std::size_t a = 0; a < n; ++a) {
    const int b = p[a];
    if (b < 0 || static_cast<std::size_t>(b) >= n || hit[static_cast<std::size_t>(b)])
      return "it is not a permutation of the atoms 0.." + std::to_string(n - 1);
    hit[static_cast<std::size_t>(b)] = true;
    if (elements[a] != elements[static_cast<std::size_t>(b)])
      return "it exchanges atoms of different elements (" + elements[a] + " " + std::to_string(a) + " and " +
             elements[static_cast<std::size_t>(b)] + " " + std::to_string(b) + ")";
  }
  return "";
}

std::string permutation_group_problem(const std::vector<std::vector<int>>& group,
                                      const std::vector<std::string>& elements) {
  const std::size_t n = elements.size();
  if (group.empty()) return "the permutation group is empty (it needs at least the identity)";
  std::set<std::vector<int>> seen;
  for (std::size_t g = 0; g < group.size(); ++g) {
    const auto& p = group[g];
    const std::string which = "permutation " + std::to_string(g + 1);
    if (std::string e = permutation_problem(p, elements); !e.empty()) return which + ": " + e;
    if (!seen.insert(p).second) return which + " appears twice";
  }
  if (!seen.count(identity_group(static_cast<int>(n)).front())) return "the permutations do not include the identity";
  // Closure: the data points are replicated over the set, which must be a group for the surface
  // to be invariant under each of its elements.
  std::vector<int> product(n);
  for (const auto& a : group)
    for (const auto& b : group) {
      for (std::size_t k = 0; k < n; ++k) product[k] = a[static_cast<std::size_t>(b[k])];
      if (!seen.count(product)) return "the permutations are not a group (a product of two of them is missing)";
    }
  return "";
}

namespace {

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace

std::string point_problem(const DataSet& s, const DataPoint& d) {
  const std::size_t n = static_cast<std::size_t>(s.atoms()), nb = static_cast<std::size_t>(s.pairs()),
                    ni = static_cast<std::size_t>(s.internal());
  if (d.positions.size() != 3 * n) return "positions: expected " + std::to_string(3 * n) + " numbers";
  if (d.confidence.size() != nb) return "confidence: expected " + std::to_string(nb) + " lengths";
  if (d.u.size() != nb * ni) return "u: expected " + std::to_string(nb) + " x " + std::to_string(ni) + " numbers";
  if (d.gradient.size() != ni) return "gradient: expected " + std::to_string(ni) + " numbers";
  if (d.hessian.size() != ni * ni) return "hessian: expected " + std::to_string(ni) + " x " + std::to_string(ni);
  if (!std::isfinite(d.energy) || !all_finite(d.positions) || !all_finite(d.u) || !all_finite(d.gradient) ||
      !all_finite(d.hessian) || !all_finite(d.confidence))
    return "a number is not finite";
  for (double c : d.confidence)
    if (!(c > 0)) return "confidence lengths must be > 0";
  for (std::size_t k = 0; k < ni; ++k)
    for (std::size_t l = 0; l < k; ++l)
      if (d.hessian[k * ni + l] != d.hessian[l * ni + k]) return "hessian is not symmetric";
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      const double dx = d.positions[3 * a] - d.positions[3 * b], dy = d.positions[3 * a + 1] - d.positions[3 * b + 1],
                   dz = d.positions[3 * a + 2] - d.positions[3 * b + 2];
      if (!(dx * dx + dy * dy + dz * dz > 0)) return "atoms " + std::to_string(a) + " and " + std::to_string(b) + " coincide";
    }
  return "";
}

std::string elements_problem(const std::vector<std::string>& elements) {
  for (std::size_t a = 0; a < elements.size(); ++a) {
    const std::string& e = elements[a];
    const bool word = !e.empty() && std::none_of(e.begin(), e.end(), [](char c) {
      return c == '#' || c == '\0' || std::isspace(static_cast<unsigned char>(c));
    });
    if (!word) return "element " + std::to_string(a + 1) + " ('" + e + "') is not one word (no spaces, no '#')";
  }
  return "";
}

std::string DataSet::problem() const {
  if (atoms() < 3)
    return "needs at least 3 atoms (a diatomic is linear: 3N-5 internal coordinates, which this interpolation does not "
           "handle)";
  if (std::string e = elements_problem(elements); !e.empty()) return e;
  if (masses.size() != elements.size()) return "masses: expected one per atom";
  for (double m : masses)
    if (!(m > 0) || !std::isfinite(m)) return "masses must be finite and > 0";
  const Parameters& pr = parameters;
  if (!(pr.p >= 1) || !std::isfinite(pr.p)) return "p must be finite and >= 1";
  if (pr.weight == WeightKind::TwoPart && (!(pr.q > pr.p) || !std::isfinite(pr.q)))
    return "q must be finite and > p for the two-part weight";
  if (!(pr.wtol >= 0 && pr.wtol < 1)) return "wtol must be in [0, 1)";
  if (std::string g = permutation_group_problem(permutations, elements); !g.empty()) return g;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (std::string p = point_problem(*this, points[i]); !p.empty()) return "point " + std::to_string(i + 1) + ": " + p;
  return "";
}

std::string dataset_difference(const DataSet& a, const DataSet& b) {
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  };
  if (a.elements != b.elements) return "elements";
  if (!same(a.masses, b.masses)) return "masses";
  if (a.permutations != b.permutations) return "permutations";
  if (a.parameters.weight != b.parameters.weight || a.parameters.p != b.parameters.p ||
      a.parameters.q != b.parameters.q || a.parameters.wtol != b.parameters.wtol)
    return "parameters";
  if (a.points.size() != b.points.size()) return "number of points";
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    const DataPoint &x = a.points[i], &y = b.points[i];
    const std::string at = "point " + std::to_string(i + 1) + ": ";
    if (!same(x.positions, y.positions)) return at + "positions";
    if (x.energy != y.energy) return at + "energy";
    if (!same(x.confidence, y.confidence)) return at + "confidence";
    if (!same(x.u, y.u)) return at + "u";
    if (!same(x.gradient, y.gradient)) return at + "gradient";
    if (!same(x.hessian, y.hessian)) return at + "hessian";
  }
  return "";
}

}  // namespace quasar::shepard
