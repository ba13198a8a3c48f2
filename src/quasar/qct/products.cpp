#include "quasar/qct/products.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "quasar/core/error.hpp"

namespace quasar::qct {

namespace {
constexpr double kPi = 3.141592653589793;

int find(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}
}  // namespace

std::vector<std::vector<int>> fragments(std::span<const Vec3> positions, double bond_distance) {
  const int n = static_cast<int>(positions.size());
  std::vector<int> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  const double limit = bond_distance * bond_distance;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (norm2(positions[j] - positions[i]) < limit) parent[find(parent, j)] = find(parent, i);
  std::vector<std::vector<int>> out;
  std::vector<int> slot(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    const int root = find(parent, i);
    if (slot[root] < 0) {
      slot[root] = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[static_cast<std::size_t>(slot[root])].push_back(i);
  }
  return out;
}

bool fragments_separated(const std::vector<std::vector<int>>& parts, std::span<const Vec3> positions,
                         std::span<const Vec3> velocities, std::span<const double> masses, double distance) {
  if (parts.size() < 2) return false;
  std::vector<Vec3> r, v;
  for (const auto& part : parts) {
    Vec3 cr{}, cv{};
    double m = 0;
    for (int i : part) {
      cr += masses[i] * positions[i];
      cv += masses[i] * velocities[i];
      m += masses[i];
    }
    r.push_back(cr * (1 / m));
    v.push_back(cv * (1 / m));
  }
  for (std::size_t a = 0; a < r.size(); ++a)
    for (std::size_t b = a + 1; b < r.size(); ++b) {
      const Vec3 d = r[b] - r[a];
      if (!(norm2(d) > distance * distance) || !(dot(d, v[b] - v[a]) > 0)) return false;
    }
  return true;
}

std::string formula(std::span<const int> atoms, std::span<const std::string> elements) {
  std::map<std::string, int> count;
  for (int i : atoms) ++count[elements[i]];
  const bool carbon = count.count("C") > 0;
  std::string out;
  auto add = [&](const std::string& e) {
    out += e;
    if (count[e] > 1) out += std::to_string(count[e]);
  };
  if (carbon) {
    add("C");
    if (count.count("H")) add("H");
  }
  for (const auto& [e, c] : count)
    if (!carbon || (e != "C" && e != "H")) add(e);
  return out;
}

std::string classify(const std::vector<std::vector<int>>& parts, std::span<const int> molecule, int projectile,
                     std::span<const std::string> elements) {
  std::vector<int> reactant(molecule.begin(), molecule.end());
  std::sort(reactant.begin(), reactant.end());
  if (parts.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const auto& whole = parts[static_cast<std::size_t>(k)];
      const auto& lone = parts[static_cast<std::size_t>(1 - k)];
      if (lone.size() != 1) continue;
      if (lone[0] == projectile && whole == reactant) return kNonreactive;
      // The atom joined the molecule in place of one of its own element, which left.
      const int left = lone[0];
      if (left != projectile && elements[left] == elements[projectile] &&
          std::find(reactant.begin(), reactant.end(), left) != reactant.end()) {
        std::vector<int> swapped = reactant;
        *std::find(swapped.begin(), swapped.end(), left) = projectile;
        std::sort(swapped.begin(), swapped.end());
        if (whole == swapped) return "exchange";
      }
    }
  }
  std::vector<std::pair<std::size_t, std::string>> names;
  for (const auto& part : parts) names.emplace_back(part.size(), formula(part, elements));
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string out;
  for (const auto& [size, name] : names) out += (out.empty() ? "" : " + ") + name;
  return out;
}

bool is_reactive(const std::string& outcome) {
  return outcome != kNonreactive && outcome != kUnfinished && outcome != kFault;
}

Estimate estimate(long count, long trials, double b_max) {
  if (trials < 1 || count < 0 || count > trials) throw Error("qct: a count of " + std::to_string(count) + " in " +
                                                            std::to_string(trials) + " trajectories");
  Estimate e;
  e.count = count;
  e.trials = trials;
  const double n = static_cast<double>(trials), k = static_cast<double>(count);
  e.probability = k / n;
  e.probability_error = std::sqrt(k * (n - k) / n) / n;
  const double area = kPi * b_max * b_max;
  e.cross_section = area * e.probability;
  e.cross_section_error = area * e.probability_error;
  return e;
}

std::vector<OpacityBin> opacity(std::span<const double> b, std::span<const char> reactive, double b_max, int bins) {
  if (bins < 1) throw Error("qct: P(b) needs at least one bin");
  std::vector<OpacityBin> out(static_cast<std::size_t>(bins));
  const double width = b_max / bins;
  for (int k = 0; k < bins; ++k) {
    out[static_cast<std::size_t>(k)].b_low = k * width;
    out[static_cast<std::size_t>(k)].b_high = (k + 1) * width;
  }
  for (std::size_t t = 0; t < b.size(); ++t) {
    const int k = std::clamp(static_cast<int>(b[t] / width), 0, bins - 1);
    ++out[static_cast<std::size_t>(k)].trials;
    if (reactive[t]) ++out[static_cast<std::size_t>(k)].reactive;
  }
  for (OpacityBin& o : out) {
    if (o.trials == 0) continue;
    o.probability = static_cast<double>(o.reactive) / static_cast<double>(o.trials);
    o.error = std::sqrt(o.probability * (1 - o.probability) / static_cast<double>(o.trials));
  }
  return out;
}

}  // namespace quasar::qct
